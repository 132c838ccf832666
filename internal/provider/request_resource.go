package provider

import (
	"context"
	"fmt"
	"strings"

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

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
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
type promiseRefModel struct {
	Name                 types.String      `tfsdk:"name"`
	DestinationSelectors []selectorModel   `tfsdk:"destination_selectors"`
	Destinations         []poolMemberModel `tfsdk:"destinations"`
}

type requestModel struct {
	ID                   types.String     `tfsdk:"id"`
	Promise              *promiseRefModel `tfsdk:"promise"`
	Name                 types.String     `tfsdk:"name"`
	Namespace            types.String     `tfsdk:"namespace"`
	Pipeline             types.String     `tfsdk:"pipeline"`
	Documents            manifestsValue   `tfsdk:"documents"`
	Files                types.Map        `tfsdk:"files"`
	DestinationSelectors []selectorModel  `tfsdk:"destination_selectors"`
	Destination          types.String     `tfsdk:"destination"`
	Misscheduled         types.Bool       `tfsdk:"misscheduled"`
	Root                 types.String     `tfsdk:"root"`
	WrittenFiles         types.Map        `tfsdk:"written_files"`
}

func (r *requestResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_resource_request"
}

func (r *requestResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	pool := poolSchema("The promise's candidate pool.")
	pool.Required, pool.Optional = false, true
	resp.Schema = schema.Schema{
		MarkdownDescription: "One request for a promise's service, the counterpart of a Kratix resource request. " +
			"There is no pipeline container: the documents it produces come from Terraform (`templatefile`, " +
			"modules). It lands on exactly one destination, chosen during plan among the promise's pool matched " +
			"against the promise's selectors plus this request's, by rendezvous hashing of " +
			"`<namespace>/<promise>/<name>`: every machine and every plan agree. Once applied, the choice is kept " +
			"while that destination stays in the pool, even if it stops matching (then `misscheduled` is true and it " +
			"is still updated, as Kratix keeps its first choice).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "`<promise>/<namespace>/<name>`.",
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
			"root": schema.StringAttribute{Computed: true, MarkdownDescription: "The chosen destination's folder in its store."},
			"written_files": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Every file the request keeps in the store: path to MD5. Known during plan; drift shows here.",
			},
		},
	}
}

func (r *requestResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// requestPlan is what a plan of a request decides.
type requestPlan struct {
	Member       *poolMember // nil: no destination
	Misscheduled bool
	Files        layout.Files
	Warnings     []string
}

func (m requestModel) key() string {
	return fmt.Sprintf("%s/%s/%s", m.Namespace.ValueString(), m.Promise.Name.ValueString(), m.Name.ValueString())
}

// plan decides the destination: the one kept in state while it stays in the pool, otherwise the
// rendezvous choice among the candidates.
func (m requestModel) plan(ctx context.Context, prior string) (requestPlan, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if m.Promise == nil || m.Promise.Name.IsUnknown() || m.Name.IsUnknown() || m.Namespace.IsUnknown() ||
		m.Pipeline.IsUnknown() || m.Documents.IsUnknown() || m.Files.IsUnknown() {
		return requestPlan{}, false, diags
	}
	promiseEntries, okP, d := selectorsFromModel(path.Root("promise").AtName("destination_selectors"), m.Promise.DestinationSelectors)
	diags.Append(d...)
	own, okR, d := selectorsFromModel(path.Root("destination_selectors"), m.DestinationSelectors)
	diags.Append(d...)
	pool, okPool, d := poolFromModel(ctx, path.Root("promise").AtName("destinations"), m.Promise.Destinations)
	diags.Append(d...)
	if !okP || !okR || !okPool || diags.HasError() {
		return requestPlan{}, false, diags
	}
	req, err := m.output(ctx)
	if err != nil {
		diags.AddAttributeError(path.Root("files"), "Invalid Files", err.Error())
		return requestPlan{}, false, diags
	}
	sel, conflicts := scheduling.Combine(scheduling.Merge(promiseEntries), scheduling.Merge(own))
	var p requestPlan
	for _, c := range conflicts {
		p.Warnings = append(p.Warnings, fmt.Sprintf("destination_selectors: %s=%s is ignored: promise %q selects %s=%s, and a request can never leave its promise's placement.",
			c.Key, c.RequestValue, m.Promise.Name.ValueString(), c.Key, c.PromiseValue))
	}
	decisions := scheduling.Schedule(sel, destinationsOf(pool))
	candidates := scheduling.Selected(decisions)
	members := map[string]poolMember{}
	for _, pm := range pool {
		members[pm.Name] = pm
	}
	chosen := ""
	if _, inPool := members[prior]; prior != "" && inPool {
		chosen = prior
		for _, d := range decisions {
			if d.Destination == prior && !d.Selected {
				p.Misscheduled = true
				p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s stays on destination %q, which no longer matches (%s): it is misscheduled and still updated.", m.key(), prior, d.Reason))
			}
		}
	} else if c, ok := scheduling.Choose(m.key(), candidates); ok {
		chosen = c
		if prior != "" {
			p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q left the pool: request %s moves to %q.", prior, m.key(), chosen))
		}
	} else {
		var why []string
		for _, d := range decisions {
			why = append(why, d.Destination+": "+d.Reason)
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s: no destinations can be selected for scheduling (selectors: %s). Nothing is written until a destination matches.\n\n%s",
			m.key(), selectorText(sel), strings.Join(why, "\n")))
	}
	if chosen != "" {
		member := members[chosen]
		p.Member = &member
		p.Files, err = layout.RequestFiles(member.Target, req)
		if err != nil {
			diags.AddError("Cannot Lay Out Request", err.Error())
			return requestPlan{}, false, diags
		}
	}
	return p, true, diags
}

// output is the request's files as a pipeline would leave them.
func (m requestModel) output(ctx context.Context) (layout.Request, error) {
	req := layout.Request{
		Promise: m.Promise.Name.ValueString(), Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString(),
		Pipeline: m.Pipeline.ValueString(), Files: map[string][]byte{},
	}
	for rel, content := range stringMap(ctx, m.Files) {
		if err := layout.CheckRelative(rel); err != nil || rel == "" || strings.HasSuffix(rel, "/") {
			return req, fmt.Errorf("files[%q]: give a file path relative to the pipeline's output folder, without \"..\"", rel)
		}
		req.Files[strings.TrimPrefix(rel, "/")] = []byte(content)
	}
	var all []manifest.Document
	if !m.Documents.IsNull() {
		docs, err := manifest.Parse([]byte(m.Documents.ValueString()))
		if err != nil {
			return req, err // reported by the attribute's validation
		}
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
	if len(req.Files) == 0 {
		return req, fmt.Errorf("a request needs documents or files")
	}
	return req, nil
}

func (r *requestResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan requestModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior := ""
	if !req.State.Raw.IsNull() {
		var state requestModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		prior = state.Destination.ValueString()
		if same, _ := plan.Documents.StringSemanticEquals(ctx, state.Documents); same && !state.Documents.IsNull() {
			plan.Documents = state.Documents
		}
	}
	p, ok, diags := plan.plan(ctx, prior)
	resp.Diagnostics.Append(diags...)
	if !ok {
		return
	}
	if p.Member != nil && r.data != nil {
		resp.Diagnostics.Append(r.data.checkCredentials(p.Member.Store, path.Root("promise").AtName("destinations"))...)
	}
	for _, w := range p.Warnings {
		resp.Diagnostics.AddWarning("Request Scheduling", w)
	}
	plan.setPlacement(p)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (m *requestModel) setPlacement(p requestPlan) {
	m.ID = types.StringValue(fmt.Sprintf("%s/%s/%s", m.Promise.Name.ValueString(), m.Namespace.ValueString(), m.Name.ValueString()))
	m.Misscheduled = types.BoolValue(p.Misscheduled)
	if p.Member == nil {
		m.Destination, m.Root = types.StringNull(), types.StringNull()
		m.WrittenFiles = stringMapValue(map[string]string{})
		return
	}
	m.Destination = types.StringValue(p.Member.Name)
	m.Root = types.StringValue(p.Member.Target.Root)
	m.WrittenFiles = hashMap(p.Files.Put)
}

func (r *requestResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan requestModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, plan, requestModel{}, &resp.State, &resp.Diagnostics)
}

// Read compares the written files with the store; see kratix_promise.
func (r *requestResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state requestModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil || state.Promise == nil || state.Destination.IsNull() {
		return
	}
	written := stringMap(ctx, state.WrittenFiles)
	member := findMember(ctx, state.Promise.Destinations, state.Destination.ValueString())
	if member == nil || len(written) == 0 {
		return
	}
	store, err := r.data.open(member.Store, false)
	if err != nil {
		resp.Diagnostics.AddError("State Store Not Usable", fmt.Sprintf("Request %s cannot use state store %q: %v", state.key(), member.Store.Name.ValueString(), err))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	found, err := store.Hashes(ctx, sortedKeys(written))
	if err != nil {
		addStoreError(&resp.Diagnostics, "Cannot Read Request", fmt.Sprintf("Reading the files of request %s failed", state.key()), err)
		return
	}
	state.WrittenFiles = stringMapValue(found)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *requestResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state requestModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.apply(ctx, plan, state, &resp.State, &resp.Diagnostics)
}

func (r *requestResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state requestModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || state.Promise == nil || state.Destination.IsNull() {
		return
	}
	member := findMember(ctx, state.Promise.Destinations, state.Destination.ValueString())
	if member == nil {
		return
	}
	ops := newStoreOps("Delete from: request/" + state.key())
	ops.remove(*member, placement{Files: stringMap(ctx, state.WrittenFiles)})
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if _, err := ops.run(ctx, r.data); err != nil {
		addStoreError(&resp.Diagnostics, "Cannot Delete Request", fmt.Sprintf("Removing the files of request %s failed", state.key()), err)
	}
}

// ImportState takes `<promise>/<namespace>/<name>`; the next plan recomputes the placement.
func (r *requestResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts := strings.Split(req.ID, "/")
	if len(parts) != 3 {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("%q: import a request as <promise>/<namespace>/<name>.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), parts[1])...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), parts[2])...)
}

func (r *requestResource) apply(ctx context.Context, plan, state requestModel, out *tfsdk.State, diags *diag.Diagnostics) {
	p, ok, d := plan.plan(ctx, state.Destination.ValueString())
	diags.Append(d...)
	if !ok || diags.HasError() {
		diags.AddError("Request Not Known", "The request's inputs are still unknown at apply; this is a bug in the provider.")
		return
	}
	if p.Member != nil {
		before := placement{}
		if state.Destination.ValueString() == p.Member.Name {
			before.Files = stringMap(ctx, state.WrittenFiles)
		}
		if !equalMaps(hashStrings(p.Files.Put), before.Files) {
			ops := newStoreOps("Update from: request/" + plan.key())
			ops.write(*p.Member, p.Files, before)
			ctx, cancel := context.WithTimeout(ctx, opTimeout)
			defer cancel()
			if _, err := ops.run(ctx, r.data); err != nil {
				addStoreError(diags, "Cannot Write Request", fmt.Sprintf("Writing the files of request %s failed", plan.key()), err)
				return
			}
		}
	}
	plan.setPlacement(p)
	diags.Append(out.Set(ctx, &plan)...)
}

func findMember(ctx context.Context, models []poolMemberModel, name string) *poolMember {
	pool, _, _ := poolFromModel(ctx, path.Root("promise").AtName("destinations"), models)
	for i := range pool {
		if pool[i].Name == name {
			return &pool[i]
		}
	}
	return nil
}
