package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/guardattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/rolloutattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/registry"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
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

func (r *promiseResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_promise"
}

func (r *promiseResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: promiseSchemaVersion,
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
				Validators:          []validator.String{schemautil.DNSName()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"destination_selectors": schedattr.PlacementSelectorsSchema(schedattr.SelectorsDescription("Which destinations of the pool receive the dependencies.")),
			"dependencies": schema.StringAttribute{
				Required:   true,
				CustomType: manifestattr.Type{},
				MarkdownDescription: "The dependencies: multi-document Kubernetes YAML, each document an object with " +
					"apiVersion, kind and metadata.name. What is written is a canonical serialisation, so a change of " +
					"formatting only (key order, indentation, comments) is no change.",
			},
			"destinations": poolSchema("The candidate pool: the destinations this promise may be scheduled to, " +
				"usually `values(kratix_destination.workers)`. Names, and store folders, must be unique."),
			"tolerations": schedattr.TolerationsAttribute("the promise's dependencies"),
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
			// A map of objects, not of nested attributes, for the reason given at poolSchema.
			"guard": guardattr.PromiseSchema(),
			"placements": schema.MapAttribute{
				Computed:    true,
				ElementType: types.ObjectType{AttrTypes: placementAttrTypes},
				MarkdownDescription: "Per destination: its store, its folder, whether it is misscheduled, and every " +
					"file the promise keeps there (store path to MD5). Known during plan; a file deleted or edited in " +
					"the store shows here as a difference, and the apply repairs it. Each value has `store` (the store's " +
					"name), `location` (where the store is, normalised: `s3://<endpoint>/<bucket>` or `git+<url>@<branch>`; " +
					"two store resources with one location are one store), `root` (the destination's folder in the " +
					"store), `misscheduled` (true when the destination no longer matches) and `files` (store path to " +
					"MD5 of the content; an aggregatedYAML file, which holds other placements' documents too, maps to " +
					"`part:<MD5 of this promise's part>` while it is current, and to `stale` when it is not).",
			},
			"registration": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "The promise's published record in each store its pool spans, `<store name>:<record " +
					"path>` to the MD5 of its content: Kratix's `Promise` object (name, `spec.destinationSelectors`) with " +
					"this provider's extensions in annotations under `" + registry.AnnotationPrefix + "` (the selectors " +
					"with `match_expressions`, the pool it was scheduled over, the owner, the instance, the time " +
					"written), at `<store path>/" + layout.RegistryDir + "/promises/<name>/<owner>.yaml`, outside every " +
					"destination's folder, where `data.kratix_promise` in other workspaces finds it. It is written with " +
					"the promise's files whenever what it says changes (the MD5 is then known after apply, as the record " +
					"holds the time it was written), written again when it is deleted or edited in the store, and " +
					"removed on destroy while it is still this owner's and this instance's. Each owner (the provider's " +
					"`owner`) has its own record, so several workspaces may publish one promise, each over its own " +
					"shard of the fleet.",
			},
			"observe":        observeSchema("the promise"),
			"health":         healthSchema("the promise"),
			"rollout":        rolloutSchema(),
			"revisions":      revisionsSchema(),
			"rollout_status": rolloutStatusSchema(),
		},
		Blocks: map[string]schema.Block{"timeouts": schemautil.TimeoutsBlock(ctx, schemautil.OpCreate, schemautil.OpRead, schemautil.OpUpdate, schemautil.OpDelete)},
	}
}

func (r *promiseResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *promiseResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.Append(r.guardDestroy(ctx, req.State)...)
		return
	}
	var plan, state promiseModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	proposed := plan
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
		state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private))
		// Terraform accepts the prior value of an attribute in place of the configured one when
		// the provider says they are equivalent: a change of formatting only plans nothing.
		plan.Dependencies = manifestattr.KeepIfSameMeaning(ctx, plan.Dependencies, state.Dependencies)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	// Schedule (adopting what an import or a replaced rollout left), stage, place, check,
	// record: each once.
	sp, ok := r.schedule(ctx, req, resp, plan, &state)
	if !ok {
		return
	}
	policy, known, policyDiags := rolloutPolicy(ctx, path.Root("rollout"), plan.Rollout)
	policyDiags.Append(rolloutattr.CheckGateObserves(policy, plan.Observe)...)
	if known && !policyDiags.HasError() {
		sp.staging = plan.stage(ctx, state, sp.in, placement.Selected(sp.decisions), policy, req.Private, r.data.clock())
		sp.in.Staged = sp.staging.staged()
	}
	p, diags := placePromise(sp.in, sp.decisions)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	if resp.Diagnostics.Append(policyDiags...); !known || policyDiags.HasError() {
		return // which destinations get what is not known yet
	}
	sp.policy, sp.placed = policy, p
	healthPlanned, ok := r.check(ctx, plan, state, sp, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.record(p.Settle(nil))
	plan.Health = healthPlanned
	var prior *promiseModel
	if !req.State.Raw.IsNull() {
		prior = &state
	}
	plan.Registration = plannedPromiseRegistration(ctx, r.data, plan, sp.pool, prior)
	if req.State.Raw.IsNull() {
		// A new object, perhaps the successor of one Terraform deletes first: see privstate/successor.go.
		resp.Diagnostics.Append(privstate.WriteSuccessor(ctx, resp.Private, placement.SuccessorHolding(p.Ops, p.Records))...)
	}
	plan.recordRollout(ctx, state, sp.staging, p.Records)
	if sp.replacing {
		plan.RolloutStatus = replacedReport(plan.RolloutStatus)
	}
	resp.Diagnostics.Append(keepRolloutBase(ctx, req.Private, resp.Private, sp.staging)...)
	if plan.sameComputed(proposed) {
		return // the usual no-change plan: writing the same value back costs a conversion of the whole promise
	}
	resp.Diagnostics.Append(tfserver.SetPlan(ctx, &resp.Plan, &plan)...)
}

// promisePlanning is what a promise's plan decides, step by step.
type promisePlanning struct {
	in        placement.Promise
	pool      []poolMember
	decisions []scheduling.Decision
	adopted   *adoption // what an import found, being adopted
	replacing bool      // a new promise going on with the rollout its folders hold (adoptReplaced, adopt_rollout.go)
	staging   staging
	policy    *rollout.Policy
	placed    placement.Plan
}

// schedule decides where the promise goes: from the pool and prior state, or from what an import
// or a replaced rollout left in the folders (state then holds it); and claims the pool's folders.
// ok is false when the plan stops here (inputs not known, or an error).
func (r *promiseResource) schedule(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan promiseModel, state *promiseModel) (promisePlanning, bool) {
	in, pool, ok, diags := plan.input(ctx, *state)
	sp := promisePlanning{in: in, pool: pool}
	var schedule promiseSchedule
	if ok {
		sp.decisions, schedule = placement.SchedulePromise(in), scheduleFor(in)
	}
	sp.adopted, *state = r.adoptInPlan(ctx, req, resp, plan, *state, schedule)
	// A new promise with a rollout whose folders hold it mid-rollout (the replacement of one, by
	// `-replace` or a taint) goes on where the stores say it stands: see adoptReplaced, adopt_rollout.go.
	sp.replacing, *state = r.adoptReplaced(ctx, req, resp, plan, *state, schedule, ok)
	if resp.Diagnostics.Append(diags...); !ok || resp.Diagnostics.HasError() {
		return sp, false
	}
	if sp.adopted != nil || sp.replacing {
		// What the import found is what the promise holds: scheduled again from it, as the
		// apply schedules it (a destination cordoned since keeps what it holds).
		sp.in.Prior = priorsOf(state.prior(ctx))
		sp.decisions = placement.SchedulePromise(sp.in)
	}
	privstate.WithWrittenLabels(sp.in.Prior, privstate.ReadWrittenLabels(ctx, req.Private))
	resp.Diagnostics.Append(r.data.claimFolders(fmt.Sprintf("kratix_promise %q", plan.Name.ValueString()),
		func(i int) path.Path { return path.Root("destinations").AtListIndex(i).AtName("path") }, pool)...)
	return sp, !resp.Diagnostics.HasError()
}

// check adds what the plan must say (warnings, the guard's verdict, the owners' and the
// take-over checks) and plans health; ok is false when the plan is refused.
func (r *promiseResource) check(ctx context.Context, plan, state promiseModel, sp promisePlanning, diags *diag.Diagnostics) (types.Map, bool) {
	name, p := plan.Name.ValueString(), sp.placed
	who := fmt.Sprintf("Promise %q", name)
	if r.data != nil {
		diags.Append(r.data.checkPoolCredentials(sp.pool, path.Root("destinations"))...)
	}
	for _, w := range p.Warnings {
		diags.AddWarning("Promise Scheduling", w)
	}
	diags.Append(emptyWaveWarnings(name, sp.policy, sp.in, placement.Selected(sp.decisions))...)
	warnLeftBehind(who, sp.in.Prior, state.left, p.Records, diags)
	if msg := sp.staging.rolloutMessage(name); msg != "" {
		diags.AddWarning("Promise Rollout", msg)
	}
	if !plan.Guard.IsNull() {
		losses := placement.Losses(sp.in.Prior, p.Records, sp.in.Pool)
		if diags.Append(guardattr.Check(ctx, plan.Guard, placement.GuardPromise, name, who, losses)...); diags.HasError() {
			return types.Map{}, false
		}
	}
	if sp.adopted != nil {
		if w := importedWarning(who, sp.adopted.Found, p.Records); w != "" {
			diags.Append(importRecorded(w))
		}
		if w := bookkeepingWarning(who, sp.adopted.Found, p.Records); w != "" {
			diags.Append(importBookkeeping(w))
		}
	}
	if diags.Append(r.data.checkOwners(ctx, placement.PromiseOwner(name), "Promise", p.Records, priorRecordsOf(sp.in.Prior), sp.pool, dependenciesAttr)...); diags.HasError() {
		return types.Map{}, false
	}
	if diags.Append(r.data.checkStakes(ctx, who, p.Ops, sp.pool, sp.adopted != nil, path.Root("destinations"))...); diags.HasError() {
		return types.Map{}, false
	}
	diags.Append(r.data.warnTakeOverAtPlan(ctx, who, p.Ops, refsOf(state.prior(ctx)).add(sp.pool...), dependenciesAttr)...)
	healthPlanned, d := healthPlan(ctx, plan.Observe, sp.pool, state.Health,
		func() []string { return tfvalue.SortedKeys(p.Records) },
		func() map[string]bool { return rewritten(priorRecordsOf(sp.in.Prior), p.Records, p.Ops, nil) })
	diags.Append(d...)
	return healthPlanned, !diags.HasError()
}

// Create writes a new promise. The framework calls it, and so does the fast path
// (internal/tfserver, registered in fast_path.go) for the apply of a create it planned: with a
// request and response it builds itself, the response's private state of the framework's own
// type made in tfserver's private.go. So Create must use only what both give it: the plan,
// the configuration, a null state and an empty private state.
func (r *promiseResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data.refuseOffline("kratix_promise", "create", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_promise", schemautil.OpCreate, &resp.Diagnostics)
	defer done()
	var plan promiseModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	writer := ensureInstance(ctx, resp.Private, &resp.Diagnostics)
	// A replacement in the middle of a rollout keeps, as its plan recorded them, the destinations
	// waiting for their wave (see adoptReplaced, adopt_rollout.go); a plain create has none.
	kept := plan.keptPrior(ctx)
	r.apply(ctx, plan, kept, nil, resp.Private, writer, &resp.State, &resp.Diagnostics)
	if !kept.Placements.IsNull() && !resp.Diagnostics.HasError() {
		r.data.recordKept(recordsFromModel(ctx, kept.Placements), writer)
		resp.Diagnostics.Append(r.keepReplacedBase(ctx, plan, resp.Private)...)
	}
}

// Read looks at what every placement's location holds now (see placement.Observe) and records
// it: a missing file disappears from `files`, an edited one gets its new hash, a stray file in an
// owned folder appears. Offline, state stands as it is.
func (r *promiseResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data.isOffline() {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.State, "kratix_promise", schemautil.OpRead, &resp.Diagnostics)
	defer done()
	var state promiseModel
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private))
	prior := state.prior(ctx)
	if len(prior) == 0 {
		return
	}
	deps, _ := state.dependencies()
	held := state.heldDependencies(ctx, deps, req.Private)
	targets := map[string]observed{}
	for dest, pr := range prior {
		if pr.member == nil {
			continue // not in the recorded pool: nothing to reach it with
		}
		at := held(dest)
		at.Kept = tfvalue.SortedKeys(pr.Files) // an adopted index file of Kratix's keeps its name
		f, err := layout.DependencyFiles(pr.member.Target, at)
		if err != nil {
			continue
		}
		targets[dest] = observed{member: *pr.member, files: f, record: pr.Record}
	}
	found := r.data.readRefresh(ctx, "Promise", fmt.Sprintf("Promise %q", state.Name.ValueString()), targets, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	records := map[string]placement.Record{}
	for dest, pr := range prior {
		records[dest] = pr.Record
		if rec, ok := found[dest]; ok {
			records[dest] = rec
		}
	}
	changed := false
	if placements := recordsToModel(records); !placements.Equal(state.Placements) {
		state.Placements, changed = placements, true
	}
	if obs, ok, _ := observeOf(ctx, state.Observe); ok && obs != nil {
		targets := map[string]*poolMember{}
		for dest := range records {
			targets[dest] = prior[dest].member
		}
		who := fmt.Sprintf("Promise %q", state.Name.ValueString())
		subject := health.Subject{Promise: state.Name.ValueString()}
		if views, read := r.data.readHealth(ctx, who, *obs, subject, targets, readWrittenAt(ctx, req.Private), &resp.Diagnostics); read {
			if v := healthValue(views); !v.Equal(state.Health) {
				state.Health, changed = v, true
			}
		}
	}
	members := make([]poolMember, 0, len(prior))
	for _, dest := range tfvalue.SortedKeys(prior) {
		if m := prior[dest].member; m != nil {
			members = append(members, *m)
		}
	}
	if reg := r.data.refreshPromiseRegistration(ctx, state, members, readInstance(ctx, req.Private)); !reg.Equal(state.Registration) {
		state.Registration, changed = reg, true
	}
	if changed {
		resp.Diagnostics.Append(tfserver.SetState(ctx, &resp.State, &state)...)
	}
}

func (r *promiseResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data.refuseOffline("kratix_promise", "update", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_promise", schemautil.OpUpdate, &resp.Diagnostics)
	defer done()
	var plan, state promiseModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private))
	_, plan.imported = readAdoption(ctx, req.Private)
	if state = r.adoptInApply(ctx, req, resp, plan, state); resp.Diagnostics.HasError() {
		return
	}
	writer := ensureInstance(ctx, resp.Private, &resp.Diagnostics)
	r.apply(ctx, plan, state, req.Private, resp.Private, writer, &resp.State, &resp.Diagnostics)
}

// Delete removes the promise's owned folders from every destination it wrote to, misscheduled
// ones included, as Kratix cascades a promise's deletion. When Terraform deletes the promise to
// replace it (a create that failed somewhere leaves it tainted), what the replacement writes
// again stays: see privstate/successor.go; and so does what another instance wrote earlier in the same
// apply, as the replacement does before a create_before_destroy deletes the old object: see
// writelog.go.
func (r *promiseResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if r.data.refuseOffline("kratix_promise", "delete", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.State, "kratix_promise", schemautil.OpDelete, &resp.Diagnostics)
	defer done()
	var state promiseModel
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.left = leftBehindMembers(ctx, privstate.ReadLeftBehind(ctx, req.Private)) // a move's old files go too
	prior := state.prior(ctx)
	deps, _ := state.dependencies()
	p, err := placement.RemovePromise(deps, priorsOf(prior))
	if err != nil {
		resp.Diagnostics.Append(cannotLayOut("Promise", err))
		return
	}
	p = p.Spare(privstate.ReadSuccessor(ctx, req.Private).With(r.data.writtenByOthers(readInstance(ctx, req.Private))))
	who := fmt.Sprintf("Promise %q", state.Name.ValueString())
	ops := r.data.owned(p.Ops, readInstance(ctx, req.Private), false)
	ops, recordStores := r.data.unpublishPromise(ctx, state, readInstance(ctx, req.Private), ops, &resp.Diagnostics)
	failed := r.data.writeOps(ctx, "Promise", who, "Delete from: promise/"+state.Name.ValueString(), "", ops, refsOf(prior).add(recordStores...), &resp.Diagnostics)
	if len(failed) > 0 {
		// Keep what could not be removed, so that the next destroy tries again.
		state.record(p.Settle(failed))
		resp.Diagnostics.Append(tfserver.SetState(ctx, &resp.State, &state)...)
	}
}

// guardDestroy judges the promise's destroy with the guard its state holds (guardattr.CheckDestroy).
func (r *promiseResource) guardDestroy(ctx context.Context, st tfsdk.State) diag.Diagnostics {
	if st.Raw.IsNull() {
		return nil
	}
	var state promiseModel
	if diags := tfserver.GetState(ctx, st, &state); diags.HasError() || state.Guard.IsNull() {
		return diags
	}
	name := state.Name.ValueString()
	losses := destroyLosses(lenientPool(state.Destinations), priorsOf(state.prior(ctx)))
	return guardattr.CheckDestroy(ctx, state.Guard, r.data.acksForDestroy(), placement.GuardPromise, name, fmt.Sprintf("Promise %q", name), losses)
}

// ImportState takes the promise's name. Without the configuration it cannot know the pool, so it
// leaves the search to the first plan (see adopt.go): that plan records, per destination of the
// pool, what the destination's folder already holds of the promise, so that a configuration that
// matches the store plans no file change and its apply writes nothing.
func (r *promiseResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(writeAdoption(ctx, resp.Private, adoption{ImportedAt: r.data.clock().UTC().Format(time.RFC3339)})...)
}

// apply makes every store location hold what the plan decided, compared with what the location
// holds now (not with state), and records, per destination, what was written.
//
// With a rollout, each destination gets the revision the plan gave it in `revisions`. writer is
// the object's instance token, for the write log (writelog.go); outPrivate keeps the labels the
// files were written under (privstate/written_labels.go).
func (r *promiseResource) apply(ctx context.Context, plan, state promiseModel, private privstate.Reader, outPrivate privstate.Writer, writer string, out *tfsdk.State, diags *diag.Diagnostics) {
	in, pool, ok, d := plan.input(ctx, state)
	diags.Append(d...)
	if !ok || diags.HasError() {
		diags.Append(notKnown("Promise Not Known", "The promise's inputs are"))
		return
	}
	privstate.WithWrittenLabels(in.Prior, privstate.ReadWrittenLabels(ctx, private))
	s := plan.given(ctx, state, in, private)
	in.Staged = s.staged()
	p, d := planPromise(in)
	if diags.Append(d...); d.HasError() {
		return
	}
	name := plan.Name.ValueString()
	refs := refsOf(state.prior(ctx)).add(pool...)
	ops := p.Ops
	if plan.imported {
		ops = placement.MergeOps(ops, placement.HoldAll(placement.PromiseObject(name), p.Records, members(pool)))
	}
	ops = r.data.owned(ops, writer, plan.imported)
	ops, published := r.data.publishPromise(ctx, plan, state, pool, writer, ops, diags)
	refs = refs.add(published.members()...)
	failed := r.data.writeOps(ctx, "Promise", fmt.Sprintf("Promise %q", name), "Update from: promise/"+name, writer, ops, refs, diags)
	r.data.writeAlone(ctx, name, writer, &published, refs, diags)
	plan.ID = plan.Name
	plan.Registration = published.settle(failed)
	o := p.Settle(failed)
	plan.record(o)
	left := keepLeftBehind(ctx, in.Prior, o.Records, in.Pool, state.Destinations, privstate.ReadLeftBehind(ctx, private))
	diags.Append(privstate.WriteLeftBehind(ctx, outPrivate, left)...)
	warnMoveNotFinished(fmt.Sprintf("Promise %q", name), in.Prior, left, diags)
	diags.Append(privstate.WriteWrittenLabels(ctx, outPrivate, placement.WrittenLabels(in.Prior, o, in.Pool))...)
	obs, _, _ := observeOf(ctx, plan.Observe)
	wrote := rewritten(priorRecordsOf(in.Prior), p.Records, p.Ops, failed)
	diags.Append(writeWrittenAt(ctx, outPrivate, obs != nil, readWrittenAt(ctx, private), tfvalue.SortedKeys(o.Records), wrote, r.data.clock())...)
	if policy, _, _ := rolloutPolicy(ctx, path.Root("rollout"), plan.Rollout); policy != nil {
		plan.settleRollout(ctx, state, s, policy.MinWait, r.data.clock(), p.Records, o.Records)
	}
	diags.Append(tfserver.SetState(ctx, out, &plan)...)
}
