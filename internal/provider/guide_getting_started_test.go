package provider

import (
	"crypto/md5" //nolint:gosec // the provider records files by MD5, as ETags are; not for security
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAccGuideGettingStarted walks the guide "Getting started" (Kratix's "Scheduling Promises"
// story) with its example, the real Terraform CLI and a file:// repository, step by step with
// the guide's terraform.tfvars, and checks that each plan says what the guide quotes and that
// each apply leaves the files the guide names. The file hashes are worked out here from the
// documents' canonical YAML (keys sorted), not taken from the provider.
func TestAccGuideGettingStarted(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	src, err := os.ReadFile("../../examples/guides/getting-started/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	cli := newCLI(t, map[string]string{"main.tf": string(src)}, "TF_VAR_repository_url=file://"+repo)
	md5hex := func(s string) string {
		sum := md5.Sum([]byte(s)) //nolint:gosec // see the import
		return hex.EncodeToString(sum[:])
	}
	depHash := md5hex("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: elastic-system\n")
	reqHash := md5hex("apiVersion: v1\ndata:\n  enableDataCollection: \"true\"\nkind: ConfigMap\nmetadata:\n" +
		"  name: example-elastic\n  namespace: elastic-system\n")
	const (
		dep1 = "worker-1/dependencies/elastic-cloud/5058f/static/elastic-cloud-dependencies.yaml"
		dep2 = "worker-2/dependencies/elastic-cloud/5058f/static/elastic-cloud-dependencies.yaml"
		req1 = "worker-1/resources/default/elastic-cloud/example/instance-configure/5058f/example.yaml"
		// The owner records of the promise and the request, in the store's registry.
		promiseRecord = ".kratix-registry/owners/promise_elastic-cloud.yaml"
		requestRecord = ".kratix-registry/owners/request_elastic-cloud_default_example.yaml"
	)
	// The canaries, each destination's registration record, and the promise's published record,
	// written from its first apply, as it is scheduled nowhere yet (issue 39: "A promise publishes
	// its own record the same way").
	canaries := []string{
		"worker-1/dependencies/kratix-canary-namespace.yaml", "worker-1/resources/kratix-canary-configmap.yaml",
		"worker-2/dependencies/kratix-canary-namespace.yaml", "worker-2/resources/kratix-canary-configmap.yaml",
		".kratix-registry/destinations/worker-1.yaml", ".kratix-registry/destinations/worker-2.yaml",
		".kratix-registry/promises/elastic-cloud/_unnamed.yaml",
	}
	tfvars := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(cli.dir, "terraform.tfvars"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	expectPlan := func(code int, parts ...string) {
		t.Helper()
		out, err := cli.run("plan", "-detailed-exitcode")
		got := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			got = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if got != code {
			t.Fatalf("plan -detailed-exitcode = %d, want %d\n%s", got, code, out)
		}
		if len(parts) > 0 && !inOrder(parts...).MatchString(out) {
			t.Errorf("the plan does not say, in order:\n  %s\n\n%s", strings.Join(parts, "\n  "), out)
		}
	}
	apply := func() {
		t.Helper()
		if out, err := cli.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("terraform apply: %v\n%s", err, out)
		}
	}
	expectFiles := func(want ...string) {
		t.Helper()
		out, err := exec.Command("git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "main").Output()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Fields(string(out))
		wantSorted := append([]string(nil), want...)
		slices.Sort(wantSorted)
		if strings.Join(got, "\n") != strings.Join(wantSorted, "\n") {
			t.Errorf("the repository holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantSorted, "\n"))
		}
	}

	// 2. No labels: neither the promise nor the request can be scheduled.
	expectPlan(2, "Plan: 5 to add, 0 to change, 0 to destroy.",
		"Warning: Promise Scheduling",
		`Promise "elastic-cloud": no destinations can be selected for scheduling (selectors: environment=dev). Nothing is written until a destination matches.`,
		"worker-1: missing label environment=dev", "worker-2: missing label environment=dev",
		"Warning: Request Scheduling",
		"Request elastic-cloud/default/example: no destinations can be selected for scheduling (selectors: environment=dev,pvCapacity=large).",
		"worker-1: missing label environment=dev; missing label pvCapacity=large",
		"worker-2: missing label environment=dev; missing label pvCapacity=large")
	apply()
	expectFiles(canaries...)

	// 3. worker-1 is labelled environment=dev: the promise goes there, the request still waits.
	tfvars("worker_labels = {\n  worker-1 = { environment = \"dev\" }\n  worker-2 = {}\n}\n")
	expectPlan(2, `+ "`+dep1+`" = "`+depHash+`"`, `+ location = "git+file://`+strings.TrimSuffix(repo, ".git")+`@main"`,
		`+ "worker-1",`, "Plan: 0 to add, 3 to change, 0 to destroy.",
		"Warning: Request Scheduling", "worker-1: missing label pvCapacity=large",
		"worker-2: missing label environment=dev; missing label pvCapacity=large")
	apply()
	expectFiles(append(canaries, dep1, promiseRecord)...)

	// 4. worker-1 gets pvCapacity=large: the request's own selector is met there.
	tfvars("worker_labels = {\n  worker-1 = { environment = \"dev\", pvCapacity = \"large\" }\n  worker-2 = {}\n}\n")
	expectPlan(2, `+ destination = "worker-1"`, `+ root = "worker-1"`, `+ "`+req1+`" = "`+reqHash+`"`,
		"Plan: 0 to add, 3 to change, 0 to destroy.", `+ request_destination = "worker-1"`)
	apply()
	expectFiles(append(canaries, dep1, req1, promiseRecord, requestRecord)...)

	// 5. The relabel: the promise moves to worker-2, worker-1 is misscheduled and keeps its file,
	// the request stays on worker-1, misscheduled.
	tfvars("worker_labels = {\n  worker-1 = { environment = \"prod\", pvCapacity = \"large\" }\n" +
		"  worker-2 = { environment = \"dev\", pvCapacity = \"large\" }\n}\n")
	expectPlan(2, `~ misscheduled_destinations = [`, `+ "worker-1",`, `~ misscheduled = false -> true`,
		`+ "`+dep2+`" = "`+depHash+`"`, `~ "worker-1" -> "worker-2",`,
		`# kratix_resource_request.example will be updated in-place`, `~ misscheduled = false -> true`,
		"Plan: 0 to add, 4 to change, 0 to destroy.",
		`Destination "worker-1" no longer matches promise "elastic-cloud" (environment=dev but destination has environment=prod). Its files stay and are no longer updated (misscheduled); set on_unschedule = "delete" to remove them.`,
		`Request elastic-cloud/default/example stays on destination "worker-1", which no longer matches (environment=dev but destination has environment=prod): it is misscheduled and still updated.`)
	apply()
	expectFiles(append(canaries, dep1, dep2, req1, promiseRecord, requestRecord)...)

	// 6. on_unschedule = "delete": one commit removes the misscheduled file, and only it.
	tfvars("worker_labels = {\n  worker-1 = { environment = \"prod\", pvCapacity = \"large\" }\n" +
		"  worker-2 = { environment = \"dev\", pvCapacity = \"large\" }\n}\non_unschedule = \"delete\"\n")
	expectPlan(2, `~ on_unschedule = "keep" -> "delete"`, `- "`+dep1+`" = "`+depHash+`"`, `} -> null,`,
		"Plan: 0 to add, 1 to change, 0 to destroy.",
		`Destination "worker-1" no longer matches promise "elastic-cloud" (environment=dev but destination has environment=prod): its files will be removed (on_unschedule = "delete").`)
	apply()
	expectFiles(append(canaries, dep2, req1, promiseRecord, requestRecord)...)
	out, err := exec.Command("git", "--git-dir", repo, "show", "--name-status", "--format=%s", "main").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "Update from: promise/elastic-cloud\n\nM\t"+promiseRecord+"\nD\t"+dep1; got != want {
		t.Errorf("the last commit is\n%s\nwant\n%s", got, want)
	}
	expectPlan(0)
}
