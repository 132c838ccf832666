package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Workload groups, as Kratix has them: a folder of a request's files placed on its own, by its
// own destination selectors (the promise's are not added), on one destination chosen by
// rendezvous hashing of the request and the folder, and kept there as the request's own
// destination is. The files outside every group are the default group, placed as the request
// always is. Each group is a placement.RequestPlan of its own; their operations are merged into
// the request's (placement.MergeOps), so that each store location still gets one write.

// groupPlacementAttrTypes is one value of group_placements: a placement's attributes, and the
// destination it is on.
var groupPlacementAttrTypes = map[string]attr.Type{
	"destination": types.StringType, "store": types.StringType, "location": types.StringType, "root": types.StringType,
	"misscheduled": types.BoolType, "files": types.MapType{ElemType: types.StringType},
}

func groupsSchema() schema.MapNestedAttribute {
	selectors := schedattr.PlacementSelectorsSchema("Where the group goes: the destinations of the promise's pool that these select. " +
		"The promise's `destination_selectors` are not added, as Kratix does for a `directory` entry of " +
		"`destination-selectors.yaml`.")
	selectors.Optional, selectors.Required = false, true
	return schema.MapNestedAttribute{
		Optional: true,
		MarkdownDescription: "Kratix's workload groups: each key names a folder of the request's files (`db` for `db/app.yaml`), " +
			"whose files are placed on their own, on one destination chosen by rendezvous hashing of the request and the " +
			"folder among those its `destination_selectors` select, and kept there. The files outside every group are the " +
			"default group, placed as `destination` says (absent when no file is left for it). A key must name one folder " +
			"directly in the request's files, holding at least one of them.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{"destination_selectors": selectors}},
	}
}

func groupPlacementsSchema() schema.MapAttribute {
	return schema.MapAttribute{
		Computed: true, ElementType: types.ObjectType{AttrTypes: groupPlacementAttrTypes},
		MarkdownDescription: "Per workload group (by its folder, cleaned: `db`), known during plan: the `destination` it goes " +
			"to (null while none matches), its `store`, `location` and `root` there, `misscheduled`, and the `files` it keeps " +
			"(store path to MD5, as `written_files`). Null without `groups`.",
	}
}

// groupConfig is one configured group: its key as written, and its selectors.
type groupConfig struct {
	key       string
	selectors types.List
}

// groupConfigs are the configured groups by cleaned folder; nil without groups. ok is false while
// the map is unknown.
func (m requestModel) groupConfigs() (map[string]groupConfig, bool) {
	if m.Groups.IsUnknown() {
		return nil, false
	}
	if m.Groups.IsNull() {
		return nil, true
	}
	out := map[string]groupConfig{}
	for key, v := range m.Groups.Elements() {
		obj, ok := v.(types.Object)
		if !ok || obj.IsUnknown() {
			return nil, false
		}
		sel, _ := obj.Attributes()["destination_selectors"].(types.List)
		out[layout.CleanGroupDir(key)] = groupConfig{key: key, selectors: sel}
	}
	return out, true
}

// groupPriors is what state says each group held: its destination and its record, by cleaned
// folder.
func (m requestModel) groupPriors(ctx context.Context) map[string]groupPrior {
	out := map[string]groupPrior{}
	if m.GroupPlacements.IsNull() || m.GroupPlacements.IsUnknown() || m.promise() == nil {
		return out
	}
	for dir, v := range m.GroupPlacements.Elements() {
		obj, ok := v.(types.Object)
		if !ok || obj.IsNull() {
			continue
		}
		a := obj.Attributes()
		dest := storeconfig.Attr[types.String](a, "destination").ValueString()
		if dest == "" {
			continue
		}
		p := placement.Prior{Record: placement.Record{Store: storeconfig.Attr[types.String](a, "store").ValueString(), Location: storeconfig.Attr[types.String](a, "location").ValueString(),
			Root: storeconfig.Attr[types.String](a, "root").ValueString(), Misscheduled: storeconfig.Attr[types.Bool](a, "misscheduled").ValueBool(), Files: tfvalue.StringMap(ctx, storeconfig.Attr[types.Map](a, "files"))}}
		if mem := findMember(m.destinations(), dest); mem != nil {
			p.Member = &mem.Member
			p.Record.Store = mem.Member.Store
		}
		out[dir] = groupPrior{dest: dest, prior: p}
	}
	return out
}

type groupPrior struct {
	dest  string
	prior placement.Prior
}

// checkGroups refuses, at groups[key], group names that are not one folder of the request's
// files (layout.ValidateGroups), two keys for one folder ("db" and "db/") included: it looks at
// the keys as written, which groupConfigs folds by folder.
func (m requestModel) checkGroups(files []string) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, e := range layout.ValidateGroups(tfvalue.SortedKeys(m.Groups.Elements()), files) {
		at := path.Root("groups").AtMapKey(e.Key)
		diags.AddAttributeError(at, "Invalid Workload Group", fmt.Sprintf("%s: %s", at, e.Message))
	}
	return diags
}

// splitGroups splits a request's files into its default group and its other groups (by cleaned
// folder), each with its own splitByKind documents.
func splitGroups(out layout.Request, dirs []string) (layout.Request, map[string]layout.Request, error) {
	parts, err := layout.SplitGroups(out.Files, dirs)
	if err != nil {
		return layout.Request{}, nil, err
	}
	of := func(dir string) layout.Request {
		r := layout.Request{Promise: out.Promise, Namespace: out.Namespace, Name: out.Name, Pipeline: out.Pipeline, Files: parts[dir]}
		if r.Files == nil {
			r.Files = map[string][]byte{}
		}
		if !layout.IsDefaultGroup(dir) {
			r.Group = dir
		}
		r.CRDs, r.Others = splitKinds(r.Files)
		return r
	}
	groups := map[string]layout.Request{}
	for _, d := range dirs {
		dir := layout.CleanGroupDir(d)
		groups[dir] = of(dir)
	}
	return of(layout.DefaultGroupDir), groups, nil
}

// splitKinds is the documents of files split for splitByKind, serialised; nil for none.
func splitKinds(files map[string][]byte) (crds, others []byte) {
	var all []manifest.Document
	for _, rel := range tfvalue.SortedKeys(files) {
		docs, err := manifest.Parse(files[rel])
		if err != nil {
			continue // files need not be YAML; only splitByKind looks inside them
		}
		all = append(all, docs...)
	}
	c, o := manifest.Split(all)
	if len(c) > 0 {
		crds = manifest.Canonical(c)
	}
	if len(o) > 0 {
		others = manifest.Canonical(o)
	}
	return crds, others
}

// requestPlan is a request's plan: its default group's (whose Ops are every group's, merged),
// and each other group's.
type requestPlan struct {
	placement.RequestPlan
	// groups are the configured groups' plans, gone the removals of groups state holds and the
	// configuration no longer has, both by cleaned folder.
	groups map[string]placement.RequestPlan
	gone   map[string]placement.Plan
}

// planGroups plans each configured group, and the removal of each group that state holds and the
// configuration no longer names.
func (m requestModel) planGroups(ctx context.Context, state requestModel, groups map[string]groupConfig, parts map[string]layout.Request,
	tolerations []scheduling.Toleration, pool []placement.Member) (map[string]placement.RequestPlan, map[string]placement.Plan, diag.Diagnostics) {
	var diags diag.Diagnostics
	planned, gone := map[string]placement.RequestPlan{}, map[string]placement.Plan{}
	priors := state.groupPriors(ctx)
	for _, dir := range tfvalue.SortedKeys(groups) {
		g := groups[dir]
		at := path.Root("groups").AtMapKey(g.key).AtName("destination_selectors")
		entries, ok, d := schedattr.SelectorsFromList(ctx, at, g.selectors)
		if diags.Append(d...); !ok || d.HasError() {
			return nil, nil, diags
		}
		in := placement.Request{Key: placement.GroupKey(m.key(), dir), Selector: scheduling.Merge(entries), Tolerations: tolerations,
			Output: parts[dir], Pool: pool, HashKey: m.hashKey()}
		if before, held := priors[dir]; held {
			in.PriorDestination, in.Prior = before.dest, &before.prior
		}
		p, _, err := placement.PlanRequest(in)
		if err != nil {
			diags.Append(cannotLayOut("Request", err))
			return nil, nil, diags
		}
		for i, w := range p.Warnings {
			p.Warnings[i] = fmt.Sprintf("Workload group %q: %s", dir, w)
		}
		planned[dir] = p
	}
	for _, dir := range tfvalue.SortedKeys(priors) {
		if _, kept := groups[dir]; kept {
			continue
		}
		before := priors[dir]
		out := layout.Request{Promise: m.promiseName(), Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString(),
			Pipeline: m.Pipeline.ValueString(), Group: dir}
		p, err := placement.RemoveRequest(out, map[string]placement.Prior{before.dest: before.prior})
		if err != nil {
			diags.Append(cannotLayOut("Request", err))
			return nil, nil, diags
		}
		gone[dir] = p
	}
	return planned, gone, diags
}

// merged is the request's plan with every group's operations and warnings in its own.
func merged(main placement.RequestPlan, groups map[string]placement.RequestPlan, gone map[string]placement.Plan) requestPlan {
	p := requestPlan{RequestPlan: main, groups: groups, gone: gone}
	if len(groups) == 0 && len(gone) == 0 {
		return p
	}
	lists := [][]placement.Op{main.Ops}
	for _, dir := range tfvalue.SortedKeys(groups) {
		g := groups[dir]
		lists = append(lists, g.Ops)
		p.Warnings = append(p.Warnings, g.Warnings...)
		for _, d := range g.Leaving {
			if !slices.Contains(p.Leaving, d) {
				p.Leaving = append(p.Leaving, d)
			}
		}
	}
	for _, dir := range tfvalue.SortedKeys(gone) {
		lists = append(lists, gone[dir].Ops)
	}
	p.Ops = placement.MergeOps(lists...)
	return p
}

// allRecords is every placement's record for the owners check: the default group's by
// destination, each other group's by "<destination>#<group>" (see destinationOf).
func (p requestPlan) allRecords() map[string]placement.Record {
	out := map[string]placement.Record{}
	for dest, r := range p.Records {
		out[dest] = r
	}
	for dir, g := range p.groups {
		for dest, r := range g.Records {
			out[dest+"#"+dir] = r
		}
	}
	return out
}

// priorGroupRecords is what state says each group held, keyed as allRecords keys them.
func (m requestModel) priorGroupRecords(ctx context.Context) map[string]placement.Record {
	out := map[string]placement.Record{}
	for dir, g := range m.groupPriors(ctx) {
		out[g.dest+"#"+dir] = g.prior.Record
	}
	return out
}

// groupLosses is what the guard counts of the groups: each group's moves and deletions, and
// every file of a group that is no longer configured.
func (p requestPlan) groupLosses(ctx context.Context, state requestModel, pool []placement.Member) []placement.Loss {
	var out []placement.Loss
	priors := state.groupPriors(ctx)
	for _, dir := range tfvalue.SortedKeys(p.groups) {
		if before, held := priors[dir]; held {
			out = append(out, placement.RequestLosses(before.dest, &before.prior, p.groups[dir], pool)...)
		}
	}
	for _, dir := range tfvalue.SortedKeys(p.gone) {
		before := priors[dir]
		out = append(out, placement.Losses(map[string]placement.Prior{before.dest: before.prior}, nil, pool)...)
	}
	return out
}

// recordGroups sets group_placements from the groups' outcomes once the operations at the failed
// locations were not made: a group whose write failed keeps what it held, and a group no longer
// configured whose removal failed stays listed, so that the next plan tries again.
func (m *requestModel) recordGroups(p requestPlan, failed map[string]bool) {
	if len(p.groups) == 0 && len(p.gone) == 0 {
		m.GroupPlacements = types.MapNull(types.ObjectType{AttrTypes: groupPlacementAttrTypes})
		return
	}
	elems := map[string]attr.Value{}
	for dir, g := range p.groups {
		o := g.Settle(failed)
		dest, rec, ok := firstRecord(g, o)
		elems[dir] = groupPlacementValue(dest, rec, ok)
	}
	for dir, g := range p.gone {
		o := g.Settle(failed)
		for _, dest := range tfvalue.SortedKeys(o.Records) {
			elems[dir] = groupPlacementValue(dest, o.Records[dest], true)
		}
	}
	if len(elems) == 0 { // the last groups removed: null, as without groups
		m.GroupPlacements = types.MapNull(types.ObjectType{AttrTypes: groupPlacementAttrTypes})
		return
	}
	m.GroupPlacements = types.MapValueMust(types.ObjectType{AttrTypes: groupPlacementAttrTypes}, elems)
}

// firstRecord is the destination a single placement holds after its outcome: the one it was on
// when a move did not finish, the one chosen otherwise.
func firstRecord(p placement.RequestPlan, o placement.Outcome) (string, placement.Record, bool) {
	if rec, unfinished := o.Records[p.MovedFrom]; unfinished && p.MovedFrom != "" {
		return p.MovedFrom, rec, true
	}
	if p.Chosen != nil {
		if rec, ok := o.Records[p.Chosen.Name]; ok {
			return p.Chosen.Name, rec, true
		}
	}
	for _, dest := range tfvalue.SortedKeys(o.Records) {
		return dest, o.Records[dest], true
	}
	return "", placement.Record{}, false
}

func groupPlacementValue(dest string, r placement.Record, ok bool) attr.Value {
	if !ok {
		return types.ObjectValueMust(groupPlacementAttrTypes, map[string]attr.Value{
			"destination": types.StringNull(), "store": types.StringNull(), "location": types.StringNull(), "root": types.StringNull(),
			"misscheduled": types.BoolValue(false), "files": tfvalue.StringMapValue(map[string]string{}),
		})
	}
	return types.ObjectValueMust(groupPlacementAttrTypes, map[string]attr.Value{
		"destination": types.StringValue(dest), "store": types.StringValue(r.Store), "location": types.StringValue(r.Location),
		"root": types.StringValue(r.Root), "misscheduled": types.BoolValue(r.Misscheduled), "files": tfvalue.StringMapValue(r.Files),
	})
}

// chosenNames are the destinations the plan writes to: the default group's and every group's.
func (p requestPlan) chosenNames() []string {
	var out []string
	for _, m := range p.All {
		out = append(out, m.Name)
	}
	for _, dir := range tfvalue.SortedKeys(p.groups) {
		if c := p.groups[dir].Chosen; c != nil && !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// readGroups refreshes what each workload group holds on its destination (see Read). ok is false
// when a store could not be read.
func (r *requestResource) readGroups(ctx context.Context, state *requestModel, priors map[string]groupPrior, parts map[string]layout.Request, diags *diag.Diagnostics) bool {
	elems := maps.Clone(state.GroupPlacements.Elements())
	for _, dir := range tfvalue.SortedKeys(priors) {
		g := priors[dir]
		mem := findMember(state.destinations(), g.dest)
		if g.prior.Member == nil || mem == nil {
			continue
		}
		part, ok := parts[dir]
		if !ok {
			part = layout.Request{Promise: state.promiseName(), Namespace: state.Namespace.ValueString(), Name: state.Name.ValueString(),
				Pipeline: state.Pipeline.ValueString(), Group: dir}
		}
		part.Kept = tfvalue.SortedKeys(g.prior.Record.Files)
		f, err := layout.RequestFiles(g.prior.Member.Target, part)
		if err != nil {
			continue
		}
		found := r.data.readRefresh(ctx, "Request", fmt.Sprintf("Request %s (workload group %q)", state.id(), dir),
			map[string]observed{g.dest: {member: *mem, files: f, record: g.prior.Record, hashKey: state.hashKey()}}, diags)
		if diags.HasError() {
			return false
		}
		if rec, ok := found[g.dest]; ok {
			now := g.prior.Record
			now.Files = rec.Files
			elems[dir] = groupPlacementValue(g.dest, now, true)
		}
	}
	state.GroupPlacements = types.MapValueMust(types.ObjectType{AttrTypes: groupPlacementAttrTypes}, elems)
	return true
}

// groupsHolding are the folders of groups that hold at least one of files.
func groupsHolding(groups map[string]groupConfig, files map[string][]byte) []string {
	var out []string
	for _, dir := range tfvalue.SortedKeys(groups) {
		for name := range files {
			if strings.HasPrefix(name, dir+"/") {
				out = append(out, dir)
				break
			}
		}
	}
	return out
}

// heldAfter lists, sorted, the destinations holding a part of the request once the plan is
// made: its default group's and its workload groups'.
func (p requestPlan) heldAfter() []string {
	set := map[string]bool{}
	for dest := range p.Records {
		set[dest] = true
	}
	for _, g := range p.groups {
		for dest := range g.Records {
			set[dest] = true
		}
	}
	return tfvalue.SortedKeys(set)
}

// written says which destinations the plan changes the files of (see rewritten), state holding
// what before says, leaving out those at the failed locations (nil: none failed).
func (p requestPlan) written(ctx context.Context, state requestModel, failed map[string]bool) map[string]bool {
	before := state.priorRecords(ctx)
	maps.Copy(before, state.priorGroupRecords(ctx))
	return rewritten(before, p.allRecords(), p.Ops, failed)
}
