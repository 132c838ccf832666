package provider

import (
	"fmt"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccFirstApplyFailure_repositoryKeepsItsFiles: a promise on a git repository and on a
// MinIO server that is down during the promise's first apply. The repository is written, the
// apply fails and Terraform taints the promise. Once the server is back, the apply that replaces
// the tainted promise makes no commit on the repository at all (no "Delete from", and nothing to
// update), and writes the bucket.
func TestAccFirstApplyFailure_repositoryKeepsItsFiles(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	second := secondMinIO(t, "firstfail")
	repo := newTestStore(t, "git-http")
	bucketStore := kratixStateStore{Name: q("bucket"), SecretRef: q("s"), Bucket: bucketAt(second.Endpoint, "firstfail")}.body()
	c := promiseOnTwoStores(t, second, bucketStore, repo.store)
	// The plan is made while the bucket is up; it goes down before the apply runs.
	if out, err := c.run("plan", "-out", "create.tfplan"); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	second.Down()
	out, err := c.run("apply", "create.tfplan")
	if err == nil || !strings.Contains(out, "Cannot Write Promise") {
		t.Fatalf("the apply with the bucket down should fail:\n%s", out)
	}
	file := twoStoresFile
	if _, ok := repo.read(t, file); !ok {
		t.Fatalf("the repository was not written while the bucket was down")
	}
	if err := second.Up(); err != nil {
		t.Fatal(err)
	}
	before := repo.mark(t)
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply once the bucket is back: %v\n%s", err, out)
	}
	if w := repo.writesSince(t, before); len(w) != 0 {
		t.Errorf("the apply that finishes the job committed to the repository, which held its file already: %q", w)
	}
	if _, ok := repo.read(t, file); !ok {
		t.Errorf("%s is gone from the repository", file)
	}
	client, err := second.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.StatObject(t.Context(), "firstfail", file, minio.StatObjectOptions{}); err != nil {
		t.Errorf("the bucket was not written once it was back: %v", err)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after convergence is not empty: %v\n%s", err, out)
	}
}

// TestAccReplaceDeletesNothingItWritesAgain: `terraform apply -replace` of a promise and of a
// request (each deleted, then created again in the same apply) changes nothing in the store: no
// DELETE reaches the bucket, no commit lands on the repository, and every file is still there
// after each. A destination with cleanup = "all" replaced in its folder keeps its canaries.
func TestAccReplaceDeletesNothingItWritesAgain(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) {
		ts := newTestStore(t, kind)
		c := newCLI(t, sceneOnStore(t, "TestAccReplaceDeletesNothingItWritesAgain", ts))
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		held := ts.list(t)
		for _, f := range []string{
			"w1/dependencies/p/5058f/static/p-dependencies.yaml",
			"w1/dependencies/kratix-canary-namespace.yaml",
			"flat/static/p-dependencies.yaml",
		} {
			if !slices.Contains(held, f) {
				t.Fatalf("%s was not written; the store holds %q", f, held)
			}
		}
		for _, addr := range []string{"kratix_promise.p", "kratix_resource_request.r"} {
			before := ts.mark(t)
			out, err := c.run("apply", "-auto-approve", "-replace="+addr)
			if err != nil {
				t.Fatalf("apply -replace=%s: %v\n%s", addr, err, out)
			}
			if !strings.Contains(out, addr+": Destruction complete") {
				t.Fatalf("apply -replace=%s did not replace it:\n%s", addr, out)
			}
			if w := ts.writesSince(t, before); len(w) != 0 {
				t.Errorf("replacing %s changed the store: %q", addr, w)
			}
			if now := ts.list(t); !reflect.DeepEqual(now, held) {
				t.Errorf("after replacing %s the store holds\n  %q\nwant\n  %q", addr, now, held)
			}
		}
		// A destination with cleanup = "all" replaced in its folder cleans it up (it cannot tell
		// its placements' files from orphans), and they write theirs again in the same apply;
		// the canaries its successor writes again are never deleted.
		for _, d := range []struct{ addr, ns, cm string }{
			{"kratix_destination.w1", "w1/dependencies/kratix-canary-namespace.yaml", "w1/resources/kratix-canary-configmap.yaml"},
			{"kratix_destination.flat", "flat/kratix-canary-namespace.yaml", "flat/kratix-canary-configmap.yaml"},
		} {
			before := ts.mark(t)
			if out, err := c.run("apply", "-auto-approve", "-replace="+d.addr); err != nil {
				t.Fatalf("apply -replace=%s: %v\n%s", d.addr, err, out)
			}
			for _, w := range ts.writesSince(t, before) {
				if kind == "bucket" && (w == "DELETE "+d.ns || w == "DELETE "+d.cm) {
					t.Errorf("replacing %s deleted its canary: %s", d.addr, w)
				}
			}
			if kind != "bucket" {
				if removed := removedSince(t, ts, before); slices.Contains(removed, d.ns) || slices.Contains(removed, d.cm) {
					t.Errorf("replacing %s removed its canaries in a commit: %q", d.addr, removed)
				}
			}
			if now := ts.list(t); !reflect.DeepEqual(now, held) {
				t.Errorf("after replacing %s the store holds\n  %q\nwant\n  %q", d.addr, now, held)
			}
		}
		if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
			t.Errorf("the plan after the replacements is not empty: %v\n%s", err, out)
		}
	})
}

// removedSince lists the files that the commits made after mark removed from a git test store.
func removedSince(t *testing.T, ts *testStore, mark acctest.Mark) []string {
	t.Helper()
	n := len(ts.writesSince(t, mark))
	if n == 0 {
		return nil
	}
	out, err := exec.Command("git", "--git-dir", gitServer.RepoPath(storeName(ts)), "log", "-n", fmt.Sprint(n), "--diff-filter=D", "--name-only", "--format=", "refs/heads/main").Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	return strings.Fields(string(out))
}
