package provider

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
)

// An adopted rollout's prior state reads back, through what a plan reads of state, as the status
// and revisions a state that kept the promise would hold.
func TestAdoptedRolloutPrior(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: v1\n"
	a := &adoptedRollout{
		Revisions: map[string]string{"dev-1": "bbb", "prod-1": "aaa"},
		Completed: rolloutBase{Revision: "aaa", Dependencies: yaml},
		Target:    "bbb", WavesDone: 1, LastWave: "2026-01-02T03:04:05Z",
	}
	state := a.prior(promiseModel{})
	want := rollout.Status{Completed: "aaa", Target: "bbb", WavesDone: 1, LastWave: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if got := rollout.StatusOf(reportOf(ctx, state.RolloutStatus), "aaa"); !reflect.DeepEqual(got, want) {
		t.Errorf("status %+v, want %+v", got, want)
	}
	if got := tfvalue.StringMap(ctx, state.Revisions); !reflect.DeepEqual(got, a.Revisions) {
		t.Errorf("revisions %v, want %v", got, a.Revisions)
	}
	if state.Dependencies.ValueString() != yaml {
		t.Errorf("dependencies %q, want the completed revision's %q", state.Dependencies.ValueString(), yaml)
	}
	// No wave written yet: a change to roll out from the first wave, with no time.
	a.WavesDone, a.LastWave = 0, ""
	want = rollout.Status{Completed: "aaa", Target: "bbb"}
	if got := rollout.StatusOf(reportOf(ctx, a.prior(promiseModel{}).RolloutStatus), "aaa"); !reflect.DeepEqual(got, want) {
		t.Errorf("status %+v, want %+v", got, want)
	}
	// Nothing in flight: the prior is left as it was.
	var none *adoptedRollout
	if got := none.prior(promiseModel{}); !got.RolloutStatus.IsNull() || !got.Dependencies.IsNull() {
		t.Errorf("a nil adopted rollout changed the prior: %+v", got)
	}
}
