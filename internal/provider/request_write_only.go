package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
)

// A request's content may be given write-only (secrets): documents_wo and files_wo reach the
// store and never state or plan (Terraform 1.11 keeps write-only values out of both; the
// provider sees them only in the configuration, during plan and apply). written_files then
// records keyed hashes (placement.KeyedMark) instead of MD5s: an MD5 of a short password is a
// copy of it for anyone with a dictionary. The key comes from content_hash_key, a sensitive
// provider attribute or KRATIX_CONTENT_HASH_KEY, and is never stored: the hashes are derived
// from it per request (placement.ContentKey).
//
// Because the keyed hash of the configured content is known during plan, a change of a
// write-only value shows in the plan as a change of written_files, and drift (an object edited
// or deleted by hand) shows as a difference between the hash Read computes from what the store
// holds and the hash of the configuration. content_wo_version follows Terraform's pattern for
// write-only values: changing it is a change of the resource, so the apply makes the store hold
// the configured content whatever the hashes say (identical bytes are still not rewritten).

const (
	contentHashKeyEnv = "KRATIX_CONTENT_HASH_KEY"
	// minContentHashKey is the shortest content_hash_key accepted: the key, not the content,
	// is what a guesser would have to find.
	minContentHashKey = 16
)

func contentHashKeySchema() pschema.Attribute {
	return pschema.StringAttribute{
		Optional: true, Sensitive: true,
		MarkdownDescription: fmt.Sprintf("Secret key (at least %d characters; e.g. `openssl rand -hex 32`) for the keyed "+
			"hashes that `written_files` records for a request's write-only content (`documents_wo`, `files_wo`): "+
			"HMAC-SHA256 with a key derived per request, so state holds no MD5 of a secret. Required as soon as a "+
			"request uses write-only content; keep it stable (changing it shows every such request's "+
			"`written_files` as changed once). Environment: `%s`, which is how an HCP Terraform workspace sets it.",
			minContentHashKey, contentHashKeyEnv),
	}
}

// contentSecret is the provider's content_hash_key: the provider block first, then the
// environment. unknown is true while the provider block's value is not known yet.
func (d *providerData) contentSecret() (secret []byte, unknown bool) {
	if d == nil {
		return nil, false
	}
	if d.hashKey != "" {
		return []byte(d.hashKey), false
	}
	if d.hashKeyUnknown {
		return nil, true
	}
	if v, ok := d.lookupEnv(contentHashKeyEnv); ok && v != "" {
		return []byte(v), false
	}
	return nil, false
}

// addRequestWriteOnly adds the write-only counterparts of a request's content to its schema.
func addRequestWriteOnly(attrs map[string]schema.Attribute) {
	attrs["documents_wo"] = schema.StringAttribute{
		Optional: true, WriteOnly: true, Sensitive: true,
		MarkdownDescription: "Write-only `documents` (Terraform 1.11 or later, OpenTofu 1.11 or later): multi-document Kubernetes YAML written as " +
			"`<name>.yaml`, which never reaches state or plan, for Secrets. `written_files` records keyed hashes " +
			"(`hmac:<hex>`, see the provider's `content_hash_key`) instead of MD5s, so a change or drift still shows. " +
			"Not with `documents`.",
		Validators: []validator.String{
			stringvalidator.ConflictsWith(path.MatchRoot("documents")),
			writeOnlyYAML{},
		},
	}
	attrs["files_wo"] = schema.MapAttribute{
		ElementType: types.StringType, Optional: true, WriteOnly: true, Sensitive: true,
		MarkdownDescription: "Write-only `files` (Terraform 1.11 or later, OpenTofu 1.11 or later): files by path, written byte for byte, whose " +
			"content never reaches state or plan (the paths are not secret and may show in `written_files`). " +
			"Not with `files`.",
		Validators: []validator.Map{mapvalidator.ConflictsWith(path.MatchRoot("files"))},
	}
	attrs["content_wo_version"] = schema.Int64Attribute{
		Optional: true,
		MarkdownDescription: "Any number; changing it makes the next apply write the write-only content again, " +
			"as Terraform's `*_wo_version` convention asks. A change of the content shows in the plan without it " +
			"(through the keyed hashes of `written_files`).",
	}
}

// writeOnlyYAML checks documents_wo like documents, but says only where a document is wrong:
// a parser's message may quote the value.
type writeOnlyYAML struct{}

func (writeOnlyYAML) Description(context.Context) string {
	return "must be Kubernetes YAML"
}

func (v writeOnlyYAML) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (writeOnlyYAML) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := checkWriteOnlyYAML(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.Append(manifestattr.InvalidYAML(req.Path, fmt.Sprintf("%s: %v", req.Path, err)))
	}
}

// checkWriteOnlyYAML parses write-only documents and returns an error that names the document
// and line only.
func checkWriteOnlyYAML(s string) error {
	_, err := manifest.Parse([]byte(s))
	if err == nil {
		return nil
	}
	var me *manifest.Error
	if errors.As(err, &me) {
		return fmt.Errorf("document %d (line %d) is not a valid Kubernetes object (apiVersion, kind and metadata.name); "+
			"the parser's message is withheld because the value is write-only", me.Document, me.Line)
	}
	return errors.New("not valid Kubernetes YAML; the parser's message is withheld because the value is write-only")
}

// writeOnly reports whether the request's configuration gives write-only content.
func (m requestModel) writeOnly() bool {
	return !m.DocumentsWO.IsNull() || !m.FilesWO.IsNull()
}

// takeWriteOnly reads the write-only content from the configuration (the plan and state never
// hold it) and the key its hashes need. ok is false when the key is not known yet: the plan then
// leaves what depends on it unknown.
func (m *requestModel) takeWriteOnly(ctx context.Context, config tfsdk.Config, d *providerData) diag.Diagnostics {
	var diags diag.Diagnostics
	diags.Append(config.GetAttribute(ctx, path.Root("documents_wo"), &m.DocumentsWO)...)
	diags.Append(config.GetAttribute(ctx, path.Root("files_wo"), &m.FilesWO)...)
	if diags.HasError() || !m.writeOnly() {
		return diags
	}
	at := path.Root("documents_wo")
	if m.DocumentsWO.IsNull() {
		at = path.Root("files_wo")
	}
	secret, unknown := d.contentSecret()
	switch {
	case unknown, secret == nil && d.isOffline():
		// The plan leaves the request's files unknown: apply has the key, and an offline plan
		// needs no secret (an offline apply refuses anyway).
		return diags
	case secret == nil:
		diags.AddAttributeError(at, "Content Hash Key Missing",
			fmt.Sprintf("%s: a request with write-only content records keyed hashes of it, and their key is not set. "+
				"Set content_hash_key in the provider block (from a sensitive variable), or the environment variable %s "+
				"(in HCP Terraform: a sensitive workspace environment variable), to a random value of at least %d "+
				"characters, e.g. the output of `openssl rand -hex 32`, and keep it stable.", at, contentHashKeyEnv, minContentHashKey))
	case len(secret) < minContentHashKey:
		diags.AddAttributeError(at, "Content Hash Key Too Short",
			fmt.Sprintf("%s: the provider's content_hash_key (or %s) has %d characters; use at least %d, e.g. the output "+
				"of `openssl rand -hex 32`.", at, contentHashKeyEnv, len(secret), minContentHashKey))
	default:
		m.secret = secret
	}
	return diags
}

// hashKey is the key of this request's keyed hashes, nil when its content is not write-only.
func (m requestModel) hashKey() []byte {
	if m.secret == nil {
		return nil
	}
	return placement.ContentKey(m.secret, m.key())
}

// readKey gives Read the key for a record of keyed hashes: the store's files must be hashed the
// way the plan hashes the configuration. ok is false when the record cannot be checked now (the
// provider's key is not known yet): Read then keeps it.
func (r *requestResource) readKey(state *requestModel, rec placement.Record) (ok bool, diags diag.Diagnostics) {
	if !rec.Keyed() {
		return true, diags
	}
	secret, unknown := r.data.contentSecret()
	if unknown {
		return false, diags
	}
	if secret == nil {
		diags.AddAttributeError(path.Root("written_files"), "Content Hash Key Missing",
			fmt.Sprintf("Request %s recorded keyed hashes of its write-only content, and the provider has no content_hash_key "+
				"to check the store against. Set content_hash_key in the provider block, or the environment variable %s, "+
				"to the value used when it was applied.", state.id(), contentHashKeyEnv))
		return false, diags
	}
	state.secret = secret
	return true, diags
}
