package provider

import (
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// fakeClock is a provider clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *fakeClock) set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = at
}

// providersWithClock serve the provider in-process, as testAccProviders do, reading clock for
// the time.
func providersWithClock(clock *fakeClock) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"kratix": func() (tfprotov6.ProviderServer, error) {
			return verifiedServerWithClock(clock)
		},
	}
}

// TestAccRolloutMinWaitPasses: min_wait = "1h" holds the dev wave back until an hour after the
// canary's, and then lets it go; the provider's clock is moved, nothing sleeps. rollout_status's
// times are the clock's, to the second.
func TestAccRolloutMinWaitPasses(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &fakeClock{at: t0.Add(-24 * time.Hour)}
	var mark acctest.Mark
	at := func(d time.Duration) func() {
		return func() { clock.set(t0.Add(d)); mark = ts.mark(t) }
	}
	const wait = `min_wait = "1h"`
	status := func(attr, want string) resource.TestCheckFunc {
		return resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status."+attr, want)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersWithClock(clock),
		Steps: []resource.TestStep{
			{Config: rolloutConfig(ts, "v1", wait)},
			{
				// The canary wave at 03:04:05: the dev wave may go an hour later.
				PreConfig: at(0),
				Config:    rolloutConfig(ts, "v2", wait),
				ConfigStateChecks: []statecheck.StateCheck{
					fleetHolds(ts, holding("v1", "v2", "canary-1")),
					acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "canary-1")...),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					status("waves_done", "1"), status("next_wave", "dev"),
					status("last_wave_at", "2030-01-02T03:04:05Z"),
					status("next_wave_not_before", "2030-01-02T04:04:05Z"),
					status("checked_at", "2030-01-02T03:04:05Z"),
				),
				ExpectNonEmptyPlan: true,
			},
			{
				// A second before the hour is up: nothing goes.
				PreConfig: at(time.Hour - time.Second),
				Config:    rolloutConfig(ts, "v2", wait),
				ConfigStateChecks: []statecheck.StateCheck{
					fleetHolds(ts, holding("v1", "v2", "canary-1")),
					acctest.NoWritesSince(ts.journal, &mark),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					status("waves_done", "1"), status("next_wave", "dev"),
					status("last_wave_at", "2030-01-02T03:04:05Z"),
					status("next_wave_not_before", "2030-01-02T04:04:05Z"),
					status("checked_at", "2030-01-02T04:04:04Z"),
				),
				ExpectNonEmptyPlan: true,
			},
			{
				// The hour is up: the dev wave goes, and the next may go an hour after it.
				PreConfig: at(time.Hour),
				Config:    rolloutConfig(ts, "v2", wait),
				ConfigStateChecks: []statecheck.StateCheck{
					fleetHolds(ts, holding("v1", "v2", "canary-1", "dev-1", "dev-2", "dev-3")),
					acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "dev-1", "dev-2", "dev-3")...),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					status("waves_done", "2"), status("next_wave", "prod-a"),
					status("last_wave_at", "2030-01-02T04:04:05Z"),
					status("next_wave_not_before", "2030-01-02T05:04:05Z"),
					status("checked_at", "2030-01-02T04:04:05Z"),
				),
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
