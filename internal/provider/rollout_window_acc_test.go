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

// The window and revert tests use gateConfig's fleet (waves "canary": canary-1; "rest": dev-1,
// dev-2) without a gate; the times they expect are worked out by hand from the schedules and a
// calendar: 2030-01-02 is a Wednesday, 2030-01-05 a Saturday, 2030-01-07 a Monday, and New York
// keeps Eastern Standard Time (UTC-5) in January.

// windowStatus checks one attribute of kratix_promise.p's rollout_status.
func windowStatus(attr, want string) resource.TestCheckFunc {
	return resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status."+attr, want)
}

// TestAccRolloutWindow: a schedule or time zone that is wrong is an error on its attribute. A
// deny window from 03:00 UTC for two hours holds a change made at 03:04:05: nothing is written
// and the status says the wave may go at 05:00:00; a second later than that, the canary wave
// goes. An allow window on weekdays from 09:00 for eight hours in New York holds a change made
// on a Saturday until Monday 09:00 EST, 14:00 UTC (a second before, nothing is written, which a
// provider reading the schedule in UTC would not do), when the canary wave goes.
func TestAccRolloutWindow(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
		var mark acctest.Mark
		at := func(when time.Time) func() {
			return func() { clock.set(when); mark = ts.mark(t) }
		}
		const deny = `windows = [{ kind = "deny", schedule = "0 3 * * *", duration = "2h", time_zone = "UTC" }]`
		const allow = `windows = [{ kind = "allow", schedule = "0 9 * * 1-5", duration = "8h", time_zone = "America/New_York" }]`
		saturday := time.Date(2030, 1, 5, 12, 0, 0, 0, time.UTC)
		mondayOpens := time.Date(2030, 1, 7, 14, 0, 0, 0, time.UTC)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersWithClock(clock),
			Steps: []resource.TestStep{
				{
					Config:      gateConfig(ts, "v1", `windows = [{ kind = "deny", schedule = "61 * * * *", duration = "2h" }]`),
					ExpectError: regexp.MustCompile(`rollout\.windows\[0\]\.schedule: "61 \* \* \* \*"`),
				},
				{
					Config:      gateConfig(ts, "v1", `windows = [{ kind = "deny", schedule = "0 3 * * *", duration = "2h", time_zone = "Mars/Olympus_Mons" }]`),
					ExpectError: regexp.MustCompile(`rollout\.windows\[0\]\.time_zone: unknown time zone "Mars/Olympus_Mons"`),
				},
				{
					// Created inside a deny window (03:04:05 the day before): a new promise is
					// not staged, every destination gets v1.
					Config:            gateConfig(ts, "v1", deny),
					ConfigStateChecks: []statecheck.StateCheck{fleetHolds(ts, gateHolding("v1", "v1"))},
				},
				{
					// The change at t0, inside the deny window: nothing is written.
					PreConfig: at(t0),
					Config:    gateConfig(ts, "v2", deny),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v1", "v1")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						windowStatus("waves_done", "0"), windowStatus("next_wave", "canary"),
						windowStatus("next_wave_not_before", "2030-01-02T05:00:00Z"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// 05:00:01, the window closed: the canary wave goes.
					PreConfig: at(time.Date(2030, 1, 2, 5, 0, 1, 0, time.UTC)),
					Config:    gateConfig(ts, "v2", deny),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v1", "v2", "canary-1")),
						acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "canary-1")...),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						windowStatus("waves_done", "1"), windowStatus("next_wave", "rest"),
						resource.TestCheckNoResourceAttr("kratix_promise.p", "rollout_status.next_wave_not_before"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// 06:00: the rest goes; v2 is complete.
					PreConfig:         at(time.Date(2030, 1, 2, 6, 0, 0, 0, time.UTC)),
					Config:            gateConfig(ts, "v2", deny),
					ConfigStateChecks: []statecheck.StateCheck{fleetHolds(ts, gateHolding("v2", "v2"))},
					Check:             resource.TestCheckNoResourceAttr("kratix_promise.p", "rollout_status.next_wave"),
				},
				{
					// Saturday noon, an allow window on New York's weekdays: held until Monday
					// 09:00 EST.
					PreConfig: at(saturday),
					Config:    gateConfig(ts, "v3", allow),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v2", "v2")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						windowStatus("waves_done", "0"), windowStatus("next_wave", "canary"),
						windowStatus("next_wave_not_before", "2030-01-07T14:00:00Z"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// Monday 13:59:59 UTC, 08:59:59 in New York: still held.
					PreConfig: at(mondayOpens.Add(-time.Second)),
					Config:    gateConfig(ts, "v3", allow),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v2", "v2")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check:              windowStatus("next_wave_not_before", "2030-01-07T14:00:00Z"),
					ExpectNonEmptyPlan: true,
				},
				{
					// 09:00:00 in New York: the canary wave goes.
					PreConfig: at(mondayOpens),
					Config:    gateConfig(ts, "v3", allow),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v2", "v3", "canary-1")),
						acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "canary-1")...),
					},
					Check:              resource.ComposeAggregateTestCheckFunc(windowStatus("waves_done", "1"), windowStatus("next_wave", "rest")),
					ExpectNonEmptyPlan: true,
				},
			},
		})
	})
}

// TestAccRolloutRevert: v2's canary wave, then the configuration back to v1.
//
// With revert "immediate", inside a deny window (06:00 to 07:00 UTC), one apply gives canary-1
// the bytes it held before v2 back, and the rollout is complete with nothing left to plan: an
// immediate revert is not held by the windows.
//
// With the default, "staged", the way back to v1 is a rollout of v1 like any other, starting
// again from the first wave (the status has v2 in flight, so v1 is a new target). Outside the
// window, that first wave is the canary, the only destination not holding v1: one apply gives it
// v1 back and the rollout is complete, as immediate did. Inside the window it is held: canary-1
// keeps v2, nothing is written, and the status names the canary wave, at 07:00:00; after the
// window it goes and completes the same way.
func TestAccRolloutRevert(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
		var mark acctest.Mark
		var v1Bytes []byte
		at := func(when time.Time) func() {
			return func() { clock.set(when); mark = ts.mark(t) }
		}
		keepV1 := func(when time.Time) func() {
			return func() {
				b, ok := ts.read(t, rolloutDepFile("canary-1"))
				if !ok {
					t.Fatal("canary-1 holds no dependencies")
				}
				v1Bytes = b
				at(when)()
			}
		}
		const deny = `windows = [{ kind = "deny", schedule = "0 6 * * *", duration = "1h" }]`
		immediate := deny + "\n    revert = \"immediate\""
		canaryBack := func() statecheck.StateCheck {
			return acctest.All(
				fleetHolds(ts, gateHolding("v1", "v1")),
				acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "canary-1")...),
				acctest.FileMatches(ts.view, rolloutDepFile("canary-1"), func(content string) error {
					if content != string(v1Bytes) {
						return fmt.Errorf("canary-1 holds %q, not the bytes it held before v2 (%q)", content, v1Bytes)
					}
					return nil
				}),
			)
		}
		complete := resource.ComposeAggregateTestCheckFunc(
			windowStatus("waves_done", "0"),
			resource.TestCheckNoResourceAttr("kratix_promise.p", "rollout_status.next_wave"),
			resource.TestCheckNoResourceAttr("kratix_promise.p", "rollout_status.next_wave_not_before"),
		)
		canaryWave := func(when time.Time, rolloutExtra string) resource.TestStep {
			return resource.TestStep{
				PreConfig:          keepV1(when),
				Config:             gateConfig(ts, "v2", rolloutExtra),
				ConfigStateChecks:  []statecheck.StateCheck{fleetHolds(ts, gateHolding("v1", "v2", "canary-1"))},
				Check:              resource.ComposeAggregateTestCheckFunc(windowStatus("waves_done", "1"), windowStatus("next_wave", "rest")),
				ExpectNonEmptyPlan: true,
			}
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersWithClock(clock),
			Steps: []resource.TestStep{
				{Config: gateConfig(ts, "v1", immediate)},
				canaryWave(t0, immediate),
				{
					// Immediate, at 06:30 inside the deny window: one apply, canary-1 as before.
					PreConfig:         at(time.Date(2030, 1, 2, 6, 30, 0, 0, time.UTC)),
					Config:            gateConfig(ts, "v1", immediate),
					ConfigStateChecks: []statecheck.StateCheck{canaryBack()},
					Check:             complete,
				},
				{Config: gateConfig(ts, "v1", immediate), PlanOnly: true},

				// Staged, outside the window: the first wave of v1 is the canary's.
				canaryWave(time.Date(2030, 1, 2, 8, 0, 0, 0, time.UTC), deny),
				{
					PreConfig:         at(time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)),
					Config:            gateConfig(ts, "v1", deny),
					ConfigStateChecks: []statecheck.StateCheck{canaryBack()},
					Check:             complete,
				},
				{Config: gateConfig(ts, "v1", deny), PlanOnly: true},

				// Staged, inside the window: held until 07:00, then the canary wave.
				canaryWave(time.Date(2030, 1, 2, 10, 0, 0, 0, time.UTC), deny),
				{
					PreConfig: at(time.Date(2030, 1, 3, 6, 30, 0, 0, time.UTC)),
					Config:    gateConfig(ts, "v1", deny),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, gateHolding("v1", "v2", "canary-1")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						windowStatus("waves_done", "0"), windowStatus("next_wave", "canary"),
						windowStatus("next_wave_not_before", "2030-01-03T07:00:00Z"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					PreConfig:         at(time.Date(2030, 1, 3, 7, 0, 1, 0, time.UTC)),
					Config:            gateConfig(ts, "v1", deny),
					ConfigStateChecks: []statecheck.StateCheck{canaryBack()},
					Check:             complete,
				},
				{Config: gateConfig(ts, "v1", deny), PlanOnly: true},
			},
		})
	})
}
