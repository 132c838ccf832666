package rollout

import (
	"reflect"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// fleet is ten destinations: one canary, three dev, six prod.
func fleet() []Destination {
	d := func(name, env string) Destination {
		return Destination{Name: name, Labels: map[string]string{"env": env}}
	}
	return []Destination{
		d("canary-1", "canary"),
		d("dev-1", "dev"), d("dev-2", "dev"), d("dev-3", "dev"),
		d("prod-1", "prod"), d("prod-2", "prod"), d("prod-3", "prod"), d("prod-4", "prod"), d("prod-5", "prod"), d("prod-6", "prod"),
	}
}

func env(v string) scheduling.Selector {
	return scheduling.Selector{MatchLabels: map[string]string{"env": v}}
}

// canary, dev, then prod in two halves.
var waves = []Wave{
	{Name: "canary", Selector: env("canary")},
	{Name: "dev", Selector: env("dev")},
	{Name: "prod-a", Selector: env("prod"), MaxPercent: 50},
	{Name: "prod-b", Selector: env("prod")},
}

func holdAll(rev string) map[string]string {
	out := map[string]string{}
	for _, d := range fleet() {
		out[d.Name] = rev
	}
	return out
}

func TestAssignTakesWavesInOrderWithCaps(t *testing.T) {
	got := Assign(waves, fleet())
	want := map[string]int{
		"canary-1": 0, "dev-1": 1, "dev-2": 1, "dev-3": 1,
		"prod-1": 2, "prod-2": 2, "prod-3": 2, "prod-4": 3, "prod-5": 3, "prod-6": 3,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Assign = %v, want %v", got, want)
	}
	// A cap in destinations, a percentage rounded up, and the last wave taking what is left.
	capped := []Wave{
		{Name: "one", MaxDestinations: 1},
		{Name: "third", Selector: env("prod"), MaxPercent: 34}, // 34% of 6 = 2.04, rounded up: 3
		{Name: "dev", Selector: env("dev")},
	}
	got = Assign(capped, fleet())
	want = map[string]int{
		"canary-1": 0, "prod-1": 1, "prod-2": 1, "prod-3": 1,
		"dev-1": 2, "dev-2": 2, "dev-3": 2, "prod-4": 2, "prod-5": 2, "prod-6": 2,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Assign(capped) = %v, want %v", got, want)
	}
}

func TestPlanWithoutStagingGivesEveryDestinationTheRevision(t *testing.T) {
	s := Plan(Input{Policy: Policy{Waves: waves}, Revision: "r1", Scheduled: fleet(), Staged: false})
	if !s.Complete || len(s.Waiting) != 0 || len(s.Now) != 10 || s.Status != (Status{Completed: "r1"}) {
		t.Fatalf("step = %+v", s)
	}
}

// One rollout of r2 over the fleet holding r1, applied step by step with the time moving on.
func TestPlanAdvancesOneWavePerApply(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	policy := Policy{Waves: waves, MinWait: time.Hour}
	held := holdAll("r1")
	status := Status{Completed: "r1"}
	wantNow := [][]string{
		{"canary-1"},
		{"dev-1", "dev-2", "dev-3"},
		{"prod-1", "prod-2", "prod-3"},
		{"prod-4", "prod-5", "prod-6"},
	}
	for i, now := range wantNow {
		at := t0.Add(time.Duration(i) * time.Hour)
		s := Plan(Input{Policy: policy, Status: status, Revision: "r2", Scheduled: fleet(), Held: held, Staged: true, Now: at})
		if !s.Advanced || !reflect.DeepEqual(s.Now, now) {
			t.Fatalf("apply %d: advanced %v, now %v, want %v", i+1, s.Advanced, s.Now, now)
		}
		if last := i == len(wantNow)-1; s.Complete != last {
			t.Fatalf("apply %d: complete = %v", i+1, s.Complete)
		}
		if i < len(wantNow)-1 {
			if s.Next != i+1 || !s.NotBefore.Equal(at.Add(time.Hour)) || s.Status.WavesDone != i+1 || s.Status.Target != "r2" {
				t.Fatalf("apply %d: next %d not before %v, status %+v", i+1, s.Next, s.NotBefore, s.Status)
			}
			// Half an hour later the next wave is not due: nothing changes.
			early := Plan(Input{Policy: policy, Status: s.Status, Revision: "r2", Scheduled: fleet(), Held: s.Give, Staged: true, Now: at.Add(30 * time.Minute)})
			if early.Advanced || len(early.Now) != 0 || !early.NotBefore.Equal(at.Add(time.Hour)) || early.Status != s.Status {
				t.Fatalf("apply %d+30m: %+v", i+1, early)
			}
		} else if s.Status != (Status{Completed: "r2"}) || s.Next != -1 {
			t.Fatalf("final status %+v next %d", s.Status, s.Next)
		}
		for _, dest := range now {
			if s.Give[dest] != "r2" {
				t.Fatalf("apply %d: %s gets %q", i+1, dest, s.Give[dest])
			}
		}
		held, status = s.Give, s.Status
	}
	for dest, rev := range held {
		if rev != "r2" {
			t.Fatalf("%s holds %s at the end", dest, rev)
		}
	}
	// And then a plan changes nothing.
	s := Plan(Input{Policy: policy, Status: status, Revision: "r2", Scheduled: fleet(), Held: held, Staged: true, Now: t0.Add(9 * time.Hour)})
	if !s.Complete || len(s.Now) != 0 || s.Status != status {
		t.Fatalf("after the rollout: %+v", s)
	}
}

func TestPlanPausedWritesNothing(t *testing.T) {
	s := Plan(Input{Policy: Policy{Waves: waves, Paused: true}, Status: Status{Completed: "r1"}, Revision: "r2", Scheduled: fleet(), Held: holdAll("r1"), Staged: true})
	if s.Advanced || len(s.Now) != 0 || len(s.Waiting) != 10 || s.Complete || s.Next != 0 || s.Status != (Status{Completed: "r1", Target: "r2"}) {
		t.Fatalf("paused: %+v", s)
	}
}

func TestPlanRestartsOnAChangeDuringARollout(t *testing.T) {
	held := holdAll("r1")
	held["canary-1"], held["dev-1"], held["dev-2"], held["dev-3"] = "r2", "r2", "r2", "r2"
	in := Input{Policy: Policy{Waves: waves}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 2, LastWave: time.Unix(100, 0)},
		Revision: "r3", Scheduled: fleet(), Held: held, Staged: true, Now: time.Unix(200, 0)}
	s := Plan(in)
	if !s.Restarted || !reflect.DeepEqual(s.Now, []string{"canary-1"}) || s.Status.WavesDone != 1 || s.Status.Target != "r3" || s.Status.Completed != "r1" {
		t.Fatalf("restart: %+v", s)
	}
	if s.Give["dev-1"] != "r2" || s.Give["prod-1"] != "r1" || s.Next != 1 {
		t.Fatalf("waiting destinations must keep what they hold: %+v", s.Give)
	}
}

func TestPlanJoinerGetsTheLastCompletedRevision(t *testing.T) {
	held := holdAll("r1")
	delete(held, "prod-6") // joined: holds nothing yet
	held["canary-1"] = "r2"
	in := Input{Policy: Policy{Waves: waves, Paused: true}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1},
		Revision: "r2", Scheduled: fleet(), Held: held, Staged: true}
	s := Plan(in)
	if s.Give["prod-6"] != "r1" || !reflect.DeepEqual(s.Now, []string{"prod-6"}) {
		t.Fatalf("joiner: gives %q, now %v", s.Give["prod-6"], s.Now)
	}
	// A joiner in a wave already done goes with the next wave.
	held = holdAll("r1")
	held["canary-1"] = "r2"
	more := append(fleet(), Destination{Name: "canary-2", Labels: map[string]string{"env": "canary"}})
	in = Input{Policy: Policy{Waves: waves}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1},
		Revision: "r2", Scheduled: more, Held: held, Staged: true}
	s = Plan(in)
	if !reflect.DeepEqual(s.Now, []string{"canary-2", "dev-1", "dev-2", "dev-3"}) || s.Give["canary-2"] != "r2" {
		t.Fatalf("straggler: now %v gives %q", s.Now, s.Give["canary-2"])
	}
}

func TestPlanRevertToTheCompletedRevisionRollsBackInWaves(t *testing.T) {
	held := holdAll("r1")
	held["canary-1"] = "r2"
	s := Plan(Input{Policy: Policy{Waves: waves}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1},
		Revision: "r1", Scheduled: fleet(), Held: held, Staged: true})
	if !s.Complete || !reflect.DeepEqual(s.Now, []string{"canary-1"}) || s.Status != (Status{Completed: "r1"}) {
		t.Fatalf("revert: %+v", s)
	}
}

func TestRevisionNamesTheBytes(t *testing.T) {
	if Revision([]byte("a")) == Revision([]byte("b")) || len(Revision([]byte("a"))) != 12 {
		t.Fatal("revisions must differ by content and have 12 hex digits")
	}
}
