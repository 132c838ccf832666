package provider

import (
	"strings"
	"testing"
)

// TestAccReplacedDestinationGetsItsFilesBack: `terraform apply -replace` of a destination with
// cleanup = "all" empties its folder on destroy; the promise and the request on it must write
// their files again in the same apply, although nothing in their configuration changed.
func TestAccReplacedDestinationGetsItsFilesBack(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	c := newCLI(t, sceneOnStore(t, "TestAccReplacedDestinationGetsItsFilesBack", ts))
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	files := []string{
		"w1/dependencies/p/5058f/static/p-dependencies.yaml",
		"w1/resources/default/p/r/instance-configure/5058f/r.yaml",
		"w1/dependencies/kratix-canary-namespace.yaml",
	}
	out, err := c.run("apply", "-auto-approve", "-replace=kratix_destination.w1")
	if err != nil {
		t.Fatalf("apply -replace: %v\n%s", err, out)
	}
	for _, want := range []string{"kratix_promise.p: Modifying", "kratix_resource_request.r: Modifying"} {
		if !strings.Contains(out, want) {
			t.Errorf("the replacing apply did not update what is on the destination (%q missing):\n%s", want, out)
		}
	}
	for _, f := range files {
		if _, ok := ts.read(t, f); !ok {
			t.Errorf("%s is missing after the destination was replaced", f)
		}
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the replacement is not empty: %v\n%s", err, out)
	}
}
