package provider

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
)

// TestAccRolloutImportAfterRollback: v2's canary reports degraded until the gate's timeout, and
// the canary gets v1 back (failed_revision = v2's). The promise then leaves the state (`terraform
// state rm`) and comes back with an import block: the stores hold v1 everywhere, as before a
// rollout starts, and the canary's health record says what happened. The import's plan
// recovers the failure and says so, its apply writes nothing (the canary keeps v1) and records
// failed_revision again, and the plan after it is empty. Bucket and git.
func TestAccRolloutImportAfterRollback(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		imp := "\nimport {\n  to = kratix_promise.p\n  id = \"p\"\n}\n"
		config := func(ns string, importing bool) string {
			c := cliRequiredProviders + gateConfig(ts, ns, gateRollback)
			if importing {
				c += imp
			}
			return c
		}
		c := newCLI(t, map[string]string{"main.tf": config("v1", false)})
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
		write := func(cfg string) {
			if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		run := func(what string, wantCode int, args ...string) string {
			t.Helper()
			out, err := c.runAt(clock, args...)
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatalf("%s: terraform %v: %v\n%s", what, args, err, out)
			}
			if code != wantCode {
				t.Fatalf("%s: terraform %v: exit %d, want %d\n%s", what, args, code, wantCode, out)
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
		run("v1", 0, "apply", "-auto-approve")
		clock.set(t0)
		write(config("v2", false))
		run("canary wave", 0, "apply", "-auto-approve")
		holds("canary wave", gateHolding("v1", "v2", "canary-1"))
		ts.put(t, "health/canary-1/p.yaml", []byte(healthRecord("p", "", "degraded", t0.Add(10*time.Minute), "")))
		clock.set(t0.Add(time.Hour + time.Second))
		run("rollback", 0, "apply", "-auto-approve")
		holds("rollback", gateHolding("v1", "v1"))
		failed, _ := stateValues(t, c, "kratix_promise.p")["rollout_status"].(map[string]any)
		if failed == nil || failed["failed_revision"] == nil || failed["failed_revision"] != failed["revision"] {
			t.Fatalf("the rollback recorded no failed revision: %v", failed)
		}

		clock.set(t0.Add(time.Hour + 2*time.Minute))
		run("state rm", 0, "state", "rm", "kratix_promise.p")
		write(config("v2", true))
		mark := ts.mark(t)
		out := run("import plan", 0, "plan", "-out", "import.tfplan")
		for _, want := range []string{"Rolled-Back Revision Recovered", `the latest health records of canary-1, in the first wave`} {
			if !strings.Contains(out, want) {
				t.Errorf("the import's plan does not say %q:\n%s", want, out)
			}
		}
		run("import", 0, "apply", "import.tfplan")
		holds("import", gateHolding("v1", "v1"))
		if err := acctest.Check(context.Background(), acctest.NoWritesSince(ts.journal, &mark)); err != nil {
			t.Errorf("the import: %v", err)
		}
		got, _ := stateValues(t, c, "kratix_promise.p")["rollout_status"].(map[string]any)
		if got == nil || got["failed_revision"] != failed["failed_revision"] {
			t.Errorf("after the import, rollout_status = %v, want failed_revision %v", got, failed["failed_revision"])
		}
		write(config("v2", false))
		run("after", 0, "plan", "-detailed-exitcode")
	})
}
