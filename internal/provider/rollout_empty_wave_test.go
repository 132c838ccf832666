package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccRolloutEmptyWave: the guide's example with the canary wave's label misspelt (env =
// "canry"). The wave takes no destination, so a release change would go to the dev wave first
// with no canary before it; the plan says so, naming the wave and its attribute path, and the
// canary wave keeps no silence in the plans after.
func TestAccRolloutEmptyWave(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	src, err := os.ReadFile("../../examples/guides/rolling-out-a-change-safely/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	typo := strings.Replace(string(src), `{ name = "canary", destination_selectors = [{ match_labels = { env = "canary" } }] }`,
		`{ name = "canary", destination_selectors = [{ match_labels = { env = "canry" } }] }`, 1)
	if typo == string(src) {
		t.Fatal("the example has no canary wave selecting env = \"canary\" to misspell")
	}
	repo := filepath.Join(t.TempDir(), "gitops.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	cli := newCLI(t, map[string]string{"main.tf": typo, "provider.tf": "provider \"kratix\" {}\n"},
		"TF_VAR_repository_url=file://"+repo)
	cli.setVars(t, `release = "1.4.0"`)
	cli.apply(t)
	cli.setVars(t, `release = "1.5.0"`)
	cli.expectPlan(t, 2,
		"Warning: Empty Rollout Wave",
		"with kratix_promise.agent",
		`rollout.waves[0].destination_selectors: wave "canary" of promise "log-agent" takes no destination: its destination_selectors match none of the 8 destinations the promise is scheduled to.`,
		`A rollout passes an empty wave over, and the next wave goes in the same apply`,
		`This apply writes wave "dev" to: dev-1, dev-2, dev-3.`)
}
