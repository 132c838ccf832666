package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// The gate, window and revert tests stage a change over three destinations, waves "canary"
// (canary-1) and "rest" (dev-1, dev-2), on the provider's clock, which the test sets; the
// destinations' health records are written by the test's own client into folder "health" of
// the same bucket or repository.

// gateFleet is the fleet of these tests.
var gateFleet = []string{"canary-1", "dev-1", "dev-2"}

// gateConfig is the fleet on store s, observed through store h at "health", and promise p with
// dependencies ns and the rollout attributes given after its waves.
func gateConfig(ts *testStore, ns, rolloutExtra string) string {
	health := regexp.MustCompile(`(?m)^(\s*)name(\s+)= "([^"]+)"`).ReplaceAllString(ts.store, "${1}name${2}= \"${3}-health\"\n${1}path = \"health\"")
	return storeConfig(ts) + kratixStateStore{Label: "h", Body: health}.String() +
		block("locals", []hclAttr{{"fleet", `["canary-1", "dev-1", "dev-2"]`}}, "") + kratixDestination{
		Label: "d", Count: "length(local.fleet)", Name: "local.fleet[count.index]", Path: "local.fleet[count.index]",
		Labels: `{ env = split("-", local.fleet[count.index])[0] }`, StateStore: "kratix_state_store.s",
	}.String() + kratixPromise{
		Label: "p", Name: q("p"), Destinations: "kratix_destination.d", Dependencies: q(rolloutNamespace(ns)),
		Observe: "{ state_store = kratix_state_store.h }",
		Body: `  rollout = {
    waves = [
      { name = "canary", destination_selectors = [{ match_labels = { env = "canary" } }] },
      { name = "rest", destination_selectors = [] },
    ]
    ` + rolloutExtra + `
  }`,
	}.String()
}

// gateHolding is the fleet holding ns, with the named destinations holding other.
func gateHolding(ns, other string, names ...string) map[string]string {
	out := map[string]string{}
	for _, d := range gateFleet {
		out[d] = ns
	}
	for _, d := range names {
		out[d] = other
	}
	return out
}

const gateRollback = `gate = {
      states     = ["healthy"]
      settle     = "5m"
      timeout    = "1h"
      on_failure = "rollback"
    }`

// TestAccRolloutGate: after the canary wave, the next wave waits for the canary's record (none:
// it holds, nothing written); a fresh healthy record made after the wave's write plus settle lets
// it go. The next change's canary reports degraded until the timeout: the canary gets the
// completed revision back, byte for byte as it held it, the failed revision is recorded, and
// the next plan holds it there with nothing to do.
func TestAccRolloutGate(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
		var mark acctest.Mark
		var v2Bytes []byte
		at := func(d time.Duration, then func()) func() {
			return func() {
				clock.set(t0.Add(d))
				if then != nil {
					then()
				}
				mark = ts.mark(t)
			}
		}
		status := func(attr, want string) resource.TestCheckFunc {
			return resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status."+attr, want)
		}
		record := func(state string, lastRun time.Duration) func() {
			return func() {
				ts.put(t, "health/canary-1/p.yaml", []byte(healthRecord("p", "", state, t0.Add(lastRun), "")))
			}
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersWithClock(clock),
			Steps: []resource.TestStep{
				{
					// A gate reads health: without observe it is refused.
					Config:      regexp.MustCompile(`(?m)^\s*observe\s+=.*$`).ReplaceAllString(gateConfig(ts, "v1", gateRollback), ""),
					ExpectError: regexp.MustCompile(`Gate Without Observe`),
				},
				{Config: gateConfig(ts, "v1", gateRollback)},
				{
					// The canary wave at t0.
					PreConfig:          at(0, nil),
					Config:             gateConfig(ts, "v2", gateRollback),
					ConfigStateChecks:  []statecheck.StateCheck{fleetHolds(ts, gateHolding("v1", "v2", "canary-1"))},
					Check:              resource.ComposeAggregateTestCheckFunc(status("waves_done", "1"), status("next_wave", "rest")),
					ExpectNonEmptyPlan: true,
				},
				{
					// Ten minutes on, no record: the gate holds, nothing is written.
					PreConfig: at(10*time.Minute, nil),
					Config:    gateConfig(ts, "v2", gateRollback),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v1", "v2", "canary-1")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						status("waves_done", "1"), status("next_wave", "rest"),
						resource.TestCheckResourceAttr("kratix_promise.p", "health.canary-1.state", "unknown"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// A healthy record from a run four minutes after the write: before settle
					// (5m) is over, it says nothing of the wave; the gate still holds.
					PreConfig: at(11*time.Minute, record("healthy", 4*time.Minute)),
					Config:    gateConfig(ts, "v2", gateRollback),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v1", "v2", "canary-1")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						status("waves_done", "1"),
						resource.TestCheckResourceAttr("kratix_promise.p", "health.canary-1.state", "healthy"),
						resource.TestCheckResourceAttr("kratix_promise.p", "health.canary-1.fresh", "true"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// A healthy record from a run six minutes after the write: the rest goes.
					PreConfig: at(15*time.Minute, record("healthy", 6*time.Minute)),
					Config:    gateConfig(ts, "v2", gateRollback),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v2", "v2")),
						acctest.WritesSince(ts.journal, &mark, gateWaveWrites(ts, "dev-1", "dev-2")...),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						status("waves_done", "0"), resource.TestCheckNoResourceAttr("kratix_promise.p", "rollout_status.next_wave"),
						resource.TestCheckNoResourceAttr("kratix_promise.p", "rollout_status.failed_revision"),
					),
				},
				{
					// v3's canary wave at t0+1h; what the canary held is kept for the comparison.
					PreConfig: at(time.Hour, func() {
						b, ok := ts.read(t, rolloutDepFile("canary-1"))
						if !ok {
							t.Fatal("canary-1 holds no dependencies")
						}
						v2Bytes = b
					}),
					Config:             gateConfig(ts, "v3", gateRollback),
					ConfigStateChecks:  []statecheck.StateCheck{fleetHolds(ts, gateHolding("v2", "v3", "canary-1"))},
					Check:              status("waves_done", "1"),
					ExpectNonEmptyPlan: true,
				},
				{
					// The canary reports degraded; the hour runs out: it gets v2 back, exactly.
					PreConfig: at(2*time.Hour+time.Second, record("degraded", time.Hour+10*time.Minute)),
					Config:    gateConfig(ts, "v3", gateRollback),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v2", "v2")),
						acctest.WritesSince(ts.journal, &mark, gateWaveWrites(ts, "canary-1")...),
						acctest.FileMatches(ts.view, rolloutDepFile("canary-1"), func(content string) error {
							if content != string(v2Bytes) {
								return fmt.Errorf("canary-1 holds %q, not the bytes it held before v3 (%q)", content, v2Bytes)
							}
							return nil
						}),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttrPair("kratix_promise.p", "rollout_status.failed_revision", "kratix_promise.p", "rollout_status.revision"),
						status("waves_done", "0"),
					),
				},
				{
					// Rolled back, it stays so: the next plan has nothing to do.
					PreConfig: at(3*time.Hour, nil),
					Config:    gateConfig(ts, "v3", gateRollback),
					PlanOnly:  true,
				},
			},
		})
	})
}

// gateWaveWrites is what one apply writing the named destinations leaves in the store's history.
func gateWaveWrites(ts *testStore, names ...string) []string {
	return waveWrites(ts, names...)
}
