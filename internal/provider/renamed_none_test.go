package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccRenamedDestinationModeNone: a destination in mode none renamed with its path kept. The
// promise's and the request's files stay where they are, and their index files, whose names carry
// the destination's name, are renamed with it: the old ones go. A destroy then removes every
// file of theirs, with no "File Kept For Another Owner". On a bucket and on git over HTTP.
func TestAccRenamedDestinationModeNone(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		c := newCLI(t, sceneOnStore(t, "renamed_none", ts))
		// Spelled by hand from Kratix's mode none: the workloads' own paths in the folder
		// (static/<promise>-dependencies.yaml for the dependencies), one index file per
		// placement, .kratix/<namespace>-<work>.<destination>-<5 hex>.yaml.
		const (
			deps = "w/static/p-dependencies.yaml"
			req  = "w/r.yaml"
		)
		index := func(dest string) []string {
			return []string{
				"w/.kratix/default-p_r_default_instance-configure." + dest + "-5058f.yaml",
				"w/.kratix/kratix-platform-system-p-static-deps." + dest + "-5058f.yaml",
			}
		}
		c.setVars(t, `name = "old"`)
		c.apply(t)
		if err := acctest.Check(context.Background(), acctest.FolderHolds(ts.view, "w/", append(index("old"), deps, req)...)); err != nil {
			t.Fatalf("after the first apply: %v", err)
		}

		c.setVars(t, `name = "new"`)
		c.apply(t)
		if err := acctest.Check(context.Background(), acctest.FolderHolds(ts.view, "w/", append(index("new"), deps, req)...)); err != nil {
			t.Errorf("after the rename: %v", err)
		}
		c.expectPlan(t, 0)

		out, err := c.run("destroy", "-auto-approve")
		if err != nil {
			t.Fatalf("terraform destroy: %v\n%s", err, out)
		}
		if strings.Contains(out, "File Kept For Another Owner") {
			t.Errorf("the destroy kept files for another owner:\n%s", out)
		}
		if err := acctest.Check(context.Background(), acctest.FolderHolds(ts.view, "w/")); err != nil {
			t.Errorf("after the destroy: %v", err)
		}
	})
}
