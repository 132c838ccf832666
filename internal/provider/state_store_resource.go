package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

var (
	_ resource.Resource                     = (*stateStoreResource)(nil)
	_ resource.ResourceWithConfigure        = (*stateStoreResource)(nil)
	_ resource.ResourceWithConfigValidators = (*stateStoreResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*stateStoreResource)(nil)
	_ resource.ResourceWithImportState      = (*stateStoreResource)(nil)
)

// NewStateStoreResource is the kratix_state_store resource.
func NewStateStoreResource() resource.Resource { return &stateStoreResource{} }

type stateStoreResource struct{ data *providerData }

// stateStoreModel is the resource's full model; storeRef() is what other resources receive.
type stateStoreModel struct {
	ID        types.String      `tfsdk:"id"`
	Name      types.String      `tfsdk:"name"`
	Path      types.String      `tfsdk:"path"`
	SecretRef types.String      `tfsdk:"secret_ref"`
	Bucket    *bucketStoreModel `tfsdk:"bucket"`
	Git       *storeconfig.Git  `tfsdk:"git"`

	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

type bucketStoreModel struct {
	storeconfig.Bucket
	CreateBucket types.Bool `tfsdk:"create_bucket"`
}

func (m stateStoreModel) storeRef() storeconfig.Ref {
	ref := storeconfig.Ref{Name: m.Name, Path: m.Path, SecretRef: m.SecretRef, Git: m.Git}
	if m.Bucket != nil {
		b := m.Bucket.Bucket
		ref.Bucket = &b
	}
	return ref
}

func (r *stateStoreResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_state_store"
}

func (r *stateStoreResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: stateStoreSchemaVersion,
		MarkdownDescription: "Where files go: an S3-compatible bucket or a branch of a Git repository, the " +
			"counterpart of Kratix's BucketStateStore and GitStateStore. Exactly one of `bucket` and `git` is set.\n\n" +
			"Creating the resource proves that the store can be written, without leaving anything behind: for a " +
			"bucket it writes an empty probe object under the store's `path` and deletes it at once (so credentials " +
			"limited to that prefix are enough), for Git it authenticates for a push and checks that the " +
			"branch exists (an empty repository is accepted: the first write creates the branch). An imported store " +
			"is not probed: the apply that completes its import only reads (the bucket must exist and be listable " +
			"under `path`; a git store is checked as above, which pushes nothing). Destroying it " +
			"removes nothing from the store.\n\n" +
			"The first plan of a new store, and of one whose endpoint and bucket or repository and branch change, " +
			"reads it without writing when its settings and credentials are known (and the provider is not " +
			"`offline`): the bucket, or the repository and branch, must exist and the credentials must be able to " +
			"read them, or the plan fails at the attribute to fix with the apply's advice. With `create_bucket = true` " +
			"a missing bucket is planned, not an error. Write access is proved by the apply. Other plans of the store " +
			"ask nothing of the server.\n\n" +
			"A bucket deleted outside Terraform is noticed at refresh: with `create_bucket = true` the plan creates " +
			"the store again (which creates the bucket) and the destinations on it write their files again; " +
			"without, a warning says what to do.\n\n" +
			"Pass the whole resource to destinations (`state_store = kratix_state_store.this`); they receive its " +
			"connection details, never its secrets.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The store's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the store, a Kubernetes object name. Changing it replaces the resource.",
				Validators:          []validator.String{schemautil.DNSName()},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"path": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Folder inside the bucket or repository under which every destination's path is " +
					"joined. Unset, `.` or `/` mean the root.",
				Validators: []validator.String{schemautil.StorePath()},
			},
			"secret_ref": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Name of the provider `secrets` entry holding this store's credentials (or of the " +
					"`KRATIX_SECRET_<NAME>_<KEY>` environment variables). Required for `auth_method = \"accessKey\"` and " +
					"for Git over SSH.",
			},
			"bucket": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "An S3-compatible bucket (AWS S3, MinIO, ...).",
				Attributes: withAttributes(map[string]schema.Attribute{
					"endpoint": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "host[:port] of the S3 API, without a scheme, e.g. `s3.eu-west-2.amazonaws.com` or `minio.local:9000`.",
						Validators:          []validator.String{storeconfig.Endpoint()},
					},
					"bucket_name": schema.StringAttribute{
						Required:            true,
						MarkdownDescription: "Name of the bucket.",
						Validators:          []validator.String{stringvalidator.LengthBetween(3, 63)},
					},
					"insecure": schema.BoolAttribute{
						Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Use plain HTTP instead of HTTPS, as Kratix's `insecure` does. TLS, when used, is always verified.",
					},
					"region": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Region of the bucket. Unset, it is discovered from the endpoint.",
					},
					"auth_method": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString(storeconfig.DefaultAuth),
						MarkdownDescription: "`accessKey` (the default: the secret's `access_key_id`, `secret_access_key` and optional " +
							"`session_token`) or `IAM`: the AWS credential chain, as the AWS CLI and the AWS provider resolve it " +
							"(the AWS SDK for Go v2): environment variables (`AWS_ACCESS_KEY_ID`, ...), the shared config and " +
							"credentials files with profiles (`profile`, `AWS_PROFILE`, `AWS_CONFIG_FILE`, " +
							"`AWS_SHARED_CREDENTIALS_FILE`), SSO sessions, profiles that assume a role (`role_arn`, " +
							"`source_profile`, `external_id`), `credential_process`, web identity tokens " +
							"(`AWS_WEB_IDENTITY_TOKEN_FILE` and `AWS_ROLE_ARN`; for HCP Terraform's dynamic provider " +
							"credentials see the HCP Terraform guide), and container and instance roles. No credential it " +
							"finds is stored in state, plans or logs.",
						Validators: []validator.String{stringvalidator.OneOf(storeconfig.AuthAccessKey, storeconfig.AuthIAM)},
					},
					"create_bucket": schema.BoolAttribute{
						Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Create the bucket when it does not exist. The bucket is never deleted.",
					},
				}, storeconfig.BucketAWSAttributes(true)),
			},
			"git": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "A branch of a Git repository.",
				Attributes: map[string]schema.Attribute{
					"url": schema.StringAttribute{
						Required: true,
						MarkdownDescription: "Repository URL: `https://`, `ssh://`, scp-like `git@host:org/repo.git`, " +
							"`http://` (for servers on a private network) or `file://` (local use). Without credentials: " +
							"`https://user:token@host/...` is refused, as the URL is copied into the state of every resource " +
							"that uses the store; give them in the provider's `secrets` (`username`, `password`), named by " +
							"`secret_ref`. The user name of an SSH URL (`git@host:org/repo.git`) is not a credential.",
						Validators: []validator.String{storeconfig.GitURL()},
					},
					"branch": schema.StringAttribute{
						Optional: true, Computed: true, Default: stringdefault.StaticString(storeconfig.DefaultBranch),
						MarkdownDescription: "Branch to write to; `main` when unset, as in Kratix.",
						Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
					},
					"author": schema.SingleNestedAttribute{
						Optional: true, Computed: true,
						MarkdownDescription: "Author and committer of the provider's commits.",
						Default: objectdefault.StaticValue(types.ObjectValueMust(storeconfig.AuthorAttrTypes, map[string]attr.Value{
							"name": types.StringValue(storeconfig.DefaultAuthorName), "email": types.StringValue(""),
						})),
						Attributes: map[string]schema.Attribute{
							"name": schema.StringAttribute{
								Optional: true, Computed: true, Default: stringdefault.StaticString(storeconfig.DefaultAuthorName),
								MarkdownDescription: "Author name.",
							},
							"email": schema.StringAttribute{
								Optional: true, Computed: true, Default: stringdefault.StaticString(""),
								MarkdownDescription: "Author email.",
							},
						},
					},
					"insecure_ignore_host_key": schema.BoolAttribute{
						Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Accept any SSH host key. Off by default: the host key must be in the secret's `known_hosts`.",
					},
					"signing": schema.SingleNestedAttribute{
						Optional: true,
						MarkdownDescription: "Sign every commit the provider makes on this store (writes, deletes, and those of " +
							"destinations, promises and requests on it), so that `git verify-commit` and a server that requires " +
							"signed commits accept them. The key is not here: it is in the provider secret named by `secret_ref` " +
							"(its `signing_key`, and `signing_key_passphrase` for an encrypted key), which may be another set than " +
							"the store's own `secret_ref`. A key that does not parse, or a wrong passphrase, fails the plan.",
						Attributes: map[string]schema.Attribute{
							"secret_ref": schema.StringAttribute{
								Required: true,
								MarkdownDescription: "Name of the provider `secrets` entry (or of the `KRATIX_SECRET_<NAME>_<KEY>` " +
									"environment variables) holding `signing_key`.",
								Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
							},
							"format": schema.StringAttribute{
								Required: true,
								MarkdownDescription: "Kind of signature, as git's `gpg.format` names it: `ssh` (an OpenSSH or PEM " +
									"private key; the signature is verified with an `allowed_signers` file, " +
									"`gpg.ssh.allowedSignersFile`) or `openpgp` (an armored OpenPGP private key, verified with gpg).",
								Validators: []validator.String{stringvalidator.OneOf(statestore.SigningFormats...)},
							},
						},
					},
				},
			},
		},
		Blocks: map[string]schema.Block{"timeouts": schemautil.TimeoutsBlock(ctx, schemautil.OpCreate, schemautil.OpRead, schemautil.OpUpdate)},
	}
}

func (r *stateStoreResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("bucket"), path.MatchRoot("git")),
	}
}

func (r *stateStoreResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *stateStoreResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	if checkImportedName(ctx, req, "State store", &resp.Diagnostics); resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	var plan stateStoreModel
	if d := req.Plan.Get(ctx, &plan); d.HasError() {
		return // unknown nested values: decided at apply
	}
	ref := plan.storeRef()
	if !ref.Known() {
		return
	}
	resp.Diagnostics.Append(r.data.checkCredentials(ref, path.Empty())...)
	if resp.Diagnostics.HasError() || !placesAnew(ctx, req.State, ref) {
		return
	}
	resp.Diagnostics.Append(r.planCheck(ctx, req.Plan, plan)...)
}

// placesAnew reports whether a plan puts the store somewhere it has not been checked: a new
// store, or one whose location (endpoint and bucket, or repository and branch) changes. A plan
// of a store that stays where it is (the steady state) talks to no server; nor does the plan
// that completes an import, whose apply checks the store by reading it (readCheck).
func placesAnew(ctx context.Context, state tfsdk.State, ref storeconfig.Ref) bool {
	if state.Raw.IsNull() {
		return true
	}
	var prior stateStoreModel
	if d := state.Get(ctx, &prior); d.HasError() || (prior.Bucket == nil && prior.Git == nil) {
		return false
	}
	return prior.storeRef().Place() != ref.Place()
}

// planCheck looks, without writing, whether the planned store exists and its credentials can
// read it (statestore.ReadChecker), so that a missing bucket, repository or branch, refused
// credentials or an unreachable server fail the plan rather than the apply, with the advice the
// apply would give, at the attribute to fix. With create_bucket a missing bucket is what the
// apply creates: no error. Whether the credentials may write stays the apply's check (check).
// Offline, nothing is asked. The check is bounded by the create's limit (timeouts.create).
func (r *stateStoreResource) planCheck(ctx context.Context, plan tfsdk.Plan, m stateStoreModel) (diags diag.Diagnostics) {
	if r.data.isOffline() {
		return diags
	}
	ref := m.storeRef()
	createBucket := m.Bucket != nil && m.Bucket.CreateBucket.ValueBool()
	what := fmt.Sprintf("State store %q cannot be read", m.Name.ValueString())
	store, err := r.data.open(ref, createBucket)
	if errors.Is(err, storeconfig.ErrSecretsUnknown) {
		return diags // the secrets come from values known at apply, whose check looks then
	}
	if err != nil {
		diags.Append(storeNotUsableAt(path.Root("secret_ref"), what, err))
		return diags
	}
	checker, ok := store.(statestore.ReadChecker)
	if !ok {
		return diags
	}
	ctx, done := schemautil.StartOp(ctx, plan, "kratix_state_store", schemautil.OpCreate, &diags)
	defer done()
	err = checker.CheckRead(ctx, storePrefix(m.Path))
	var se *statestore.Error
	switch {
	case err == nil:
		return diags
	case createBucket && errors.As(err, &se) && se.Kind == statestore.KindMissingBucket:
		tflog.Debug(ctx, "the bucket does not exist yet; the apply creates it", map[string]any{"store": store.Describe()})
		return diags
	}
	// The attribute is named in the text too: Terraform shows the source of the whole resource
	// for an attribute inside an object.
	at := readCheckAttribute(m, err)
	diags.AddAttributeError(at, "State Store Not Readable", storeErrorDetail(at.String()+": "+what, err))
	return diags
}

// readCheckAttribute is the attribute to fix for a failed read check: the bucket's or branch's
// name when it does not exist, the URL for a missing repository, the secret for refused
// credentials, the endpoint or URL for everything about reaching the server.
func readCheckAttribute(m stateStoreModel, err error) path.Path {
	var se *statestore.Error
	kind := statestore.KindOther
	if errors.As(err, &se) {
		kind = se.Kind
	}
	where := path.Root("bucket").AtName("endpoint")
	if m.Git != nil {
		where = path.Root("git").AtName("url")
	}
	switch kind {
	case statestore.KindMissingBucket:
		return path.Root("bucket").AtName("bucket_name")
	case statestore.KindMissingBranch:
		return path.Root("git").AtName("branch")
	case statestore.KindAuth, statestore.KindAccessDenied, statestore.KindHostKey:
		if m.SecretRef.ValueString() == "" && m.Bucket != nil {
			return path.Root("bucket").AtName("auth_method") // IAM: the credentials come from the environment
		}
		return path.Root("secret_ref")
	}
	return where
}

func (r *stateStoreResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data.refuseOffline("kratix_state_store", "create", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_state_store", schemautil.OpCreate, &resp.Diagnostics)
	defer done()
	r.save(ctx, req.Plan.Get, r.check, &resp.State, &resp.Diagnostics)
}

// Read looks whether a bucket store's bucket still exists (one listing of at most one key under
// the store's path). A bucket deleted outside Terraform is reported: with create_bucket the
// resource leaves the state, so that the plan creates it again and its creation makes the
// bucket; without, a warning says what to do. Any other failure (403, network) is not taken for
// a deleted bucket: Read then changes nothing, and the destinations that read the store report
// the failure under their own names. A git store has nothing to refresh, nor has any store when
// the provider is offline.
func (r *stateStoreResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state stateStoreModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || state.Bucket == nil || r.data == nil || r.data.isOffline() {
		return
	}
	ref := state.storeRef()
	if !ref.Known() {
		return
	}
	createBucket := state.Bucket.CreateBucket.ValueBool()
	store, err := r.data.open(ref, createBucket)
	if err != nil {
		return // reported by the plan's credential check and by the store's users
	}
	// The listing that tells whether the bucket exists is the one the destinations' reads share
	// (see sharedView): a plan lists the store once.
	prefix := storePrefix(state.Path)
	probe, ok := sharedView(store, placement.CleanStorePath(state.Path.ValueString())).(statestore.BucketProbe)
	if !ok {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.State, "kratix_state_store", schemautil.OpRead, &resp.Diagnostics)
	defer done()
	exists, err := probe.BucketExists(ctx, prefix)
	if err != nil {
		tflog.Debug(ctx, "could not tell whether the bucket exists", map[string]any{"store": store.Describe(), "error": err.Error()})
		return
	}
	if exists {
		return
	}
	bucket, name := state.Bucket.BucketName.ValueString(), state.Name.ValueString()
	if createBucket {
		resp.Diagnostics.AddWarning("Bucket Deleted",
			fmt.Sprintf("The bucket %q of state store %q no longer exists; the files of every destination on it went with it. "+
				"The plan creates the store again, which creates the bucket (create_bucket = true), and the destinations, "+
				"promises and requests on it write their files again.", bucket, name))
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("bucket").AtName("bucket_name"), "Bucket Deleted",
		fmt.Sprintf("The bucket %q of state store %q no longer exists; the files of every destination on it went with it. "+
			"Create the bucket again, or set create_bucket = true so that the next apply creates it. Until then, "+
			"applies that write to this store fail.", bucket, name))
}

// storePrefix is the listing prefix of a store's folder: "" for the root, else "path/".
func storePrefix(p types.String) string {
	return layout.Prefix(placement.CleanStorePath(p.ValueString()))
}

// Update checks the store again: its location or credentials may have changed. The update that
// completes an import (whose state holds only the name: neither bucket nor git) writes nothing:
// the store is already in use, by Kratix or by an earlier state, and its import promises no
// write; it only reads (see readCheck).
func (r *stateStoreResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data.refuseOffline("kratix_state_store", "update", &resp.Diagnostics) {
		return
	}
	ctx, done := schemautil.StartOp(ctx, req.Plan, "kratix_state_store", schemautil.OpUpdate, &resp.Diagnostics)
	defer done()
	resp.Diagnostics.Append(forgetAdoption(ctx, resp.Private)...) // the import's mark: see checkImportedName, adopt.go
	var state stateStoreModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	check := r.check
	if state.Bucket == nil && state.Git == nil {
		check = r.readCheck
	}
	r.save(ctx, req.Plan.Get, check, &resp.State, &resp.Diagnostics)
}

// save proves the planned store usable with check, then records it.
func (r *stateStoreResource) save(ctx context.Context, get func(context.Context, any) diag.Diagnostics, check func(context.Context, stateStoreModel, *diag.Diagnostics) bool, state *tfsdk.State, diags *diag.Diagnostics) {
	var plan stateStoreModel
	diags.Append(get(ctx, &plan)...)
	if diags.HasError() || !check(ctx, plan, diags) {
		return
	}
	plan.ID = plan.Name
	diags.Append(state.Set(ctx, &plan)...)
}

// Delete removes nothing from the store, as deleting a Kratix state store does not. Offline, it
// refuses like every other apply, so that the state keeps the store.
func (r *stateStoreResource) Delete(_ context.Context, _ resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.data.refuseOffline("kratix_state_store", "delete", &resp.Diagnostics)
}

// ImportState takes the store's name; the first plan checks it against the configuration
// (checkImportedName, adopt.go).
func (r *stateStoreResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(writeAdoption(ctx, resp.Private, adoption{})...)
}

// readCheck proves an imported store usable without writing to it: a bucket must exist and be
// listable under the store's path (one listing of at most one key), a git branch is checked as
// check does (a push session that pushes nothing). Whether it can be written shows at the first
// write of a destination, promise or request, which reports the store by name.
func (r *stateStoreResource) readCheck(ctx context.Context, m stateStoreModel, diags *diag.Diagnostics) bool {
	if m.Bucket == nil {
		return r.check(ctx, m, diags)
	}
	ref := m.storeRef()
	what := fmt.Sprintf("State store %q cannot be read", m.Name.ValueString())
	store, err := r.data.open(ref, false)
	if err != nil {
		diags.Append(storeNotUsableAt(path.Root("secret_ref"), what, err))
		return false
	}
	probe, ok := store.(statestore.BucketProbe)
	if !ok {
		return true
	}
	exists, err := probe.BucketExists(ctx, storePrefix(m.Path))
	if err != nil {
		addStoreError(diags, "State Store Not Readable", what, err)
		return false
	}
	if !exists {
		diags.AddAttributeError(path.Root("bucket").AtName("bucket_name"), "Bucket Not Found", fmt.Sprintf(
			"State store %q was imported, but its bucket %q does not exist. Check bucket_name and endpoint, or "+
				"create the bucket (or remove the import and let the store be created with create_bucket = true).",
			m.Name.ValueString(), m.Bucket.BucketName.ValueString()))
		return false
	}
	return true
}

// check proves the store can be written; it reports failures and returns false.
func (r *stateStoreResource) check(ctx context.Context, m stateStoreModel, diags *diag.Diagnostics) bool {
	ref := m.storeRef()
	what := fmt.Sprintf("State store %q cannot be written", m.Name.ValueString())
	store, err := r.data.open(ref, m.Bucket != nil && m.Bucket.CreateBucket.ValueBool())
	if err != nil {
		diags.Append(storeNotUsableAt(path.Root("secret_ref"), what, err))
		return false
	}
	tflog.Debug(ctx, "checking state store", map[string]any{"store": store.Describe()})
	check := store.Check
	if probe, ok := store.(statestore.BucketProbe); ok {
		// Under the store's path, as Kratix does: credentials may be limited to that prefix.
		check = func(ctx context.Context) error { return probe.CheckUnder(ctx, storePrefix(m.Path)) }
	}
	if err := check(ctx); err != nil {
		addStoreError(diags, "State Store Not Writable", what, err)
		return false
	}
	return true
}

// withAttributes is base with more attributes added.
func withAttributes(base, more map[string]schema.Attribute) map[string]schema.Attribute {
	maps.Copy(base, more)
	return base
}
