package provider

import (
	"context"
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
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) {
		ts := newTestStore(t, kind)
		c := newCLI(t, sceneOnStore(t, "cbd_replace", ts))
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

// TestAccCreateBeforeDestroyKeepsTheSuccessorsCanaries: a destination with cleanup = "all" and
// create_before_destroy, replaced in its folder, is created again first; the old destination's
// cleanup then must not delete the canaries its successor has just written.
func TestAccCreateBeforeDestroyKeepsTheSuccessorsCanaries(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	c := newCLI(t, sceneOnStore(t, "cbd_destination", ts))
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
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) {
		ts := newTestStore(t, kind)
		c := newCLI(t, sceneOnStore(t, "cbd_destination_cleanup", ts))
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

// TestAccCreateBeforeDestroyInterrupted: an apply that replaces a promise and a request with
// create_before_destroy stops after their successors were created (a later resource fails), so
// the old objects stay in the state as deposed objects. The next apply destroys them, in
// another provider process than the one that wrote the successors' files. That destroy must not
// remove what the successors hold at the same paths: no DELETE reaches the bucket, no commit
// removes a file, every file is still there, and the next plan is empty.
func TestAccCreateBeforeDestroyInterrupted(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) {
		ts := newTestStore(t, kind)
		c := newCLI(t, sceneOnStore(t, "cbd_failed_apply", ts))
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
		out, err := c.run("apply", "-auto-approve", "-var=fail=true",
			"-replace=kratix_promise.p", "-replace=kratix_resource_request.r")
		if err == nil || !strings.Contains(out, "the later resource fails") {
			t.Fatalf("the interrupted apply did not fail in the later resource: %v\n%s", err, out)
		}
		if strings.Contains(out, "Destruction complete") {
			t.Fatalf("the interrupted apply destroyed the old objects already:\n%s", out)
		}
		if now := ts.list(t); !reflect.DeepEqual(now, held) {
			t.Fatalf("after the interrupted apply the store holds\n  %q\nwant\n  %q", now, held)
		}
		before := ts.mark(t)
		out, err = c.run("apply", "-auto-approve")
		if err != nil {
			t.Fatalf("apply after the interrupted one: %v\n%s", err, out)
		}
		for _, addr := range []string{"kratix_promise.p", "kratix_resource_request.r"} {
			if !strings.Contains(out, addr+" (deposed object") {
				t.Fatalf("the apply after the interrupted one did not destroy %s's deposed object:\n%s", addr, out)
			}
		}
		if kind == "bucket" {
			for _, w := range ts.writesSince(t, before) {
				if strings.HasPrefix(w, "DELETE") {
					t.Errorf("destroying the deposed objects deleted from the bucket: %s", w)
				}
			}
		} else if removed := removedSince(t, ts, before); len(removed) > 0 {
			t.Errorf("destroying the deposed objects removed files in a commit: %q (commits %q)", removed, ts.writesSince(t, before))
		}
		if now := ts.list(t); !reflect.DeepEqual(now, held) {
			t.Errorf("after destroying the deposed objects the store holds\n  %q\nwant\n  %q", now, held)
		}
		if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
			t.Errorf("the plan after destroying the deposed objects is not empty: %v\n%s", err, out)
		}
	})
}

// TestAccCreateBeforeDestroyInterruptedAfterAMove: the same interrupted replacement, but the
// successor moved the promise to another destination (w2). The next apply's destroy of the
// deposed promise still removes what only it held (its files on w1, flat and agg), and leaves
// what the successor holds on w2: the protection is what the live object holds, not the whole
// identity.
func TestAccCreateBeforeDestroyInterruptedAfterAMove(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) {
		ts := newTestStore(t, kind)
		c := newCLI(t, sceneOnStore(t, "cbd_failed_apply", ts))
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		old := []string{
			"w1/dependencies/p/5058f/static/p-dependencies.yaml",
			"flat/static/p-dependencies.yaml",
			"flat/.kratix/kratix-platform-system-p-static-deps.flat-5058f.yaml",
			"agg/aggregated.yaml",
		}
		moved := []string{
			"w2/dependencies/p/5058f/static/p-dependencies.yaml",
			"w2/resources/default/p/r/instance-configure/5058f/r.yaml",
		}
		held := ts.list(t)
		for _, f := range old {
			if !slices.Contains(held, f) {
				t.Fatalf("%s was not written; the store holds %q", f, held)
			}
		}
		out, err := c.run("apply", "-auto-approve", "-var=fail=true", "-var=moved=true", "-replace=kratix_promise.p")
		if err == nil || !strings.Contains(out, "the later resource fails") {
			t.Fatalf("the interrupted apply did not fail in the later resource: %v\n%s", err, out)
		}
		held = ts.list(t)
		for _, f := range append(append([]string(nil), old...), moved...) {
			if !slices.Contains(held, f) {
				t.Fatalf("after the interrupted apply %s is missing; the store holds %q", f, held)
			}
		}
		out, err = c.run("apply", "-auto-approve", "-var=moved=true")
		if err != nil {
			t.Fatalf("apply after the interrupted one: %v\n%s", err, out)
		}
		if !strings.Contains(out, "kratix_promise.p (deposed object") {
			t.Fatalf("the apply after the interrupted one did not destroy the deposed promise:\n%s", out)
		}
		now := ts.list(t)
		for _, f := range old {
			if slices.Contains(now, f) {
				t.Errorf("%s, which only the deposed promise held, is still there", f)
			}
		}
		for _, f := range moved {
			if !slices.Contains(now, f) {
				t.Errorf("%s, which the live promise and request hold, is gone", f)
			}
		}
		if out, err := c.run("plan", "-detailed-exitcode", "-var=moved=true"); err != nil {
			t.Errorf("the plan after destroying the deposed promise is not empty: %v\n%s", err, out)
		}
	})
}
