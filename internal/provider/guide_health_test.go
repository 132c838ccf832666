package provider

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAccGuideKnowingItRuns walks the guide "Knowing it runs" with its example, the real
// Terraform CLI on the provider's clock (runAt) and a file:// repository into which the test
// pushes the clusters' HealthRecords with the git CLI: no record, fresh healthy records, a
// rollout whose dev wave waits for the canary's record after the wave, and a change on a
// Saturday, outside the rollout's windows. The outputs checked are the ones the guide quotes.
func TestAccGuideKnowingItRuns(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	src, err := os.ReadFile("../../examples/guides/knowing-it-runs/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	seedRepo(t, repo)
	c := newCLI(t, map[string]string{"main.tf": string(src), "provider.tf": "provider \"kratix\" {}\n"},
		"TF_VAR_repository_url=file://"+repo)
	// Wednesday 25 November 2026, 10:00 UTC.
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	clock := &fakeClock{at: t0}
	run := func(code int, args ...string) string {
		t.Helper()
		out, err := c.runAt(clock, args...)
		got := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			got = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if got != code {
			t.Fatalf("terraform %s = exit %d, want %d\n%s", strings.Join(args, " "), got, code, out)
		}
		return out
	}
	expect := func(out string, parts ...string) {
		t.Helper()
		if !inOrder(parts...).MatchString(out) {
			t.Errorf("the output does not say, in order:\n  %s\n\n%s", strings.Join(parts, "\n  "), out)
		}
	}
	report := func(at time.Duration, dest, state string) {
		t.Helper()
		tip := strings.TrimSpace(gitOutput(t, "--git-dir", repo, "rev-parse", "main"))
		pushFile(t, repo, "health/"+dest+"/log-agent.yaml",
			healthRecord("log-agent", "", state, t0.Add(at), tip), "health of "+dest)
	}

	c.setVars(t, `release = "1.4.0"`)
	run(0, "apply", "-auto-approve")
	out := run(0, "plan", "-detailed-exitcode")
	t.Logf("plan with no record:\n%s", out)
	expect(out, "No changes.", "Warning: Check block assertion failed",
		`Not every destination reports log-agent healthy: {"canary-1":"unknown (stale)","dev-1":"unknown (stale)","dev-2":"unknown (stale)"}.`)

	// The clusters report at 10:05; the plan at 10:10 has nothing to do, and the check passes.
	clock.set(t0.Add(10 * time.Minute))
	for _, d := range []string{"canary-1", "dev-1", "dev-2"} {
		report(5*time.Minute, d, "healthy")
	}
	out = run(0, "plan", "-detailed-exitcode")
	if strings.Contains(out, "Check block assertion failed") {
		t.Errorf("the check fails with every destination healthy and fresh:\n%s", out)
	}
	out = run(0, "plan", "-refresh-only")
	t.Logf("refresh-only plan with fresh records:\n%s", out)
	expect(out, "Objects have changed outside of Terraform", `"canary-1" = {`, `~ fresh = false -> true`,
		`+ last_run = "2026-11-25T10:05:00Z"`, `+ source = "health/canary-1/log-agent.yaml"`, `~ state = "unknown" -> "healthy"`)
	run(0, "apply", "-auto-approve", "-refresh-only")

	// 1.5.0 at 11:00: the canary wave.
	clock.set(t0.Add(time.Hour))
	c.setVars(t, `release = "1.5.0"`)
	out = run(2, "plan", "-detailed-exitcode")
	t.Logf("plan of 1.5.0:\n%s", out)
	expect(out, `This apply writes wave "canary" to: canary-1.`, `Next wave: "dev", at the next apply.`)
	run(0, "apply", "-auto-approve")

	// 11:10: the canary's record is from before the wave: the gate holds.
	clock.set(t0.Add(time.Hour + 10*time.Minute))
	out = run(2, "plan", "-detailed-exitcode")
	t.Logf("plan with the canary's record older than the wave:\n%s", out)
	expect(out, `Wave "canary" done; gate: 0 of 1 destinations pass (need 100%): canary-1 stale: last run 2026-11-25T10:05:00Z before the wave's write + settle (2026-11-25T11:01:00Z).`,
		"This apply writes nothing.", `Next wave: "dev", when the gate passes, or rolled back at 2026-11-25T12:00:00Z (timeout).`)

	// The canary reports healthy from a run at 11:04: the dev wave goes.
	report(time.Hour+4*time.Minute, "canary-1", "healthy")
	out = run(2, "plan", "-detailed-exitcode")
	t.Logf("plan with the canary healthy after the wave:\n%s", out)
	expect(out, `Wave "canary" done; gate: 1 of 1 destinations pass (need 100%): canary-1 healthy.`,
		`This apply writes wave "dev" to: dev-1, dev-2. The rollout is then complete.`)
	run(0, "apply", "-auto-approve")

	// Saturday 28 November 2026, 11:00 UTC: inside the weekend's deny window.
	clock.set(time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC))
	c.setVars(t, `release = "1.6.0"`)
	out = run(2, "plan", "-detailed-exitcode")
	t.Logf("plan of 1.6.0 on a Saturday:\n%s", out)
	expect(out, `+ next_wave_not_before = "2026-11-30T00:00:00Z"`, "This apply writes nothing.",
		`Outside the rollout's windows: it opens at 2026-11-30T00:00:00Z (end of deny window 0, Europe/London). Next wave: "canary", at an apply from then.`)
	run(0, "apply", "-auto-approve")

	// Monday 09:00: the canary wave; its cluster reports degraded at 09:05 and still at 10:00.
	monday := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clock.set(monday)
	out = run(2, "plan", "-detailed-exitcode")
	expect(out, `This apply writes wave "canary" to: canary-1.`)
	run(0, "apply", "-auto-approve")
	report(monday.Sub(t0)+55*time.Minute, "canary-1", "degraded")
	clock.set(monday.Add(time.Hour + time.Second))
	out = run(2, "plan", "-detailed-exitcode")
	t.Logf("plan at the timeout with the canary degraded:\n%s", out)
	expect(out, `~ "canary-1" = "0e6db2271316" -> "6b24902fc2cb"`, `+ failed_revision = "0e6db2271316"`,
		`gate: 0 of 1 destinations pass (need 100%): canary-1 state degraded not in [healthy].`,
		`Gate failed at 2026-11-30T10:00:00Z (timeout): canary-1 gets revision 6b24902fc2cb back.`,
		`Revision 0e6db2271316 is rolled back: nothing advances; changing the dependencies starts a new rollout.`)
	run(0, "apply", "-auto-approve")
	if got, want := strings.TrimSpace(gitOutput(t, "--git-dir", repo, "show", "main:canary-1/dependencies/log-agent/5058f/static/log-agent-dependencies.yaml")),
		strings.TrimSpace(gitOutput(t, "--git-dir", repo, "show", "main:dev-1/dependencies/log-agent/5058f/static/log-agent-dependencies.yaml")); got != want || !strings.Contains(got, `release: 1.5.0`) {
		t.Errorf("after the rollback canary-1 holds\n%s\nwant what dev-1 holds (1.5.0)\n%s", got, want)
	}
	out = run(0, "plan", "-detailed-exitcode")
	t.Logf("plan after the rollback:\n%s", out)
	expect(out, "No changes.", `Promise "log-agent": revision 0e6db2271316 was rolled back after its gate failed; the fleet keeps 6b24902fc2cb.`)
}

// seedRepo gives a bare repository a first commit on main.
func seedRepo(t *testing.T, repo string) {
	t.Helper()
	pushFile(t, repo, "README.md", "seed\n", "seed")
}

// pushFile commits content at path on main of a bare repository with the git CLI.
func pushFile(t *testing.T, repo, path, content, message string) {
	t.Helper()
	work := t.TempDir()
	gitRun(t, "", "clone", "--quiet", repo, work)
	full := filepath.Join(work, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "-c", "user.name=cluster", "-c", "user.email=cluster@example.com", "commit", "--quiet", "-m", message)
	gitRun(t, work, "push", "--quiet", "origin", "HEAD:main")
}

func gitOutput(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
