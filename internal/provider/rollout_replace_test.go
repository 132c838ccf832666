package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
)

// TestAccRolloutReplaceWhileGateHolds: v2's canary wave is written and the gate holds (no
// record yet). `terraform apply -replace=kratix_promise.p` replaces the promise: the
// replacement's plan goes on from where the rollout stands, as the plan of an update would.
// Its plan says the gate holds and the apply writes nothing; dev-1 and dev-2 keep v1 (and the
// delete that comes first leaves their files); the plan after says the gate still holds; a
// healthy record then lets the rest go. Bucket and git; the store is read back with the
// independent client after each apply.
func TestAccRolloutReplaceWhileGateHolds(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		const gate = `gate = {
      states = ["healthy"]
      settle = "5m"
    }`
		config := func(ns string) string { return cliRequiredProviders + gateConfig(ts, ns, gate) }
		c := newCLI(t, map[string]string{"main.tf": config("v1")})
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
		run := func(what string, args ...string) string {
			t.Helper()
			out, err := c.runAt(clock, args...)
			if err != nil {
				t.Fatalf("%s: terraform %v: %v\n%s", what, args, err, out)
			}
			return strings.Join(strings.Fields(out), " ") // the CLI wraps long diagnostics
		}
		holds := func(what string, want map[string]string) {
			t.Helper()
			for _, d := range tfvalue.SortedKeys(want) {
				got, ok := ts.read(t, rolloutDepFile(d))
				if !ok || string(got) != rolloutNamespace(want[d]) {
					t.Errorf("%s: %s holds %q (found %v), want %s", what, d, got, ok, want[d])
				}
			}
		}
		run("v1", "apply", "-auto-approve")
		clock.set(t0)
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("v2")), 0o600); err != nil {
			t.Fatal(err)
		}
		run("canary wave", "apply", "-auto-approve")
		holds("canary wave", gateHolding("v1", "v2", "canary-1"))

		clock.set(t0.Add(10 * time.Minute))
		out := run("replace plan", "plan", "-replace=kratix_promise.p", "-out", "replace.tfplan")
		for _, want := range []string{"kratix_promise.p will be replaced, as requested",
			`Wave "canary" done; gate: 0 of 1 destinations pass (need 100%): canary-1 no record.`,
			"This apply writes nothing.", `Next wave: "rest", when the gate passes.`} {
			if !strings.Contains(out, want) {
				t.Errorf("the replacement's plan does not say %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "This apply writes wave") || strings.Contains(out, "The rollout is then complete") {
			t.Errorf("the replacement's plan writes a wave:\n%s", out)
		}
		run("replace", "apply", "replace.tfplan")
		holds("replace", gateHolding("v1", "v2", "canary-1"))

		clock.set(t0.Add(20 * time.Minute))
		if out := run("after", "plan"); !strings.Contains(out, `Next wave: "rest", when the gate passes.`) || strings.Contains(out, "This apply writes wave") {
			t.Errorf("the plan after the replacement does not hold at the gate:\n%s", out)
		}
		run("after", "apply", "-auto-approve")
		holds("after", gateHolding("v1", "v2", "canary-1"))

		clock.set(t0.Add(30 * time.Minute))
		ts.put(t, "health/canary-1/p.yaml", []byte(healthRecord("p", "", "healthy", t0.Add(25*time.Minute), "")))
		run("healthy", "apply", "-auto-approve")
		holds("healthy", gateHolding("v2", "v2"))
	})
}

// TestAccRolloutReplaceCreateBeforeDestroyWhileGateHolds: as above, with
// `create_before_destroy` on the promise: the successor is created first (it writes nothing, the
// gate holds) and the old object is destroyed after; that destroy must leave dev-1's and dev-2's
// v1 files, which the successor holds without writing them. Bucket and git.
func TestAccRolloutReplaceCreateBeforeDestroyWhileGateHolds(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		const gate = `gate = {
      states = ["healthy"]
      settle = "5m"
    }`
		config := func(ns string) string {
			return strings.Replace(cliRequiredProviders+gateConfig(ts, ns, gate), `resource "kratix_promise" "p" {`,
				"resource \"kratix_promise\" \"p\" {\n  lifecycle {\n    create_before_destroy = true\n  }", 1)
		}
		c := newCLI(t, map[string]string{"main.tf": config("v1")})
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
		run := func(what string, args ...string) {
			t.Helper()
			if out, err := c.runAt(clock, args...); err != nil {
				t.Fatalf("%s: terraform %v: %v\n%s", what, args, err, out)
			}
		}
		holds := func(what string, want map[string]string) {
			t.Helper()
			for _, d := range tfvalue.SortedKeys(want) {
				got, ok := ts.read(t, rolloutDepFile(d))
				if !ok || string(got) != rolloutNamespace(want[d]) {
					t.Errorf("%s: %s holds %q (found %v), want %s", what, d, got, ok, want[d])
				}
			}
		}
		run("v1", "apply", "-auto-approve")
		clock.set(t0)
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("v2")), 0o600); err != nil {
			t.Fatal(err)
		}
		run("canary wave", "apply", "-auto-approve")
		holds("canary wave", gateHolding("v1", "v2", "canary-1"))

		clock.set(t0.Add(10 * time.Minute))
		run("replace", "apply", "-auto-approve", "-replace=kratix_promise.p")
		holds("replace with create_before_destroy", gateHolding("v1", "v2", "canary-1"))

		clock.set(t0.Add(30 * time.Minute))
		ts.put(t, "health/canary-1/p.yaml", []byte(healthRecord("p", "", "healthy", t0.Add(25*time.Minute), "")))
		run("healthy", "apply", "-auto-approve")
		holds("healthy", gateHolding("v2", "v2"))
	})
}
