package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

var (
	_ resource.Resource                = (*promiseResource)(nil)
	_ resource.ResourceWithConfigure   = (*promiseResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*promiseResource)(nil)
	_ resource.ResourceWithImportState = (*promiseResource)(nil)
)

// NewPromiseResource is the kratix_promise resource.
func NewPromiseResource() resource.Resource { return &promiseResource{} }

type promiseResource struct{ data *providerData }

type promiseModel struct {
	ID                       types.String      `tfsdk:"id"`
	Name                     types.String      `tfsdk:"name"`
	DestinationSelectors     []selectorModel   `tfsdk:"destination_selectors"`
	Dependencies             manifestsValue    `tfsdk:"dependencies"`
	Destinations             []poolMemberModel `tfsdk:"destinations"`
	OnUnschedule             types.String      `tfsdk:"on_unschedule"`
	ScheduledDestinations    types.List        `tfsdk:"scheduled_destinations"`
	MisscheduledDestinations types.List        `tfsdk:"misscheduled_destinations"`
	Placements               types.Map         `tfsdk:"placements"`
}

type placementModel struct {
	Store        types.String `tfsdk:"store"`
	Root         types.String `tfsdk:"root"`
	Misscheduled types.Bool   `tfsdk:"misscheduled"`
	Files        types.Map    `tfsdk:"files"`
}

var placementAttrTypes = map[string]attr.Type{
	"store": types.StringType, "root": types.StringType, "misscheduled": types.BoolType,
	"files": types.MapType{ElemType: types.StringType},
}

func (r *promiseResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_promise"
}

func (r *promiseResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kratix Promise's dependencies (what Kratix calls static dependencies), scheduled to " +
			"every destination of `destinations` whose labels match `destination_selectors`. The scheduling is " +
			"decided during `terraform plan`: the plan shows which destinations are scheduled and misscheduled, and " +
			"every file with its hash, and `terraform apply` writes them (one write per store, one commit per Git " +
			"repository) in each destination's layout.\n\n" +
			"A destination written earlier that stops matching is misscheduled: its files stay and are no longer " +
			"updated (Kratix's behaviour), unless `on_unschedule = \"delete\"`. Destroying the promise removes its " +
			"files from every destination it wrote to.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "The promise's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the promise, a Kubernetes object name; it names the promise's folders and files. Changing it replaces the resource.",
				Validators:          []validator.String{dnsName()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"destination_selectors": selectorsResourceSchema(selectorsDescription("Which destinations of the pool receive the dependencies.")),
			"dependencies": schema.StringAttribute{
				Required:   true,
				CustomType: manifestsType{},
				MarkdownDescription: "The dependencies: multi-document Kubernetes YAML, each document an object with " +
					"apiVersion, kind and metadata.name. What is written is a canonical serialisation, so a change of " +
					"formatting only (key order, indentation, comments) is no change.",
			},
			"destinations": poolSchema("The candidate pool: the destinations this promise may be scheduled to, " +
				"usually `values(kratix_destination.workers)`. Names, and store folders, must be unique."),
			"on_unschedule": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(onUnscheduleKeep),
				MarkdownDescription: "What happens to the files of a destination that stops matching: `keep` (Kratix's " +
					"behaviour: they stay, reported as misscheduled) or `delete`.",
				Validators: []validator.String{stringvalidator.OneOf(onUnscheduleKeep, onUnscheduleDelete)},
			},
			"scheduled_destinations": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Destinations the dependencies are written to, sorted. Known during plan.",
			},
			"misscheduled_destinations": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Destinations written earlier that no longer match; their files are kept and not updated.",
			},
			"placements": schema.MapNestedAttribute{
				Computed: true,
				MarkdownDescription: "Per destination: its store, its folder, whether it is misscheduled, and every " +
					"file the promise keeps there (store path to MD5). Known during plan; a file deleted or edited in " +
					"the store shows here as a difference, and the apply repairs it.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"store":        schema.StringAttribute{Computed: true, MarkdownDescription: "Store name."},
					"root":         schema.StringAttribute{Computed: true, MarkdownDescription: "The destination's folder in the store."},
					"misscheduled": schema.BoolAttribute{Computed: true, MarkdownDescription: "True when the destination no longer matches."},
					"files":        schema.MapAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Store path to MD5 of the content."},
				}},
			},
		},
	}
}

func (r *promiseResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// inputs converts the configuration into domain values; ok is false while some are unknown.
func (m promiseModel) inputs(ctx context.Context) (sel scheduling.Selector, deps layout.Dependencies, pool []poolMember, ok bool, diags diag.Diagnostics) {
	entries, okSel, d := selectorsFromModel(path.Root("destination_selectors"), m.DestinationSelectors)
	diags.Append(d...)
	pool, okPool, d := poolFromModel(ctx, path.Root("destinations"), m.Destinations)
	diags.Append(d...)
	if !okSel || !okPool || m.Dependencies.IsUnknown() || m.Name.IsUnknown() || m.OnUnschedule.IsUnknown() || diags.HasError() {
		return sel, deps, nil, false, diags
	}
	docs, err := manifest.Parse([]byte(m.Dependencies.ValueString()))
	if err != nil {
		return sel, deps, nil, false, diags // reported by the attribute's validation
	}
	crds, others := manifest.Split(docs)
	deps = layout.Dependencies{Promise: m.Name.ValueString(), All: manifest.Canonical(docs)}
	if len(crds) > 0 {
		deps.CRDs = manifest.Canonical(crds)
	}
	if len(others) > 0 {
		deps.Others = manifest.Canonical(others)
	}
	return scheduling.Merge(entries), deps, pool, true, diags
}

func (m promiseModel) plan(ctx context.Context, prior map[string]placement) (promisePlan, []poolMember, bool, diag.Diagnostics) {
	sel, deps, pool, ok, diags := m.inputs(ctx)
	if !ok {
		return promisePlan{}, nil, false, diags
	}
	p, err := planPromise(m.Name.ValueString(), sel, deps, pool, prior, m.OnUnschedule.ValueString())
	if err != nil {
		diags.AddError("Cannot Lay Out Promise", err.Error())
		return promisePlan{}, nil, false, diags
	}
	return p, pool, true, diags
}

func (r *promiseResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan promiseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior := map[string]placement{}
	if !req.State.Raw.IsNull() {
		var state promiseModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		prior = placementsFromModel(ctx, state.Placements)
		// Terraform accepts the prior value of an attribute in place of the configured one when
		// the provider says they are equivalent: a change of formatting only plans nothing.
		if same, _ := plan.Dependencies.StringSemanticEquals(ctx, state.Dependencies); same && !state.Dependencies.IsNull() {
			plan.Dependencies = state.Dependencies
		}
	}
	p, pool, ok, diags := plan.plan(ctx, prior)
	resp.Diagnostics.Append(diags...)
	if !ok {
		return
	}
	if r.data != nil {
		checked := map[string]bool{}
		for i, m := range pool {
			if key := m.Store.location(); !checked[key] {
				checked[key] = true
				resp.Diagnostics.Append(r.data.checkCredentials(m.Store, path.Root("destinations").AtListIndex(i).AtName("state_store"))...)
			}
		}
	}
	for _, w := range p.Warnings {
		resp.Diagnostics.AddWarning("Promise Scheduling", w)
	}
	plan.ScheduledDestinations = stringList(p.Scheduled)
	plan.MisscheduledDestinations = stringList(p.Misscheduled)
	plan.Placements = placementsToModel(p.Placements)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *promiseResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan promiseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, plan, map[string]placement{}, &resp.State, &resp.Diagnostics)
}

// Read compares the files recorded for every placement with the stores, one request per store
// (a listing or a fetch), and records what it finds: a missing file disappears from `files`, an
// edited one gets its new hash.
func (r *promiseResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state promiseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	placements := placementsFromModel(ctx, state.Placements)
	if len(placements) == 0 {
		return
	}
	stores := map[string]storeRefModel{}
	for _, m := range state.Destinations {
		if ref, ok := storeRefFromObject(ctx, m.StateStore); ok {
			stores[m.Name.ValueString()] = ref
		}
	}
	byStore := map[string][]string{}
	refs := map[string]storeRefModel{}
	for dest := range placements {
		ref, ok := stores[dest]
		if !ok {
			continue // not in the recorded pool: nothing to reach it with
		}
		byStore[ref.location()] = append(byStore[ref.location()], dest)
		refs[ref.location()] = ref
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	for key, dests := range byStore {
		store, err := r.data.open(refs[key], false)
		if err != nil {
			resp.Diagnostics.AddError("State Store Not Usable", fmt.Sprintf("Promise %q cannot use state store %q: %v", state.Name.ValueString(), refs[key].Name.ValueString(), err))
			return
		}
		var paths []string
		for _, d := range dests {
			paths = append(paths, sortedKeys(placements[d].Files)...)
		}
		found, err := store.Hashes(ctx, paths)
		if err != nil {
			addStoreError(&resp.Diagnostics, "Cannot Read Promise",
				fmt.Sprintf("Reading the files of promise %q failed", state.Name.ValueString()), err)
			return
		}
		for _, d := range dests {
			pl := placements[d]
			actual := map[string]string{}
			for p := range pl.Files {
				if sum, ok := found[p]; ok {
					actual[p] = sum
				}
			}
			pl.Files = actual
			placements[d] = pl
		}
	}
	state.Placements = placementsToModel(placements)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *promiseResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state promiseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, plan, placementsFromModel(ctx, state.Placements), &resp.State, &resp.Diagnostics)
}

// Delete removes the promise's files from every destination it wrote to, misscheduled ones
// included, as Kratix cascades a promise's deletion.
func (r *promiseResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state promiseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	placements := placementsFromModel(ctx, state.Placements)
	pool, _, _ := poolFromModel(ctx, path.Root("destinations"), state.Destinations)
	ops := newStoreOps("Delete from: promise/" + state.Name.ValueString())
	for _, m := range pool {
		if pl, ok := placements[m.Name]; ok {
			ops.remove(m, pl)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if _, err := ops.run(ctx, r.data); err != nil {
		addStoreError(&resp.Diagnostics, "Cannot Delete Promise",
			fmt.Sprintf("Removing the files of promise %q failed", state.Name.ValueString()), err)
	}
}

func (r *promiseResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
}

// apply writes what the plan decided, one operation per store, and records the placements that
// were written. A placement whose files already match is not touched.
func (r *promiseResource) apply(ctx context.Context, plan promiseModel, prior map[string]placement, state *tfsdk.State, diags *diag.Diagnostics) {
	p, pool, ok, d := plan.plan(ctx, prior)
	diags.Append(d...)
	if !ok || diags.HasError() {
		diags.AddError("Promise Not Known", "The promise's inputs are still unknown at apply; this is a bug in the provider.")
		return
	}
	name := plan.Name.ValueString()
	ops := newStoreOps("Update from: promise/" + name)
	for _, m := range pool {
		if files, scheduled := p.Writes[m.Name]; scheduled {
			before := prior[m.Name]
			if before.Misscheduled || !equalMaps(hashStrings(files.Put), before.Files) {
				ops.write(m, files, before)
			}
		}
		if removed, ok := p.Removed[m.Name]; ok {
			ops.remove(m, removed)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	r.warnTakeOvers(ctx, name, p, pool, prior, diags)
	done, err := ops.run(ctx, r.data)
	if err != nil {
		addStoreError(diags, "Cannot Write Promise", fmt.Sprintf("Writing the files of promise %q failed", name), err)
		// Record only what was written: stores that failed keep their earlier placements.
		for dest, pl := range p.Placements {
			if done[dest] || pl.Misscheduled {
				continue
			}
			if before, ok := prior[dest]; ok {
				p.Placements[dest] = before
			} else {
				delete(p.Placements, dest)
			}
		}
		for dest, before := range p.Removed {
			if !done[dest] {
				p.Placements[dest] = before
			}
		}
	}
	plan.ID = plan.Name
	plan.ScheduledDestinations = stringList(p.Scheduled)
	plan.MisscheduledDestinations = stringList(p.Misscheduled)
	plan.Placements = placementsToModel(p.Placements)
	diags.Append(state.Set(ctx, &plan)...)
}

// warnTakeOvers warns, before the first write to a destination, about files there that hold other
// content: written by Kratix or another workspace, and about to be replaced.
func (r *promiseResource) warnTakeOvers(ctx context.Context, name string, p promisePlan, pool []poolMember, prior map[string]placement, diags *diag.Diagnostics) {
	if r.data == nil {
		return
	}
	byStore := map[string]map[string]string{}
	refs := map[string]storeRefModel{}
	for _, m := range pool {
		files, scheduled := p.Writes[m.Name]
		if _, before := prior[m.Name]; !scheduled || before {
			continue
		}
		key := m.Store.location()
		if byStore[key] == nil {
			byStore[key] = map[string]string{}
		}
		for path, sum := range hashStrings(files.Put) {
			byStore[key][path] = sum
		}
		refs[key] = m.Store
	}
	for key, want := range byStore {
		if store, err := r.data.open(refs[key], false); err == nil {
			warnTakeOver(ctx, store, fmt.Sprintf("Promise %q", name), want, diags)
		}
	}
}

func placementsFromModel(ctx context.Context, m types.Map) map[string]placement {
	out := map[string]placement{}
	if m.IsNull() || m.IsUnknown() {
		return out
	}
	var models map[string]placementModel
	if d := m.ElementsAs(ctx, &models, false); d.HasError() {
		return out
	}
	for dest, pm := range models {
		out[dest] = placement{
			Store: pm.Store.ValueString(), Root: pm.Root.ValueString(), Misscheduled: pm.Misscheduled.ValueBool(),
			Files: stringMap(ctx, pm.Files),
		}
	}
	return out
}

func placementsToModel(placements map[string]placement) types.Map {
	elems := map[string]attr.Value{}
	for dest, pl := range placements {
		elems[dest] = types.ObjectValueMust(placementAttrTypes, map[string]attr.Value{
			"store": types.StringValue(pl.Store), "root": types.StringValue(pl.Root),
			"misscheduled": types.BoolValue(pl.Misscheduled), "files": stringMapValue(pl.Files),
		})
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: placementAttrTypes}, elems)
}

// storeOps gathers the changes of one resource operation by store, so that each store gets one
// write (one commit per Git repository) however many destinations it holds.
type storeOps struct {
	message string
	order   []string
	ops     map[string]*storeOp
}

type storeOp struct {
	ref    storeRefModel
	change statestore.Change
	dests  []string
}

func newStoreOps(message string) *storeOps {
	return &storeOps{message: message, ops: map[string]*storeOp{}}
}

func (s *storeOps) op(m poolMember) *storeOp {
	key := m.Store.location()
	op, ok := s.ops[key]
	if !ok {
		op = &storeOp{ref: m.Store, change: statestore.Change{Message: s.message, Put: map[string][]byte{}}}
		s.ops[key] = op
		s.order = append(s.order, key)
	}
	op.dests = append(op.dests, m.Name)
	return op
}

// write adds a placement's files; files it held before and no longer produces are removed.
func (s *storeOps) write(m poolMember, files layout.Files, before placement) {
	op := s.op(m)
	for p, c := range files.Put {
		op.change.Put[p] = c
	}
	op.change.Prune = append(op.change.Prune, files.Prune...)
	for p := range before.Files {
		if _, still := files.Put[p]; !still {
			op.change.Delete = append(op.change.Delete, p)
		}
	}
	if files.Aggregate != nil {
		op.change.Aggregates = append(op.change.Aggregates, statestore.Aggregate{File: files.Aggregate.File, Dir: files.Aggregate.Dir})
	}
}

// remove deletes every file of a placement.
func (s *storeOps) remove(m poolMember, pl placement) {
	op := s.op(m)
	op.change.Delete = append(op.change.Delete, sortedKeys(pl.Files)...)
	if m.Target.Mode == layout.ModeAggregatedYAML {
		a := layout.AggregateOf(m.Target)
		op.change.Aggregates = append(op.change.Aggregates, statestore.Aggregate{File: a.File, Dir: a.Dir})
	}
}

// run applies every store's change and reports which destinations were written.
func (s *storeOps) run(ctx context.Context, data *providerData) (map[string]bool, error) {
	done := map[string]bool{}
	for _, key := range s.order {
		op := s.ops[key]
		if data == nil {
			return done, fmt.Errorf("the provider is not configured")
		}
		store, err := data.open(op.ref, false)
		if err != nil {
			return done, fmt.Errorf("state store %q: %w", op.ref.Name.ValueString(), err)
		}
		sort.Strings(op.change.Delete)
		res, err := store.Apply(ctx, op.change)
		if err != nil {
			return done, err
		}
		tflog.Debug(ctx, "promise files written", map[string]any{
			"store": store.Describe(), "destinations": strings.Join(op.dests, ","),
			"written": len(res.Written), "deleted": len(res.Deleted), "revision": res.Revision,
		})
		for _, d := range op.dests {
			done[d] = true
		}
	}
	return done, nil
}
