package provider

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// gitHubAppConfig is a git store whose secret holds only a GitHub App, on repo, and n promises
// on one destination, each with a namespace named after ns.
func gitHubAppConfig(gh *testinfra.FakeGitHub, key, repo string, n int, ns string) string {
	return kratixProviderBlock{Secrets: []hclAttr{{"gh", hclObj{
		{"github_app_id", q(gh.AppID)}, {"github_app_installation_id", q(gh.InstallationID)},
		{"github_app_private_key", q(key)}, {"github_app_api_url", q(gh.URL)},
	}}}}.String() +
		kratixStateStore{Label: "s", Name: q("gh"), SecretRef: q("gh"), Git: hclObj{{"url", q(gitServer.HTTPURL(repo))}}}.String() +
		kratixDestination{Label: "d", Name: q("worker"), Path: q("worker"), InitWorkloads: "false", StateStore: "kratix_state_store.s"}.String() +
		kratixPromise{
			Label: "p", Count: strconv.Itoa(n), Name: q("p${count.index}"),
			Dependencies: q(namespaceDoc(ns + "-${count.index}")), Destinations: "[kratix_destination.d]",
		}.String()
}

// TestAccGitHubApp applies 50 promises to a repository that takes only the current tokens of a
// GitHub App's installation, with the provider process's token cache shared by the steps:
// plan and apply of all of them mint one token; once the server expires it, the next apply
// gets a second token and succeeds; with a key the App does not have, the plan fails naming the
// App and what to check, and nothing is minted; a token that expires between a fetch's
// info/refs and its pack request is replaced too.
func TestAccGitHubApp(t *testing.T) {
	t.Parallel()
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
			{
				// The token expires between a fetch's info/refs and its upload-pack request:
				// refused in the middle of the exchange, it is replaced as at the start.
				PreConfig: func() {
					var once sync.Once
					gitServer.BeforePost(repo, func(service string) {
						if service == "git-upload-pack" {
							once.Do(gh.ExpireTokens)
						}
					})
				},
				Config: gitHubAppConfig(gh, gh.PrivateKey, repo, promises, "v4"),
				Check:  check("v4", 3),
			},
		},
	})
}

// TestGitHubAppPlanChecks: a secret set holding a GitHub App is judged at plan, at the store's
// secret_ref, without dialling anything: a missing key is named with its environment variable,
// a set with a password besides is ambiguous, an installation id must be a number, the key must
// be an RSA private key (and is never quoted), the App needs an http(s) URL. These need the
// Terraform CLI but no server.
func TestGitHubAppPlanChecks(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	goodKey := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	const notAKey = "-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0LWJ5dGVzLW5vdC1hLWtleQ==\n-----END RSA PRIVATE KEY-----\n"
	config := func(set hclObj, url string) string {
		return kratixProviderBlock{Secrets: []hclAttr{{"gh", set}}}.String() +
			kratixStateStore{Label: "s", Name: q("s"), SecretRef: q("gh"), Git: hclObj{{"url", q(url)}}.inline()}.String()
	}
	app := func(id, installation, key string) hclObj {
		return hclObj{{"github_app_id", q(id)}, {"github_app_installation_id", q(installation)}, {"github_app_private_key", q(key)}}
	}
	const https = "https://github.com/acme/gitops.git"
	tests := []struct {
		name, config, want string
	}{
		{"missing private key", config(hclObj{{"github_app_id", q("1")}, {"github_app_installation_id", q("2")}}, https),
			`Incomplete GitHub App[\s\S]*secret_ref = "gh"[\s\S]*not\s+github_app_private_key[\s\S]*KRATIX_SECRET_GH_GITHUB_APP_PRIVATE_KEY`},
		{"missing installation", config(hclObj{{"github_app_id", q("1")}, {"github_app_private_key", q(goodKey)}}, https),
			`Incomplete GitHub App[\s\S]*not\s+github_app_installation_id`},
		{"with a password", config(append(app("1", "2", goodKey), hclAttr{"password", q("p")}), https),
			`Ambiguous Git Credentials[\s\S]*both\s+username/password\s+and\s+a\s+GitHub\s+App`},
		{"installation not a number", config(app("1", "inst-2", goodKey), https),
			`Invalid GitHub App Installation[\s\S]*"inst-2"`},
		{"not a key", config(app("1", "2", notAKey), https),
			`Invalid GitHub App Key[\s\S]*GitHub\s+App\s+1[\s\S]*PKCS#8`},
		{"over SSH", config(app("1", "2", goodKey), "ssh://git@github.com/acme/gitops.git"),
			`GitHub App Over SSH[\s\S]*HTTPS\s+only`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      tt.config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tt.want),
				}},
			})
		})
	}
}
