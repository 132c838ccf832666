package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// storeRefModel is the part of a kratix_state_store that other resources receive when they are
// given the store object (`state_store = kratix_state_store.minio`): connection details only,
// never secrets. Terraform drops the store's other attributes in the conversion.
type storeRefModel struct {
	Name      types.String `tfsdk:"name"`
	Path      types.String `tfsdk:"path"`
	SecretRef types.String `tfsdk:"secret_ref"`
	Bucket    *bucketModel `tfsdk:"bucket"`
	Git       *gitModel    `tfsdk:"git"`
}

type bucketModel struct {
	Endpoint   types.String `tfsdk:"endpoint"`
	BucketName types.String `tfsdk:"bucket_name"`
	Insecure   types.Bool   `tfsdk:"insecure"`
	Region     types.String `tfsdk:"region"`
	AuthMethod types.String `tfsdk:"auth_method"`
	// Where AWS credentials come from (see bucketAWSAttributes); never secrets.
	Profile      types.String     `tfsdk:"profile"`
	AssumeRole   *assumeRoleModel `tfsdk:"assume_role"`
	STSEndpoint  types.String     `tfsdk:"sts_endpoint"`
	UseDualStack types.Bool       `tfsdk:"use_dual_stack"`
}

type gitModel struct {
	URL                   types.String  `tfsdk:"url"`
	Branch                types.String  `tfsdk:"branch"`
	Author                *authorModel  `tfsdk:"author"`
	InsecureIgnoreHostKey types.Bool    `tfsdk:"insecure_ignore_host_key"`
	Signing               *signingModel `tfsdk:"signing"`
}

// signingModel names the key that signs a git store's commits: a provider secret holding
// signing_key (and signing_key_passphrase when the key is encrypted), and the key's format.
type signingModel struct {
	SecretRef types.String `tfsdk:"secret_ref"`
	Format    types.String `tfsdk:"format"`
}

type authorModel struct {
	Name  types.String `tfsdk:"name"`
	Email types.String `tfsdk:"email"`
}

const (
	defaultBranch      = "main"
	defaultAuthorName  = "kratix"
	authAccessKey      = "accessKey"
	authIAM            = "IAM"
	defaultStoreAuth   = authAccessKey
	storeAttributeName = "state_store"
)

var authorAttrTypes = map[string]attr.Type{"name": types.StringType, "email": types.StringType}

// storeRefFromObject reads a state_store object. ok is false when it, or anything in it, is not
// known yet.
func storeRefFromObject(obj types.Object) (ref storeRefModel, ok bool) {
	if obj.IsNull() || obj.IsUnknown() {
		return ref, false
	}
	// An unknown nested object is not known yet.
	if ref, ok = storeRefFromAttributes(obj.Attributes()); !ok {
		return storeRefModel{}, false
	}
	return ref, ref.known()
}

func (m storeRefModel) known() bool {
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

// place is the store's normalised location: changing it moves every file; changing anything
// else (credentials, author, TLS options, a cosmetic spelling of the same URL) does not.
func (m storeRefModel) place() placement.Location {
	switch {
	case m.Bucket != nil:
		return placement.BucketLocation(m.Bucket.Endpoint.ValueString(), m.Bucket.BucketName.ValueString())
	case m.Git != nil:
		return placement.GitLocation(m.Git.URL.ValueString(), branchOf(m.Git))
	}
	return placement.Location{Kind: "none", Endpoint: m.Name.ValueString()}
}

// location is where the store's files are: its normalised location and its cleaned path.
func (m storeRefModel) location() string {
	return m.place().String() + "|" + placement.CleanStorePath(m.Path.ValueString())
}

// storeLocationOf reads only what places a store object (endpoint or URL, bucket or branch,
// path). ok is false while one of those is unknown; unknown credentials, author or TLS options
// do not matter.
func storeLocationOf(ctx context.Context, obj types.Object) (string, bool) {
	if obj.IsNull() || obj.IsUnknown() {
		return "", false
	}
	var ref storeRefModel
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
	return ref.location(), true
}

func branchOf(g *gitModel) string {
	if g.Branch.ValueString() == "" {
		return defaultBranch
	}
	return g.Branch.ValueString()
}

// gitTransport names how a Git URL is reached: "https", "http", "ssh" or "file". Its errors
// show the URL without credentials (see statestore.RedactURL).
func gitTransport(raw string) (string, error) {
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

// checkCredentials finds, during plan, the credential mistakes that would otherwise fail only at
// apply: a secret_ref that names nothing, an SSH URL without a key, an HTTPS URL with an SSH key.
// at is the path of the store object in the resource (path.Empty() for the store itself).
func (d *providerData) checkCredentials(m storeRefModel, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	if d.isOffline() {
		return diags // no credentials are needed to plan offline
	}
	ref := m.SecretRef.ValueString()
	var set secretSet
	if ref != "" {
		s, found, err := d.secret(ref)
		if err != nil {
			return nil // decided at apply, once the secrets are known
		}
		if !found {
			diags.AddAttributeError(at.AtName("secret_ref"), "Unknown Secret",
				fmt.Sprintf("State store %q names the secret %q, but the provider's secrets have no set of that name "+
					"(configured: %s) and no environment variable %s<KEY> is set. Add it to the provider's `secrets`, "+
					"or set its environment variables.%s",
					m.Name.ValueString(), ref, listOrNone(d.secretNames()), envPrefix(ref), d.strayEnvNote(ref)))
			return diags
		}
		set = s
	}
	switch {
	case m.Bucket != nil:
		method := m.Bucket.AuthMethod.ValueString()
		if (method == "" || method == authAccessKey) && ref == "" {
			diags.AddAttributeError(at.AtName("secret_ref"), "Missing Secret",
				fmt.Sprintf("State store %q uses auth_method %q, which needs access keys: set secret_ref to a provider "+
					"secret holding access_key_id and secret_access_key, or use auth_method = \"IAM\".", m.Name.ValueString(), authAccessKey))
		}
		if profile := m.Bucket.Profile.ValueString(); profile != "" && method != authIAM {
			diags.AddAttributeError(at.AtName("bucket").AtName("profile"), "Profile Without the AWS Credential Chain",
				fmt.Sprintf("State store %q names the AWS profile %q, but its auth_method is %q, which takes the keys of its "+
					"secret: set auth_method = \"IAM\" to read the profile, or remove profile.", m.Name.ValueString(), profile, authAccessKey))
		}
		if ref != "" && (method == "" || method == authAccessKey) && (set["access_key_id"] == "" || set["secret_access_key"] == "") {
			diags.AddAttributeError(at.AtName("secret_ref"), "Incomplete Secret",
				fmt.Sprintf("Secret %q must hold access_key_id and secret_access_key for state store %q (environment: %s, %s); "+
					"it holds %s.%s",
					ref, m.Name.ValueString(), envName(ref, "access_key_id"), envName(ref, "secret_access_key"),
					listOrNone(set.keys()), d.strayEnvNote(ref)))
		}
	case m.Git != nil:
		if m.Git.URL.IsUnknown() {
			return diags
		}
		transport, err := gitTransport(m.Git.URL.ValueString())
		if err != nil {
			return diags // reported by the URL validator
		}
		switch {
		case hasGitHubApp(set):
			diags.Append(checkGitHubApp(m, set, ref, transport, at)...)
		case transport == "ssh" && set["ssh_private_key"] == "":
			diags.AddAttributeError(at.AtName("secret_ref"), "Missing SSH Key",
				fmt.Sprintf("State store %q reaches %s over SSH, which needs a key: set secret_ref to a provider secret "+
					"holding ssh_private_key (and known_hosts).", m.Name.ValueString(), statestore.RedactURL(m.Git.URL.ValueString())))
		case transport == "ssh" && set["known_hosts"] == "" && !m.Git.InsecureIgnoreHostKey.ValueBool():
			diags.AddAttributeError(at.AtName("secret_ref"), "Missing known_hosts",
				fmt.Sprintf("State store %q reaches %s over SSH and host keys are checked: add known_hosts to secret %q "+
					"(for example the output of ssh-keyscan), or set git.insecure_ignore_host_key = true.", m.Name.ValueString(), statestore.RedactURL(m.Git.URL.ValueString()), ref))
		case (transport == "https" || transport == "http") && set["ssh_private_key"] != "":
			diags.AddAttributeError(at.AtName("git").AtName("url"), "SSH Key With an HTTP URL",
				fmt.Sprintf(at.AtName("git").AtName("url").String()+": secret %q holds an ssh_private_key, but state store %q uses %s, which does not use SSH. "+
					"Use the repository's SSH URL (ssh:// or git@host:org/repo.git), or give username and password instead.",
					ref, m.Name.ValueString(), statestore.RedactURL(m.Git.URL.ValueString())))
		}
		diags.Append(d.checkSigning(m, at)...)
	}
	return diags
}

// checkSigning finds, during plan, a signing key that the apply could not sign with: a
// secret that names nothing or holds no signing_key, a key that does not parse as the format
// says, an encrypted key without its passphrase or with the wrong one. The error is at the
// signing object's secret_ref (or format, when the key is of the other format) and never
// quotes the key.
func (d *providerData) checkSigning(m storeRefModel, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	sg := m.Git.Signing
	if sg == nil || sg.SecretRef.IsUnknown() || sg.Format.IsUnknown() {
		return diags
	}
	refAt := at.AtName("git").AtName("signing").AtName("secret_ref")
	ref, format := sg.SecretRef.ValueString(), sg.Format.ValueString()
	if ref == "" || format == "" {
		diags.AddAttributeError(at.AtName("git").AtName("signing"), "Incomplete Signing Settings",
			fmt.Sprintf("%s: state store %q signs its commits, which needs both secret_ref (the provider secret holding "+
				"signing_key) and format (%q or %q).", at.AtName("git").AtName("signing"), m.Name.ValueString(),
				statestore.SigningSSH, statestore.SigningOpenPGP))
		return diags
	}
	set, found, err := d.secret(ref)
	if err != nil {
		return diags // decided at apply, once the secrets are known
	}
	if !found {
		diags.AddAttributeError(refAt, "Unknown Signing Secret",
			fmt.Sprintf("%s: state store %q signs its commits with the secret %q, but the provider's secrets have no set of "+
				"that name (configured: %s) and no environment variable %s<KEY> is set. Add it, with signing_key, to the "+
				"provider's `secrets`.", refAt, m.Name.ValueString(), ref, listOrNone(d.secretNames()), envPrefix(ref)))
		return diags
	}
	if _, err := statestore.NewCommitSigner(format, set["signing_key"], set["signing_key_passphrase"]); err != nil {
		where := refAt
		if ke := (*statestore.SigningKeyError)(nil); errors.As(err, &ke) && ke.OtherFormat {
			where = at.AtName("git").AtName("signing").AtName("format")
		}
		diags.AddAttributeError(where, "Unusable Signing Key",
			fmt.Sprintf("%s: state store %q signs its commits with the %s key of secret %q (environment: %s), which cannot "+
				"be used: %v.", where, m.Name.ValueString(), format, ref, envName(ref, "signing_key"), signingKeyProblem(ref, err)))
	}
	return diags
}

// signingKeyProblem names the secret's key in a signing key error: `secret "s" signing_key_passphrase
// does not decrypt signing_key`.
func signingKeyProblem(ref string, err error) string {
	var ke *statestore.SigningKeyError
	if errors.As(err, &ke) {
		return fmt.Sprintf("secret %q %s %v", ref, ke.Key, ke.Err)
	}
	return err.Error()
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// open returns the store for a state_store object, built on first use and reused for the life of
// the provider process. createBucket lets a bucket store's Check create a missing bucket.
func (d *providerData) open(m storeRefModel, createBucket bool) (statestore.Store, error) {
	if d.isOffline() {
		return nil, errOffline
	}
	var set secretSet
	if ref := m.SecretRef.ValueString(); ref != "" {
		s, found, err := d.secret(ref)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("secret %q is not in the provider's secrets nor in KRATIX_SECRET_* environment variables", ref)
		}
		set = s
	}
	switch {
	case m.Bucket != nil:
		method := m.Bucket.AuthMethod.ValueString()
		if method == "" {
			method = defaultStoreAuth
		}
		role, err := m.Bucket.AssumeRole.config()
		if err != nil {
			return nil, err
		}
		return d.pool.Bucket(statestore.BucketConfig{
			Endpoint:        m.Bucket.Endpoint.ValueString(),
			BucketName:      m.Bucket.BucketName.ValueString(),
			Region:          m.Bucket.Region.ValueString(),
			Insecure:        m.Bucket.Insecure.ValueBool(),
			AuthMethod:      method,
			AccessKeyID:     set["access_key_id"],
			SecretAccessKey: set["secret_access_key"],
			SessionToken:    set["session_token"],
			CACertificate:   set["ca_certificate"],
			CreateBucket:    createBucket,
			Profile:         m.Bucket.Profile.ValueString(),
			AssumeRole:      role,
			STSEndpoint:     m.Bucket.STSEndpoint.ValueString(),
			UseDualStack:    m.Bucket.UseDualStack.ValueBool(),
		})
	case m.Git != nil:
		author := defaultAuthorName
		email := ""
		if m.Git.Author != nil {
			if v := m.Git.Author.Name.ValueString(); v != "" {
				author = v
			}
			email = m.Git.Author.Email.ValueString()
		}
		sign, err := d.signingConfig(m.Git.Signing)
		if err != nil {
			return nil, err
		}
		return d.pool.Git(statestore.GitConfig{
			SigningFormat:         sign.SigningFormat,
			SigningKey:            sign.SigningKey,
			SigningPassphrase:     sign.SigningPassphrase,
			URL:                   m.Git.URL.ValueString(),
			Branch:                branchOf(m.Git),
			AuthorName:            author,
			AuthorEmail:           email,
			InsecureIgnoreHostKey: m.Git.InsecureIgnoreHostKey.ValueBool(),
			Username:              set["username"],
			Password:              set["password"],
			SSHPrivateKey:         set["ssh_private_key"],
			KnownHosts:            set["known_hosts"],
			CACertificate:         set["ca_certificate"],
			GitHubApp: statestore.GitHubApp{
				AppID:          set["github_app_id"],
				InstallationID: set["github_app_installation_id"],
				PrivateKey:     set["github_app_private_key"],
				APIURL:         set["github_app_api_url"],
			},
		})
	}
	return nil, fmt.Errorf("state store %q has neither bucket nor git", m.Name.ValueString())
}

// signingConfig resolves a git store's signing key: the signing fields of its GitConfig, empty
// when the store does not sign.
func (d *providerData) signingConfig(sg *signingModel) (statestore.GitConfig, error) {
	var cfg statestore.GitConfig
	if sg == nil || (sg.SecretRef.ValueString() == "" && sg.Format.ValueString() == "") {
		return cfg, nil
	}
	ref := sg.SecretRef.ValueString()
	if ref == "" {
		return cfg, errors.New("git.signing has no secret_ref: name the provider secret holding signing_key")
	}
	set, found, err := d.secret(ref)
	if err != nil {
		return cfg, err
	}
	if !found {
		return cfg, fmt.Errorf("signing secret %q is not in the provider's secrets nor in KRATIX_SECRET_* environment variables", ref)
	}
	cfg.SigningFormat = sg.Format.ValueString()
	if cfg.SigningFormat == "" {
		return cfg, errors.New("git.signing has no format: set \"ssh\" or \"openpgp\"")
	}
	cfg.SigningKey, cfg.SigningPassphrase = set["signing_key"], set["signing_key_passphrase"]
	return cfg, nil
}
