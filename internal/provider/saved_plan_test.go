package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccSavedPlanDeletesOnlyWhatItShowed: a saved plan is a contract. A promise on a protected
// destination is changed and the plan saved; before it is applied, another writer adds a file to
// the promise's own folder (5058f/, owned outright in nested mode) and edits the promise's file
// there. Applying the saved plan writes what the plan showed (the promise's file holds v2 again)
// and leaves the added file, which the plan never showed, with a warning naming it; the next
// plan, which sees it, is refused by the guard as any deletion on a protected destination is. On
// a bucket and on git over HTTP.
func TestAccSavedPlanDeletesOnlyWhatItShowed(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		c := newCLI(t, sceneOnStore(t, "saved_plan", ts))
		const (
			deps  = "w1/dependencies/p/5058f/static/p-dependencies.yaml"
			stray = "w1/dependencies/p/5058f/static/added-later.yaml"
			v1    = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p1\n"
			v2    = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p2\n"
		)
		c.setVars(t, `deps = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p1\n"`)
		c.apply(t)
		if err := acctest.Check(context.Background(), acctest.FolderHolds(ts.view, "w1/", deps), acctest.FileHolds(ts.view, deps, v1)); err != nil {
			t.Fatalf("after the first apply: %v", err)
		}

		c.setVars(t, `deps = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p2\n"`)
		if out, err := c.run("plan", "-out=tfplan"); err != nil {
			t.Fatalf("terraform plan -out: %v\n%s", err, out)
		}
		ts.put(t, stray, []byte("kind: AddedLater\n"))
		ts.put(t, deps, []byte("kind: EditedLater\n"))

		out, err := c.run("apply", "tfplan")
		if err != nil {
			t.Fatalf("terraform apply tfplan: %v\n%s", err, out)
		}
		if !inOrder("Warning: File Not In The Plan Left", `Promise "p"`, stray, "did not show it").MatchString(out) {
			t.Errorf("the apply does not report the file it left:\n%s", out)
		}
		if strings.Contains(out, "Warning: File Not In The Plan Left") && strings.Count(out, "Warning: File Not In The Plan Left") != 1 {
			t.Errorf("the apply reports more than the one file added:\n%s", out)
		}
		if err := acctest.Check(context.Background(),
			acctest.FolderHolds(ts.view, "w1/", deps, stray),
			acctest.FileHolds(ts.view, stray, "kind: AddedLater\n"),
			acctest.FileHolds(ts.view, deps, v2),
		); err != nil {
			t.Errorf("after applying the saved plan: %v", err)
		}

		// The next plan sees the file: deleting it from the protected destination is refused.
		c.expectPlan(t, 1, "Change Refused by the Guard", "protected destinations (tier=prod) lose files: w1", "- w1: 1 file(s) deleted: "+stray)
	})
}
