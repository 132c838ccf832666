package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// gitHubAppConfig is a git store whose secret holds only a GitHub App, on repo, and n promises
// on one destination, each with a namespace named after ns.
func gitHubAppConfig(gh *testinfra.FakeGitHub, key, repo string, n int, ns string) string {
	return fmt.Sprintf(`
provider "kratix" {
  secrets = {
    gh = {
      github_app_id              = %q
      github_app_installation_id = %q
      github_app_private_key     = %q
      github_app_api_url         = %q
    }
  }
}

resource "kratix_state_store" "s" {
  name       = "gh"
  secret_ref = "gh"
  git = {
    url = %q
  }
}

resource "kratix_destination" "d" {
  name           = "worker"
  path           = "worker"
  init_workloads = false
  state_store    = kratix_state_store.s
}

resource "kratix_promise" "p" {
  count        = %d
  name         = "p${count.index}"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s-${count.index}\n"
  destinations = [kratix_destination.d]
}
`, gh.AppID, gh.InstallationID, key, gh.URL, gitServer.HTTPURL(repo), n, ns)
}

// TestAccGitHubApp applies 50 promises to a repository that takes only the current tokens of a
// GitHub App's installation, with the provider process's token cache shared by the steps:
// plan and apply of all of them mint one token; once the server expires it, the next apply
// gets a second token and succeeds; with a key the App does not have, the plan fails naming the
// App and what to check, and nothing is minted.
func TestAccGitHubApp(t *testing.T) {
	requireAcceptance(t)
	gh, err := testinfra.StartFakeGitHub()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gh.Close)
	repo := randomName("app")
	if err := gitServer.CreateRepo(repo, "main"); err != nil {
		t.Fatal(err)
	}
	gitServer.RequireAppTokens(repo, gh.ValidToken)
	const promises = 50
	check := func(ns string, wantMints int) resource.TestCheckFunc {
		return func(_ *terraform.State) error {
			if got := gh.Mints(); got != wantMints {
				return fmt.Errorf("%d tokens minted, want %d", got, wantMints)
			}
			files, err := gitServer.ListFiles(repo, "main")
			if err != nil {
				return err
			}
			for i := range promises {
				var found []string
				for _, f := range files {
					if strings.HasPrefix(f, fmt.Sprintf("worker/dependencies/p%d/", i)) && strings.HasSuffix(f, "-dependencies.yaml") {
						found = append(found, f)
					}
				}
				if len(found) != 1 {
					return fmt.Errorf("promise p%d has dependency files %v; the repository has %s", i, found, strings.Join(files, ", "))
				}
				got, err := gitServer.ReadFile(repo, "main", found[0])
				want := fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s-%d\n", ns, i)
				if err != nil || string(got) != want {
					return fmt.Errorf("%s holds %q (%v), want %q", found[0], got, err, want)
				}
			}
			t.Logf("%d tokens minted; the repository has %d files", gh.Mints(), len(files))
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: gitHubAppConfig(gh, gh.PrivateKey, repo, promises, "v1"),
				Check:  check("v1", 1),
			},
			{
				PreConfig: gh.ExpireTokens,
				Config:    gitHubAppConfig(gh, gh.PrivateKey, repo, promises, "v2"),
				Check:     check("v2", 2),
			},
			{
				Config:      gitHubAppConfig(gh, gh.OtherPrivateKey, repo, promises, "v3"),
				ExpectError: regexp.MustCompile(`GitHub App 424242[\s\S]*HTTP 401[\s\S]*github_app_private_key[\s\S]*is[\s\S]*a[\s\S]*current[\s\S]*private[\s\S]*key`),
			},
			{
				// The right key again: nothing to change, the second token still serves, and
				// the wrong key minted none.
				Config: gitHubAppConfig(gh, gh.PrivateKey, repo, promises, "v2"),
				Check:  check("v2", 2),
			},
		},
	})
}
