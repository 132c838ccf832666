package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/registry"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

var (
	_ resource.Resource                = (*destinationResource)(nil)
	_ resource.ResourceWithConfigure   = (*destinationResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*destinationResource)(nil)
	_ resource.ResourceWithImportState = (*destinationResource)(nil)
)

const (
	cleanupNone = "none"
	cleanupAll  = "all"
)

// NewDestinationResource is the kratix_destination resource.
func NewDestinationResource() resource.Resource { return &destinationResource{} }

type destinationResource struct{ data *providerData }

func (r *destinationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_destination"
}

func (r *destinationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	modes := make([]string, len(layout.Modes))
	for i, m := range layout.Modes {
		modes[i] = string(m)
	}
	resp.Schema = schema.Schema{
		Version: destinationSchemaVersion,
		MarkdownDescription: "A place that receives files: one folder in one state store, read by one cluster's " +
			"GitOps agent, the counterpart of a Kratix Destination. Its `labels` decide which promises and resource " +
			"requests are scheduled to it.\n\n" +
			"With `init_workloads` (the default) it writes Kratix's two canary files, so the cluster's agent has " +
			"something to apply; a canary deleted or edited in the store shows in the next plan and the apply puts it " +
			"back. Changing `labels` writes nothing by itself.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "The destination's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the destination, a Kubernetes object name. Changing it replaces the resource.",
				Validators:          []validator.String{schemautil.DNSName()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"labels": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Labels matched by promises' and resource requests' `destination_selectors`, in " +
					"Kubernetes label syntax. A null value is no label: `zone = var.zone` with a null `var.zone` leaves the " +
					"destination without a `zone` label.",
				Validators: []validator.Map{schemautil.LabelsValidator{}},
			},
			"state_store": storeconfig.RefSchema("The store this destination's files go to: pass the store resource, " +
				"`state_store = kratix_state_store.this`. Moving to another place (endpoint, bucket, repository, branch " +
				"or store path, compared in normalised form) replaces the destination, and the files of the promises and " +
				"requests on it follow it there. Another store resource for the same place, credentials, the commit " +
				"author and cosmetic spellings (a `.git` suffix, a trailing `/`, a store path of `.`) change nothing."),
			"path": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Folder of this destination inside the store, joined to the store's path. `.` or " +
					"`/` mean the store's root. Changing the folder it means replaces the resource (`.` to `/` does not). " +
					"Two destinations may not share a folder; one may sit inside another's only when the outer one is in " +
					"`filepath_mode` `none` or `aggregatedYAML` (Kratix's root destination), whose writes are the files it names.",
				Validators:    []validator.String{schemautil.StorePath()},
				PlanModifiers: []planmodifier.String{schemautil.ReplaceIfPathMoves()},
			},
			"taints": schedattr.TaintsAttribute("Taints keep promises and requests that do not tolerate them away from this "+
				"destination, as a Kubernetes node's taints keep pods away: `NoSchedule` takes it out of service for new "+
				"placements (what is here stays), `PreferNoSchedule` makes it the last choice of requests, `NoExecute` drains "+
				"it (each request here moves to its next choice, written there before it is removed here; promise "+
				"dependencies here are unscheduled as the promise's `on_unschedule` says). Changing taints (or weight, or labels) "+
				"writes nothing by itself: the destination's apply sends no request to its store, nor does that of a promise or "+
				"request on it whose files do not move; the plans of the promises and requests on the destination show what moves. See the guide \"Taking a "+
				"destination out of service\".", true),
			"weight": schedattr.WeightAttribute("This destination's share of resource requests relative to the other candidates' "+
				"(1 to 1000; unset is 1): a destination of weight 3 takes about three times the requests of one of weight 1 "+
				"(weighted rendezvous hashing). Changing a weight moves only the requests that must move to reach the new "+
				"shares, and only requests choosing now: a request stays where it is (see kratix_resource_request).", true),
			"strict_match_labels": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "When true and the destination has labels, promises and requests without any " +
					"selector are not scheduled to it.",
			},
			"filepath_mode": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(layout.ModeNestedByMetadata)),
				MarkdownDescription: "Folder layout: `nestedByMetadata` (Kratix's default), `none` (files at the root, " +
					"tracked in `.kratix/`), `aggregatedYAML` (one file) or `splitByKind` (`crds/` and `resources/`). " +
					"Changing it replaces the resource.",
				Validators:    []validator.String{stringvalidator.OneOf(modes...)},
				PlanModifiers: []planmodifier.String{schemautil.ReplaceIfSet()},
			},
			"aggregated_filename": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(layout.DefaultAggregatedFilename),
				MarkdownDescription: "File name of `aggregatedYAML` mode, relative to the destination's folder. " +
					"Changing it replaces the resource.",
				Validators:    []validator.String{schemautil.FileName()},
				PlanModifiers: []planmodifier.String{schemautil.ReplaceIfSet()},
			},
			"init_workloads": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Write Kratix's canary files (a Namespace and a ConfigMap). Turning it off removes them.",
			},
			"cleanup": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(cleanupNone),
				MarkdownDescription: "What destroying the destination removes from the store: `none` (nothing) or `all` " +
					"(what its placements and canaries own, confined to its folder: each placement's `.../5058f/` folder, " +
					"`.kratix/` index files and the files they list, splitByKind's `crds/00-*` and `resources/01-*` files, " +
					"the aggregate and its parts, and the canaries; other files, such as a hand-written " +
					"`resources/kustomization.yaml`, are kept).",
				Validators: []validator.String{stringvalidator.OneOf(cleanupNone, cleanupAll)},
			},
			"instance_id": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "A value new each time the destination is created. Promises and requests receive it " +
					"with the destination, so when the destination is replaced (and its cleanup empties the folder) they " +
					"write their files again in the same apply.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"root": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The destination's folder in the bucket or repository: the store's path joined with " +
					"`path` (empty for the root).",
			},
			"files": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "The canary files this destination keeps in the store: path to the MD5 of their " +
					"content. Known during plan; a file missing or changed in the store shows here as a difference.",
			},
			"registration": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "The destination's registration record in its store, path to the MD5 of its content: " +
					"Kratix's `Destination` object (labels, path, filepath mode, state store reference) with this provider's " +
					"extensions (owner, taints, weight, instance id, the time written) in annotations under `" +
					registry.AnnotationPrefix + "`, at `<store path>/" + layout.RegistryDir + "/destinations/<name>.yaml`, " +
					"outside every destination's folder, where `data.kratix_destinations` in other workspaces finds it. " +
					"It is written on create and whenever what it says changes (the MD5 is then known after apply, as the " +
					"record holds the time it was written), removed on destroy when it is still this owner's, and " +
					"written again when it is deleted or edited in the store. Creating a destination whose record another " +
					"owner (the provider's `owner`) holds is refused. A change of labels, weight or taints writes only the " +
					"record, and a store that cannot be reached then is a warning, not an error: the next plan writes it again.",
			},
		},
		Blocks: map[string]schema.Block{"timeouts": schemautil.TimeoutsBlock(ctx, schemautil.OpCreate, schemautil.OpRead, schemautil.OpUpdate, schemautil.OpDelete)},
	}
}

func (r *destinationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *destinationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	if checkImportedName(ctx, req, "Destination", &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	var plan destinationModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m, ok, diags := plan.member()
	resp.Diagnostics.Append(diags...)
	if !ok {
		return
	}
	if r.data != nil {
		resp.Diagnostics.Append(r.data.checkCredentials(m.Store, path.Root(storeconfig.AttributeName))...)
	}
	resp.Diagnostics.Append(r.data.claimFolders(fmt.Sprintf("kratix_destination %q", m.Name),
		func(int) path.Path { return path.Root("path") }, []poolMember{m})...)
	if resp.Diagnostics.HasError() {
		return
	}
	p := placement.PlanCanaries(m.Member, plan.InitWorkloads.ValueBool())
	plan.Root = types.StringValue(m.Target.Root)
	plan.Files = tfvalue.StringMapValue(p.Records[m.Name].Files)
	if req.State.Raw.IsNull() {
		// A new object, perhaps the successor of one Terraform deletes first: see privstate/successor.go.
		resp.Diagnostics.Append(privstate.WriteSuccessor(ctx, resp.Private, placement.SuccessorOf(p.Ops))...)
	}
	if plan.InstanceID.IsNull() {
		plan.InstanceID = types.StringUnknown() // imported: the apply gives it one
	}
	var prior *destinationModel
	if !req.State.Raw.IsNull() {
		var state destinationModel
		resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
		warnNewTaints(m.Name, state.Taints, plan.Taints, func() ([]string, bool) { return r.data.requestsHeld(ctx, m) }, &resp.Diagnostics)
		prior = &state
	} else if r.data.checkRegistrationFree(ctx, m, true, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	plan.Registration = plannedRegistration(ctx, r.data, m, plan, prior)
	resp.Diagnostics.Append(tfserver.SetPlan(ctx, &resp.Plan, &plan)...)
}

// warnNewTaints says what the taints a destination gains in this plan do: a NoExecute taint drains
// it, a NoSchedule taint takes it out of service for new placements. The plans of the promises
// and requests on it say what each does.
func warnNewTaints(name string, before, after types.List, held func() ([]string, bool), diags *diag.Diagnostics) {
	was, okWas := schedattr.TaintsFromList(before)
	now, okNow := schedattr.TaintsFromList(after)
	if !okWas || !okNow {
		return
	}
	for _, t := range now {
		if slices.Contains(was, t) {
			continue
		}
		switch t.Effect {
		case scheduling.EffectNoExecute:
			on := "every resource request on it"
			if ids, known := held(); known {
				on = fmt.Sprintf("each of the %d resource requests whose files it holds (%s)", len(ids), strings.Join(ids, ", "))
				if len(ids) == 0 {
					on = "each resource request on it (its folder holds none now)"
				}
			}
			diags.AddAttributeWarning(path.Root("taints"), "Destination Drained", fmt.Sprintf(
				"Destination %q is tainted %s: in this apply %s that does not tolerate the taint moves to its next choice "+
					"(written there first, then removed here), and the dependencies of promises that do not tolerate it are "+
					"unscheduled as their on_unschedule says. The plans of those requests and promises say what moves where.", name, t, on))
		case scheduling.EffectNoSchedule:
			diags.AddAttributeWarning(path.Root("taints"), "Destination Cordoned", fmt.Sprintf(
				"Destination %q is tainted %s: nothing new is placed on it (new requests go to their next choice, promises "+
					"that do not tolerate it are not added); what is on it stays and is still updated.", name, t))
		}
	}
}

func (r *destinationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data.refuseOffline("kratix_destination", "create", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_destination", schemautil.OpCreate, &resp.Diagnostics)
	defer done()
	var plan destinationModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.converge(ctx, plan, nil, &resp.State, &resp.Diagnostics)
}

// Read looks at the canary paths in the store. A missing canary is dropped from `files`, an
// edited one gets its new hash, and one present while init_workloads is false appears, so the
// next plan shows the difference and the apply repairs it. Failures other than "not found" are
// errors, never "gone". Offline, state stands as it is.
func (r *destinationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data.isOffline() {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.State, "kratix_destination", schemautil.OpRead, &resp.Diagnostics)
	defer done()
	var state destinationModel
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	m, ok, _ := state.member()
	if !ok {
		return
	}
	p := placement.PlanCanaries(m.Member, state.InitWorkloads.ValueBool())
	f := layout.Files{Put: map[string][]byte{}}
	for path := range layout.Canaries(m.Target.Mode, m.Target.Root) {
		f.Claims = append(f.Claims, path)
	}
	rec := p.Records[m.Name]
	rec.Files = tfvalue.StringMap(ctx, state.Files)
	found := r.data.readRefresh(ctx, "Destination", fmt.Sprintf("Destination %q", state.Name.ValueString()), map[string]observed{m.Name: {member: m, files: f, record: rec}}, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if got, ok := found[m.Name]; ok {
		state.Files = tfvalue.StringMapValue(got.Files)
	}
	state.Registration = r.data.refreshRegistration(ctx, m, state)
	resp.Diagnostics.Append(tfserver.SetState(ctx, &resp.State, &state)...)
}

func (r *destinationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data.refuseOffline("kratix_destination", "update", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_destination", schemautil.OpUpdate, &resp.Diagnostics)
	defer done()
	resp.Diagnostics.Append(forgetAdoption(ctx, resp.Private)...) // the import's mark: see checkImportedName, adopt.go
	var plan, prior destinationModel
	resp.Diagnostics.Append(tfserver.GetPlan(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.converge(ctx, plan, &prior, &resp.State, &resp.Diagnostics)
}

// converge makes the store hold the planned canary files, compared with what it holds now, and
// records the result. An update (prior, the state, not nil) whose folder, layout and canaries
// stay as they were (a change of labels, weight or taints) sends nothing to the store: see
// placement.UpdateCanaries.
func (r *destinationResource) converge(ctx context.Context, plan destinationModel, prior *destinationModel, state *tfsdk.State, diags *diag.Diagnostics) {
	m, ok, d := plan.member()
	diags.Append(d...)
	if !ok || diags.HasError() {
		diags.Append(notKnown("Destination Not Known", "The destination's store or path is"))
		return
	}
	p := placement.PlanCanaries(m.Member, plan.InitWorkloads.ValueBool())
	if prior != nil {
		if was, known, _ := prior.member(); known {
			p = placement.UpdateCanaries(&was.Member, tfvalue.StringMap(ctx, prior.Files), m.Member, plan.InitWorkloads.ValueBool())
		}
	}
	message := "Update from: " + layout.CanaryWorkName
	if !plan.InitWorkloads.ValueBool() {
		message = "Delete from: " + layout.CanaryWorkName
	}
	regPath, record, held := registrationPath(m), []byte(nil), ""
	if prior != nil && rewritesRegistration(plan.Registration) {
		// An update: the store may hold this very record already (an import of a destination
		// registered by this owner): adopt it, its instance_id included, without a write.
		held = r.data.adoptRegistration(ctx, m, &plan)
	}
	if plan.InstanceID.IsUnknown() || plan.InstanceID.IsNull() {
		plan.InstanceID = types.StringValue(newInstanceID())
	}
	who := fmt.Sprintf("Destination %q", plan.Name.ValueString())
	writer := destinationWriter(plan.InstanceID.ValueString())
	if held == "" && (prior == nil || rewritesRegistration(plan.Registration)) {
		if prior == nil {
			if r.data.checkRegistrationFree(ctx, m, false, diags); diags.HasError() {
				return
			}
		}
		rec, _ := registrationOf(ctx, plan, r.data.ownerName(), r.data.clock())
		record = registry.RenderDestination(rec)
	}
	ops := p.Ops
	if record != nil && prior == nil {
		// Created: the record is part of the destination's own change (one commit on git); without
		// canaries to write (init_workloads = false), the commit is named for the record.
		if !slices.ContainsFunc(ops, func(op placement.Op) bool { return len(op.Change.Put) > 0 }) {
			message = "Update from: " + regPath
		}
		ops = withRegistration(ops, m, regPath, record)
	}
	if failed := r.data.writeOps(ctx, "Destination", who, message, writer, ops, storeRefs{}.add(m), diags); len(failed) > 0 {
		return
	}
	if record != nil && prior != nil {
		// Updated: the record alone, best-effort (see registration.go); its commit names it.
		var wd diag.Diagnostics
		alone := withRegistration(nil, m, regPath, record)
		if failed := r.data.writeOps(ctx, "Destination", who, "Update from: "+regPath, writer, alone, storeRefs{}.add(m), &wd); len(failed) > 0 {
			record = nil
		}
		for _, d := range wd {
			if d.Severity() != diag.SeverityError {
				diags.Append(d)
				continue
			}
			diags.AddAttributeWarning(path.Root("registration"), "Registration Not Written", fmt.Sprintf("Destination %q: its "+
				"record %s could not be written (%s). %s\n\nThe destination's other changes are applied (its labels, weight and "+
				"taints write nothing else); its record in the store still says what it said before, and the next plan "+
				"writes it again.", m.Name, regPath, strings.ToLower(d.Summary()), d.Detail()))
		}
	}
	switch {
	case held != "":
		plan.Registration = tfvalue.StringMapValue(map[string]string{regPath: held})
	case record != nil || rewritesRegistration(plan.Registration):
		plan.Registration = registrationValue(regPath, record)
	}
	plan.ID = plan.Name
	plan.Root = types.StringValue(m.Target.Root)
	plan.Files = tfvalue.StringMapValue(p.Records[m.Name].Files)
	diags.Append(tfserver.SetState(ctx, state, &plan)...)
}

// Delete follows `cleanup`: with "none" every file stays (Kratix's default); with "all" what the
// destination's placements and canaries own goes, confined to its folder, in one operation,
// but for what other objects wrote there in the same apply.
func (r *destinationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if r.data.refuseOffline("kratix_destination", "delete", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.State, "kratix_destination", schemautil.OpDelete, &resp.Diagnostics)
	defer done()
	var state destinationModel
	resp.Diagnostics.Append(tfserver.GetState(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m, ok, d := state.member()
	resp.Diagnostics.Append(d...)
	if !ok {
		return
	}
	name := state.Name.ValueString()
	store := r.open(m.Store, name, &resp.Diagnostics)
	if store == nil {
		return
	}
	var deregistered []string
	if r.data.deregister(ctx, store, m, state.InstanceID.ValueString(), &resp.Diagnostics) {
		deregistered = []string{registrationPath(m)}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	if state.Cleanup.ValueString() != cleanupAll {
		if len(deregistered) > 0 {
			if _, err := store.Apply(ctx, placement.Change{Message: "Delete from: " + deregistered[0], Delete: deregistered}); err != nil {
				resp.Diagnostics.Append(registrationLeft(name, deregistered[0], "removing it failed", err))
			}
		}
		return
	}
	// Replaced by a destination in the same folder: the canaries it writes again stay (see
	// privstate/successor.go), and so does every file another object wrote earlier in this apply (see
	// writelog.go): the successor's canaries, created before this one is destroyed under
	// create_before_destroy, and what the promises and requests on the successor wrote there.
	// None of those is an orphan: it was written for an object the apply keeps (or one whose
	// own destroy, which Terraform runs before this one's, has removed it already).
	successor := privstate.ReadSuccessor(ctx, req.Private).With(r.data.writtenByOthers(destinationWriter(state.InstanceID.ValueString())))
	listing, err := store.List(ctx, layout.Prefix(m.Target.Root))
	if err != nil {
		addStoreError(&resp.Diagnostics, "Cannot Clean Up Destination", fmt.Sprintf("Listing the files of destination %q failed", name), err)
		return
	}
	indexes, err := readIndexes(ctx, store, layout.Prefix(m.Target.Root, layout.IndexDir), listing)
	if err != nil {
		addStoreError(&resp.Diagnostics, "Cannot Clean Up Destination", fmt.Sprintf("Reading the index files of destination %q failed", name), err)
		return
	}
	listed := tfvalue.SortedKeys(listing)
	c := successor.SpareFiles(m.Location, placement.Cleanup(m.Target, listed, indexes), listed)
	if c, err = r.data.spareForeign(ctx, store, m, fmt.Sprintf("Destination %q", name), c, &resp.Diagnostics); err != nil {
		addStoreError(&resp.Diagnostics, "Cannot Clean Up Destination", fmt.Sprintf("Reading the owner records of destination %q failed", name), err)
		return
	}
	c.Message = "Delete from: destination/" + name
	c.Delete = append(c.Delete, deregistered...)
	res, err := store.Apply(ctx, c)
	if err != nil {
		addStoreError(&resp.Diagnostics, "Cannot Clean Up Destination", fmt.Sprintf("Removing the files of destination %q failed", name), err)
		return
	}
	tflog.Info(ctx, "destination cleaned up", map[string]any{"destination": name, "deleted": len(res.Deleted)})
}

// ImportState takes the destination's name; the first plan checks it against the configuration
// (checkImportedName, adopt.go).
func (r *destinationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(writeAdoption(ctx, resp.Private, adoption{})...)
}

func (r *destinationResource) open(ref storeconfig.Ref, name string, diags *diag.Diagnostics) statestore.Store {
	if r.data == nil {
		diags.Append(providerNotConfigured())
		return nil
	}
	store, err := r.data.open(ref, false)
	if err != nil {
		diags.Append(storeNotUsableAt(path.Root(storeconfig.AttributeName), fmt.Sprintf("Destination %q cannot use state store %q", name, ref.Name.ValueString()), err))
		return nil
	}
	return store
}

// readIndexes reads the `.kratix/` index files found in a listing under prefix. A file that is
// not an index of ours is skipped: it is removed with the folder, the files it names are not.
func readIndexes(ctx context.Context, store statestore.Store, prefix string, listing map[string]string) (map[string]layout.Index, error) {
	out := map[string]layout.Index{}
	for _, p := range tfvalue.SortedKeys(listing) {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		content, err := store.Read(ctx, p)
		if statestore.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if idx, err := layout.ParseIndex(content); err == nil {
			out[p] = idx
		} else {
			out[p] = layout.Index{}
		}
	}
	return out, nil
}

// requestsHeld reads which requests the destination's folder holds, from the plan's shared
// listing of its store path; known is false offline, on a store that cannot be read, or in a
// layout whose paths do not name requests.
func (d *providerData) requestsHeld(ctx context.Context, m poolMember) ([]string, bool) {
	if d == nil || d.isOffline() {
		return nil, false
	}
	store, err := d.open(m.Store, false)
	if err != nil {
		return nil, false
	}
	files, err := sharedView(store, m.Target.StorePath).List(ctx, layout.Prefix(m.Target.Root))
	if err != nil {
		tflog.Debug(ctx, "could not count the requests of a drained destination", map[string]any{"error": err.Error()})
		return nil, false
	}
	return placement.RequestsHeld(m.Target, slices.Collect(maps.Keys(files)))
}
