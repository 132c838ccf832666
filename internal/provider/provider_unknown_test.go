package provider

import (
	"fmt"
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
			Config: fmt.Sprintf(`
resource "terraform_data" "password" {
  input = %q
}

provider "kratix" {
  secrets = {
    s = {
      username = %q
      password = terraform_data.password.output
    }
  }
}

resource "kratix_state_store" "s" {
%s
}

resource "kratix_destination" "d" {
  name        = "worker-1"
  path        = "worker-1"
  state_store = kratix_state_store.s
}
`, gitServer.Password, gitServer.Username, ts.store),
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
	for _, tc := range []struct {
		kind, secrets string
		value         func() string
	}{
		{"bucket", fmt.Sprintf(`access_key_id = %q
      secret_access_key = terraform_data.secret.output`, minioServer.AccessKey), func() string { return minioServer.SecretKey }},
		{"git-ssh", fmt.Sprintf(`ssh_private_key = terraform_data.secret.output
      known_hosts = %q`, gitServer.KnownHosts), func() string { return gitServer.SSHPrivateKey }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			ts := newTestStore(t, tc.kind)
			config := func(rotation, deps string) string {
				return fmt.Sprintf(`
resource "terraform_data" "secret" {
  input            = %q
  triggers_replace = %q
}

provider "kratix" {
  secrets = {
    s = {
      %s
    }
  }
}

resource "kratix_state_store" "s" {
%s
}

resource "kratix_destination" "d" {
  name        = "worker-1"
  path        = "worker-1"
  labels      = { env = "dev" }
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "app"
  destinations = [kratix_destination.d]
  dependencies = %q
}
`, tc.value(), rotation, tc.secrets, ts.store, deps)
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
}
