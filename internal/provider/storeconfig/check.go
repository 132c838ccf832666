package storeconfig

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// CheckCredentials finds, during plan, the credential mistakes that would otherwise fail only at
// apply: a secret_ref that names nothing, an SSH URL without a key, an HTTPS URL with an SSH key.
// at is the path of the store object in the resource (path.Empty() for the store itself).
func (s *Secrets) CheckCredentials(m Ref, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	ref := m.SecretRef.ValueString()
	var set Set
	if ref != "" {
		resolved, found, err := s.Resolve(ref)
		if err != nil {
			return nil // decided at apply, once the secrets are known
		}
		if !found {
			diags.AddAttributeError(at.AtName("secret_ref"), "Unknown Secret",
				fmt.Sprintf("State store %q names the secret %q, but the provider's secrets have no set of that name "+
					"(configured: %s) and no environment variable %s<KEY> is set. Add it to the provider's `secrets`, "+
					"or set its environment variables.%s",
					m.Name.ValueString(), ref, listOrNone(s.names()), EnvPrefix(ref), s.strayEnvNote(ref)))
			return diags
		}
		set = resolved
	}
	switch {
	case m.Bucket != nil:
		method := m.Bucket.AuthMethod.ValueString()
		if (method == "" || method == AuthAccessKey) && ref == "" {
			diags.AddAttributeError(at.AtName("secret_ref"), "Missing Secret",
				fmt.Sprintf("State store %q uses auth_method %q, which needs access keys: set secret_ref to a provider "+
					"secret holding access_key_id and secret_access_key, or use auth_method = \"IAM\".", m.Name.ValueString(), AuthAccessKey))
		}
		if profile := m.Bucket.Profile.ValueString(); profile != "" && method != AuthIAM {
			diags.AddAttributeError(at.AtName("bucket").AtName("profile"), "Profile Without the AWS Credential Chain",
				fmt.Sprintf("State store %q names the AWS profile %q, but its auth_method is %q, which takes the keys of its "+
					"secret: set auth_method = \"IAM\" to read the profile, or remove profile.", m.Name.ValueString(), profile, AuthAccessKey))
		}
		if ref != "" && (method == "" || method == AuthAccessKey) && (set["access_key_id"] == "" || set["secret_access_key"] == "") {
			diags.AddAttributeError(at.AtName("secret_ref"), "Incomplete Secret",
				fmt.Sprintf("Secret %q must hold access_key_id and secret_access_key for state store %q (environment: %s, %s); "+
					"it holds %s.%s",
					ref, m.Name.ValueString(), EnvName(ref, "access_key_id"), EnvName(ref, "secret_access_key"),
					listOrNone(set.keys()), s.strayEnvNote(ref)))
		}
	case m.Git != nil:
		if m.Git.URL.IsUnknown() {
			return diags
		}
		transport, err := GitTransport(m.Git.URL.ValueString())
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
		diags.Append(s.checkSigning(m, at)...)
	}
	return diags
}

// checkSigning finds, during plan, a signing key that the apply could not sign with: a
// secret that names nothing or holds no signing_key, a key that does not parse as the format
// says, an encrypted key without its passphrase or with the wrong one. The error is at the
// signing object's secret_ref (or format, when the key is of the other format) and never
// quotes the key.
func (s *Secrets) checkSigning(m Ref, at path.Path) diag.Diagnostics {
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
	set, found, err := s.Resolve(ref)
	if err != nil {
		return diags // decided at apply, once the secrets are known
	}
	if !found {
		diags.AddAttributeError(refAt, "Unknown Signing Secret",
			fmt.Sprintf("%s: state store %q signs its commits with the secret %q, but the provider's secrets have no set of "+
				"that name (configured: %s) and no environment variable %s<KEY> is set. Add it, with signing_key, to the "+
				"provider's `secrets`.", refAt, m.Name.ValueString(), ref, listOrNone(s.names()), EnvPrefix(ref)))
		return diags
	}
	if _, err := statestore.NewCommitSigner(format, set["signing_key"], set["signing_key_passphrase"]); err != nil {
		where := refAt
		if ke := (*statestore.SigningKeyError)(nil); errors.As(err, &ke) && ke.OtherFormat {
			where = at.AtName("git").AtName("signing").AtName("format")
		}
		diags.AddAttributeError(where, "Unusable Signing Key",
			fmt.Sprintf("%s: state store %q signs its commits with the %s key of secret %q (environment: %s), which cannot "+
				"be used: %v.", where, m.Name.ValueString(), format, ref, EnvName(ref, "signing_key"), signingKeyProblem(ref, err)))
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

// gitHubAppKeys are the secret keys of a GitHub App, the three it needs first.
var gitHubAppKeys = []string{"github_app_id", "github_app_installation_id", "github_app_private_key", "github_app_api_url"}

// hasGitHubApp reports whether a secret set holds any of a GitHub App's keys.
func hasGitHubApp(set Set) bool {
	for _, k := range gitHubAppKeys {
		if set[k] != "" {
			return true
		}
	}
	return false
}

// checkGitHubApp finds, during plan, the mistakes in a secret set holding a GitHub App that
// would otherwise fail at apply: a missing key, ids that are not numbers, a key that is not an
// RSA private key, an API URL that is not https://, other credentials beside it, a URL that is
// not HTTP(S). It never quotes a secret.
func checkGitHubApp(m Ref, set Set, ref, transport string, at path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	refPath := at.AtName("secret_ref")
	store := m.Name.ValueString()
	fail := func(summary, format string, args ...any) {
		diags.AddAttributeError(refPath, summary, fmt.Sprintf("%s: ", refPath)+fmt.Sprintf(format, args...))
	}
	for _, k := range gitHubAppKeys[:3] {
		if set[k] == "" {
			fail("Incomplete GitHub App", "secret %q holds some of a GitHub App's keys but not %s, which state store %q "+
				"needs with github_app_id, github_app_installation_id and github_app_private_key (environment: %s).",
				ref, k, store, EnvName(ref, k))
		}
	}
	if diags.HasError() {
		return diags
	}
	if transport != "https" && transport != "http" {
		fail("GitHub App Over SSH", "secret %q holds a GitHub App, whose tokens work over HTTPS only, but state store %q "+
			"uses %s: use the repository's https:// URL.", ref, store, statestore.RedactURL(m.Git.URL.ValueString()))
	}
	if set["password"] != "" || set["username"] != "" {
		fail("Ambiguous Git Credentials", "secret %q holds both username/password and a GitHub App (github_app_id %s); "+
			"state store %q can use only one: remove one of them.", ref, set["github_app_id"], store)
	}
	if _, err := strconv.ParseUint(set["github_app_installation_id"], 10, 64); err != nil {
		fail("Invalid GitHub App Installation", "github_app_installation_id of secret %q must be the installation's number "+
			"(the end of its settings URL), got %q.", ref, set["github_app_installation_id"])
	}
	if _, err := statestore.ParseGitHubAppKey(set["github_app_private_key"]); err != nil {
		fail("Invalid GitHub App Key", "github_app_private_key of secret %q (GitHub App %s) cannot be used: %v.",
			ref, set["github_app_id"], err)
	}
	if api := set["github_app_api_url"]; api != "" {
		if u, err := url.Parse(api); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			fail("Invalid GitHub API URL", "github_app_api_url of secret %q must be https://api.github.com or, for GitHub "+
				"Enterprise Server, https://HOST/api/v3; got %q.", ref, statestore.RedactURL(api))
		}
	}
	return diags
}
