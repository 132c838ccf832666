package provider

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// refusal is how a run of examples/tests/refusals must end: with an error diagnostic of this
// summary whose detail holds detail.
type refusal struct{ summary, detail string }

// offlineRefusals lists every run of examples/tests/refusals/*.tftest.hcl, as "<file>/<run>".
// Those runs are plans (or applies) the provider refuses with an error, which `expect_failures`
// cannot catch in Terraform 1.11: it expects custom conditions (preconditions, postconditions,
// variable validations, check blocks) only, and a provider's error fails the run, skipping the
// file's later runs. So each refusal is a run of its own, last in its file, and this table says
// what it must print. Guard refusals (refusals/guard.tftest.hcl) go here too.
var offlineRefusals = map[string]refusal{
	"refusals/apply.tftest.hcl/apply_is_refused": {
		summary: "Provider Is Offline", detail: "Cannot create this kratix_state_store: the kratix provider is configured with offline = true",
	},
	"refusals/overlapping_folders.tftest.hcl/two_destinations_in_one_folder": {
		// The second of the two destination resources planned is refused, whichever it is.
		summary: "Overlapping Destination Folders", detail: `writes to folder "worker-1"`,
	},
	"refusals/guard.tftest.hcl/unscheduling_two_is_refused": {
		summary: "Change Refused by the Guard", detail: `acknowledge = "ack-7230e2b2c5ed2987"`,
	},
}

// refusalSetUp lists the runs of refusals/ that must pass: the apply a guard needs a prior state
// from, and the plan its acknowledgement lets through.
var refusalSetUp = map[string]bool{
	"refusals/guard.tftest.hcl/fleet":                     true,
	"refusals/guard.tftest.hcl/acknowledged_change_plans": true,
	"refusals/guard.tftest.hcl/acknowledge_teardown":      true,
}

// testEvent is one line of `terraform test -json`, the fields this test reads.
type testEvent struct {
	Type       string                                      `json:"type"`
	File       string                                      `json:"@testfile"`
	Run        string                                      `json:"@testrun"`
	Abstract   map[string][]string                         `json:"test_abstract"`
	TestRun    *struct{ Progress, Status string }          `json:"test_run"`
	Diagnostic *struct{ Severity, Summary, Detail string } `json:"diagnostic"`
	Message    string                                      `json:"@message"`
}

// testRunResult is what one run of a terraform test suite ended with.
type testRunResult struct {
	status string
	errors []string // "<summary>: <detail>" of its error diagnostics
}

// TestTerraformTestExamples runs the `terraform test` suite of examples/tests with the real CLI
// and the provider built from this checkout, as a user's CI would (no `terraform init`: the
// dev_overrides CLI configuration serves the provider). Every run of the suite must pass, and
// every run of refusals/ must end with the error offlineRefusals gives it.
func TestTerraformTestExamples(t *testing.T) {
	t.Parallel()
	// The guard's runs apply to a local repository first (examples/tests/guard/main.tf).
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	c := newCLI(t, nil, "TF_VAR_repository_url=file://"+repo)
	for _, problem := range runTestExamples(t, c) {
		t.Error(problem)
	}
}

// runTestExamples copies examples/tests into c's folder, runs its suite with c's CLI and returns
// what went wrong: a run that did not end as it must, a suite that did not run. None is a pass.
func runTestExamples(t *testing.T, c *cli) []string {
	t.Helper()
	copyTree(t, "../../examples/tests", c.dir)
	// get installs the local module the guard's runs use; the provider comes from dev_overrides.
	if out, err := c.run("get", "-test-directory=refusals"); err != nil {
		return []string{fmt.Sprintf("get -test-directory=refusals: %v\n%s", err, out)}
	}
	out, runErr := c.run("test", "-json", "-test-directory=refusals")
	runs, global, err := parseTestEvents(out)
	if err != nil {
		return []string{err.Error()}
	}
	if len(global) > 0 {
		return []string{fmt.Sprintf("test failed outside any run: %s\n%s", strings.Join(global, "\n"), out)}
	}
	var problems []string
	suites := map[string]int{}
	for key, res := range runs {
		file := key[:strings.LastIndex(key, "/")]
		suites[file]++
		want, refused := offlineRefusals[key]
		switch {
		case refusalSetUp[key]:
			if res.status != "pass" {
				problems = append(problems, fmt.Sprintf("%s ended %q:\n%s", key, res.status, strings.Join(res.errors, "\n")))
			}
		case strings.HasPrefix(file, "refusals/") && !refused:
			problems = append(problems, fmt.Sprintf("%s is not in offlineRefusals: say which error it must end with", key))
		case refused:
			if res.status == "pass" || !containsError(res.errors, want) {
				problems = append(problems, fmt.Sprintf("%s ended %q with errors %q; want an error %q whose detail holds %q", key, res.status, res.errors, want.summary, want.detail))
			}
		case res.status != "pass":
			problems = append(problems, fmt.Sprintf("%s ended %q:\n%s", key, res.status, strings.Join(res.errors, "\n")))
		}
	}
	for key := range refusalSetUp {
		if _, ok := runs[key]; !ok {
			problems = append(problems, fmt.Sprintf("%s (refusalSetUp) did not run", key))
		}
	}
	for key := range offlineRefusals {
		if _, ok := runs[key]; !ok {
			problems = append(problems, fmt.Sprintf("%s (offlineRefusals) did not run", key))
		}
	}
	// The suites must be there: a file that went missing would pass unseen.
	for _, file := range []string{"scheduling.tftest.hcl", "decisions.tftest.hcl", "rollout.tftest.hcl", "refusals/guard.tftest.hcl"} {
		if suites[file] == 0 {
			problems = append(problems, fmt.Sprintf("examples/tests/%s has no run (files run: %v)", file, suites))
		}
	}
	if len(offlineRefusals) == 0 && runErr != nil {
		problems = append(problems, fmt.Sprintf("test exited with %v", runErr))
	}
	return problems
}

// parseTestEvents reads `terraform test -json` output: every run the suite holds with how it
// ended, and the error diagnostics that belong to no run.
func parseTestEvents(out string) (runs map[string]*testRunResult, global []string, err error) {
	runs = map[string]*testRunResult{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var ev testEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return nil, nil, fmt.Errorf("test -json printed %q: %v", line, err)
		}
		switch {
		case ev.Type == "test_abstract":
			for file, names := range ev.Abstract {
				for _, name := range names {
					runs[file+"/"+name] = &testRunResult{status: "not run"}
				}
			}
		// OpenTofu 1.6 prints one test_run event per run, with its status and no progress.
		case ev.Type == "test_run" && ev.TestRun != nil && (ev.TestRun.Progress == "complete" || ev.TestRun.Progress == ""):
			if r, ok := runs[ev.File+"/"+ev.Run]; ok {
				r.status = ev.TestRun.Status
			}
		// A teardown that could not destroy what a run applied: the suite fails, whatever each
		// run's status said.
		case ev.Type == "test_cleanup":
			global = append(global, ev.Message)
		case ev.Type == "diagnostic" && ev.Diagnostic != nil && ev.Diagnostic.Severity == "error":
			text := ev.Diagnostic.Summary + ": " + ev.Diagnostic.Detail
			if r, ok := runs[ev.File+"/"+ev.Run]; ok && ev.Run != "" {
				r.errors = append(r.errors, text)
			} else {
				global = append(global, text)
			}
		}
	}
	if len(runs) == 0 {
		return nil, nil, fmt.Errorf("test found no run:\n%s", out)
	}
	return runs, global, nil
}

func containsError(errors []string, want refusal) bool {
	for _, e := range errors {
		if strings.HasPrefix(e, want.summary+": ") && strings.Contains(e, want.detail) {
			return true
		}
	}
	return false
}

// copyTree copies the files under src to dst, keeping their folders.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	var copied []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir // .terraform and the like, left by a local run
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		copied = append(copied, rel)
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(copied)
	t.Logf("copied %s", strings.Join(copied, ", "))
}
