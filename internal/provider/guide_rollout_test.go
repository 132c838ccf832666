package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccGuideRollout walks the guide "Rolling out a change safely" with its example, the real
// Terraform CLI and a file:// repository: creation writes everywhere, then a release change goes
// to the canary, dev and each half of prod, one commit per apply touching exactly that wave's
// files, with the plan warnings the guide quotes; then the guard refuses the narrowed selector it
// shows, with the acknowledgement it prints. The revisions and the acknowledgement are worked out
// here by hand from the documented rules.
func TestAccGuideRollout(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	src, err := os.ReadFile("../../examples/guides/rolling-out-a-change-safely/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	cli := newCLI(t, map[string]string{"main.tf": string(src), "provider.tf": "provider \"kratix\" {}\n"},
		"TF_VAR_repository_url=file://"+repo)
	setRelease := func(r string) { cli.setVars(t, `release = "`+r+`"`) }
	// The canonical YAML of the example's dependencies (keys sorted) and its revision.
	revision := func(release string) string {
		canonical := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: log-agent\n---\napiVersion: v1\ndata:\n  release: " +
			release + "\nkind: ConfigMap\nmetadata:\n  name: log-agent-release\n  namespace: log-agent\n"
		sum := sha256.Sum256([]byte(canonical))
		return hex.EncodeToString(sum[:])[:12]
	}
	v14, v15 := revision("1.4.0"), revision("1.5.0")
	depFile := func(d string) string { return d + "/dependencies/log-agent/5058f/static/log-agent-dependencies.yaml" }
	// lastCommit is what the last commit on main changed, and its subject.
	lastCommit := func() string {
		t.Helper()
		out, err := exec.Command("git", "--git-dir", repo, "show", "--name-only", "--format=%s", "main").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}

	setRelease("1.4.0")
	cli.apply(t)
	cli.expectPlan(t, 0)

	setRelease("1.5.0")
	cli.expectPlan(t, 2,
		`~ "canary-1" = "`+v14+`" -> "`+v15+`"`,
		`+ next_wave = "dev"`,
		"Warning: Promise Rollout",
		`Promise "log-agent" rolls out revision `+v15+` (the fleet held `+v14+`).`,
		`This apply writes wave "canary" to: canary-1.`,
		"Waiting (they keep what they hold): dev-1, dev-2, dev-3, prod-1, prod-2, prod-3, prod-4.",
		`Next wave: "dev", at the next apply.`)
	cli.apply(t)
	want := "Update from: promise/log-agent\n\n" + depFile("canary-1")
	if got := lastCommit(); got != want {
		t.Errorf("the canary wave committed\n%s\nwant\n%s", got, want)
	}

	cli.expectPlan(t, 2, `This apply writes wave "dev" to: dev-1, dev-2, dev-3.`,
		"Waiting (they keep what they hold): prod-1, prod-2, prod-3, prod-4.", `Next wave: "prod-a", at the next apply.`)
	cli.apply(t)
	want = "Update from: promise/log-agent\n\n" + strings.Join([]string{depFile("dev-1"), depFile("dev-2"), depFile("dev-3")}, "\n")
	if got := lastCommit(); got != want {
		t.Errorf("the dev wave committed\n%s\nwant\n%s", got, want)
	}

	cli.expectPlan(t, 2, `This apply writes wave "prod-a" to: prod-1, prod-2.`,
		"Waiting (they keep what they hold): prod-3, prod-4.", `Next wave: "prod-b", at the next apply.`)
	cli.apply(t)
	cli.expectPlan(t, 2, `~ completed_revision = "`+v14+`" -> "`+v15+`"`, `Promise "log-agent" rolls out revision `+v15+` (the fleet held `+v14+`).`,
		`This apply writes wave "prod-b" to: prod-3, prod-4. The rollout is then complete.`)
	cli.apply(t)
	want = "Update from: promise/log-agent\n\n" + depFile("prod-3") + "\n" + depFile("prod-4")
	if got := lastCommit(); got != want {
		t.Errorf("the prod-b wave committed\n%s\nwant\n%s", got, want)
	}
	cli.expectPlan(t, 0)

	// The guard: narrowing the promise to region eu takes it from dev-2, dev-3, prod-3 and
	// prod-4 (the guide's run had prod-5 too).
	narrowed := strings.Replace(string(src), "  destinations = values(kratix_destination.fleet)\n",
		"  destinations = values(kratix_destination.fleet)\n  destination_selectors = [{ match_labels = { region = \"eu\" } }]\n", 1)
	if narrowed == string(src) {
		t.Fatal("the example's promise has no `destinations = values(kratix_destination.fleet)` line to narrow")
	}
	if err := os.WriteFile(filepath.Join(cli.dir, "main.tf"), []byte(narrowed), 0o600); err != nil {
		t.Fatal(err)
	}
	ack := ackOf("kratix_promise", "log-agent", "dev-2\tremoved", "dev-3\tremoved", "prod-3\tremoved", "prod-4\tremoved")
	before := lastCommit()
	cli.expectPlan(t, 1, "Error: Change Refused by the Guard", `Promise "log-agent": this plan breaks the guard:`,
		"- 4 destinations lose files, more than max_destinations_removed = 1",
		"- protected destinations (env=prod) lose files: prod-3, prod-4",
		"- dev-2: every file of the placement is removed", "- prod-4: every file of the placement is removed",
		`guard = { ..., acknowledge = "`+ack+`" }`)
	if got := lastCommit(); got != before {
		t.Errorf("the refused plan changed the repository: last commit\n%s", got)
	}
}
