package rollout

import (
	"reflect"
	"testing"
	"time"
)

// TestRejudge: the gate fleet (c1, c2 in wave canary; p1, p2 in rest) adopted holding r1
// everywhere with r2 configured: what a rollback leaves, and what a rollout not started yet
// looks like; the records of the canaries tell them apart.
func TestRejudge(t *testing.T) {
	notStarted := Adopted{Status: Status{Completed: "r1", Target: "r2"}}
	failed := Adopted{Status: Status{Completed: "r1", Failed: "r2"}}
	degraded := Health{Found: true, State: "degraded", Fresh: true, LastRun: g0}
	healthy := Health{Found: true, State: "healthy", Fresh: true, LastRun: g0}
	for _, tc := range []struct {
		name        string
		adopted     Adopted
		policy      Policy
		health      map[string]Health
		want        Adopted
		wantFailing []string
	}{
		{"a canary reports degraded, the gate rolls back: r2 failed", notStarted, gatePolicy("rollback", 100),
			map[string]Health{"c1": healthy, "c2": degraded, "p1": degraded}, failed, []string{"c2"}},
		{"the canaries healthy (a prod destination degraded does not count): not started", notStarted, gatePolicy("rollback", 100),
			map[string]Health{"c1": healthy, "c2": healthy, "p1": degraded}, notStarted, nil},
		{"no record: not started", notStarted, gatePolicy("rollback", 100), nil, notStarted, nil},
		{"on_failure pause leaves the canary holding r2, never this: not started", notStarted, gatePolicy("pause", 100),
			map[string]Health{"c1": degraded}, notStarted, nil},
		{"no gate: not started", notStarted, Policy{Waves: gateWaves}, map[string]Health{"c1": degraded}, notStarted, nil},
		{"the canary wave done: the gate judges it as usual", Adopted{Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: g0}},
			gatePolicy("rollback", 100), map[string]Health{"c1": degraded},
			Adopted{Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: g0}}, nil},
		{"complete: nothing to recover", Adopted{Status: Status{Completed: "r2"}, Complete: true}, gatePolicy("rollback", 100),
			map[string]Health{"c1": degraded}, Adopted{Status: Status{Completed: "r2"}, Complete: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, failing := Rejudge(tc.adopted, tc.policy, "r2", gateFleet(), tc.health)
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(failing, tc.wantFailing) {
				t.Errorf("Rejudge = %+v %v, want %+v %v", got, failing, tc.want, tc.wantFailing)
			}
		})
	}
	// What a plan then does: nothing is written, the fleet keeps r1.
	in := StageInput{Policy: gatePolicy("rollback", 100), Status: failed.Status, Revision: "r2", Prior: "r1", Scheduled: gateFleet(),
		Revisions: map[string]string{"c1": "r1", "c2": "r1", "p1": "r1", "p2": "r1"}, Present: gateIntact(), Staged: true, BaseKnown: true,
		Now: g0.Add(time.Hour)}
	s := Stage(in)
	if want := map[string]string{"c1": "r1", "c2": "r1", "p1": "r1", "p2": "r1"}; !reflect.DeepEqual(s.Give, want) || s.Step.Advanced {
		t.Errorf("after a recovered failure: Give %v advanced %v, want %v and no wave", s.Give, s.Step.Advanced, want)
	}
}
