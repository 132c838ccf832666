package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccProvider_unknownSecrets: the provider block may use values known only after apply.
// Configure must accept them and dial nothing; the store is reached once they are known.
func TestAccProvider_unknownSecrets(t *testing.T) {
	if minioServer == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
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
			Check: expectContent(ts, t, "worker-1/dependencies/kratix-canary-namespace.yaml", wantNamespace),
		}},
	})
}
