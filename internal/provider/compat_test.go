package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The compatibility suite (make compat) runs the provider end to end with every CLI that
// KRATIX_COMPAT_CLIS lists (paths separated by spaces or commas): Terraform 1.5.7, 1.8.5 and
// 1.11, OpenTofu 1.6.3. It needs no server and no network: the store is a local Git repository,
// read back with the git CLI. It writes its table to KRATIX_COMPAT_REPORT (a markdown file).

// compatFeature is one column of the compatibility table, with the first version of each CLI
// that has it.
type compatFeature struct {
	name             string
	terraform, tofu  string // first version with the feature
	needsEarlierPass bool   // runs only after the lifecycle before it passed
}

// compatFeatures are the columns, in the order the suite exercises them. Terraform's minimums
// are featureMinimums' (versions_test.go); OpenTofu's are its release notes' (provider functions
// came in OpenTofu 1.7, write-only attributes in 1.11), and tofu 1.6.3 is the only one measured.
var compatFeatures = []compatFeature{
	{name: "create", terraform: baseTerraform, tofu: "1.6"},
	{name: "second plan empty", terraform: baseTerraform, tofu: "1.6", needsEarlierPass: true},
	{name: "day-two change", terraform: baseTerraform, tofu: "1.6", needsEarlierPass: true},
	{name: "import block", terraform: featureMinimums[featureImportBlock], tofu: "1.6", needsEarlierPass: true},
	{name: "destroy", terraform: baseTerraform, tofu: "1.6", needsEarlierPass: true},
	{name: "terraform test", terraform: featureMinimums[featureTestFiles], tofu: "1.6"},
	{name: "provider functions", terraform: featureMinimums[featureProviderFunctions], tofu: "1.7"},
	{name: "write-only content", terraform: featureMinimums[featureWriteOnly], tofu: "1.11"},
}

// compatResult is one cell: whether the feature worked, and what the CLI printed when not.
type compatResult struct {
	pass    bool
	skipped string // why the feature was not tried
	printed string // the error the CLI printed
}

// compatRow is one CLI's line of the table.
type compatRow struct {
	cli, version string
	seconds      float64
	results      map[string]compatResult
}

func TestCompatibility(t *testing.T) {
	t.Parallel()
	list := strings.Fields(strings.ReplaceAll(os.Getenv("KRATIX_COMPAT_CLIS"), ",", " "))
	if len(list) == 0 {
		t.Skip("compatibility suite: set KRATIX_COMPAT_CLIS to the CLIs to run (make compat)")
	}
	var rows []compatRow
	for _, bin := range list {
		row := compatRow{cli: filepath.Base(bin), results: map[string]compatResult{}}
		t.Run(row.cli, func(t *testing.T) {
			start := time.Now()
			runCompat(t, bin, &row)
			row.seconds = time.Since(start).Seconds()
		})
		rows = append(rows, row)
	}
	report := compatReport(rows)
	t.Log("\n" + report)
	if path := os.Getenv("KRATIX_COMPAT_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil { //nolint:gosec // a report for people to read
			t.Fatal(err)
		}
	}
}

// runCompat fills one CLI's row, failing t where a feature the CLI's version has does not work,
// or where one it lacks does.
func runCompat(t *testing.T, bin string, row *compatRow) {
	tofu := strings.HasPrefix(filepath.Base(bin), "tofu")
	version, err := cliVersion(bin)
	if err != nil {
		t.Fatal(err)
	}
	row.version = version
	has := func(f compatFeature) bool {
		if tofu {
			return versionAtLeast(version, f.tofu)
		}
		return versionAtLeast(version, f.terraform)
	}
	record := func(f compatFeature, res compatResult) {
		row.results[f.name] = res
		switch {
		case res.skipped != "":
		case has(f) && !res.pass:
			t.Errorf("%s: %s, which %s %s has, failed:\n%s", row.cli, f.name, row.cli, version, res.printed)
		case !has(f) && res.pass:
			t.Errorf("%s: %s worked, but %s %s is documented as too old for it: correct the minimum", row.cli, f.name, row.cli, version)
		}
	}
	newDir := func(env ...string) *cli {
		c := newCLI(t, nil, append([]string{"TF_CLI_CONFIG_FILE=" + compatCLIConfig(t, tofu)}, env...)...)
		c.terraform = bin
		return c
	}

	steps := compatLifecycle(t, newDir)
	ok := true
	for _, f := range compatFeatures[:5] {
		switch {
		case !ok && f.needsEarlierPass:
			record(f, compatResult{skipped: "an earlier step failed"})
		default:
			res := steps[f.name]()
			record(f, res)
			ok = ok && res.pass
		}
	}
	record(compatFeatures[5], compatTestFiles(t, newDir, has(compatFeatures[5])))
	record(compatFeatures[6], compatFunctions(newDir()))
	record(compatFeatures[7], compatWriteOnly(t, newDir))
}

// compatCLIConfig writes a CLI configuration whose dev_overrides serve the provider built from
// this checkout under the CLI's own registry address: OpenTofu reads the bare source
// promise-platform/kratix as registry.opentofu.org/promise-platform/kratix.
func compatCLIConfig(t *testing.T, tofu bool) string {
	t.Helper()
	newCLI(t, nil) // builds the provider into binDir
	host := "registry.terraform.io"
	if tofu {
		host = "registry.opentofu.org"
	}
	rc := filepath.Join(t.TempDir(), "cli.tfrc")
	body := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", host+"/promise-platform/kratix", binDir)
	if err := os.WriteFile(rc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc
}

// compatMain is the lifecycle's configuration: a Git store, destinations labelled by
// terraform.tfvars.json (destroying one removes its files), a promise for env=dev that deletes what
// it leaves, and one request.
const compatMain = `terraform {
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  type = string
}

variable "workers" {
  type = map(map(string))
}

provider "kratix" {}

resource "kratix_state_store" "gitops" {
  name = "gitops"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

resource "kratix_destination" "workers" {
  for_each = var.workers

  name        = each.key
  path        = each.key
  labels      = each.value
  state_store = kratix_state_store.gitops
  cleanup     = "all"
}

resource "kratix_promise" "namespace" {
  name                  = "team-namespace"
  destination_selectors = [{ match_labels = { env = "dev" } }]
  destinations          = values(kratix_destination.workers)
  on_unschedule         = "delete"
  dependencies          = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: team-a
  EOT
}

resource "kratix_resource_request" "quota" {
  promise   = kratix_promise.namespace
  name      = "team-a-quota"
  documents = <<-EOT
    apiVersion: v1
    kind: ResourceQuota
    metadata:
      name: team-a-quota
      namespace: team-a
  EOT
}
`

// The files the lifecycle expects, spelled out by hand from Kratix's layout: the promise's
// dependencies under dependencies/<promise>/5058f/static/, the request under
// resources/<namespace>/<promise>/<name>/.
const (
	compatPromiseFile = "dependencies/team-namespace/5058f/static/team-namespace-dependencies.yaml"
	compatRequestDir  = "resources/default/team-namespace/team-a-quota/"
	compatCanary      = "dependencies/kratix-canary-namespace.yaml"
)

// compatLifecycle returns the five lifecycle steps, each run after the one before it, against
// one directory and one local repository.
func compatLifecycle(t *testing.T, newDir func(env ...string) *cli) map[string]func() compatResult {
	repo := newFileRepo(t)
	c := newDir("TF_VAR_repository_url=file://" + repo)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	workers := func(w1, w2 string) {
		write("terraform.tfvars.json", fmt.Sprintf(`{"workers": {"worker-1": {"env": %q}, "worker-2": {"env": %q}}}`, w1, w2))
	}
	write("main.tf", compatMain)
	workers("dev", "prod")
	return map[string]func() compatResult{
		"create": func() compatResult {
			if res := c.step("apply", "-auto-approve"); !res.pass {
				return res
			}
			files := repoFiles(t, repo)
			for _, want := range []string{"worker-1/" + compatPromiseFile, "worker-1/" + compatRequestDir, "worker-2/" + compatCanary, "worker-1/" + compatCanary} {
				if !hasFileOrFolder(files, want) {
					return failed("after create the repository has no %s; it holds %v", want, files)
				}
			}
			if hasFileOrFolder(files, "worker-2/"+compatPromiseFile) {
				return failed("the promise for env=dev was written to worker-2 (env=prod)")
			}
			return compatResult{pass: true}
		},
		"second plan empty": func() compatResult { return c.emptyPlan() },
		"day-two change": func() compatResult {
			// worker-2 becomes the dev destination and worker-1 leaves: the promise moves.
			workers("prod", "dev")
			if res := c.step("apply", "-auto-approve"); !res.pass {
				return res
			}
			files := repoFiles(t, repo)
			if !hasFileOrFolder(files, "worker-2/"+compatPromiseFile) || hasFileOrFolder(files, "worker-1/"+compatPromiseFile) {
				return failed("after relabelling, the promise's file should be on worker-2 only; the repository holds %v", files)
			}
			return c.emptyPlan()
		},
		"import block": func() compatResult {
			if res := c.step("state", "rm", "kratix_promise.namespace"); !res.pass {
				return res
			}
			write("import.tf", "import {\n  to = kratix_promise.namespace\n  id = \"team-namespace\"\n}\n")
			before := commitCount(t, repo)
			if res := c.step("apply", "-auto-approve"); !res.pass {
				return res
			}
			if after := commitCount(t, repo); after != before {
				return failed("the import's apply wrote to the repository: %d commits before, %d after", before, after)
			}
			return c.emptyPlan()
		},
		"destroy": func() compatResult {
			if res := c.step("destroy", "-auto-approve"); !res.pass {
				return res
			}
			for _, f := range repoFiles(t, repo) {
				if strings.HasPrefix(f, "worker-") {
					return failed("after destroy the repository still holds %s", f)
				}
			}
			return compatResult{pass: true}
		},
	}
}

// step runs one command; a failure records what it printed.
func (c *cli) step(args ...string) compatResult {
	out, err := c.run(args...)
	if err != nil {
		return compatResult{printed: fmt.Sprintf("%s: %v\n%s", strings.Join(args, " "), err, errorText(out))}
	}
	return compatResult{pass: true}
}

// emptyPlan passes when plan -detailed-exitcode exits 0: nothing to change.
func (c *cli) emptyPlan() compatResult {
	out, err := c.run("plan", "-detailed-exitcode")
	if err != nil {
		return compatResult{printed: fmt.Sprintf("plan -detailed-exitcode: %v (2 is a plan with changes)\n%s", err, out)}
	}
	return compatResult{pass: true}
}

func failed(format string, args ...any) compatResult {
	return compatResult{printed: fmt.Sprintf(format, args...)}
}

// compatTestFiles runs examples/tests with the CLI's test command where it has one (1.6 on),
// and records what an older CLI prints for the same command.
func compatTestFiles(t *testing.T, newDir func(env ...string) *cli, has bool) compatResult {
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	c := newDir("TF_VAR_repository_url=file://" + repo)
	if !has {
		copyTree(t, "../../examples/tests", c.dir)
		// Terraform 1.5's test command is an experiment of its own that reads tests/ folders of
		// Terraform test modules, not *.tftest.hcl files.
		out, err := c.run("test")
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "No tests defined") {
				return compatResult{printed: line}
			}
		}
		if err == nil {
			return compatResult{pass: true}
		}
		return compatResult{printed: errorText(out)}
	}
	if problems := runTestExamples(t, c); len(problems) > 0 {
		return compatResult{printed: strings.Join(problems, "\n")}
	}
	return compatResult{pass: true}
}

// compatFunctions calls provider::kratix::matches in an output and checks its value.
func compatFunctions(c *cli) compatResult {
	// required_version is declared as the function's page asks; Terraform 1.5.7 and OpenTofu 1.6.3
	// print their parser error all the same, before they read it.
	config := `terraform {
  required_version = ">= 1.8"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

output "dev" {
  value = provider::kratix::matches([{ match_labels = { env = "dev" } }], { env = "dev", zone = "eu" })
}
`
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
		return failed("%v", err)
	}
	if res := c.step("apply", "-auto-approve"); !res.pass {
		return res
	}
	out, err := c.run("output", "-raw", "dev")
	if err != nil || strings.TrimSpace(out) != "true" {
		return failed("output dev printed %q (%v); want true", out, err)
	}
	return compatResult{pass: true}
}

// compatWriteOnly applies a request whose Secret is write-only content, then checks the
// repository holds the secret and the state does not.
func compatWriteOnly(t *testing.T, newDir func(env ...string) *cli) compatResult {
	repo := newFileRepo(t)
	c := newDir("TF_VAR_repository_url=file://"+repo, "KRATIX_CONTENT_HASH_KEY=compat-suite-content-hash-key-0001")
	config := strings.Replace(compatMain, `  documents = <<-EOT
    apiVersion: v1
    kind: ResourceQuota
    metadata:
      name: team-a-quota
      namespace: team-a
  EOT`, `  documents_wo = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: team-a-db\nstringData:\n  password: s3cr3t-compat\n"`, 1)
	files := map[string]string{"main.tf": config, "terraform.tfvars.json": `{"workers": {"worker-1": {"env": "dev"}}}`}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
			return failed("%v", err)
		}
	}
	if res := c.step("apply", "-auto-approve"); !res.pass {
		return res
	}
	var secret string
	for _, f := range repoFiles(t, repo) {
		if strings.HasPrefix(f, "worker-1/"+compatRequestDir) && strings.HasSuffix(f, ".yaml") {
			secret = gitShow(t, repo, f)
		}
	}
	if !strings.Contains(secret, "s3cr3t-compat") {
		return failed("the repository has no request file holding the write-only secret; files: %v", repoFiles(t, repo))
	}
	state, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
	if err != nil || strings.Contains(string(state), "s3cr3t-compat") {
		return failed("the state holds the write-only secret (or cannot be read: %v)", err)
	}
	return compatResult{pass: true}
}

// cliVersion asks a CLI for its version ("1.6.3" for OpenTofu's "1.6.3-dev").
func cliVersion(bin string) (string, error) {
	out, err := exec.Command(bin, "version", "-json").Output()
	if err != nil {
		return "", fmt.Errorf("%s version -json: %w", bin, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version == "" {
		return "", fmt.Errorf("%s version -json printed %q: %v", bin, out, err)
	}
	return strings.SplitN(v.Version, "-", 2)[0], nil
}

// repoFiles lists the files on the repository's main branch with the git CLI.
func repoFiles(t *testing.T, bare string) []string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "ls-tree", "-r", "--name-only", "main").Output()
	if err != nil {
		t.Fatalf("listing %s: %v", bare, err)
	}
	return strings.Fields(string(out))
}

func gitShow(t *testing.T, bare, file string) string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "show", "main:"+file).Output()
	if err != nil {
		t.Fatalf("reading %s from %s: %v", file, bare, err)
	}
	return string(out)
}

// hasFileOrFolder reports whether files holds want, or a file under want when it ends in "/".
func hasFileOrFolder(files []string, want string) bool {
	if strings.HasSuffix(want, "/") {
		return slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, want) })
	}
	return slices.Contains(files, want)
}

// errorText is the error diagnostics of out, or out when it has none.
func errorText(out string) string {
	if i := strings.Index(out, "Error: "); i >= 0 {
		return strings.TrimSpace(out[i:])
	}
	return strings.TrimSpace(out)
}

var versionNumbers = regexp.MustCompile(`^(\d+)(?:\.(\d+))?(?:\.(\d+))?`)

// versionAtLeast compares dotted versions by number ("1.11" is after "1.8").
func versionAtLeast(version, minimum string) bool {
	a, b := versionParts(version), versionParts(minimum)
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return true
}

func versionParts(v string) [3]int {
	var parts [3]int
	m := versionNumbers.FindStringSubmatch(strings.TrimPrefix(v, "v"))
	for i := 1; m != nil && i < len(m); i++ {
		if m[i] != "" {
			_, _ = fmt.Sscanf(m[i], "%d", &parts[i-1])
		}
	}
	return parts
}

// compatReport is the table, then what each CLI printed for the features it lacks.
func compatReport(rows []compatRow) string {
	var b strings.Builder
	b.WriteString("| CLI | version | seconds |")
	for _, f := range compatFeatures {
		b.WriteString(" " + f.name + " |")
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(compatFeatures)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %.0f |", r.cli, r.version, r.seconds)
		for _, f := range compatFeatures {
			b.WriteString(" " + r.results[f.name].cell() + " |")
		}
		b.WriteString("\n")
	}
	for _, r := range rows {
		for _, f := range compatFeatures {
			res := r.results[f.name]
			if res.pass || res.skipped != "" || res.printed == "" {
				continue
			}
			fmt.Fprintf(&b, "\n`%s` (%s), %s:\n\n```text\n%s\n```\n", r.cli, r.version, f.name, res.printed)
		}
	}
	return b.String()
}

func (r compatResult) cell() string {
	switch {
	case r.pass:
		return "pass"
	case r.skipped != "":
		return "not run (" + r.skipped + ")"
	default:
		// The summary of the first error, or the first line printed.
		first, _, _ := strings.Cut(r.printed, "\n")
		for _, line := range strings.Split(r.printed, "\n") {
			if summary, ok := strings.CutPrefix(line, "Error: "); ok {
				first = summary
				break
			}
		}
		return "no: \"" + strings.ReplaceAll(first, "|", `\|`) + "\""
	}
}
