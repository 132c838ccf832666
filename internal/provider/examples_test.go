package provider

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// terraformBlock matches an example's top-level terraform block: the tests serve the provider
// in-process, so the registry source it names must not be looked up.
var terraformBlock = regexp.MustCompile(`(?ms)^terraform \{.*?^\}\n`)

func exampleConfig(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return terraformBlock.ReplaceAllString(string(b), "")
}

// exampleDir copies an example's files to a new folder, without their terraform blocks (the
// provider is served in-process), with a provider block of test credentials.
func exampleDir(t *testing.T, dir, provider string) string {
	t.Helper()
	out := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	declared := false
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) == ".sh" || e.Name() == importBlocksFile {
			continue // import blocks are checked by checkImportBlocks: planning them would dial the stores
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// The in-process provider is registered under the test harness's default namespace.
		content := strings.ReplaceAll(string(b), `source = "promise-platform/kratix"`, `source = "hashicorp/kratix"`)
		declared = declared || strings.Contains(content, "required_providers")
		if err := os.WriteFile(filepath.Join(out, e.Name()), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !declared {
		provider += "\nterraform {\n  required_providers {\n    kratix = { source = \"hashicorp/kratix\" }\n  }\n}\n"
	}
	if err := os.WriteFile(filepath.Join(out, "test_provider.tf"), []byte(provider), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// importBlocksFile is the example of `import` blocks that tfplugindocs puts on a resource's page.
const importBlocksFile = "import-by-string-id.tf"

var (
	importBlock   = regexp.MustCompile(`(?m)^import \{\n  to = (\w+)\.(\w+)\n  id = "([^"]+)"\n\}$`)
	declaredBlock = regexp.MustCompile(`(?m)^resource "(\w+)" "(\w+)" \{$`)
)

// checkImportBlocks checks a resource example's import blocks: there is at least one, each
// imports a resource the example declares, of the example's type, with an id of the documented
// form. (Applying import blocks against real stores is TestAccAdopt's business.)
func checkImportBlocks(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, importBlocksFile))
	if err != nil {
		t.Errorf("%s has no %s: %v", dir, importBlocksFile, err)
		return
	}
	res, err := os.ReadFile(filepath.Join(dir, "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, m := range declaredBlock.FindAllStringSubmatch(string(res), -1) {
		declared[m[1]+"."+m[2]] = true
	}
	ids := map[string]*regexp.Regexp{
		"kratix_state_store":      regexp.MustCompile(`^[a-z0-9-]+$`),
		"kratix_destination":      regexp.MustCompile(`^[a-z0-9-]+$`),
		"kratix_promise":          regexp.MustCompile(`^[a-z0-9-]+$`),
		"kratix_resource_request": regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+/[a-z0-9-]+(@[a-z0-9-]+)?$`),
	}
	typ := filepath.Base(dir)
	blocks := importBlock.FindAllStringSubmatch(string(b), -1)
	if len(blocks) == 0 || strings.Count(string(b), "import {") != len(blocks) {
		t.Errorf("%s: %d import blocks in the expected form, of %d", importBlocksFile, len(blocks), strings.Count(string(b), "import {"))
	}
	for _, m := range blocks {
		if m[1] != typ || !declared[m[1]+"."+m[2]] {
			t.Errorf("%s imports %s.%s, which %s/resource.tf does not declare", importBlocksFile, m[1], m[2], typ)
		}
		if !ids[typ].MatchString(m[3]) {
			t.Errorf("%s: id %q of %s.%s is not of the documented form %s", importBlocksFile, m[3], m[1], m[2], ids[typ])
		}
	}
}

// TestExamples plans every documentation example: each must be a valid configuration whose plan
// succeeds (nothing is applied: they point at hosts that do not exist here). The provider is
// offline: online, the first plan of each new state store reads it, and these hosts do not
// resolve.
func TestExamples(t *testing.T) {
	secrets := `
provider "kratix" {
  offline          = true
  content_hash_key = "0123456789abcdef0123456789abcdef"
  secrets = {
    minio  = { access_key_id = "a", secret_access_key = "b" }
    github = { ssh_private_key = "k", known_hosts = "github.com ssh-ed25519 AAAA" }
  }
}
`
	t.Setenv("TF_VAR_db_password", "example-password") // the request example's ephemeral variable
	dirs, err := filepath.Glob("../../examples/*/*")
	if err != nil || len(dirs) < 5 {
		t.Fatalf("examples not found: %v %v", dirs, err)
	}
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue // examples/provider and examples/quickstart: planned below, and applied by TestAccQuickstart
		}
		if filepath.Base(filepath.Dir(dir)) == "tests" {
			continue // examples/tests, a terraform test suite: run by TestTerraformTestExamples
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				Steps: []resource.TestStep{{
					ProtoV6ProviderFactories: testAccProviders,
					ConfigDirectory:          config.StaticDirectory(exampleDir(t, dir, secrets)),
					PlanOnly:                 true,
					ExpectNonEmptyPlan:       true,
				}},
			})
			if filepath.Base(filepath.Dir(dir)) == "resources" {
				if _, err := os.Stat(filepath.Join(dir, "import.sh")); err != nil {
					t.Errorf("%s has no import.sh: %v", dir, err)
				}
				checkImportBlocks(t, dir)
			}
		})
	}
	t.Run("provider", func(t *testing.T) {
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{{
				Config: strings.Replace(exampleConfig(t, "../../examples/provider/provider.tf"), "provider \"kratix\" {", "provider \"kratix\" {\n  offline = true", 1) + "\nresource \"kratix_state_store\" \"x\" {\n  name = \"x\"\n  secret_ref = \"github\"\n  git = { url = \"git@github.com:acme/gitops.git\" }\n}\n",
				ConfigVariables: config.Variables{
					"minio_secret_key": config.StringVariable("s3cr3t"),
					"content_hash_key": config.StringVariable("0123456789abcdef0123456789abcdef"),
					"deploy_key":       config.StringVariable("-----BEGIN OPENSSH PRIVATE KEY-----\n"),
				},
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			}},
		})
	})
}

// TestAccQuickstart applies examples/quickstart with the real provider binary, the way `make demo`
// and a user do: Terraform CLI, dev_overrides, a file:// repository. It drives the CLI directly
// because the quickstart uses for_each.
func TestAccQuickstart(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	src, err := os.ReadFile("../../examples/quickstart/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	cli := newCLI(t, map[string]string{"main.tf": string(src)}, "TF_VAR_repository_url=file://"+repo)
	if out, err := cli.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	files, err := exec.Command("git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := ".kratix-registry/destinations/worker-1.yaml\n.kratix-registry/destinations/worker-2.yaml\n" + // registration records (issue 39)
		".kratix-registry/owners/promise_team-namespace.yaml\n" + // owner records (issue 39)
		".kratix-registry/owners/request_team-namespace_default_team-a-quota.yaml\n" +
		".kratix-registry/promises/team-namespace/_unnamed.yaml\n" + // the promise's published record (issue 39)
		"worker-1/dependencies/kratix-canary-namespace.yaml\n" +
		"worker-1/dependencies/team-namespace/5058f/static/team-namespace-dependencies.yaml\n" +
		"worker-1/resources/default/team-namespace/team-a-quota/instance-configure/5058f/team-a-quota.yaml\n" +
		"worker-1/resources/kratix-canary-configmap.yaml\n" +
		"worker-2/dependencies/kratix-canary-namespace.yaml\nworker-2/resources/kratix-canary-configmap.yaml\n"
	if string(files) != want {
		t.Errorf("the repository holds\n%s\nwant\n%s", files, want)
	}
	// A second plan is empty (exit code 0 with -detailed-exitcode).
	if out, err := cli.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after apply is not empty: %v\n%s", err, out)
	}
	if out, err := cli.run("destroy", "-auto-approve"); err != nil {
		t.Fatalf("terraform destroy: %v\n%s", err, out)
	}
}

// TestAccProviderExampleKeepsSecretsOutOfSavedPlans plans the provider page's example with the
// real CLI into a saved plan file and reads the file's bytes: the secret values given to its
// variables must not be there. A `sensitive` variable is only hidden from output; Terraform
// writes its value into every saved plan, which is where the page's example put the keys.
func TestAccProviderExampleKeepsSecretsOutOfSavedPlans(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	main := strings.Replace(exampleConfig(t, "../../examples/provider/provider.tf"), "provider \"kratix\" {",
		"provider \"kratix\" {\n  offline = true", 1) + cliRequiredProviders + `
resource "kratix_state_store" "x" {
  name       = "x"
  secret_ref = "github"
  git        = { url = "git@github.com:acme/gitops.git" }
}
`
	secrets := map[string]string{
		"minio_secret_key": "minio-secret-b9c2e7",
		"content_hash_key": "content-hash-key-4f0d1a9e8c7b6a5f",
		"deploy_key":       "-----BEGIN OPENSSH PRIVATE KEY-----\ndeploy-key-7e3a\n",
	}
	args := []string{"plan", "-out=tfplan"}
	for k, v := range secrets {
		args = append(args, "-var", k+"="+v)
	}
	c := newCLI(t, map[string]string{"main.tf": main})
	if out, err := c.run(args...); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	plan, err := os.ReadFile(filepath.Join(c.dir, "tfplan"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(plan), int64(len(plan)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range secrets {
			needle := strings.TrimPrefix(strings.TrimSpace(v), "-----BEGIN OPENSSH PRIVATE KEY-----\n")
			if bytes.Contains(b, []byte(needle)) {
				t.Errorf("the saved plan's %s holds variable %s's value", f.Name, name)
			}
		}
	}
}
