package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// promiseRefModel is what a request receives of its promise (`promise = kratix_promise.jenkins`).
// The lists may be unknown at plan, and the whole object too (see requestModel.promise).
type promiseRefModel struct {
	Name                 types.String `tfsdk:"name"`
	DestinationSelectors types.List   `tfsdk:"destination_selectors"`
	Destinations         types.List   `tfsdk:"destinations"`
}

type requestModel struct {
	ID                   types.String       `tfsdk:"id"`
	Promise              types.Object       `tfsdk:"promise"` // promiseRefModel; unknown when chosen by a condition known after apply
	Name                 types.String       `tfsdk:"name"`
	Namespace            types.String       `tfsdk:"namespace"`
	Pipeline             types.String       `tfsdk:"pipeline"`
	Documents            manifestattr.Value `tfsdk:"documents"`
	Files                types.Map          `tfsdk:"files"`
	DestinationSelectors types.List         `tfsdk:"destination_selectors"`
	Tolerations          types.List         `tfsdk:"tolerations"`
	Replicas             types.Int64        `tfsdk:"replicas"`
	Spread               types.Object       `tfsdk:"spread"` // {topology_key}
	Destination          types.String       `tfsdk:"destination"`
	Placed               types.List         `tfsdk:"destinations"`
	Placements           types.Map          `tfsdk:"placements"`       // of placementAttrTypes; null for one placement
	Groups               types.Map          `tfsdk:"groups"`           // of {destination_selectors}
	GroupPlacements      types.Map          `tfsdk:"group_placements"` // of groupPlacementAttrTypes; null without groups
	Misscheduled         types.Bool         `tfsdk:"misscheduled"`
	Location             types.String       `tfsdk:"location"`
	Root                 types.String       `tfsdk:"root"`
	WrittenFiles         types.Map          `tfsdk:"written_files"`
	DocumentsWO          types.String       `tfsdk:"documents_wo"`
	FilesWO              types.Map          `tfsdk:"files_wo"`
	ContentWOVersion     types.Int64        `tfsdk:"content_wo_version"`
	Guard                types.Object       `tfsdk:"guard"`   // guardattr.Model
	Observe              types.Object       `tfsdk:"observe"` // observeModel; see observe.go
	Health               types.Map          `tfsdk:"health"`  // of healthAttrTypes; null without observe

	// secret is the provider's content_hash_key when the content is write-only (see
	// request_write_only.go); never stored.
	secret []byte

	Timeouts timeouts.Value `tfsdk:"timeouts"`

	// left are the destinations as they were for placements a move left behind, read from
	// private state (left_behind.go); never in state.
	left map[string]poolMember
	// imported is set, on the plan an import's first apply makes, before that apply forgets the
	// import: its writes take the placements over on purpose (placement.Stake.TakeOver).
	imported bool
}

// memberFor is the destination a placement recorded as rec was made on: the one a move left it
// on (see left_behind.go) while the record is still there, else the one of the request's pool.
func (m requestModel) memberFor(dest string, rec placement.Record) *poolMember {
	if mem, ok := m.left[dest]; ok && placement.RecordedAt(rec, mem.Member) {
		return &mem
	}
	return findMember(m.destinations(), dest)
}

// id is the request's identity as users read and type it, <promise>/<namespace>/<name>: its id,
// its import id, and its name in every message and commit message.
func (m requestModel) id() string {
	return placement.RequestID(m.promiseName(), m.Namespace.ValueString(), m.Name.ValueString())
}

// key is what the request's destination is chosen by and its keyed hashes and guard
// acknowledgements are bound to (placement.RequestKey); never shown.
func (m requestModel) key() string {
	return placement.RequestKey(m.promiseName(), m.Namespace.ValueString(), m.Name.ValueString())
}

// maxReplicas is the most destinations one request may be written to.
const maxReplicas = 100

// multi reports whether the configuration asks for several placements (replicas or spread), whose
// state is kept in placements.
func (m requestModel) multi() bool { return !m.Replicas.IsNull() || !m.Spread.IsNull() }

// spreadKey is spread's topology_key; "" without spread. ok is false while it is unknown.
func (m requestModel) spreadKey() (string, bool) {
	if m.Spread.IsUnknown() {
		return "", false
	}
	if m.Spread.IsNull() {
		return "", true
	}
	k, ok := m.Spread.Attributes()["topology_key"].(types.String)
	if !ok || k.IsUnknown() {
		return "", false
	}
	return k.ValueString(), true
}

// promise is the request's promise; nil while it is null or unknown.
func (m requestModel) promise() *promiseRefModel {
	if m.Promise.IsNull() || m.Promise.IsUnknown() {
		return nil
	}
	// Read attribute by attribute: Object.As converts the whole object, its pool included, to
	// Terraform's types and back, and the request asks for its promise's name many times a plan.
	attrs := m.Promise.Attributes()
	name, ok1 := attrs["name"].(types.String)
	selectors, ok2 := attrs["destination_selectors"].(types.List)
	destinations, ok3 := attrs["destinations"].(types.List)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	return &promiseRefModel{Name: name, DestinationSelectors: selectors, Destinations: destinations}
}

// promiseName is the promise's name; "" while the promise is not known.
func (m requestModel) promiseName() string {
	if p := m.promise(); p != nil {
		return p.Name.ValueString()
	}
	return ""
}

// destinations is the promise's pool, as the request received it.
func (m requestModel) destinations() types.List {
	if p := m.promise(); p != nil {
		return p.Destinations
	}
	return types.ListNull(types.ObjectType{})
}

// plan runs the placement engine on the configuration, given what state says the request held.
// ok is false while some input is unknown.
func (m requestModel) plan(ctx context.Context, state requestModel) (requestPlan, []poolMember, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	promise := m.promise()
	if promise == nil || promise.Name.IsUnknown() || m.Name.IsUnknown() || m.Namespace.IsUnknown() ||
		m.Pipeline.IsUnknown() || m.Documents.IsUnknown() || !mapKnown(m.Files) ||
		m.DocumentsWO.IsUnknown() || !mapKnown(m.FilesWO) || (m.writeOnly() && m.secret == nil) {
		return requestPlan{}, nil, false, diags
	}
	promiseEntries, okP, d := schedattr.SelectorsFromList(ctx, path.Root("promise").AtName("destination_selectors"), promise.DestinationSelectors)
	diags.Append(d...)
	own, okR, d := schedattr.SelectorsFromList(ctx, path.Root("destination_selectors"), m.DestinationSelectors)
	diags.Append(d...)
	pool, okPool, d := poolFromList(path.Root("promise").AtName("destinations"), promise.Destinations)
	diags.Append(d...)
	tolerations, okTol := schedattr.TolerationsFromList(m.Tolerations)
	spreadKey, okSpread := m.spreadKey()
	groups, okGroups := m.groupConfigs()
	if !okP || !okR || !okPool || !okTol || !okSpread || !okGroups || m.Replicas.IsUnknown() || diags.HasError() {
		return requestPlan{}, nil, false, diags
	}
	if d := m.checkFileKeys(ctx); d.HasError() {
		diags.Append(d...)
		return requestPlan{}, nil, false, diags
	}
	out, err := m.output(ctx)
	if err != nil {
		diags.AddAttributeError(path.Root("files"), "Invalid Files", err.Error())
		return requestPlan{}, nil, false, diags
	}
	var parts map[string]layout.Request
	if len(groups) > 0 {
		if d := m.checkGroups(tfvalue.SortedKeys(out.Files)); d.HasError() {
			diags.Append(d...)
			return requestPlan{}, nil, false, diags
		}
		if out, parts, err = splitGroups(out, tfvalue.SortedKeys(groups)); err != nil {
			diags.AddAttributeError(path.Root("groups"), "Invalid Workload Group", err.Error())
			return requestPlan{}, nil, false, diags
		}
	}
	in := placement.Request{
		Key: m.key(), PromiseSelector: scheduling.Merge(promiseEntries), Selector: scheduling.Merge(own), Tolerations: tolerations,
		Output: out, Pool: members(pool), HashKey: m.hashKey(), Replicas: int(m.Replicas.ValueInt64()), SpreadKey: spreadKey,
	}
	if pr, ok := state.prior(ctx); ok {
		in.PriorDestination = state.Destination.ValueString()
		in.Prior = &pr
	}
	in.OtherPriors = state.otherPriors(ctx)
	in.PriorOrder = tfvalue.StringListOf(ctx, state.Placed)
	var p placement.RequestPlan
	if len(groups) > 0 && len(out.Files) == 0 {
		// Every file is in a group: Kratix leaves the default group out, and so does this.
		removal, err := placement.RemoveRequest(out, state.allPriors(ctx))
		if err != nil {
			diags.Append(cannotLayOut("Request", err))
			return requestPlan{}, nil, false, diags
		}
		p = placement.RequestPlan{Plan: removal}
	} else if p, _, err = placement.PlanRequest(in); err != nil {
		diags.Append(cannotLayOut("Request", err))
		return requestPlan{}, nil, false, diags
	}
	planned, gone, d := m.planGroups(ctx, state, groups, parts, tolerations, members(pool))
	if diags.Append(d...); d.HasError() {
		return requestPlan{}, nil, false, diags
	}
	return merged(p, planned, gone), pool, true, diags
}

// prior is what state says the request held, and its destination as the request saw it then.
func (m requestModel) prior(ctx context.Context) (placement.Prior, bool) {
	if m.promise() == nil || m.Destination.IsNull() || m.Destination.IsUnknown() {
		return placement.Prior{}, false
	}
	dest := m.Destination.ValueString()
	p := placement.Prior{Record: placement.Record{
		Location: m.Location.ValueString(), Root: m.Root.ValueString(), Misscheduled: m.Misscheduled.ValueBool(),
		Files: tfvalue.StringMap(ctx, m.WrittenFiles),
	}}
	if mem := m.memberFor(dest, p.Record); mem != nil {
		p.Member = &mem.Member
		p.Record.Store = mem.Member.Store
	}
	return p, true
}

// otherPriors is what state says the request held on destinations other than its first (with
// replicas), by destination.
func (m requestModel) otherPriors(ctx context.Context) map[string]placement.Prior {
	if m.promise() == nil || m.Placements.IsNull() || m.Placements.IsUnknown() {
		return nil
	}
	out := map[string]placement.Prior{}
	for dest, rec := range recordsFromModel(ctx, m.Placements) {
		if dest == m.Destination.ValueString() {
			continue
		}
		p := placement.Prior{Record: rec}
		if mem := m.memberFor(dest, rec); mem != nil {
			p.Member = &mem.Member
			p.Record.Store = mem.Member.Store
		}
		out[dest] = p
	}
	return out
}

// allPriors is what state says the request held, by destination.
func (m requestModel) allPriors(ctx context.Context) map[string]placement.Prior {
	out := m.otherPriors(ctx)
	if out == nil {
		out = map[string]placement.Prior{}
	}
	if pr, ok := m.prior(ctx); ok {
		out[m.Destination.ValueString()] = pr
	}
	return out
}

func (m requestModel) refs() storeRefs {
	refs := storeRefs{}
	dests := append([]string{m.Destination.ValueString()}, tfvalue.SortedKeys(m.otherPriors(context.Background()))...)
	for _, g := range m.groupPriors(context.Background()) {
		dests = append(dests, g.dest)
	}
	for _, dest := range dests {
		if mem := findMember(m.destinations(), dest); mem != nil {
			refs.add(*mem)
		}
	}
	for _, dest := range tfvalue.SortedKeys(m.left) {
		refs.add(m.left[dest])
	}
	return refs
}

// checkFileKeys refuses, during plan and with the key's attribute path, file keys that are not a
// file, leave the folder, name one file twice, or reach what the request does not own (index
// files, canaries, other placements' files). documents counts as the file <name>.yaml.
func (m requestModel) checkFileKeys(ctx context.Context) diag.Diagnostics {
	var diags diag.Diagnostics
	files, filesWO := tfvalue.StringMap(ctx, m.Files), tfvalue.StringMap(ctx, m.FilesWO)
	keys := append(tfvalue.SortedKeys(files), tfvalue.SortedKeys(filesWO)...)
	if !m.Documents.IsNull() || !m.DocumentsWO.IsNull() {
		keys = append(keys, m.Name.ValueString()+".yaml")
	}
	for _, e := range layout.CheckRequestFiles(keys) {
		at := path.Root("files").AtMapKey(e.Key)
		if _, given := files[e.Key]; !given {
			at = path.Root("documents")
		}
		if _, given := filesWO[e.Key]; given {
			at = path.Root("files_wo").AtMapKey(e.Key)
		} else if !m.DocumentsWO.IsNull() && at.Equal(path.Root("documents")) {
			at = path.Root("documents_wo")
		}
		diags.AddAttributeError(at, "Invalid File Key", fmt.Sprintf("%s: %s", at, e.Message))
	}
	return diags
}

// output is the request's files as a pipeline would leave them.
func (m requestModel) output(ctx context.Context) (layout.Request, error) {
	req := layout.Request{
		Promise: m.promiseName(), Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString(),
		Pipeline: m.Pipeline.ValueString(), Files: map[string][]byte{},
	}
	for attr, files := range map[string]types.Map{"files": m.Files, "files_wo": m.FilesWO} {
		for rel, content := range tfvalue.StringMap(ctx, files) {
			clean, err := layout.NormaliseFileKey(rel)
			if err != nil {
				return req, fmt.Errorf("%s[%q]: %w", attr, rel, err)
			}
			req.Files[clean] = []byte(content)
		}
	}
	var all []manifest.Document
	if !m.Documents.IsNull() {
		docs, err := manifest.Parse([]byte(m.Documents.ValueString()))
		if err != nil {
			return req, err // reported by the attribute's validation
		}
		req.Files[m.Name.ValueString()+".yaml"] = manifest.Canonical(docs)
	}
	if !m.DocumentsWO.IsNull() {
		if err := checkWriteOnlyYAML(m.DocumentsWO.ValueString()); err != nil {
			return req, fmt.Errorf("documents_wo: %w", err)
		}
		docs, _ := manifest.Parse([]byte(m.DocumentsWO.ValueString()))
		req.Files[m.Name.ValueString()+".yaml"] = manifest.Canonical(docs)
	}
	for _, rel := range tfvalue.SortedKeys(req.Files) {
		docs, err := manifest.Parse(req.Files[rel])
		if err != nil {
			continue // files need not be YAML; only splitByKind looks inside them
		}
		all = append(all, docs...)
	}
	crds, others := manifest.Split(all)
	if len(crds) > 0 {
		req.CRDs = manifest.Canonical(crds)
	}
	if len(others) > 0 {
		req.Others = manifest.Canonical(others)
	}
	if len(req.Files) == 0 && m.secret == nil { // write-only content is not in state: Read lays out without it
		return req, fmt.Errorf("a request needs documents or files")
	}
	return req, nil
}

// record sets the computed attributes from an outcome: the destinations the request holds
// files in, or none.
func (m *requestModel) record(p requestPlan, failed map[string]bool) {
	o := p.Settle(failed)
	m.recordGroups(p, failed)
	m.ID = types.StringValue(m.id())
	m.Misscheduled = types.BoolValue(false)
	m.Destination, m.Location, m.Root = types.StringNull(), types.StringNull(), types.StringNull()
	m.WrittenFiles = tfvalue.StringMapValue(map[string]string{})
	m.Placements = types.MapNull(types.ObjectType{AttrTypes: placementAttrTypes})
	m.DocumentsWO, m.FilesWO = types.StringNull(), types.MapNull(types.StringType) // never in plan or state
	records := o.Records
	if !m.multi() && len(records) > 1 && p.MovedFrom != "" {
		// A move that did not finish: the request stays where it was (its files there are still
		// whole) and the next plan moves it again.
		if rec, unfinished := records[p.MovedFrom]; unfinished {
			records = map[string]placement.Record{p.MovedFrom: rec}
		}
	}
	// The destinations in the plan's order, then any the outcome kept (a removal not made).
	var order []string
	for _, mem := range p.All {
		if _, ok := records[mem.Name]; ok {
			order = append(order, mem.Name)
		}
	}
	for _, dest := range tfvalue.SortedKeys(records) {
		if !slices.Contains(order, dest) {
			order = append(order, dest)
		}
	}
	m.Placed = tfvalue.StringList(order)
	if len(order) == 0 {
		return
	}
	first := records[order[0]]
	m.Destination = types.StringValue(order[0])
	m.Location, m.Root = types.StringValue(first.Location), types.StringValue(first.Root)
	m.Misscheduled = types.BoolValue(first.Misscheduled)
	m.WrittenFiles = tfvalue.StringMapValue(first.Files)
	if m.multi() || len(records) > 1 {
		m.Placements = recordsToModel(records)
	}
}

// withComputed is base (the planned value the model was read from) with the attributes ModifyPlan
// and apply set: what Set(ctx, &m) makes, without converting the rest of the value, the promise
// and its pool above all, to the framework's types and back (for each of many requests, a tenth
// of a second with a pool of a hundred destinations). Every other attribute of m is as read from
// base; TestRequestWithComputedEqualsSet compares the two.
func (m requestModel) withComputed(ctx context.Context, base tftypes.Value) (tftypes.Value, diag.Diagnostics) {
	return withTopLevel(ctx, base, map[string]attr.Value{
		"id": m.ID, "documents": m.Documents, "destination": m.Destination, "misscheduled": m.Misscheduled,
		"location": m.Location, "root": m.Root, "written_files": m.WrittenFiles,
		"destinations": m.Placed, "placements": m.Placements, "group_placements": m.GroupPlacements,
		"documents_wo": m.DocumentsWO, "files_wo": m.FilesWO, "health": m.Health,
	})
}

// withTopLevel is the object base with the top-level attributes given replaced.
func withTopLevel(ctx context.Context, base tftypes.Value, values map[string]attr.Value) (tftypes.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	attrs, err := tfvalue.AttrsCopy(base)
	if err != nil || base.IsNull() {
		diags.AddError("Unexpected Request Value", fmt.Sprintf("the request is not an object: %v", err))
		return base, diags
	}
	for name, v := range values {
		tv, err := v.ToTerraformValue(ctx)
		if err != nil {
			diags.AddError("Unexpected Request Value", fmt.Sprintf("%s: %v", name, err))
			return base, diags
		}
		attrs[name] = tv
	}
	return tftypes.NewValue(base.Type(), attrs), diags
}

func findMember(pool types.List, name string) *poolMember {
	if m, ok := lenientPool(pool)[name]; ok {
		return &m
	}
	return nil
}
