package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccProvider_unknownSecrets: the provider block may use values known only after apply.
// Configure must accept them and dial nothing; the store is reached once they are known.
func TestAccProvider_unknownSecrets(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: block(`resource "terraform_data" "password"`, []hclAttr{{"input", q(gitServer.Password)}}, "") +
				kratixProviderBlock{Secrets: []hclAttr{{"s", hclObj{{"username", q(gitServer.Username)}, {"password", "terraform_data.password.output"}}}}}.String() +
				kratixStateStore{Label: "s", Body: ts.store}.String() +
				kratixDestination{Label: "d", Name: q("worker-1"), Path: q("worker-1"), StateStore: "kratix_state_store.s"}.String(),
			// Once the secrets are known, the canary is written.
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.FileHolds(ts.view, "worker-1/dependencies/kratix-canary-namespace.yaml", wantNamespace),
			},
		}},
	})
}

// TestAccProvider_oneSecretValueUnknown: a secret set with one value known only after apply
// (a terraform_data output standing in for random_password or tls_private_key) plans without
// "Incomplete Secret" or "Missing SSH Key", and the apply writes with the real value: a bucket
// store's secret_access_key, and a Git store's ssh_private_key.
const namespaceOther = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n"

func TestAccProvider_oneSecretValueUnknown(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	// The secret of each store kind, one value the output of terraform_data.secret, and that value.
	cases := map[string]struct {
		secret hclObj
		value  func() string
	}{
		"bucket": {hclObj{{"access_key_id", q(minioServer.AccessKey)}, {"secret_access_key", "terraform_data.secret.output"}},
			func() string { return minioServer.SecretKey }},
		"git-ssh": {hclObj{{"ssh_private_key", "terraform_data.secret.output"}, {"known_hosts", q(gitServer.KnownHosts)}},
			func() string { return gitServer.SSHPrivateKey }},
	}
	onStoresOf(t, []string{"bucket", "git-ssh"}, func(t *testing.T, kind string) {
		tc := cases[kind]
		ts := newTestStore(t, kind)
		config := func(rotation, deps string) string {
			return block(`resource "terraform_data" "secret"`, []hclAttr{{"input", q(tc.value())}, {"triggers_replace", q(rotation)}}, "") +
				kratixProviderBlock{Secrets: []hclAttr{{"s", tc.secret}}}.String() +
				kratixStateStore{Label: "s", Body: ts.store}.String() +
				kratixDestination{Label: "d", Name: q("worker-1"), Path: q("worker-1"), Labels: `{ env = "dev" }`, StateStore: "kratix_state_store.s"}.String() +
				kratixPromise{Label: "p", Name: q("app"), Destinations: "[kratix_destination.d]", Dependencies: q(deps)}.String()
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{{
				Config: config("1", namespaceApp),
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.FileHolds(ts.view, "worker-1/dependencies/kratix-canary-namespace.yaml", wantNamespace),
					acctest.FileHolds(ts.view, "worker-1/dependencies/app/5058f/static/app-dependencies.yaml", namespaceApp),
				},
			}, {
				// The secret is rotated: unknown again while resources already in state are
				// refreshed. Their state stands for this plan, and the apply writes with the
				// new value.
				Config: config("2", namespaceOther),
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.FileHolds(ts.view, "worker-1/dependencies/app/5058f/static/app-dependencies.yaml", namespaceOther),
				},
			}},
		})
	})
}
