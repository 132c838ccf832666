package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// gateCanaryMoved is gateConfig with canary-1 relabelled env = "dev" (so it falls in wave
// "rest"), or drained with a NoExecute taint.
func gateCanaryMoved(ts *testStore, ns, rolloutExtra, how string) string {
	cfg := gateConfig(ts, ns, rolloutExtra)
	labels := `labels      = { env = split("-", local.fleet[count.index])[0] }`
	switch how {
	case "relabel":
		return strings.Replace(cfg, labels, `labels      = { env = local.fleet[count.index] == "canary-1" ? "dev" : split("-", local.fleet[count.index])[0] }`, 1)
	case "drain":
		return strings.Replace(cfg, labels, labels+`
  taints      = local.fleet[count.index] == "canary-1" ? [{ key = "maintenance", effect = "NoExecute" }] : null`, 1)
	}
	panic(how)
}

// TestAccRolloutGateCanaryLeaves: the canary wave wrote v2 to canary-1, which has no health
// record yet, so the gate holds. The canary then leaves wave "canary": relabelled into the
// rest's ring, or drained with a NoExecute taint (the promise leaves it). Either way the
// revision has been proven healthy nowhere: the plan says the gate does not pass and the apply
// writes v2 to no other destination (dev-1 and dev-2 keep v1, nothing written to them). Relabelled,
// canary-1 still holds v2 and is judged where it is now: a healthy record lets the rest go.
func TestAccRolloutGateCanaryLeaves(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"relabel", "drain"} {
		t.Run(how, func(t *testing.T) {
			onStores(t, func(t *testing.T, kind string) {
				requireAcceptance(t)
				ts := newTestStore(t, kind)
				t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
				clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
				var mark acctest.Mark
				at := func(d time.Duration, then func()) func() {
					return func() {
						clock.set(t0.Add(d))
						if then != nil {
							then()
						}
						mark = ts.mark(t)
					}
				}
				const gate = `gate = {
      states  = ["healthy"]
      settle  = "5m"
    }`
				devKeep := func() statecheck.StateCheck {
					return acctest.All(
						acctest.FileHolds(ts.view, rolloutDepFile("dev-1"), rolloutNamespace("v1")),
						acctest.FileHolds(ts.view, rolloutDepFile("dev-2"), rolloutNamespace("v1")))
				}
				steps := []resource.TestStep{
					{Config: gateConfig(ts, "v1", gate)},
					{
						// The canary wave at t0.
						PreConfig:          at(0, nil),
						Config:             gateConfig(ts, "v2", gate),
						ConfigStateChecks:  []statecheck.StateCheck{fleetHolds(ts, gateHolding("v1", "v2", "canary-1"))},
						ExpectNonEmptyPlan: true,
					},
					{
						// An hour on, the canary has still no record, and leaves the wave.
						PreConfig:          at(time.Hour, nil),
						Config:             gateCanaryMoved(ts, "v2", gate, how),
						ConfigStateChecks:  []statecheck.StateCheck{devKeep()},
						Check:              resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waves_done", "1"),
						ExpectNonEmptyPlan: true,
					},
				}
				if how == "relabel" {
					steps = append(steps,
						resource.TestStep{
							// Still no record: nothing written.
							PreConfig:          at(2*time.Hour, nil),
							Config:             gateCanaryMoved(ts, "v2", gate, how),
							ConfigStateChecks:  []statecheck.StateCheck{devKeep(), fleetHolds(ts, gateHolding("v1", "v2", "canary-1")), acctest.NoWritesSince(ts.journal, &mark)},
							ExpectNonEmptyPlan: true,
						},
						resource.TestStep{
							// canary-1 reports healthy: the rest goes.
							PreConfig: at(3*time.Hour, func() {
								ts.put(t, "health/canary-1/p.yaml", []byte(healthRecord("p", "", "healthy", t0.Add(150*time.Minute), "")))
							}),
							Config:            gateCanaryMoved(ts, "v2", gate, how),
							ConfigStateChecks: []statecheck.StateCheck{fleetHolds(ts, gateHolding("v2", "v2"))},
						})
				} else {
					steps = append(steps, resource.TestStep{
						// The plan after the drain: still nothing to judge, nothing written.
						PreConfig:          at(2*time.Hour, nil),
						Config:             gateCanaryMoved(ts, "v2", gate, how),
						ConfigStateChecks:  []statecheck.StateCheck{devKeep(), acctest.NoWritesSince(ts.journal, &mark)},
						ExpectNonEmptyPlan: true,
					})
				}
				resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: providersWithClock(clock), Steps: steps})
			})
		})
	}
}
