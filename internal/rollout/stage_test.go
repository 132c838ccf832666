package rollout

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// The fleet of the staging tests: one canary, three dev, four prod (and p5, a prod destination
// that joins). The waves: the canary; dev capped at two destinations; half of prod (rounded
// up); and "rest", which takes every destination no earlier wave took:
//
//	canary: c1   dev: d1 d2   prod-half: p1 p2   rest: d3 p3 p4
var (
	stageWaves = []Wave{
		{Name: "canary", Selector: env("canary")},
		{Name: "dev", Selector: env("dev"), MaxDestinations: 2},
		{Name: "prod-half", Selector: env("prod"), MaxPercent: 50},
		{Name: "rest"},
	}
	t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
)

func stageFleet(extra ...string) []Destination {
	d := func(name, env string) Destination {
		return Destination{Name: name, Labels: map[string]string{"env": env}}
	}
	out := []Destination{d("c1", "canary"), d("d1", "dev"), d("d2", "dev"), d("d3", "dev"), d("p1", "prod"), d("p2", "prod"), d("p3", "prod"), d("p4", "prod")}
	for _, name := range extra {
		out = append(out, d(name, "prod"))
	}
	return out
}

var stageNames = []string{"c1", "d1", "d2", "d3", "p1", "p2", "p3", "p4"}

// revs maps every destination of the fleet to rev, and then the ones named after each "=" pair
// ("r2=c1,d1") to theirs.
func revs(rev string, others ...string) map[string]string {
	out := map[string]string{}
	for _, n := range stageNames {
		out[n] = rev
	}
	for _, o := range others {
		r, names, _ := strings.Cut(o, "=")
		for _, n := range strings.Split(names, ",") {
			out[n] = r
		}
	}
	return out
}

// intact says every destination of the fleet holds the promise, with its files as written.
func intact() map[string]bool {
	out := map[string]bool{}
	for _, n := range stageNames {
		out[n] = true
	}
	return out
}

func list(names string) []string {
	if names == "" {
		return nil
	}
	return strings.Split(names, " ")
}

func TestStage(t *testing.T) {
	type want struct {
		give      map[string]string
		now       string // space-separated, sorted
		waiting   string
		advanced  bool
		wrote     int
		restarted bool
		next      int
		notBefore time.Time
		complete  bool
		status    Status
		message   string
	}
	for _, tc := range []struct {
		name string
		in   StageInput
		want want
	}{
		{
			name: "a new promise is written everywhere at once, with no message",
			in: StageInput{Policy: Policy{Waves: stageWaves}, Status: Status{}, Revision: "r1",
				Scheduled: stageFleet(), Staged: false, Now: t0},
			want: want{
				give: revs("r1"), now: "c1 d1 d2 d3 p1 p2 p3 p4", wrote: -1, next: -1, complete: true,
				status: Status{Completed: "r1"},
			},
		},
		{
			name: "a change writes the first wave; state recorded no revisions (the promise had no rollout): all hold the prior revision",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1"}, Revision: "r2", Prior: "r1",
				Scheduled: stageFleet(), Revisions: map[string]string{}, Present: intact(), Staged: true, BaseKnown: true, Now: t0},
			want: want{
				give: revs("r1", "r2=c1"), now: "c1", waiting: "d1 d2 d3 p1 p2 p3 p4", advanced: true, wrote: 0, next: 1,
				notBefore: t0.Add(time.Hour), status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"This apply writes wave \"canary\" to: c1.\n" +
					"Waiting (they keep what they hold): d1, d2, d3, p1, p2, p3, p4.\n" +
					"Next wave: \"dev\", at an apply after min_wait has passed.",
			},
		},
		{
			name: "min_wait has not passed: nothing is written, and the plan says when the next wave may go",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(59 * time.Minute)},
			want: want{
				give: revs("r1", "r2=c1"), waiting: "d1 d2 d3 p1 p2 p3 p4", wrote: -1, next: 1, notBefore: t0.Add(time.Hour),
				status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"This apply writes nothing.\n" +
					"Waiting (they keep what they hold): d1, d2, d3, p1, p2, p3, p4.\n" +
					"Next wave: \"dev\", not before 2026-11-23T11:00:00Z (min_wait).",
			},
		},
		{
			name: "min_wait has passed: the dev wave goes, capped at two destinations",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(time.Hour)},
			want: want{
				give: revs("r1", "r2=c1,d1,d2"), now: "d1 d2", waiting: "d3 p1 p2 p3 p4", advanced: true, wrote: 1, next: 2,
				notBefore: t0.Add(2 * time.Hour), status: Status{Completed: "r1", Target: "r2", WavesDone: 2, LastWave: t0.Add(time.Hour)},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"This apply writes wave \"dev\" to: d1, d2.\n" +
					"Waiting (they keep what they hold): d3, p1, p2, p3, p4.\n" +
					"Next wave: \"prod-half\", at an apply after min_wait has passed.",
			},
		},
		{
			name: "max_percent: half of the four prod destinations, then the last wave takes the rest and completes",
			in: StageInput{Policy: Policy{Waves: stageWaves}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 2, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1,d1,d2"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(time.Hour)},
			want: want{
				give: revs("r1", "r2=c1,d1,d2,p1,p2"), now: "p1 p2", waiting: "d3 p3 p4", advanced: true, wrote: 2, next: 3,
				status: Status{Completed: "r1", Target: "r2", WavesDone: 3, LastWave: t0.Add(time.Hour)},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"This apply writes wave \"prod-half\" to: p1, p2.\n" +
					"Waiting (they keep what they hold): d3, p3, p4.\n" +
					"Next wave: \"rest\", at the next apply.",
			},
		},
		{
			name: "the last wave completes the rollout",
			in: StageInput{Policy: Policy{Waves: stageWaves}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 3, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r2", "r1=d3,p3,p4"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(time.Hour)},
			want: want{
				give: revs("r2"), now: "d3 p3 p4", advanced: true, wrote: 3, next: -1, complete: true,
				status: Status{Completed: "r2"},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"This apply writes wave \"rest\" to: d3, p3, p4. The rollout is then complete.",
			},
		},
		{
			name: "a revert to the completed revision during a rollout rolls back the waves done, in one apply",
			in: StageInput{Policy: Policy{Waves: stageWaves}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				Revision: "r1", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(time.Hour)},
			want: want{
				give: revs("r1"), now: "c1", advanced: true, wrote: 0, restarted: true, next: -1, complete: true,
				status: Status{Completed: "r1"},
				message: "Promise \"p\" rolls out revision r1. A rollout of another revision was in flight: this one starts again from the first wave.\n\n" +
					"This apply writes wave \"canary\" to: c1. The rollout is then complete.",
			},
		},
		{
			name: "paused before the first wave: nothing is written",
			in: StageInput{Policy: Policy{Waves: stageWaves, Paused: true}, Status: Status{Completed: "r1"}, Revision: "r2", Prior: "r1",
				Scheduled: stageFleet(), Revisions: revs("r1"), Present: intact(), Staged: true, BaseKnown: true, Now: t0},
			want: want{
				give: revs("r1"), waiting: "c1 d1 d2 d3 p1 p2 p3 p4", wrote: -1, next: 0,
				status: Status{Completed: "r1", Target: "r2"},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"This apply writes nothing.\n" +
					"Waiting (they keep what they hold): c1, d1, d2, d3, p1, p2, p3, p4.\n" +
					"The rollout is paused; wave \"canary\" goes when `paused` is false again.",
			},
		},
		{
			name: "a change during a rollout starts again from the first wave; the others keep what they hold",
			in: StageInput{Policy: Policy{Waves: stageWaves}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 2, LastWave: t0},
				Revision: "r3", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1,d1,d2"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(time.Minute)},
			want: want{
				give: revs("r1", "r2=d1,d2", "r3=c1"), now: "c1", waiting: "d1 d2 d3 p1 p2 p3 p4", advanced: true, wrote: 0, restarted: true, next: 1,
				status: Status{Completed: "r1", Target: "r3", WavesDone: 1, LastWave: t0.Add(time.Minute)},
				message: "Promise \"p\" rolls out revision r3 (the fleet held r1). A rollout of another revision was in flight: this one starts again from the first wave.\n\n" +
					"This apply writes wave \"canary\" to: c1.\n" +
					"Waiting (they keep what they hold): d1, d2, d3, p1, p2, p3, p4.\n" +
					"Next wave: \"dev\", at the next apply.",
			},
		},
		{
			name: "a destination that joins mid-rollout gets the revision that last completed",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet("p5"), Revisions: revs("r1", "r2=c1"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(10 * time.Minute)},
			want: want{
				give: revs("r1", "r2=c1", "r1=p5"), now: "p5", waiting: "d1 d2 d3 p1 p2 p3 p4 p5", wrote: -1, next: 1, notBefore: t0.Add(time.Hour),
				status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"New here, these get r1, the revision that last went everywhere: p5.\n" +
					"Waiting (they keep what they hold): d1, d2, d3, p1, p2, p3, p4, p5.\n" +
					"Next wave: \"dev\", not before 2026-11-23T11:00:00Z (min_wait).",
			},
		},
		{
			name: "a joiner gets the configured revision when the completed one's dependencies are not known",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet("p5"), Revisions: revs("r1", "r2=c1"), Present: intact(),
				Staged: true, BaseKnown: false, Now: t0.Add(10 * time.Minute)},
			want: want{
				// The step still counts p5 as waiting: what the plan records is the step's.
				give: revs("r1", "r2=c1,p5"), now: "p5", waiting: "d1 d2 d3 p1 p2 p3 p4 p5", wrote: -1, next: 1, notBefore: t0.Add(time.Hour),
				status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				message: "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
					"This apply writes revision r2 to: p5.\n" +
					"Waiting (they keep what they hold): d1, d2, d3, p1, p2, p3, p4, p5.\n" +
					"Next wave: \"dev\", not before 2026-11-23T11:00:00Z (min_wait).",
			},
		},
		{
			name: "an intermediate revision whose files are gone cannot be written again: that destination gets the completed one",
			in: StageInput{Policy: Policy{Waves: stageWaves, Paused: true}, Status: Status{Completed: "r1", Target: "r3", WavesDone: 1, LastWave: t0},
				Revision: "r3", Prior: "r3", Scheduled: stageFleet(), Revisions: revs("r1", "r3=c1", "r2=d1,d2"),
				Present: func() map[string]bool { m := intact(); m["d1"] = false; return m }(),
				Staged:  true, BaseKnown: true, Now: t0},
			want: want{
				give: revs("r1", "r3=c1", "r2=d2"), now: "d1", waiting: "d1 d2 d3 p1 p2 p3 p4", wrote: -1, next: 1,
				status: Status{Completed: "r1", Target: "r3", WavesDone: 1, LastWave: t0},
				message: "Promise \"p\" rolls out revision r3 (the fleet held r1).\n\n" +
					"New here, these get r1, the revision that last went everywhere: d1.\n" +
					"Waiting (they keep what they hold): d1, d2, d3, p1, p2, p3, p4.\n" +
					"The rollout is paused; wave \"dev\" goes when `paused` is false again.",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Stage(tc.in)
			w, st := tc.want, s.Step
			if !reflect.DeepEqual(s.Give, w.give) {
				t.Errorf("Give = %v, want %v", s.Give, w.give)
			}
			if !reflect.DeepEqual(st.Now, list(w.now)) || !reflect.DeepEqual(st.Waiting, list(w.waiting)) {
				t.Errorf("Now %v, Waiting %v; want %v, %v", st.Now, st.Waiting, list(w.now), list(w.waiting))
			}
			if st.Advanced != w.advanced || st.Wrote != w.wrote || st.Restarted != w.restarted || st.Next != w.next || st.Complete != w.complete {
				t.Errorf("advanced %v wrote %d restarted %v next %d complete %v; want %v %d %v %d %v",
					st.Advanced, st.Wrote, st.Restarted, st.Next, st.Complete, w.advanced, w.wrote, w.restarted, w.next, w.complete)
			}
			if !st.NotBefore.Equal(w.notBefore) || !reflect.DeepEqual(st.Status, w.status) {
				t.Errorf("NotBefore %v, Status %+v; want %v, %+v", st.NotBefore, st.Status, w.notBefore, w.status)
			}
			if s.Revision != tc.in.Revision || s.From != tc.in.Status.Completed {
				t.Errorf("Revision %q From %q", s.Revision, s.From)
			}
			if got := s.Message("p"); got != w.message {
				t.Errorf("Message:\n%s\nwant:\n%s", got, w.message)
			}
		})
	}
}

func TestSources(t *testing.T) {
	give := map[string]string{"c1": "r2", "d1": "r1", "d2": "rX"}
	if got, want := Sources(give, "r2", "r1"), map[string]Source{"d1": Base, "d2": Keep}; !reflect.DeepEqual(got, want) {
		t.Errorf("with the base known: %v, want %v", got, want)
	}
	if got, want := Sources(give, "r2", ""), map[string]Source{"d1": Keep, "d2": Keep}; !reflect.DeepEqual(got, want) {
		t.Errorf("without a base: %v, want %v", got, want)
	}
}

func TestStagingRevisions(t *testing.T) {
	s := Staging{Give: map[string]string{"c1": "r2", "d1": "r1"}}
	// m1 is misscheduled: not staged, it keeps the revision state gave it; m2 had none.
	got := s.Revisions([]string{"c1", "d1", "m1", "m2"}, map[string]string{"c1": "r1", "m1": "r0"})
	if want := map[string]string{"c1": "r2", "d1": "r1", "m1": "r0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Revisions = %v, want %v", got, want)
	}
}
