package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// poolMemberModel is a destination as promises, requests and the placement data source receive
// it: `destinations = values(kratix_destination.workers)`. Its attributes are a subset of
// kratix_destination's, so the resources convert; the destination's own computed attributes are
// dropped and recomputed here.
type poolMemberModel struct {
	InstanceID         types.String `tfsdk:"instance_id"`
	Name               types.String `tfsdk:"name"`
	Labels             types.Map    `tfsdk:"labels"`
	StateStore         types.Object `tfsdk:"state_store"`
	Path               types.String `tfsdk:"path"`
	StrictMatchLabels  types.Bool   `tfsdk:"strict_match_labels"`
	Taints             types.List   `tfsdk:"taints"`
	Weight             types.Int64  `tfsdk:"weight"`
	FilepathMode       types.String `tfsdk:"filepath_mode"`
	AggregatedFilename types.String `tfsdk:"aggregated_filename"`
}

// The pool stays a list of nested attributes, each optional, although the framework walks such
// lists node by node on every request: a destination shared by several workspaces is written as
// an object literal there, without the attributes it does not need, which a list of objects
// would refuse.
func poolSchema(description string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Required:            true,
		MarkdownDescription: description,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			// Optional here, checked in poolFromModel: Terraform validates a list built from resources
			// ([kratix_destination.a]) before their values are known, and would call them missing.
			"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Destination name (required)."},
			// Not used for scheduling: it is new each time the destination is created, so the
			// resources on a replaced destination update in the same apply and write their files
			// again after its cleanup emptied the folder.
			"instance_id": schema.StringAttribute{Optional: true, MarkdownDescription: "See kratix_destination: " +
				"new each time the destination is created, so that the resources on a replaced destination write their " +
				"files again in the same apply."},
			"labels": schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Destination labels; a null value is no label."},
			"state_store": schema.SingleNestedAttribute{
				Optional: true, MarkdownDescription: "The destination's store (required).", Attributes: storeconfig.RefAttributes(),
			},
			"path":                schema.StringAttribute{Optional: true, MarkdownDescription: "The destination's path in its store (required)."},
			"strict_match_labels": schema.BoolAttribute{Optional: true, MarkdownDescription: "See kratix_destination."},
			"taints":              schedattr.TaintsAttribute("See kratix_destination.", false),
			"weight":              schedattr.WeightAttribute("See kratix_destination; 1 when unset.", false),
			"filepath_mode":       schema.StringAttribute{Optional: true, MarkdownDescription: "See kratix_destination; `nestedByMetadata` when unset."},
			"aggregated_filename": schema.StringAttribute{Optional: true, MarkdownDescription: "See kratix_destination; `aggregated.yaml` when unset."},
		}},
	}
}

// poolMember is a destination of a pool, in domain terms, with the store object to reach it.
type poolMember struct {
	placement.Member
	Store storeconfig.Ref
}

// newPoolMember is a destination as the placement engine sees it, in the folder root of its
// store ref; an empty mode is nestedByMetadata.
func newPoolMember(ref storeconfig.Ref, d scheduling.Destination, root, mode, aggregatedFilename string) poolMember {
	if mode == "" {
		mode = string(layout.ModeNestedByMetadata)
	}
	return poolMember{
		Member: placement.Member{
			Destination: d,
			Store:       ref.Name.ValueString(),
			Location:    ref.Place(),
			Target: layout.Target{
				Destination: d.Name, Mode: layout.Mode(mode), StorePath: placement.CleanStorePath(ref.Path.ValueString()),
				Root: root, AggregatedFilename: aggregatedFilename,
			},
		},
		Store: ref,
	}
}

// poolFromList converts a pool attribute and checks it (see poolFromModel). ok is false while
// the list, or anything in it, is unknown: `destinations = module.x.destinations` before the
// module's resources exist is unknown as a whole.
func poolFromList(at path.Path, list types.List) (pool []poolMember, ok bool, diags diag.Diagnostics) {
	models, known := poolModelsFromList(list)
	if !known {
		return nil, false, nil
	}
	return poolFromModel(at, models)
}

// poolFromModel converts a pool and checks it: duplicate names and two destinations whose
// folders are equal or nested (whatever their stores are called) are errors, attached to the
// offending element. ok is false while any of it is unknown.
func poolFromModel(at path.Path, models []poolMemberModel) (pool []poolMember, ok bool, diags diag.Diagnostics) {
	names := map[string]int{}
	var index []int
	for i, m := range models {
		el := at.AtListIndex(i)
		if m.Name.IsUnknown() || m.Labels.IsUnknown() || m.Path.IsUnknown() || m.StrictMatchLabels.IsUnknown() ||
			m.FilepathMode.IsUnknown() || m.AggregatedFilename.IsUnknown() {
			return nil, false, diags
		}
		if m.StateStore.IsUnknown() {
			return nil, false, diags
		}
		if m.Name.IsNull() || m.Path.IsNull() || m.StateStore.IsNull() {
			diags.Append(incompleteDestination(el, "name, path and state_store"))
			continue
		}
		ref, known := storeconfig.FromObject(m.StateStore)
		if !known {
			return nil, false, diags
		}
		labels, known := schedattr.LabelsFromMap(m.Labels)
		if !known {
			return nil, false, diags
		}
		taints, known := schedattr.TaintsFromList(m.Taints)
		if !known {
			return nil, false, diags
		}
		weight, known := schedattr.WeightOf(m.Weight)
		if !known {
			return nil, false, diags
		}
		root, err := layout.Root(ref.Path.ValueString(), m.Path.ValueString())
		if err != nil {
			diags.Append(invalidPath(el.AtName("path"), m.Name.ValueString(), err))
			continue
		}
		name := m.Name.ValueString()
		if _, dup := names[name]; dup {
			diags.Append(duplicateDestination(el.AtName("name"), name))
			continue
		}
		names[name] = i
		member := newPoolMember(ref, scheduling.Destination{Name: name, Labels: labels, StrictMatchLabels: m.StrictMatchLabels.ValueBool(),
			Taints: taints, Weight: weight},
			root, m.FilepathMode.ValueString(), m.AggregatedFilename.ValueString())
		member.Instance = m.InstanceID.ValueString() // "" while unknown: a replacement's
		pool = append(pool, member)
		index = append(index, i)
	}
	diags.Append(overlappingFolders(at, pool, index)...)
	return pool, !diags.HasError(), diags
}

// poolModelsFromList reads a pool attribute's elements. known is false while the list or an
// element is unknown; a null element reads as the zero model (poolFromModel reports it).
func poolModelsFromList(list types.List) (out []poolMemberModel, known bool) {
	if list.IsUnknown() {
		return nil, false
	}
	elems := list.Elements()
	out = make([]poolMemberModel, 0, len(elems))
	for _, e := range elems {
		if e.IsUnknown() {
			return nil, false
		}
		obj, isObject := e.(types.Object)
		if !isObject || obj.IsNull() {
			out = append(out, poolMemberModel{})
			continue
		}
		a := obj.Attributes()
		out = append(out, poolMemberModel{
			InstanceID:         storeconfig.Attr[types.String](a, "instance_id"),
			Name:               storeconfig.Attr[types.String](a, "name"),
			Labels:             storeconfig.Attr[types.Map](a, "labels"),
			StateStore:         storeconfig.Attr[types.Object](a, "state_store"),
			Path:               storeconfig.Attr[types.String](a, "path"),
			StrictMatchLabels:  storeconfig.Attr[types.Bool](a, "strict_match_labels"),
			Taints:             storeconfig.Attr[types.List](a, "taints"),
			Weight:             storeconfig.Attr[types.Int64](a, "weight"),
			FilepathMode:       storeconfig.Attr[types.String](a, "filepath_mode"),
			AggregatedFilename: storeconfig.Attr[types.String](a, "aggregated_filename"),
		})
	}
	return out, true
}

// destinationFolder is a member's folder with its mode, which says whether it may hold others
// (layout.Holds).
func destinationFolder(m poolMember) layout.Folder {
	return layout.Folder{Location: m.Location.String(), Root: m.Target.Root, Mode: m.Target.Mode,
		AggregatedFilename: m.Target.AggregatedFilename}
}

// overlappingFolders refuses two destinations whose folders are equal, or nested when the outer
// one may not hold the inner (layout.Conflict): one would write into, clean up or prune the
// other's files. Store resources are compared by location, so two store resources for one bucket
// or branch are one store.
func overlappingFolders(at path.Path, pool []poolMember, index []int) diag.Diagnostics {
	var diags diag.Diagnostics
	folders := make([]layout.Folder, len(pool))
	for i, m := range pool {
		folders[i] = destinationFolder(m)
	}
	for _, o := range layout.FindOverlaps(folders) {
		a, b := pool[o.I], pool[o.J]
		el := at.AtListIndex(index[o.J]).AtName("path")
		how := "is inside the folder of"
		switch {
		case o.Equal:
			how = "is the same folder as that of"
		case len(b.Target.Root) < len(a.Target.Root):
			how = "contains the folder of"
		}
		diags.AddAttributeError(el, "Overlapping Destination Folders",
			fmt.Sprintf("%s: destination %q writes to folder %q of %s, which %s destination %q (at index %d, store %q). "+
				"Each destination needs a folder of its own, neither equal to nor inside another's, %s; give it another path.",
				el, b.Name, b.Target.Root, b.Location, how, a.Name, index[o.I], a.Member.Store, holdRule(a.Target, b.Target, o.Equal)))
	}
	return diags
}

// holdRule says when one of two nested destinations may hold the other (layout.Holds), and why
// these two may not.
func holdRule(a, b layout.Target, equal bool) string {
	rule := "unless the outer one is in filepath mode none or aggregatedYAML, which write only files they name " +
		"(nestedByMetadata and splitByKind own whole folders), and the inner one is not where the outer one writes itself " +
		"(.kratix, .kratix-aggregates, its canaries, its aggregate file)"
	if equal {
		return "and no two share one; nested ones are allowed " + rule
	}
	outer := a
	if len(b.Root) < len(a.Root) {
		outer = b
	}
	if layout.HoldsOthers(outer.Mode) {
		return rule + "; here the inner one is where the outer one writes itself"
	}
	return rule + fmt.Sprintf(" (here it is in mode %s)", outer.Mode)
}

// claimFolders holds the destinations one resource sees to the rule overlappingFolders holds a
// pool to, across every resource this provider process plans (layout.Claims): a destination at
// a repository's root in one promise's pool and another destination of that repository in a
// second promise's pool are refused as they are in one pool. by names the resource; at gives
// the attribute of each member's path. Called from ModifyPlan only, with known members: the
// claims are those of the plan, not of state.
func (d *providerData) claimFolders(by string, at func(i int) path.Path, members []poolMember) diag.Diagnostics {
	var diags diag.Diagnostics
	if d == nil || len(members) == 0 {
		return diags
	}
	claims := make([]layout.Claim, len(members))
	for i, m := range members {
		claims[i] = layout.Claim{Destination: m.Name, Folder: destinationFolder(m)}
	}
	for _, c := range d.folders.Add(by, claims) {
		m := members[c.At]
		el := at(c.At)
		how := "is inside the folder of"
		switch {
		case c.Equal:
			how = "is the same folder as that of"
		case len(m.Target.Root) < len(c.Other.Folder.Root):
			how = "contains the folder of"
		}
		diags.AddAttributeError(el, "Overlapping Destination Folders",
			fmt.Sprintf("%s: destination %q (%s) writes to folder %q of %s, which %s destination %q, planned by %s in the same plan. "+
				"Each destination needs a folder of its own, neither equal to nor inside another's, whichever promises, requests "+
				"and stores list them, %s: one would write into, clean up or prune the other's files. Give one of them another "+
				"path (see the guide \"Moving from Kratix\").",
				el, m.Name, by, m.Target.Root, m.Location, how, c.Other.Destination, c.OtherBy,
				holdRule(layout.Target{Mode: c.Other.Folder.Mode, Root: c.Other.Folder.Root}, m.Target, c.Equal)))
	}
	return diags
}

// mapKnown says whether a map and every value in it are known.
func mapKnown(m types.Map) bool {
	if m.IsUnknown() {
		return false
	}
	for _, v := range m.Elements() {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// lenientPool converts a recorded pool by name, keeping what converts: state was valid when it
// was written.
func lenientPool(list types.List) map[string]poolMember {
	out := map[string]poolMember{}
	models, _ := poolModelsFromList(list)
	for i := range models {
		pool, _, _ := poolFromModel(path.Root("destinations"), models[i:i+1])
		for _, m := range pool {
			out[m.Name] = m
		}
	}
	return out
}

func members(pool []poolMember) []placement.Member {
	out := make([]placement.Member, len(pool))
	for i, m := range pool {
		out[i] = m.Member
	}
	return out
}

// checkPoolCredentials finds credential mistakes of every store of a pool during plan, once per
// store location.
func (d *providerData) checkPoolCredentials(pool []poolMember, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	checked := map[string]bool{}
	for i, m := range pool {
		if key := m.Store.Location(); !checked[key] {
			checked[key] = true
			diags.Append(d.checkCredentials(m.Store, at.AtListIndex(i).AtName("state_store"))...)
		}
	}
	return diags
}

// poolElementType is the type of one destination of a pool attribute.
func poolElementType() types.ObjectType {
	obj, _ := poolSchema("").NestedObject.Type().(types.ObjectType) // a nested object's type is always one
	return types.ObjectType{AttrTypes: obj.AttrTypes}
}

// leftBehindMembers decodes the destinations a promise or request kept of its unfinished moves
// (left_behind.go); one that no longer decodes (a provider whose pool
// schema changed since) is left out.
func leftBehindMembers(ctx context.Context, l privstate.LeftBehind) map[string]poolMember {
	out := map[string]poolMember{}
	typ := poolElementType()
	for dest, raw := range l {
		v, err := tfserver.DecodeValue(raw, typ.TerraformType(ctx))
		if err != nil {
			continue
		}
		obj, err := typ.ValueFromTerraform(ctx, v)
		if err != nil {
			continue
		}
		list, d := types.ListValue(typ, []attr.Value{obj})
		if d.HasError() {
			continue
		}
		if m, ok := lenientPool(list)[dest]; ok {
			out[dest] = m
		}
	}
	return out
}

// destroyLosses is what each destination loses when a resource that held priors is destroyed:
// every placement is removed. pool is the pool the resource last saw (its state's), so that a
// destination it no longer knew is left alone here as in any plan.
func destroyLosses(pool map[string]poolMember, priors ...map[string]placement.Prior) []placement.Loss {
	members := make([]placement.Member, 0, len(pool))
	for _, name := range tfvalue.SortedKeys(pool) {
		members = append(members, pool[name].Member)
	}
	var out []placement.Loss
	for _, p := range priors {
		out = append(out, placement.Losses(p, nil, members)...)
	}
	return out
}
