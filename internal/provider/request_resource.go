package provider

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
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
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/guardattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

var (
	_ resource.Resource                = (*requestResource)(nil)
	_ resource.ResourceWithConfigure   = (*requestResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*requestResource)(nil)
	_ resource.ResourceWithImportState = (*requestResource)(nil)
)

// NewRequestResource is the kratix_resource_request resource.
func NewRequestResource() resource.Resource { return &requestResource{} }

type requestResource struct{ data *providerData }

func (r *requestResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_resource_request"
}

func (r *requestResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	pool := poolSchema("The promise's candidate pool.")
	pool.Required, pool.Optional = false, true
	resp.Schema = schema.Schema{
		Version: requestSchemaVersion,
		MarkdownDescription: "One request for a promise's service, the counterpart of a Kratix resource request. " +
			"There is no pipeline container: the documents it produces come from Terraform (`templatefile`, " +
			"modules). It lands on exactly one destination, chosen during plan among the promise's pool matched " +
			"against the promise's selectors plus this request's, by rendezvous hashing of its namespace, promise " +
			"and name: every machine and every plan agree. Once applied, the choice is kept " +
			"while that destination stays in the pool, even if it stops matching (then `misscheduled` is true and it " +
			"is still updated, as Kratix keeps its first choice).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "`<promise>/<namespace>/<name>`: the import id, and how messages and commit messages name the request.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"promise": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "The promise this request is for: pass the promise resource, `promise = kratix_promise.jenkins`.",
				Attributes: map[string]schema.Attribute{
					"name":                  schema.StringAttribute{Optional: true, MarkdownDescription: "The promise's name (required)."},
					"destination_selectors": schedattr.SelectorsResourceSchema("The promise's selectors."),
					"destinations":          pool,
				},
			},
			"name": schema.StringAttribute{
				Required: true, MarkdownDescription: "Name of the request, a Kubernetes object name. Changing it replaces the resource.",
				Validators:    []validator.String{schemautil.DNSName()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"namespace": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("default"),
				MarkdownDescription: "Namespace of the request. Changing it replaces the resource.",
				Validators:          []validator.String{schemautil.DNSName()},
				PlanModifiers:       []planmodifier.String{schemautil.ReplaceIfSet()},
			},
			"pipeline": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(layout.DefaultPipeline),
				MarkdownDescription: "The pipeline folder the files are filed under. Changing it replaces the resource.",
				Validators:          []validator.String{schemautil.DNSName()},
				PlanModifiers:       []planmodifier.String{schemautil.ReplaceIfSet()},
			},
			"documents": schema.StringAttribute{
				Optional: true, CustomType: manifestattr.Type{},
				MarkdownDescription: "Multi-document Kubernetes YAML, written (canonically serialised) as `<name>.yaml`. " +
					"A change of formatting only is no change.",
			},
			"files": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Files by path, as a pipeline leaves them in `/kratix/output`, written byte for byte. " +
					"With `documents` too, both are written.",
			},
			"destination_selectors": schedattr.PlacementSelectorsSchema("Selectors added to the promise's, as a pipeline's " +
				"`destination-selectors.yaml` does. On a key the promise also selects, the promise wins and the plan warns."),
			"tolerations": schedattr.TolerationsAttribute("the request"),
			"replicas": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "How many destinations the request is written to (unset: one). Each is a rendezvous choice " +
					"among the candidates, best first, and sticky: raising it adds destinations and moves none; lowering it removes " +
					"the lowest-ranked ones, once the others are written. With fewer candidates than replicas, the request goes " +
					"to those there are and the plan warns.",
				Validators: []validator.Int64{int64validator.Between(1, maxReplicas)},
			},
			"spread": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Spread the request's destinations over topology domains: it takes one destination per value " +
					"of the label `topology_key` (such as `zone`) before it takes a second in any, best-ranked first. " +
					"Destinations without the label count as one domain together.",
				Attributes: map[string]schema.Attribute{
					"topology_key": schema.StringAttribute{
						Required: true, MarkdownDescription: "The label key whose values are the domains, such as `zone` or `topology.kubernetes.io/zone`.",
						Validators: []validator.String{schemautil.LabelKey()},
					},
				},
			},
			"groups":           groupsSchema(),
			"group_placements": groupPlacementsSchema(),
			"destination": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The destination the request is scheduled to, known during plan; null while no destination matches. " +
					"With `replicas`, the first of `destinations`.",
			},
			"destinations": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Every destination the request is written to, known during plan: those it stays on first, in " +
					"the order it was placed on them, then the new ones best first. One with `replicas` unset; empty while " +
					"no destination matches.",
			},
			"placements": schema.MapAttribute{
				Computed: true, ElementType: types.ObjectType{AttrTypes: placementAttrTypes},
				MarkdownDescription: "With `replicas` or `spread` (or while a lowered `replicas` has not finished removing " +
					"a destination), per destination: its store, its folder, whether it is misscheduled, and every file the " +
					"request keeps there, as `kratix_promise.placements` gives them. Null otherwise: then `destination`, " +
					"`location`, `root` and `written_files` say it all. They always describe the first destination.",
			},
			"misscheduled": schema.BoolAttribute{
				Computed: true, MarkdownDescription: "True when the kept destination no longer matches the selectors.",
			},
			"location": schema.StringAttribute{Computed: true, MarkdownDescription: "Where the chosen destination's store is, normalised: `s3://<endpoint>/<bucket>` or `git+<url>@<branch>`."},
			"root":     schema.StringAttribute{Computed: true, MarkdownDescription: "The chosen destination's folder in its store."},
			"guard":    guardattr.RequestSchema(),
			"observe":  observeSchema("the request"),
			"health":   healthSchema("the request"),
			"written_files": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Every file the request keeps in the store: path to MD5. Known during plan; drift (a file " +
					"edited or deleted, a stray file in the request's folder) shows here. An aggregatedYAML file maps to " +
					"`part:<MD5 of this request's part>` while it is current, and to `stale` when it is not. With write-only " +
					"content, every hash is a keyed hash `hmac:<hex>` instead, which reveals nothing about the content.",
			},
		},
		Blocks: map[string]schema.Block{"timeouts": schemautil.TimeoutsBlock(ctx, schemautil.OpCreate, schemautil.OpRead, schemautil.OpUpdate, schemautil.OpDelete)},
	}
	addRequestWriteOnly(resp.Schema.Attributes)
}

func (r *requestResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *requestResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.Append(r.guardDestroy(ctx, req.State)...)
		return
	}
	var plan, state requestModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
		state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private))
		plan.Documents = manifestattr.KeepIfSameMeaning(ctx, plan.Documents, state.Documents)
	}
	resp.Diagnostics.Append(plan.takeWriteOnly(ctx, req.Config, r.data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Adopt what an import found, then schedule and place (plan.plan), check, record.
	adopted, state := r.adoptInPlan(ctx, req, resp, plan, state)
	if resp.Diagnostics.HasError() {
		return
	}
	p, pool, ok, diags := plan.plan(ctx, state)
	resp.Diagnostics.Append(diags...)
	if !ok {
		return
	}
	by := fmt.Sprintf("kratix_resource_request %q (namespace %q)", plan.Name.ValueString(), plan.Namespace.ValueString())
	pathAt := func(i int) path.Path {
		return path.Root("promise").AtName("destinations").AtListIndex(i).AtName("path")
	}
	if resp.Diagnostics.Append(r.data.claimFolders(by, pathAt, pool)...); resp.Diagnostics.HasError() {
		return
	}
	if !r.check(ctx, req, plan, state, p, pool, adopted, &resp.Diagnostics) {
		return
	}
	healthPlanned, diags := healthPlan(ctx, plan.Observe, pool, state.Health, p.heldAfter,
		func() map[string]bool { return p.written(ctx, state, nil) })
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	plan.record(p, nil)
	plan.Health = healthPlanned
	if req.State.Raw.IsNull() {
		// A new object, perhaps the successor of one Terraform deletes first: see privstate/successor.go.
		resp.Diagnostics.Append(privstate.WriteSuccessor(ctx, resp.Private, placement.SuccessorHolding(p.Ops, p.Records))...)
	}
	raw, diags := plan.withComputed(ctx, req.Plan.Raw)
	resp.Diagnostics.Append(diags...)
	resp.Plan.Raw = raw
}

// check adds what a request's plan must say (credentials, warnings, the guard's verdict, the
// owners' and take-over checks, what an import found or missed); false when the plan is refused.
func (r *requestResource) check(ctx context.Context, req resource.ModifyPlanRequest, plan, state requestModel, p requestPlan, pool []poolMember, adopted *adoption, diags *diag.Diagnostics) bool {
	if r.data != nil {
		for _, name := range p.chosenNames() {
			if mem := findMember(plan.destinations(), name); mem != nil {
				diags.Append(r.data.checkCredentials(mem.Store, path.Root("promise").AtName("destinations"))...)
			}
		}
	}
	for _, w := range p.Warnings {
		diags.AddWarning("Request Scheduling", w)
	}
	warnLeftBehind("Request "+plan.id(), state.allPriors(ctx), state.left, p.Records, diags)
	if !plan.Guard.IsNull() && !req.State.Raw.IsNull() {
		var losses []placement.Loss
		if prior, held := state.prior(ctx); held {
			losses = placement.RequestLosses(state.Destination.ValueString(), &prior, p.RequestPlan, members(pool))
		}
		losses = append(losses, p.groupLosses(ctx, state, members(pool))...)
		if len(losses) > 0 {
			if diags.Append(guardattr.Check(ctx, plan.Guard, placement.GuardRequest, plan.key(), "Request "+plan.id(), losses)...); diags.HasError() {
				return false
			}
		}
	}
	records, priorRecords := p.allRecords(), state.priorRecords(ctx)
	maps.Copy(priorRecords, state.priorGroupRecords(ctx))
	if diags.Append(r.data.checkOwners(ctx, plan.owner(), "Request", records, priorRecords, pool, plan.fileAttr(ctx, records))...); diags.HasError() {
		return false
	}
	if diags.Append(r.data.checkStakes(ctx, "Request "+plan.id(), p.Ops, pool, adopted != nil, path.Root("name"))...); diags.HasError() {
		return false
	}
	diags.Append(r.data.warnTakeOverAtPlan(ctx, "Request "+plan.id(), p.Ops, state.refs().add(pool...), plan.fileAttr(ctx, records))...)
	if adopted != nil && p.Chosen != nil {
		if w := adopted.notFoundWarning(plan, p.Chosen.Name); w != "" {
			diags.AddWarning("Imported Request Not Found", w)
		}
		who := fmt.Sprintf("Request %s/%s/%s", plan.promiseName(), plan.Namespace.ValueString(), plan.Name.ValueString())
		if w := importedWarning(who, adopted.Found, p.Records); w != "" {
			diags.Append(importRecorded(w))
		}
		if w := bookkeepingWarning(who, adopted.Found, p.Records); w != "" {
			diags.Append(importBookkeeping(w))
		}
	}
	if req.State.Raw.IsNull() {
		if w := r.heldElsewhere(ctx, plan, p, pool); w != "" {
			diags.AddWarning("Request Already On Another Destination", w)
		}
	}
	return !diags.HasError()
}

func (r *requestResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data.refuseOffline("kratix_resource_request", "create", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_resource_request", schemautil.OpCreate, &resp.Diagnostics)
	defer done()
	var plan requestModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(plan.takeWriteOnly(ctx, req.Config, r.data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	writer := ensureInstance(ctx, resp.Private, &resp.Diagnostics)
	r.apply(ctx, plan, requestModel{}, nil, resp.Private, writer, req.Plan.Raw, &resp.State, &resp.Diagnostics)
}

// Read looks at what the request's destination holds now; see kratix_promise. Offline, state
// stands as it is.
func (r *requestResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data.isOffline() {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.State, "kratix_resource_request", schemautil.OpRead, &resp.Diagnostics)
	defer done()
	var state requestModel
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private))
	priors, groupPriors := state.allPriors(ctx), state.groupPriors(ctx)
	for _, prior := range priors {
		if ok, d := r.readKey(&state, prior.Record); !ok {
			resp.Diagnostics.Append(d...)
			return
		}
	}
	for _, g := range groupPriors {
		if ok, d := r.readKey(&state, g.prior.Record); !ok {
			resp.Diagnostics.Append(d...)
			return
		}
	}
	out, err := state.output(ctx)
	if len(priors)+len(groupPriors) == 0 || err != nil {
		return
	}
	var parts map[string]layout.Request
	if groups, _ := state.groupConfigs(); len(groups) > 0 {
		// Write-only files are not in state: a group holding only those has no part here, and is
		// refreshed from what it recorded (readGroups).
		if out, parts, err = splitGroups(out, groupsHolding(groups, out.Files)); err != nil {
			return
		}
	}
	if !r.refreshPlacements(ctx, &state, priors, out, &resp.Diagnostics) {
		return
	}
	if len(groupPriors) > 0 {
		if !r.readGroups(ctx, &state, groupPriors, parts, &resp.Diagnostics) {
			return
		}
	}
	if state.Placed.IsNull() { // saved before `destinations` existed
		state.Placed = tfvalue.StringList(append([]string{state.Destination.ValueString()}, tfvalue.SortedKeys(state.otherPriors(ctx))...))
	}
	var held []string
	for dest := range priors {
		held = append(held, dest)
	}
	for _, g := range groupPriors {
		held = append(held, g.dest)
	}
	r.readRequestHealth(ctx, req, &state, held, &resp.Diagnostics)
	resp.Diagnostics.Append(tfserver.SetState(ctx, &resp.State, &state)...)
}

// refreshPlacements reads what the request's default group holds on each destination it is
// placed on (out: its files) into state; false when Read stops here (files that cannot be laid
// out, or a store that cannot be read).
func (r *requestResource) refreshPlacements(ctx context.Context, state *requestModel, priors map[string]placement.Prior, out layout.Request, diags *diag.Diagnostics) bool {
	observe := map[string]observed{}
	for _, dest := range tfvalue.SortedKeys(priors) {
		prior := priors[dest]
		mem := state.memberFor(dest, prior.Record)
		if prior.Member == nil || mem == nil {
			continue
		}
		o := out
		o.Kept = tfvalue.SortedKeys(prior.Record.Files) // an adopted index file of Kratix's keeps its name
		f, err := layout.RequestFiles(prior.Member.Target, o)
		if err != nil {
			return false
		}
		observe[dest] = observed{member: *mem, files: f, record: prior.Record, hashKey: state.hashKey()}
	}
	if len(observe) == 0 {
		return true
	}
	found := r.data.readRefresh(ctx, "Request", "Request "+state.id(), observe, diags)
	if diags.HasError() {
		return false
	}
	if rec, ok := found[state.Destination.ValueString()]; ok {
		state.WrittenFiles = tfvalue.StringMapValue(rec.Files)
	}
	if !state.Placements.IsNull() {
		records := recordsFromModel(ctx, state.Placements)
		for dest, rec := range found {
			if before, ok := records[dest]; ok {
				before.Files = rec.Files
				records[dest] = before
			}
		}
		state.Placements = recordsToModel(records)
	}
	return true
}

// readRequestHealth reads, with observe, the health records of the destinations the request
// holds (held, its groups' included) into state.
func (r *requestResource) readRequestHealth(ctx context.Context, req resource.ReadRequest, state *requestModel, held []string, diags *diag.Diagnostics) {
	obs, ok, _ := observeOf(ctx, state.Observe)
	if !ok || obs == nil {
		return
	}
	pool := lenientPool(state.destinations())
	targets := map[string]*poolMember{}
	for _, dest := range held {
		targets[dest] = nil
		if m, ok := pool[dest]; ok {
			targets[dest] = &m
		}
	}
	subject := health.Subject{Promise: state.promiseName(), Request: &health.ResourceRef{Name: state.Name.ValueString(), Namespace: state.Namespace.ValueString()}}
	if views, read := r.data.readHealth(ctx, "Request "+state.id(), *obs, subject, targets, readWrittenAt(ctx, req.Private), diags); read {
		state.Health = healthValue(views)
	}
}

func (r *requestResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data.refuseOffline("kratix_resource_request", "update", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_resource_request", schemautil.OpUpdate, &resp.Diagnostics)
	defer done()
	var plan, state requestModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	resp.Diagnostics.Append(plan.takeWriteOnly(ctx, req.Config, r.data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private))
	_, plan.imported = readAdoption(ctx, req.Private)
	if state = r.adoptInApply(ctx, req, resp, plan, state); resp.Diagnostics.HasError() {
		return
	}
	writer := ensureInstance(ctx, resp.Private, &resp.Diagnostics)
	r.apply(ctx, plan, state, req.Private, resp.Private, writer, req.Plan.Raw, &resp.State, &resp.Diagnostics)
}

// Delete removes the request's owned folder (or its files and index, or its part of an
// aggregate) from its destination, sparing what a replacement writes again (privstate/successor.go) or
// another instance wrote earlier in the same apply (writelog.go).
func (r *requestResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if r.data.refuseOffline("kratix_resource_request", "delete", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.State, "kratix_resource_request", schemautil.OpDelete, &resp.Diagnostics)
	defer done()
	var state requestModel
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private)) // a move's old files go too
	priors, groupPriors := state.allPriors(ctx), state.groupPriors(ctx)
	if len(priors)+len(groupPriors) == 0 {
		return
	}
	out, _ := state.output(ctx)
	p, err := placement.RemoveRequest(out, priors)
	if err != nil {
		resp.Diagnostics.Append(cannotLayOut("Request", err))
		return
	}
	lists := [][]placement.Op{p.Ops}
	for _, dir := range tfvalue.SortedKeys(groupPriors) {
		g := groupPriors[dir]
		out.Group, out.Files = dir, nil
		gp, err := placement.RemoveRequest(out, map[string]placement.Prior{g.dest: g.prior})
		if err != nil {
			resp.Diagnostics.Append(cannotLayOut("Request", err))
			return
		}
		lists = append(lists, gp.Ops)
	}
	p.Ops = placement.MergeOps(lists...)
	p = p.Spare(privstate.ReadSuccessor(ctx, req.Private).With(r.data.writtenByOthers(readInstance(ctx, req.Private))))
	ops := r.data.owned(p.Ops, readInstance(ctx, req.Private), false)
	failed := r.data.writeOps(ctx, "Request", "Request "+state.id(), "Delete from: request/"+state.id(), "", ops, state.refs(), &resp.Diagnostics)
	if len(failed) > 0 {
		resp.Diagnostics.Append(tfserver.SetState(ctx, &resp.State, &state)...) // kept, so that the next destroy tries again
	}
}

// guardDestroy judges the request's destroy with the guard its state holds (guardattr.CheckDestroy):
// it loses every file on its destination, its replicas' and its groups'.
func (r *requestResource) guardDestroy(ctx context.Context, st tfsdk.State) diag.Diagnostics {
	if st.Raw.IsNull() {
		return nil
	}
	var state requestModel
	if diags := tfserver.GetState(ctx, st, &state); diags.HasError() || state.Guard.IsNull() {
		return diags
	}
	priors := []map[string]placement.Prior{state.otherPriors(ctx)}
	if prior, held := state.prior(ctx); held {
		priors = append(priors, map[string]placement.Prior{state.Destination.ValueString(): prior})
	}
	for _, g := range state.groupPriors(ctx) {
		priors = append(priors, map[string]placement.Prior{g.dest: g.prior})
	}
	losses := destroyLosses(lenientPool(state.destinations()), priors...)
	return guardattr.CheckDestroy(ctx, state.Guard, r.data.acksForDestroy(), placement.GuardRequest, state.key(), "Request "+state.id(), losses)
}

// ImportState takes `<promise>/<namespace>/<name>`, or `<promise>/<namespace>/<name>@<destination>`
// to name the destination the request is on. Without the configuration it cannot know the pool,
// so it leaves the search to the first plan (see adopt.go): that plan keeps the request on the
// destination whose folder holds it, or on the one named.
func (r *requestResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	base, parts, dest, err := placement.ParseRequestImportID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), base)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), parts[1])...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), parts[2])...)
	resp.Diagnostics.Append(writeAdoption(ctx, resp.Private, adoption{Destination: dest})...)
}

// apply makes the request's destination hold what the plan decided, compared with what it holds
// now (not with state), and records what was written. writer is the object's instance token,
// for the write log (writelog.go).
func (r *requestResource) apply(ctx context.Context, plan, state requestModel, private privstate.Reader, outPrivate privstate.Writer, writer string, planned tftypes.Value, out *tfsdk.State, diags *diag.Diagnostics) {
	p, pool, ok, d := plan.plan(ctx, state)
	diags.Append(d...)
	if !ok || diags.HasError() {
		diags.Append(notKnown("Request Not Known", "The request's inputs are"))
		return
	}
	refs := state.refs().add(pool...)
	ops := p.Ops
	if plan.imported {
		ops = placement.MergeOps(ops, placement.HoldAll(placement.RequestObject(plan.promiseName(), plan.Namespace.ValueString(), plan.Name.ValueString()), p.allRecords(), members(pool)))
	}
	failed := r.data.writeMove(ctx, "Request", "Request "+plan.id(), "Update from: request/"+plan.id(), writer, r.data.owned(ops, writer, plan.imported), p.Leaving, refs, diags)
	plan.record(p, failed)
	priors := state.allPriors(ctx)
	left := keepLeftBehind(ctx, priors, p.Settle(failed).Records, members(pool), state.destinations(), privstate.ReadLeftBehind(ctx, private))
	diags.Append(privstate.WriteLeftBehind(ctx, outPrivate, left)...)
	warnMoveNotFinished("Request "+plan.id(), priors, left, diags)
	obs, _, _ := observeOf(ctx, plan.Observe)
	wrote := p.written(ctx, state, failed)
	diags.Append(writeWrittenAt(ctx, outPrivate, obs != nil, readWrittenAt(ctx, private), p.heldAfter(), wrote, r.data.clock())...)
	raw, d := plan.withComputed(ctx, planned)
	diags.Append(d...)
	out.Raw = raw
}
