package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAccRegistryAcrossWorkspaces: two workspaces, each its own working directory and state,
// with the real CLI, on one bucket and on one repository over HTTP.
//
//   - fleet (owner "fleet") registers w1 and w2 (env = prod) and w3 (env = dev);
//   - platform (owner "platform") publishes promise app over data.kratix_destinations with the
//     selectors env = prod: it lands on w1 and w2, not w3, exactly as with a literal pool;
//   - fleet adds w4 (env = prod): platform's next plan, its configuration unchanged, schedules
//     it, and its apply writes app's file there;
//   - fleet removes w2: platform's next plan drops it from the promise's scheduled destinations,
//     as a destination that left the pool (on_unschedule "keep", the default: its file stays);
//     the plan after is empty.
func TestAccRegistryAcrossWorkspaces(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, testRegistryAcrossWorkspaces)
}

func testRegistryAcrossWorkspaces(t *testing.T, kind string) {
	ts := newTestStore(t, kind)
	store := kratixStateStore{Label: "s", Body: ts.store}.String()
	fleetConfig := func(names ...string) string {
		var b strings.Builder
		b.WriteString(requiredKratix + ownedBy(ts.provider, "", "fleet") + store)
		for _, n := range names {
			env := "prod"
			if n == "w3" {
				env = "dev"
			}
			b.WriteString(kratixDestination{Label: n, Name: q(n), Path: q(n), StateStore: "kratix_state_store.s",
				Labels: fmt.Sprintf("{ env = %q }", env)}.String())
		}
		return b.String()
	}
	platformConfig := requiredKratix + ownedBy(ts.provider, "", "platform") + store + `
data "kratix_destinations" "fleet" {
  state_stores          = [kratix_state_store.s]
  destination_selectors = [{ match_labels = { env = "prod" } }]
}
` + kratixPromise{Label: "app", Name: q("app"), Destinations: "data.kratix_destinations.fleet.destinations",
		DestinationSelectors: matchLabels("env", "prod"), Dependencies: q(namespaceDoc("app"))}.String()

	fleet := newCLI(t, map[string]string{"main.tf": fleetConfig("w1", "w2", "w3")})
	platform := newCLI(t, map[string]string{"main.tf": platformConfig})
	apply := func(c *cli, what string) string {
		t.Helper()
		out, err := c.run("apply", "-auto-approve")
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return out
	}
	// plan returns the plan's output and whether it has changes.
	plan := func(c *cli, what string) (string, bool) {
		t.Helper()
		out, err := c.run("plan", "-detailed-exitcode")
		if err != nil && !strings.Contains(out, "Plan:") {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return out, err != nil
	}
	depFile := func(dest string) string { return dest + "/dependencies/app/5058f/static/app-dependencies.yaml" }
	holds := func(dests ...string) {
		t.Helper()
		for _, d := range []string{"w1", "w2", "w3", "w4"} {
			content, found := ts.read(t, depFile(d))
			if want := slices.Contains(dests, d); found != want {
				t.Errorf("%s holds app's file: %v, want %v", d, found, want)
			} else if found && string(content) != namespaceDoc("app") {
				t.Errorf("%s's file of app is %q, want %q", d, content, namespaceDoc("app"))
			}
		}
	}
	scheduled := func() []string {
		t.Helper()
		var out []string
		for _, v := range stateValues(t, platform, "kratix_promise.app")["scheduled_destinations"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}

	apply(fleet, "fleet's first apply")
	apply(platform, "platform's first apply")
	holds("w1", "w2")
	if got := scheduled(); !slices.Equal(got, []string{"w1", "w2"}) {
		t.Errorf("app is scheduled on %v, want [w1 w2]", got)
	}
	if out, changes := plan(platform, "platform's plan after its apply"); changes {
		t.Errorf("platform's plan after its apply is not empty:\n%s", out)
	}

	// Fleet registers w4: platform's configuration does not change.
	if err := os.WriteFile(filepath.Join(fleet.dir, "main.tf"), []byte(fleetConfig("w1", "w2", "w3", "w4")), 0o600); err != nil {
		t.Fatal(err)
	}
	apply(fleet, "fleet's apply adding w4")
	out, changes := plan(platform, "platform's plan after w4 was registered")
	if !changes || !strings.Contains(out, `"w4"`) {
		t.Errorf("platform's plan should schedule app on w4:\n%s", out)
	}
	apply(platform, "platform's apply after w4 was registered")
	holds("w1", "w2", "w4")
	if got := scheduled(); !slices.Equal(got, []string{"w1", "w2", "w4"}) {
		t.Errorf("app is scheduled on %v, want [w1 w2 w4]", got)
	}

	// Fleet deregisters w2.
	if err := os.WriteFile(filepath.Join(fleet.dir, "main.tf"), []byte(fleetConfig("w1", "w3", "w4")), 0o600); err != nil {
		t.Fatal(err)
	}
	apply(fleet, "fleet's apply removing w2")
	if _, found := ts.read(t, ".kratix-registry/destinations/w2.yaml"); found {
		t.Errorf("w2's record is still in the store after its destroy")
	}
	out, changes = plan(platform, "platform's plan after w2 left")
	if !changes || !strings.Contains(out, `"w2"`) {
		t.Errorf("platform's plan should take w2 out of app's destinations:\n%s", out)
	}
	apply(platform, "platform's apply after w2 left")
	if got := scheduled(); !slices.Equal(got, []string{"w1", "w4"}) {
		t.Errorf("app is scheduled on %v, want [w1 w4]", got)
	}
	holds("w1", "w2", "w4") // on_unschedule "keep": w2's file stays
	if out, changes := plan(platform, "platform's plan after w2 left and was applied"); changes {
		t.Errorf("platform's plan after the apply is not empty:\n%s", out)
	}
}
