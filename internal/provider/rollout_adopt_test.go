package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// A promise moved between states mid-rollout (`terraform state rm`, then an import block) goes
// on where its rollout stands: the stores say which destination holds which revision.

// adoptRolloutConfig is promise p over dev-1, staging-1, prod-1 and prod-2 (labelled env by
// their prefix) in the given filepath mode, rolled out in waves dev, staging, prod, with the
// dependencies of namespace ns and the rollout arguments extra; importing adds an import block
// for the promise.
func adoptRolloutConfig(ts *testStore, mode, ns, extra string, importing bool) string {
	imp := ""
	if importing {
		imp = "import {\n  to = kratix_promise.p\n  id = \"p\"\n}\n"
	}
	return ts.provider + cliRequiredProviders + kratixStateStore{Label: "s", Body: ts.store}.String() +
		block("locals", []hclAttr{{"fleet", `{ "dev-1" = "dev", "staging-1" = "staging", "prod-1" = "prod", "prod-2" = "prod" }`}}, "") +
		kratixDestination{
			Label: "d", ForEach: "local.fleet", Name: "each.key", Path: "each.key", Labels: "{ env = each.value }",
			FilepathMode: q(mode), StateStore: "kratix_state_store.s",
		}.String() + kratixPromise{
		Label: "p", Name: q("p"), Destinations: "values(kratix_destination.d)", Dependencies: q(rolloutNamespace(ns)),
		Body: `  rollout = {
    waves = [
      { name = "dev", destination_selectors = [{ match_labels = { env = "dev" } }] },
      { name = "staging", destination_selectors = [{ match_labels = { env = "staging" } }] },
      { name = "prod", destination_selectors = [{ match_labels = { env = "prod" } }] },
    ]
    ` + extra + `
  }`,
	}.String() + imp
}

// storeFiles is every file of the store and its content, read with the independent client.
func storeFiles(t *testing.T, ts *testStore) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range ts.list(t) {
		b, _ := ts.read(t, p)
		out[p] = string(b)
	}
	return out
}

// changedFiles lists, sorted, the paths whose content differs between two readings of a store
// (added and removed ones included).
func changedFiles(before, after map[string]string) []string {
	var out []string
	for p, c := range after {
		if b, ok := before[p]; !ok || b != c {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// stateValues reads one resource's attributes from `terraform show -json`.
func stateValues(t *testing.T, c *cli, address string) map[string]any {
	t.Helper()
	out, err := c.run("show", "-json")
	if err != nil {
		t.Fatalf("show: %v\n%s", err, out)
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
	if err := json.Unmarshal([]byte(out), &state); err != nil {
		t.Fatalf("reading the state: %v\n%s", err, out)
	}
	for _, r := range state.Values.RootModule.Resources {
		if r.Address == address {
			return r.Values
		}
	}
	t.Fatalf("%s is not in the state:\n%s", address, out)
	return nil
}

// TestAccRolloutAdoptedMidway: v2 of a promise has reached wave dev; staging and prod hold v1.
// The promise leaves the state (`terraform state rm`) and comes back with an import block. The
// first plan finds the rollout where it stands: it writes wave staging only, says prod waits, and
// `-detailed-exitcode` says 2; its apply writes staging-1's dependencies file and nothing else.
// The next plan writes wave prod (2 again), and the plan after it is empty (0). Run on a bucket
// (nestedByMetadata, every PUT counted by the recorder) and a git repository (mode none, its
// commits read with the git CLI); each file changed is found by reading the whole store before
// and after each apply.
func TestAccRolloutAdoptedMidway(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ kind, mode string }{{"bucket", "nestedByMetadata"}, {"git-http", "none"}} {
		t.Run(tc.kind, func(t *testing.T) {
			requireAcceptance(t)
			ts := newTestStore(t, tc.kind)
			// Where destination d holds p's dependencies, spelled by hand per mode.
			depFile := func(d string) string {
				if tc.mode == "none" {
					return d + "/static/p-dependencies.yaml"
				}
				return rolloutDepFile(d)
			}
			c := newCLI(t, map[string]string{"main.tf": adoptRolloutConfig(ts, tc.mode, "v1", "", false)})
			clock := &fakeClock{at: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
			write := func(ns string, importing bool) {
				if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(adoptRolloutConfig(ts, tc.mode, ns, "", importing)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			run := func(args ...string) (int, string) {
				out, err := c.runAt(clock, args...)
				var exit *exec.ExitError
				switch {
				case err == nil:
					return 0, out
				case errors.As(err, &exit):
					return exit.ExitCode(), out
				}
				t.Fatalf("terraform %v: %v\n%s", args, err, out)
				return -1, ""
			}
			apply := func(what string, wantChanged ...string) {
				t.Helper()
				before, mark := storeFiles(t, ts), ts.mark(t)
				// A saved plan applied an hour later: the apply plans again, and whatever the
				// plan knew (an adopted rollout's last_wave_at) must not change with the clock.
				if code, out := run("plan", "-out", "step.tfplan"); code != 0 {
					t.Fatalf("%s: plan: exit %d\n%s", what, code, out)
				}
				clock.set(clock.now().Add(time.Hour))
				if code, out := run("apply", "step.tfplan"); code != 0 {
					t.Fatalf("%s: exit %d\n%s", what, code, out)
				}
				after := storeFiles(t, ts)
				var want []string
				for _, d := range wantChanged {
					want = append(want, depFile(d))
					if got := after[depFile(d)]; got != rolloutNamespace("v2") {
						t.Errorf("%s: %s holds %q, want v2", what, depFile(d), got)
					}
				}
				sort.Strings(want)
				if got := changedFiles(before, after); !reflect.DeepEqual(got, want) {
					t.Errorf("%s changed\n  %v\nwant\n  %v", what, got, want)
				}
				wantWrites := []string{"Update from: promise/p"}
				if ts.recorder != nil {
					wantWrites = puts(want...)
				}
				if err := acctest.Check(context.Background(), acctest.WritesSince(ts.journal, &mark, wantWrites...)); err != nil {
					t.Errorf("%s: %v", what, err)
				}
			}
			plan := func(what string, wantCode int, want ...string) {
				t.Helper()
				code, out := run("plan", "-detailed-exitcode")
				flat := strings.Join(strings.Fields(out), " ") // the CLI wraps long diagnostics
				// Not fatal: the apply that follows shows what a wrong plan writes.
				if code != wantCode {
					t.Errorf("%s: exit %d, want %d\n%s", what, code, wantCode, out)
				}
				for _, w := range want {
					if !strings.Contains(flat, w) {
						t.Errorf("%s: the plan does not say %q", what, w)
					}
				}
				if t.Failed() {
					t.Logf("%s:\n%s", what, out)
				}
			}

			if code, out := run("apply", "-auto-approve"); code != 0 {
				t.Fatalf("first apply: exit %d\n%s", code, out)
			}
			write("v2", false)
			apply("the apply of wave dev", "dev-1")
			if code, out := run("state", "rm", "kratix_promise.p"); code != 0 {
				t.Fatalf("state rm: exit %d\n%s", code, out)
			}
			write("v2", true)
			v1, v2 := rolloutRevisionOf(t, "v1"), rolloutRevisionOf(t, "v2")
			plan("the plan after the import", 2,
				"Warning: Promise Rollout",
				fmt.Sprintf(`Promise "p" rolls out revision %s (the fleet held %s).`, v2, v1),
				`This apply writes wave "staging" to: staging-1.`,
				"Waiting (they keep what they hold): prod-1, prod-2.",
				`Next wave: "prod", at the next apply.`)
			apply("the apply of the import", "staging-1")
			values := stateValues(t, c, "kratix_promise.p")
			if got, want := values["revisions"], map[string]any{"dev-1": v2, "staging-1": v2, "prod-1": v1, "prod-2": v1}; !reflect.DeepEqual(got, want) {
				t.Errorf("revisions after the import's apply: %v, want %v", got, want)
			}
			status, _ := values["rollout_status"].(map[string]any)
			if got, want := status["waiting"], []any{"prod-1", "prod-2"}; !reflect.DeepEqual(got, want) {
				t.Errorf("rollout_status.waiting after the import's apply: %v, want %v", got, want)
			}
			if got := status["next_wave"]; got != "prod" {
				t.Errorf("rollout_status.next_wave after the import's apply: %v, want prod", got)
			}
			write("v2", false)
			plan("the plan of wave prod", 2, `This apply writes wave "prod" to: prod-1, prod-2.`, "The rollout is then complete.")
			apply("the apply of wave prod", "prod-1", "prod-2")
			plan("the plan after the rollout", 0)
		})
	}
}

// TestAccRolloutAdoptedMidway_minWait: with min_wait, the stores do not say when the dev wave
// went, so the import's plan counts min_wait from itself: it writes nothing, says when the next
// wave may go, and -detailed-exitcode says 2; its apply writes nothing and records the time.
func TestAccRolloutAdoptedMidway_minWait(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	const wait = `min_wait = "1h"`
	c := newCLI(t, map[string]string{"main.tf": adoptRolloutConfig(ts, "nestedByMetadata", "v1", wait, false)})
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &fakeClock{at: t0.Add(-3 * time.Hour)}
	write := func(importing bool) {
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(adoptRolloutConfig(ts, "nestedByMetadata", "v2", wait, importing)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mustRun := func(args ...string) {
		if out, err := c.runAt(clock, args...); err != nil {
			t.Fatalf("terraform %v: %v\n%s", args, err, out)
		}
	}
	mustRun("apply", "-auto-approve")
	write(false)
	clock.set(t0.Add(-2 * time.Hour))
	mustRun("apply", "-auto-approve") // wave dev
	mustRun("state", "rm", "kratix_promise.p")
	write(true)
	clock.set(t0)
	out, err := c.runAt(clock, "plan", "-detailed-exitcode")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("the plan after the import: %v, want exit 2\n%s", err, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"This apply writes nothing.", "Waiting (they keep what they hold): prod-1, prod-2, staging-1.", `Next wave: "staging", not before 2030-01-02T04:04:05Z (min_wait).`} {
		if !strings.Contains(flat, want) {
			t.Errorf("the plan after the import does not say %q\n%s", want, out)
		}
	}
	mark := ts.mark(t)
	// The import's plan saved and applied ten minutes later: the apply plans again, and the
	// adopted last_wave_at the plan showed must not move with the clock.
	mustRun("plan", "-out", "import.tfplan")
	clock.set(t0.Add(10 * time.Minute))
	mustRun("apply", "import.tfplan")
	acctest.Run(t, acctest.NoWritesSince(ts.journal, &mark))
	status, _ := stateValues(t, c, "kratix_promise.p")["rollout_status"].(map[string]any)
	if status["last_wave_at"] != "2030-01-02T03:04:05Z" || status["next_wave"] != "staging" {
		t.Errorf("rollout_status after the import's apply: %v; want last_wave_at 2030-01-02T03:04:05Z (the import's plan), next_wave staging", status)
	}
	if got, want := fmt.Sprint(status["waiting"]), "[prod-1 prod-2 staging-1]"; got != want {
		t.Errorf("rollout_status.waiting %s, want %s", got, want)
	}
}

// TestAccRolloutAdoptedChange: a promise imported with dependencies that no destination holds
// yet is a change like any other: the import's plan writes the first wave only. In mode
// aggregatedYAML, where what a destination holds is read back from its part of the aggregate.
func TestAccRolloutAdoptedChange(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	const mode = "aggregatedYAML"
	c := newCLI(t, map[string]string{"main.tf": adoptRolloutConfig(ts, mode, "v1", "", false)})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if out, err := c.run("state", "rm", "kratix_promise.p"); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(adoptRolloutConfig(ts, mode, "v2", "", true)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := c.run("plan", "-detailed-exitcode")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("the plan after the import: %v, want exit 2\n%s", err, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		fmt.Sprintf(`Promise "p" rolls out revision %s (the fleet held %s).`, rolloutRevisionOf(t, "v2"), rolloutRevisionOf(t, "v1")),
		`This apply writes wave "dev" to: dev-1.`,
		"Waiting (they keep what they hold): prod-1, prod-2, staging-1.",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the plan after the import does not say %q", want)
		}
	}
	if t.Failed() {
		t.Logf("the plan after the import:\n%s", out)
	}
	before, mark := storeFiles(t, ts), ts.mark(t)
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	// dev-1's part and the aggregate rebuilt from it, spelled out by hand.
	part := ".kratix-aggregates/dev-1/aggregated.yaml/p-static-deps.dev-1-5058f.part"
	want := []string{part, "dev-1/aggregated.yaml"}
	sort.Strings(want)
	after := storeFiles(t, ts)
	if got := changedFiles(before, after); !reflect.DeepEqual(got, want) {
		t.Errorf("the import's apply changed %v, want %v", got, want)
	}
	if after[part] != rolloutNamespace("v2") {
		t.Errorf("%s holds %q, want v2", part, after[part])
	}
	acctest.Run(t, acctest.WritesSince(ts.journal, &mark, puts(want...)...))
}
