package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccPartialFailure: a promise on two stores, the first of which (in write order) refuses
// the push. The other store is still written, the apply fails naming the refusal, and state
// records exactly what was written: the bucket's destination, not the repository's. Once the
// repository accepts pushes again, the next apply converges without touching the bucket (no
// DELETE, no PUT: Terraform replaces the tainted promise, and the replacement's delete spares
// what it writes again), and the plan after it is empty.
func TestAccPartialFailure(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket, repo := newTestStore(t, "bucket"), newTestStore(t, "git-http")
	hook := filepath.Join(gitServer.RepoPath(storeName(repo)), "hooks", "pre-receive")
	c := promiseOnTwoStores(t, minioServer, bucket.store, repo.store)
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'policy: frozen' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	repoBefore, bucketBefore := repo.mark(t), bucket.mark(t)
	out, err := c.run("apply", "-auto-approve")
	if err == nil || !strings.Contains(out, "Cannot Write Promise") || !strings.Contains(out, "policy: frozen") {
		t.Fatalf("the apply should fail with the hook's refusal:\n%s", out)
	}
	file := twoStoresFile
	if _, ok := bucket.read(t, file); !ok {
		t.Errorf("the bucket was not written after the repository refused: every store must be tried")
	}
	acctest.Run(t, acctest.WritesSince(bucket.journal, &bucketBefore, puts(file)...))
	if _, ok := repo.read(t, file); ok {
		t.Errorf("the refused repository holds %s", file)
	}
	if w := repo.writesSince(t, repoBefore); len(w) != 0 {
		t.Errorf("the refused repository changed: %v", w)
	}
	scheduled, placed := promiseState(t, c)
	if !reflect.DeepEqual(scheduled, []string{"on-bucket"}) || !reflect.DeepEqual(placed, []string{"on-bucket"}) {
		t.Errorf("state after the partial failure: scheduled %v, placements %v; want only on-bucket in both", scheduled, placed)
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	// Terraform taints a promise whose create failed and replaces it: delete, then create. The
	// delete must leave the bucket's file alone (a GitOps agent pruning in between would take
	// the Namespace off the cluster), and the create only writes what is missing.
	repoBefore, bucketBefore = repo.mark(t), bucket.mark(t)
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply once the repository accepts pushes: %v\n%s", err, out)
	}
	if w := bucket.writesSince(t, bucketBefore); len(w) != 0 {
		t.Errorf("the apply that finishes the job changed the bucket, which held its file already: %v", w)
	}
	if w := repo.writesSince(t, repoBefore); !reflect.DeepEqual(w, []string{"Update from: promise/app"}) {
		t.Errorf("the apply that finishes the job made the commits %q, want one %q", w, "Update from: promise/app")
	}
	if _, ok := repo.read(t, file); !ok {
		t.Errorf("the repository did not converge")
	}
	scheduled, placed = promiseState(t, c)
	if want := []string{"on-bucket", "on-git"}; !reflect.DeepEqual(scheduled, want) || !reflect.DeepEqual(placed, want) {
		t.Errorf("state after convergence: scheduled %v, placements %v; want %v", scheduled, placed, want)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after convergence is not empty: %v\n%s", err, out)
	}
}

// promiseState reads kratix_promise.p's scheduled destinations and placement keys from state.
func promiseState(t *testing.T, c *cli) (scheduled, placed []string) {
	t.Helper()
	out, err := c.run("show", "-json")
	if err != nil {
		t.Fatalf("terraform show: %v\n%s", err, out)
	}
	var state struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &state); err != nil {
		t.Fatalf("reading state: %v", err)
	}
	for _, r := range state.Values.RootModule.Resources {
		if r.Address != "kratix_promise.p" {
			continue
		}
		for _, v := range r.Values["scheduled_destinations"].([]any) {
			scheduled = append(scheduled, v.(string))
		}
		for k := range r.Values["placements"].(map[string]any) {
			placed = append(placed, k)
		}
	}
	sort.Strings(placed)
	return scheduled, placed
}
