package provider

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// gitHubAppKeys are the secret keys of a GitHub App, the three it needs first.
var gitHubAppKeys = []string{"github_app_id", "github_app_installation_id", "github_app_private_key", "github_app_api_url"}

// hasGitHubApp reports whether a secret set holds any of a GitHub App's keys.
func hasGitHubApp(set secretSet) bool {
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
func checkGitHubApp(m storeRefModel, set secretSet, ref, transport string, at path.Path) diag.Diagnostics {
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
				ref, k, store, envName(ref, k))
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
