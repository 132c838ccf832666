package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
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
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
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

// promiseRefModel is what a request receives of its promise (`promise = kratix_promise.jenkins`).
// The lists may be unknown at plan, and the whole object too (see requestModel.promise).
type promiseRefModel struct {
	Name                 types.String `tfsdk:"name"`
	DestinationSelectors types.List   `tfsdk:"destination_selectors"`
	Destinations         types.List   `tfsdk:"destinations"`
}

type requestModel struct {
	ID                   types.String   `tfsdk:"id"`
	Promise              types.Object   `tfsdk:"promise"` // promiseRefModel; unknown when chosen by a condition known after apply
	Name                 types.String   `tfsdk:"name"`
	Namespace            types.String   `tfsdk:"namespace"`
	Pipeline             types.String   `tfsdk:"pipeline"`
	Documents            manifestsValue `tfsdk:"documents"`
	Files                types.Map      `tfsdk:"files"`
	DestinationSelectors types.List     `tfsdk:"destination_selectors"`
	Destination          types.String   `tfsdk:"destination"`
	Misscheduled         types.Bool     `tfsdk:"misscheduled"`
	Location             types.String   `tfsdk:"location"`
	Root                 types.String   `tfsdk:"root"`
	WrittenFiles         types.Map      `tfsdk:"written_files"`
	DocumentsWO          types.String   `tfsdk:"documents_wo"`
	FilesWO              types.Map      `tfsdk:"files_wo"`
	ContentWOVersion     types.Int64    `tfsdk:"content_wo_version"`
	Guard                types.Object   `tfsdk:"guard"` // guardModel; see guard.go

	// secret is the provider's content_hash_key when the content is write-only (see
	// request_write_only.go); never stored.
	secret []byte

	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

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
					"destination_selectors": selectorsResourceSchema("The promise's selectors."),
					"destinations":          pool,
				},
			},
			"name": schema.StringAttribute{
				Required: true, MarkdownDescription: "Name of the request, a Kubernetes object name. Changing it replaces the resource.",
				Validators:    []validator.String{dnsName()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"namespace": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("default"),
				MarkdownDescription: "Namespace of the request. Changing it replaces the resource.",
				Validators:          []validator.String{dnsName()},
				PlanModifiers:       []planmodifier.String{replaceIfSet()},
			},
			"pipeline": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(layout.DefaultPipeline),
				MarkdownDescription: "The pipeline folder the files are filed under. Changing it replaces the resource.",
				Validators:          []validator.String{dnsName()},
				PlanModifiers:       []planmodifier.String{replaceIfSet()},
			},
			"documents": schema.StringAttribute{
				Optional: true, CustomType: manifestsType{},
				MarkdownDescription: "Multi-document Kubernetes YAML, written (canonically serialised) as `<name>.yaml`. " +
					"A change of formatting only is no change.",
			},
			"files": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Files by path, as a pipeline leaves them in `/kratix/output`, written byte for byte. " +
					"With `documents` too, both are written.",
			},
			"destination_selectors": selectorsResourceSchema("Selectors added to the promise's, as a pipeline's " +
				"`destination-selectors.yaml` does. On a key the promise also selects, the promise wins and the plan warns."),
			"destination": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The destination the request is scheduled to, known during plan; null while no destination matches.",
			},
			"misscheduled": schema.BoolAttribute{
				Computed: true, MarkdownDescription: "True when the kept destination no longer matches the selectors.",
			},
			"location": schema.StringAttribute{Computed: true, MarkdownDescription: "Where the chosen destination's store is, normalised: `s3://<endpoint>/<bucket>` or `git+<url>@<branch>`."},
			"root":     schema.StringAttribute{Computed: true, MarkdownDescription: "The chosen destination's folder in its store."},
			"guard": guardSchema("remove the request's files from a destination `protect` selects, or move it off " +
				"its destination (to another destination, store or folder; refused whenever a guard is set)"),
			"written_files": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Every file the request keeps in the store: path to MD5. Known during plan; drift (a file " +
					"edited or deleted, a stray file in the request's folder) shows here. An aggregatedYAML file maps to " +
					"`part:<MD5 of this request's part>` while it is current, and to `stale` when it is not. With write-only " +
					"content, every hash is a keyed hash `hmac:<hex>` instead, which reveals nothing about the content.",
			},
		},
		Blocks: map[string]schema.Block{"timeouts": timeoutsBlock(ctx, opCreate, opRead, opUpdate, opDelete)},
	}
	addRequestWriteOnly(resp.Schema.Attributes)
}

func (r *requestResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
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

// promise is the request's promise; nil while it is null or unknown.
func (m requestModel) promise() *promiseRefModel {
	if m.Promise.IsNull() || m.Promise.IsUnknown() {
		return nil
	}
	var p promiseRefModel
	if d := m.Promise.As(context.Background(), &p, basetypes.ObjectAsOptions{}); d.HasError() {
		return nil
	}
	return &p
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
func (m requestModel) plan(ctx context.Context, state requestModel) (placement.RequestPlan, []poolMember, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	promise := m.promise()
	if promise == nil || promise.Name.IsUnknown() || m.Name.IsUnknown() || m.Namespace.IsUnknown() ||
		m.Pipeline.IsUnknown() || m.Documents.IsUnknown() || !mapKnown(m.Files) ||
		m.DocumentsWO.IsUnknown() || !mapKnown(m.FilesWO) || (m.writeOnly() && m.secret == nil) {
		return placement.RequestPlan{}, nil, false, diags
	}
	promiseEntries, okP, d := selectorsFromList(ctx, path.Root("promise").AtName("destination_selectors"), promise.DestinationSelectors)
	diags.Append(d...)
	own, okR, d := selectorsFromList(ctx, path.Root("destination_selectors"), m.DestinationSelectors)
	diags.Append(d...)
	pool, okPool, d := poolFromList(path.Root("promise").AtName("destinations"), promise.Destinations)
	diags.Append(d...)
	if !okP || !okR || !okPool || diags.HasError() {
		return placement.RequestPlan{}, nil, false, diags
	}
	if d := m.checkFileKeys(ctx); d.HasError() {
		diags.Append(d...)
		return placement.RequestPlan{}, nil, false, diags
	}
	out, err := m.output(ctx)
	if err != nil {
		diags.AddAttributeError(path.Root("files"), "Invalid Files", err.Error())
		return placement.RequestPlan{}, nil, false, diags
	}
	in := placement.Request{
		Key: m.key(), PromiseSelector: scheduling.Merge(promiseEntries), Selector: scheduling.Merge(own),
		Output: out, Pool: members(pool), HashKey: m.hashKey(),
	}
	if pr, ok := state.prior(ctx); ok {
		in.PriorDestination = state.Destination.ValueString()
		in.Prior = &pr
	}
	p, _, err := placement.PlanRequest(in)
	if err != nil {
		diags.Append(cannotLayOut("Request", err))
		return placement.RequestPlan{}, nil, false, diags
	}
	return p, pool, true, diags
}

// prior is what state says the request held, and its destination as the request saw it then.
func (m requestModel) prior(ctx context.Context) (placement.Prior, bool) {
	if m.promise() == nil || m.Destination.IsNull() || m.Destination.IsUnknown() {
		return placement.Prior{}, false
	}
	dest := m.Destination.ValueString()
	p := placement.Prior{Record: placement.Record{
		Location: m.Location.ValueString(), Root: m.Root.ValueString(), Misscheduled: m.Misscheduled.ValueBool(),
		Files: stringMap(ctx, m.WrittenFiles),
	}}
	if mem := findMember(m.destinations(), dest); mem != nil {
		p.Member = &mem.Member
		p.Record.Store = mem.Member.Store
	}
	return p, true
}

func (m requestModel) refs() storeRefs {
	refs := storeRefs{}
	if mem := findMember(m.destinations(), m.Destination.ValueString()); mem != nil {
		refs.add(*mem)
	}
	return refs
}

// checkFileKeys refuses, during plan and with the key's attribute path, file keys that are not a
// file, leave the folder, name one file twice, or reach what the request does not own (index
// files, canaries, other placements' files). documents counts as the file <name>.yaml.
func (m requestModel) checkFileKeys(ctx context.Context) diag.Diagnostics {
	var diags diag.Diagnostics
	files, filesWO := stringMap(ctx, m.Files), stringMap(ctx, m.FilesWO)
	keys := append(sortedKeys(files), sortedKeys(filesWO)...)
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
		for rel, content := range stringMap(ctx, files) {
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
	for _, rel := range sortedKeys(req.Files) {
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

func (r *requestResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan, state requestModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		plan.Documents = keepIfSameMeaning(ctx, plan.Documents, state.Documents)
	}
	resp.Diagnostics.Append(plan.takeWriteOnly(ctx, req.Config, r.data)...)
	if resp.Diagnostics.HasError() {
		return
	}
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
	resp.Diagnostics.Append(r.data.claimFolders(by, pathAt, pool)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if p.Chosen != nil && r.data != nil {
		if mem := findMember(plan.destinations(), p.Chosen.Name); mem != nil {
			resp.Diagnostics.Append(r.data.checkCredentials(mem.Store, path.Root("promise").AtName("destinations"))...)
		}
	}
	for _, w := range p.Warnings {
		resp.Diagnostics.AddWarning("Request Scheduling", w)
	}
	if !plan.Guard.IsNull() {
		if prior, held := state.prior(ctx); held {
			losses := placement.RequestLosses(state.Destination.ValueString(), &prior, p, members(pool))
			resp.Diagnostics.Append(checkGuard(ctx, plan.Guard, placement.GuardRequest, plan.key(), "Request "+plan.id(), losses)...)
			if resp.Diagnostics.HasError() {
				return
			}
		}
	}
	if resp.Diagnostics.Append(r.data.checkOwners(ctx, plan.owner(), "Request", p.Records, state.priorRecords(ctx), pool, plan.fileAttr(ctx, p.Records))...); resp.Diagnostics.HasError() {
		return
	}
	if adopted != nil && p.Chosen != nil {
		if w := adopted.notFoundWarning(plan, p.Chosen.Name); w != "" {
			resp.Diagnostics.AddWarning("Imported Request Not Found", w)
		}
		who := fmt.Sprintf("Request %s/%s/%s", plan.promiseName(), plan.Namespace.ValueString(), plan.Name.ValueString())
		if w := bookkeepingWarning(who, adopted.Found, p.Records); w != "" {
			resp.Diagnostics.AddWarning("Import Adds Bookkeeping Files", w)
		}
	}
	plan.record(p, p.Settle(nil))
	if req.State.Raw.IsNull() {
		// A new object, perhaps the successor of one Terraform deletes first: see successor.go.
		resp.Diagnostics.Append(writeSuccessor(ctx, resp.Private, placement.SuccessorOf(p.Ops))...)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// record sets the computed attributes from an outcome: the destination the request holds
// files in, or none.
func (m *requestModel) record(p placement.RequestPlan, o placement.Outcome) {
	m.ID = types.StringValue(m.id())
	m.Misscheduled = types.BoolValue(false)
	m.Destination, m.Location, m.Root = types.StringNull(), types.StringNull(), types.StringNull()
	m.WrittenFiles = stringMapValue(map[string]string{})
	m.DocumentsWO, m.FilesWO = types.StringNull(), types.MapNull(types.StringType) // never in plan or state
	for dest, rec := range o.Records {
		if p.Chosen != nil && dest != p.Chosen.Name && len(o.Records) > 1 {
			continue
		}
		m.Destination = types.StringValue(dest)
		m.Location = types.StringValue(rec.Location)
		m.Root = types.StringValue(rec.Root)
		m.Misscheduled = types.BoolValue(rec.Misscheduled)
		m.WrittenFiles = stringMapValue(rec.Files)
	}
}

func (r *requestResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data.refuseOffline("kratix_resource_request", "create", &resp.Diagnostics) {
		return
	}
	ctx, done := startOp(ctx, req.Plan, "kratix_resource_request", opCreate, &resp.Diagnostics)
	defer done()
	var plan requestModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(plan.takeWriteOnly(ctx, req.Config, r.data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	writer := ensureInstance(ctx, resp.Private, &resp.Diagnostics)
	r.apply(ctx, plan, requestModel{}, writer, &resp.State, &resp.Diagnostics)
}

// Read looks at what the request's destination holds now; see kratix_promise. Offline, state
// stands as it is.
func (r *requestResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data.isOffline() {
		return
	}
	ctx, done := startOp(ctx, req.State, "kratix_resource_request", opRead, &resp.Diagnostics)
	defer done()
	var state requestModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	prior, ok := state.prior(ctx)
	if !ok || prior.Member == nil {
		return
	}
	if ok, d := r.readKey(&state, prior.Record); !ok {
		resp.Diagnostics.Append(d...)
		return
	}
	out, err := state.output(ctx)
	if err != nil {
		return
	}
	out.Kept = sortedKeys(prior.Record.Files) // an adopted index file of Kratix's keeps its name
	f, err := layout.RequestFiles(prior.Member.Target, out)
	if err != nil {
		return
	}
	dest := state.Destination.ValueString()
	mem := findMember(state.destinations(), dest)
	found := r.data.refresh(ctx, "Request", "Request "+state.id(), map[string]observed{dest: {member: *mem, files: f, record: prior.Record, hashKey: state.hashKey()}}, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if rec, ok := found[dest]; ok {
		state.WrittenFiles = stringMapValue(rec.Files)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *requestResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data.refuseOffline("kratix_resource_request", "update", &resp.Diagnostics) {
		return
	}
	ctx, done := startOp(ctx, req.Plan, "kratix_resource_request", opUpdate, &resp.Diagnostics)
	defer done()
	var plan, state requestModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(plan.takeWriteOnly(ctx, req.Config, r.data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state = r.adoptInApply(ctx, req, resp, plan, state); resp.Diagnostics.HasError() {
		return
	}
	writer := ensureInstance(ctx, resp.Private, &resp.Diagnostics)
	r.apply(ctx, plan, state, writer, &resp.State, &resp.Diagnostics)
}

// Delete removes the request's owned folder (or its files and index, or its part of an
// aggregate) from its destination, sparing what a replacement writes again (successor.go) or
// another instance wrote earlier in the same apply (writelog.go).
func (r *requestResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if r.data.refuseOffline("kratix_resource_request", "delete", &resp.Diagnostics) {
		return
	}
	ctx, done := startOp(ctx, req.State, "kratix_resource_request", opDelete, &resp.Diagnostics)
	defer done()
	var state requestModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior, ok := state.prior(ctx)
	if !ok {
		return
	}
	out, _ := state.output(ctx)
	p, err := placement.RemoveRequest(out, state.Destination.ValueString(), prior)
	if err != nil {
		resp.Diagnostics.Append(cannotLayOut("Request", err))
		return
	}
	p = p.Spare(readSuccessor(ctx, req.Private).With(r.data.writtenByOthers(readInstance(ctx, req.Private))))
	failed := r.data.writeOps(ctx, "Request", "Request "+state.id(), "Delete from: request/"+state.id(), "", p.Ops, state.refs(), &resp.Diagnostics)
	if len(failed) > 0 {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...) // kept, so that the next destroy tries again
	}
}

// ImportState takes `<promise>/<namespace>/<name>`, or `<promise>/<namespace>/<name>@<destination>`
// to name the destination the request is on. Without the configuration it cannot know the pool,
// so it leaves the search to the first plan (see adopt.go): that plan keeps the request on the
// destination whose folder holds it, or on the one named.
func (r *requestResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	base, parts, dest, err := parseRequestImportID(req.ID)
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
func (r *requestResource) apply(ctx context.Context, plan, state requestModel, writer string, out *tfsdk.State, diags *diag.Diagnostics) {
	p, pool, ok, d := plan.plan(ctx, state)
	diags.Append(d...)
	if !ok || diags.HasError() {
		diags.Append(notKnown("Request Not Known", "The request's inputs are"))
		return
	}
	refs := state.refs().add(pool...)
	failed := r.data.writeOps(ctx, "Request", "Request "+plan.id(), "Update from: request/"+plan.id(), writer, p.Ops, refs, diags)
	plan.record(p, p.Settle(failed))
	diags.Append(out.Set(ctx, &plan)...)
}

func findMember(pool types.List, name string) *poolMember {
	if m, ok := lenientPool(pool)[name]; ok {
		return &m
	}
	return nil
}
