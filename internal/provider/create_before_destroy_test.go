package provider

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccCreateBeforeDestroyDeletesNothingItWrote: with `lifecycle { create_before_destroy =
// true }`, `terraform apply -replace` of a promise and of a request creates the new object
// first and deletes the old one after, in a delete that knows nothing of its successor. That
// delete must not remove what the new object has just written: no DELETE reaches the bucket and
// no commit removes a file from the repository, every file is still there afterwards, and the
// next plan is empty. The destinations cover the three shapes a removal takes: an owned folder
// (nested), loose files with their index (none) and a part of a shared file (aggregatedYAML).
func TestAccCreateBeforeDestroyDeletesNothingItWrote(t *testing.T) {
	requireAcceptance(t)
	for _, kind := range []string{"bucket", "git-http"} {
		t.Run(kind, func(t *testing.T) {
			ts := newTestStore(t, kind)
			config := ts.provider + cliRequiredProviders + fmt.Sprintf(`
resource "kratix_state_store" "s" {
%s
}

resource "kratix_destination" "w1" {
  name        = "w1"
  path        = "w1"
  cleanup     = "all"
  state_store = kratix_state_store.s
}

resource "kratix_destination" "flat" {
  name          = "flat"
  path          = "flat"
  filepath_mode = "none"
  labels        = { flat = "yes" }
  state_store   = kratix_state_store.s
}

resource "kratix_destination" "agg" {
  name          = "agg"
  path          = "agg"
  filepath_mode = "aggregatedYAML"
  state_store   = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.w1, kratix_destination.flat, kratix_destination.agg]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  lifecycle {
    create_before_destroy = true
  }
}

resource "kratix_resource_request" "r" {
  promise               = kratix_promise.p
  name                  = "r"
  destination_selectors = [{ match_labels = { flat = "yes" } }]
  files                 = { "r.yaml" = "kind: R\n" }
  lifecycle {
    create_before_destroy = true
  }
}
`, ts.store)
			c := newCLI(t, map[string]string{"main.tf": config})
			if out, err := c.run("apply", "-auto-approve"); err != nil {
				t.Fatalf("apply: %v\n%s", err, out)
			}
			held := ts.list(t)
			for _, f := range []string{
				"w1/dependencies/p/5058f/static/p-dependencies.yaml",
				"flat/static/p-dependencies.yaml",
				"flat/r.yaml",
				"agg/aggregated.yaml",
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
				// Terraform names the old object by its deposed key when it destroys it after its
				// successor's create.
				if !strings.Contains(out, addr+" (deposed object") || !strings.Contains(out, "Destruction complete") {
					t.Fatalf("apply -replace=%s did not create before it destroyed:\n%s", addr, out)
				}
				if kind == "bucket" {
					for _, w := range ts.writesSince(t, before) {
						if strings.HasPrefix(w, "DELETE") {
							t.Errorf("replacing %s deleted from the bucket: %s", addr, w)
						}
					}
				} else if removed := removedSince(t, ts, before); len(removed) > 0 {
					t.Errorf("replacing %s removed files in a commit: %q (commits %q)", addr, removed, ts.writesSince(t, before))
				}
				if now := ts.list(t); !reflect.DeepEqual(now, held) {
					t.Errorf("after replacing %s the store holds\n  %q\nwant\n  %q", addr, now, held)
				}
				if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
					t.Errorf("the plan after replacing %s is not empty: %v\n%s", addr, err, out)
				}
			}
		})
	}
}

// TestAccCreateBeforeDestroyKeepsTheSuccessorsCanaries: a destination with cleanup = "all" and
// create_before_destroy, replaced in its folder, is created again first; the old destination's
// cleanup then must not delete the canaries its successor has just written.
func TestAccCreateBeforeDestroyKeepsTheSuccessorsCanaries(t *testing.T) {
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := ts.provider + cliRequiredProviders + fmt.Sprintf(`
resource "kratix_state_store" "s" {
%s
}

resource "kratix_destination" "w1" {
  name        = "w1"
  path        = "w1"
  cleanup     = "all"
  state_store = kratix_state_store.s
  lifecycle {
    create_before_destroy = true
  }
}
`, ts.store)
	c := newCLI(t, map[string]string{"main.tf": config})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	want := []string{"w1/dependencies/kratix-canary-namespace.yaml", "w1/resources/kratix-canary-configmap.yaml"}
	if err := acctest.Check(context.Background(), acctest.FolderHolds(ts.view, "", want...)); err != nil {
		t.Fatal(err)
	}
	before := ts.mark(t)
	out, err := c.run("apply", "-auto-approve", "-replace=kratix_destination.w1")
	if err != nil {
		t.Fatalf("apply -replace: %v\n%s", err, out)
	}
	if !strings.Contains(out, "kratix_destination.w1 (deposed object") {
		t.Fatalf("apply -replace did not create before it destroyed:\n%s", out)
	}
	for _, w := range ts.writesSince(t, before) {
		if strings.HasPrefix(w, "DELETE") {
			t.Errorf("replacing the destination deleted from the bucket: %s", w)
		}
	}
	acctest.Run(t, acctest.FolderHolds(ts.view, "", want...))
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the replacement is not empty: %v\n%s", err, out)
	}
}

// TestAccCreateBeforeDestroyDestinationCleanupKeepsWhatWasWritten: a promise with
// create_before_destroy makes Terraform replace its destination the same way. With cleanup =
// "all" and `-replace` of the destination, the new destination is created in the same folder,
// the promise and the request write their files there, and only then is the old destination
// cleaned up. That cleanup must leave what they wrote in this apply: the apply ends with every
// file they hold, and the next plan is empty.
func TestAccCreateBeforeDestroyDestinationCleanupKeepsWhatWasWritten(t *testing.T) {
	requireAcceptance(t)
	for _, kind := range []string{"bucket", "git-http"} {
		t.Run(kind, func(t *testing.T) {
			ts := newTestStore(t, kind)
			config := ts.provider + cliRequiredProviders + fmt.Sprintf(`
resource "kratix_state_store" "s" {
%s
}

resource "kratix_destination" "w1" {
  name        = "w1"
  path        = "w1"
  cleanup     = "all"
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.w1]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  lifecycle {
    create_before_destroy = true
  }
}

resource "kratix_resource_request" "r" {
  promise = kratix_promise.p
  name    = "r"
  files   = { "r.yaml" = "kind: R\n" }
}
`, ts.store)
			c := newCLI(t, map[string]string{"main.tf": config})
			if out, err := c.run("apply", "-auto-approve"); err != nil {
				t.Fatalf("apply: %v\n%s", err, out)
			}
			want := []string{
				"w1/dependencies/kratix-canary-namespace.yaml",
				"w1/dependencies/p/5058f/static/p-dependencies.yaml",
				"w1/resources/default/p/r/instance-configure/5058f/r.yaml",
				"w1/resources/kratix-canary-configmap.yaml",
			}
			// The repository's seed README is not the test's business: only w1's folder.
			inW1 := func() []string {
				var out []string
				for _, f := range ts.list(t) {
					if strings.HasPrefix(f, "w1/") {
						out = append(out, f)
					}
				}
				return out
			}
			if now := inW1(); !reflect.DeepEqual(now, want) {
				t.Fatalf("after the first apply the store holds\n  %q\nwant\n  %q", now, want)
			}
			out, err := c.run("apply", "-auto-approve", "-replace=kratix_destination.w1")
			if err != nil {
				t.Fatalf("apply -replace: %v\n%s", err, out)
			}
			if !strings.Contains(out, "kratix_destination.w1 (deposed object") {
				t.Fatalf("apply -replace did not create the destination before it destroyed the old one:\n%s", out)
			}
			if now := inW1(); !reflect.DeepEqual(now, want) {
				t.Errorf("after replacing the destination the store holds\n  %q\nwant\n  %q", now, want)
			}
			if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
				t.Errorf("the plan after replacing the destination is not empty: %v\n%s", err, out)
			}
		})
	}
}
