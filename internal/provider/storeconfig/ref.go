package storeconfig

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// Ref is the part of a kratix_state_store that other resources receive when they are given the
// store object (`state_store = kratix_state_store.minio`): connection details only, never
// secrets. Terraform drops the store's other attributes in the conversion.
type Ref struct {
	Name      types.String `tfsdk:"name"`
	Path      types.String `tfsdk:"path"`
	SecretRef types.String `tfsdk:"secret_ref"`
	Bucket    *Bucket      `tfsdk:"bucket"`
	Git       *Git         `tfsdk:"git"`
}

// Bucket is a store's bucket settings.
type Bucket struct {
	Endpoint   types.String `tfsdk:"endpoint"`
	BucketName types.String `tfsdk:"bucket_name"`
	Insecure   types.Bool   `tfsdk:"insecure"`
	Region     types.String `tfsdk:"region"`
	AuthMethod types.String `tfsdk:"auth_method"`
	// Where AWS credentials come from (see BucketAWSAttributes); never secrets.
	Profile      types.String `tfsdk:"profile"`
	AssumeRole   *AssumeRole  `tfsdk:"assume_role"`
	STSEndpoint  types.String `tfsdk:"sts_endpoint"`
	UseDualStack types.Bool   `tfsdk:"use_dual_stack"`
}

// Git is a store's Git settings.
type Git struct {
	URL                   types.String `tfsdk:"url"`
	Branch                types.String `tfsdk:"branch"`
	Author                *Author      `tfsdk:"author"`
	InsecureIgnoreHostKey types.Bool   `tfsdk:"insecure_ignore_host_key"`
	Signing               *Signing     `tfsdk:"signing"`
}

// Signing names the key that signs a git store's commits: a provider secret holding
// signing_key (and signing_key_passphrase when the key is encrypted), and the key's format.
type Signing struct {
	SecretRef types.String `tfsdk:"secret_ref"`
	Format    types.String `tfsdk:"format"`
}

// Author is the author of a git store's commits.
type Author struct {
	Name  types.String `tfsdk:"name"`
	Email types.String `tfsdk:"email"`
}

// AssumeRole is a bucket store's assume_role, in the AWS provider's shape.
type AssumeRole struct {
	RoleARN     types.String `tfsdk:"role_arn"`
	ExternalID  types.String `tfsdk:"external_id"`
	SessionName types.String `tfsdk:"session_name"`
	Duration    types.String `tfsdk:"duration"`
}

const (
	DefaultBranch     = "main"
	DefaultAuthorName = "kratix"
	AuthAccessKey     = "accessKey"
	AuthIAM           = "IAM"
	DefaultAuth       = AuthAccessKey
	// AttributeName is the attribute that holds the store object in the resources that write to
	// a store.
	AttributeName = "state_store"
)

// AuthorAttrTypes are the attributes of a git store's author.
var AuthorAttrTypes = map[string]attr.Type{"name": types.StringType, "email": types.StringType}

// FromObject reads a state_store object. ok is false when it, or anything in it, is not known
// yet.
func FromObject(obj types.Object) (ref Ref, ok bool) {
	if obj.IsNull() || obj.IsUnknown() {
		return ref, false
	}
	// An unknown nested object is not known yet.
	if ref, ok = FromAttributes(obj.Attributes()); !ok {
		return Ref{}, false
	}
	return ref, ref.Known()
}

// FromAttributes reads a state_store object that is neither null nor unknown. ok is false when
// a nested object is unknown. Like the pool's reader, it takes attributes straight from the
// object rather than through the framework's reflection (ObjectValue.As): a pool of a thousand
// destinations holds a thousand store objects.
func FromAttributes(a map[string]attr.Value) (ref Ref, ok bool) {
	ref = Ref{Name: Attr[types.String](a, "name"), Path: Attr[types.String](a, "path"), SecretRef: Attr[types.String](a, "secret_ref")}
	if b := Attr[types.Object](a, "bucket"); b.IsUnknown() {
		return Ref{}, false
	} else if !b.IsNull() {
		ba := b.Attributes()
		ref.Bucket = &Bucket{
			Endpoint: Attr[types.String](ba, "endpoint"), BucketName: Attr[types.String](ba, "bucket_name"), Insecure: Attr[types.Bool](ba, "insecure"),
			Region: Attr[types.String](ba, "region"), AuthMethod: Attr[types.String](ba, "auth_method"),
			Profile: Attr[types.String](ba, "profile"), STSEndpoint: Attr[types.String](ba, "sts_endpoint"),
			UseDualStack: Attr[types.Bool](ba, "use_dual_stack"),
		}
		ar := Attr[types.Object](ba, "assume_role")
		if ar.IsUnknown() {
			return Ref{}, false
		}
		ref.Bucket.AssumeRole = assumeRoleFromObject(ar)
	}
	if g := Attr[types.Object](a, "git"); g.IsUnknown() {
		return Ref{}, false
	} else if !g.IsNull() {
		ga := g.Attributes()
		ref.Git = &Git{URL: Attr[types.String](ga, "url"), Branch: Attr[types.String](ga, "branch"), InsecureIgnoreHostKey: Attr[types.Bool](ga, "insecure_ignore_host_key")}
		if au := Attr[types.Object](ga, "author"); au.IsUnknown() {
			return Ref{}, false
		} else if !au.IsNull() {
			aa := au.Attributes()
			ref.Git.Author = &Author{Name: Attr[types.String](aa, "name"), Email: Attr[types.String](aa, "email")}
		}
		if sg := Attr[types.Object](ga, "signing"); sg.IsUnknown() {
			return Ref{}, false
		} else if !sg.IsNull() {
			sa := sg.Attributes()
			ref.Git.Signing = &Signing{SecretRef: Attr[types.String](sa, "secret_ref"), Format: Attr[types.String](sa, "format")}
		}
	}
	return ref, true
}

// assumeRoleFromObject reads an assume_role object; nil when it is null.
func assumeRoleFromObject(o types.Object) *AssumeRole {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	a := o.Attributes()
	return &AssumeRole{RoleARN: Attr[types.String](a, "role_arn"), ExternalID: Attr[types.String](a, "external_id"),
		SessionName: Attr[types.String](a, "session_name"), Duration: Attr[types.String](a, "duration")}
}

// Attr reads attribute name of an object's attributes as T (types.String, types.Bool, ...): a
// missing attribute, or one of another type, reads as null, as the schema never produces either.
// The pool's readers use it too: reading attributes straight from the object avoids the
// framework's reflection (ObjectValue.As), a tenth of the provider's CPU on a large plan.
func Attr[T attr.Value](a map[string]attr.Value, name string) T {
	v, _ := a[name].(T)
	return v
}

// Known says whether every value of the store object is known.
func (m Ref) Known() bool {
	vals := []attr.Value{m.Name, m.Path, m.SecretRef}
	if m.Bucket != nil {
		vals = append(vals, m.Bucket.Endpoint, m.Bucket.BucketName, m.Bucket.Insecure, m.Bucket.Region, m.Bucket.AuthMethod,
			m.Bucket.Profile, m.Bucket.STSEndpoint, m.Bucket.UseDualStack)
		vals = append(vals, m.Bucket.AssumeRole.values()...)
	}
	if m.Git != nil {
		vals = append(vals, m.Git.URL, m.Git.Branch, m.Git.InsecureIgnoreHostKey)
		if m.Git.Author != nil {
			vals = append(vals, m.Git.Author.Name, m.Git.Author.Email)
		}
		if m.Git.Signing != nil {
			vals = append(vals, m.Git.Signing.SecretRef, m.Git.Signing.Format)
		}
	}
	for _, v := range vals {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// values are the attribute values, for Known.
func (m *AssumeRole) values() []attr.Value {
	if m == nil {
		return nil
	}
	return []attr.Value{m.RoleARN, m.ExternalID, m.SessionName, m.Duration}
}

// Place is the store's normalised location: changing it moves every file; changing anything
// else (credentials, author, TLS options, a cosmetic spelling of the same URL) does not.
func (m Ref) Place() placement.Location {
	switch {
	case m.Bucket != nil:
		return placement.BucketLocation(m.Bucket.Endpoint.ValueString(), m.Bucket.BucketName.ValueString())
	case m.Git != nil:
		return placement.GitLocation(m.Git.URL.ValueString(), BranchOf(m.Git))
	}
	return placement.Location{Kind: "none", Endpoint: m.Name.ValueString()}
}

// Location is where the store's files are: its normalised location and its cleaned path.
func (m Ref) Location() string {
	return m.Place().String() + "|" + placement.CleanStorePath(m.Path.ValueString())
}

// LocationOf reads only what places a store object (endpoint or URL, bucket or branch, path).
// ok is false while one of those is unknown; unknown credentials, author or TLS options do not
// matter.
func LocationOf(ctx context.Context, obj types.Object) (string, bool) {
	if obj.IsNull() || obj.IsUnknown() {
		return "", false
	}
	var ref Ref
	if diags := obj.As(ctx, &ref, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true}); diags.HasError() {
		return "", false
	}
	vals := []attr.Value{ref.Path}
	if ref.Bucket != nil {
		vals = append(vals, ref.Bucket.Endpoint, ref.Bucket.BucketName)
	}
	if ref.Git != nil {
		vals = append(vals, ref.Git.URL, ref.Git.Branch)
	}
	for _, v := range vals {
		if v.IsUnknown() {
			return "", false
		}
	}
	if ref.Bucket == nil && ref.Git == nil {
		return "", false
	}
	return ref.Location(), true
}

// BranchOf is a git store's branch, DefaultBranch when unset.
func BranchOf(g *Git) string {
	if g.Branch.ValueString() == "" {
		return DefaultBranch
	}
	return g.Branch.ValueString()
}

// GitTransport names how a Git URL is reached: "https", "http", "ssh" or "file". Its errors
// show the URL without credentials (see statestore.RedactURL).
func GitTransport(raw string) (string, error) {
	if statestore.IsSCPLike(raw) {
		return "ssh", nil
	}
	shown := strconv.Quote(statestore.RedactURL(raw))
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && !strings.Contains(raw, "@") {
			return "", fmt.Errorf("%s is not a URL: %v", shown, ue.Err)
		}
		// The parser's reason may quote a piece of a password (`invalid port ":pa"`).
		return "", fmt.Errorf("%s is not a URL; if it carries credentials, remove them and give them in the provider's `secrets`", shown)
	}
	switch u.Scheme {
	case "https", "http", "ssh", "file":
		if u.Scheme != "file" && u.Host == "" {
			return "", fmt.Errorf("%s has no host", shown)
		}
		return u.Scheme, nil
	case "":
		return "", fmt.Errorf("%s has no scheme; use https://, ssh://, git@host:org/repo.git, http:// or file://", shown)
	default:
		return "", fmt.Errorf("scheme %q of %s is not supported; use https://, ssh://, git@host:org/repo.git, http:// or file://", u.Scheme, shown)
	}
}

// config is the statestore form; the duration was validated at plan.
func (m *AssumeRole) config() (*statestore.AssumeRole, error) {
	if m == nil {
		return nil, nil
	}
	ar := &statestore.AssumeRole{RoleARN: m.RoleARN.ValueString(), ExternalID: m.ExternalID.ValueString(),
		SessionName: m.SessionName.ValueString()}
	if ar.RoleARN == "" {
		return nil, fmt.Errorf("assume_role.role_arn is empty: name the role to assume")
	}
	if s := m.Duration.ValueString(); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("assume_role.duration %q is not a duration", s)
		}
		ar.Duration = d
	}
	return ar, nil
}
