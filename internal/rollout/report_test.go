package rollout

import (
	"reflect"
	"testing"
	"time"
)

func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *Report
		want Status
	}{
		{"none recorded: the prior revision is everywhere", nil, Status{Completed: "r1"}},
		{"complete", &Report{Revision: "r2", Completed: "r2"}, Status{Completed: "r2"}},
		{"a wave written", &Report{Revision: "r2", Completed: "r1", WavesDone: 2, LastWaveAt: Stamp{Text: "2026-11-23T10:00:00Z"}},
			Status{Completed: "r1", Target: "r2", WavesDone: 2, LastWave: t0}},
		{"paused before the first wave", &Report{Revision: "r2", Completed: "r1"}, Status{Completed: "r1", Target: "r2"}},
		{"no completed revision recorded: the prior one", &Report{Revision: "r2"}, Status{Completed: "r1", Target: "r2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusOf(tc.r, "r1"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("StatusOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestStagingReport: what `rollout_status` says after each kind of plan, before and after the
// apply sets its times (at t1, with min_wait one hour).
func TestStagingReport(t *testing.T) {
	t1 := time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC)
	before := Report{LastWaveAt: Stamp{Text: "2026-11-23T10:00:00Z"}, CheckedAt: Stamp{Text: "2026-11-23T10:05:00Z"}}
	waves := map[string]string{"c1": "canary", "d1": "dev", "d2": "dev", "d3": "rest", "p1": "prod-half", "p2": "prod-half", "p3": "rest", "p4": "rest"}
	apply := Stamp{AtApply: true}
	for _, tc := range []struct {
		name          string
		in            StageInput
		plan, settled Report
	}{
		{
			name: "a wave written, min_wait set: the apply sets when it went, when the next may go, when it looked",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1"}, Revision: "r2", Prior: "r1",
				Scheduled: stageFleet(), Revisions: revs("r1"), Present: intact(), Staged: true, BaseKnown: true, Now: t0},
			plan: Report{Revision: "r2", Completed: "r1", WavesDone: 1, NextWave: "dev", HasNextWave: true,
				NextWaveNotBefore: apply, LastWaveAt: apply, CheckedAt: apply, Waiting: list("d1 d2 d3 p1 p2 p3 p4"), Waves: waves},
			settled: Report{Revision: "r2", Completed: "r1", WavesDone: 1, NextWave: "dev", HasNextWave: true,
				NextWaveNotBefore: Stamp{Text: "2026-11-23T13:30:00Z"}, LastWaveAt: Stamp{Text: "2026-11-23T12:30:00Z"},
				CheckedAt: Stamp{Text: "2026-11-23T12:30:00Z"}, Waiting: list("d1 d2 d3 p1 p2 p3 p4"), Waves: waves},
		},
		{
			name: "a wave written without min_wait: no time for the next",
			in: StageInput{Policy: Policy{Waves: stageWaves}, Status: Status{Completed: "r1"}, Revision: "r2", Prior: "r1",
				Scheduled: stageFleet(), Revisions: revs("r1"), Present: intact(), Staged: true, BaseKnown: true, Now: t0},
			plan: Report{Revision: "r2", Completed: "r1", WavesDone: 1, NextWave: "dev", HasNextWave: true,
				LastWaveAt: apply, CheckedAt: apply, Waiting: list("d1 d2 d3 p1 p2 p3 p4"), Waves: waves},
			settled: Report{Revision: "r2", Completed: "r1", WavesDone: 1, NextWave: "dev", HasNextWave: true,
				LastWaveAt: Stamp{Text: "2026-11-23T12:30:00Z"}, CheckedAt: Stamp{Text: "2026-11-23T12:30:00Z"},
				Waiting: list("d1 d2 d3 p1 p2 p3 p4"), Waves: waves},
		},
		{
			name: "held by min_wait: the plan knows when the next wave may go; only the time it looked is the apply's",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(time.Minute)},
			plan: Report{Revision: "r2", Completed: "r1", WavesDone: 1, NextWave: "dev", HasNextWave: true,
				NextWaveNotBefore: Stamp{Text: "2026-11-23T11:00:00Z"}, LastWaveAt: before.LastWaveAt, CheckedAt: apply,
				Waiting: list("d1 d2 d3 p1 p2 p3 p4"), Waves: waves},
			settled: Report{Revision: "r2", Completed: "r1", WavesDone: 1, NextWave: "dev", HasNextWave: true,
				NextWaveNotBefore: Stamp{Text: "2026-11-23T11:00:00Z"}, LastWaveAt: before.LastWaveAt,
				CheckedAt: Stamp{Text: "2026-11-23T12:30:00Z"}, Waiting: list("d1 d2 d3 p1 p2 p3 p4"), Waves: waves},
		},
		{
			name: "the last wave: complete, no next wave, the time it looked stays as it was",
			in: StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour}, Status: Status{Completed: "r1", Target: "r2", WavesDone: 3, LastWave: t0},
				Revision: "r2", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r2", "r1=d3,p3,p4"), Present: intact(),
				Staged: true, BaseKnown: true, Now: t0.Add(time.Hour)},
			plan: Report{Revision: "r2", Completed: "r2", LastWaveAt: apply, CheckedAt: before.CheckedAt, Waves: waves},
			settled: Report{Revision: "r2", Completed: "r2", LastWaveAt: Stamp{Text: "2026-11-23T12:30:00Z"},
				CheckedAt: before.CheckedAt, Waves: waves},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := Stage(tc.in).Report(before)
			if !reflect.DeepEqual(plan, tc.plan) {
				t.Errorf("Report =\n%+v\nwant\n%+v", plan, tc.plan)
			}
			if got := plan.Settle(time.Hour, t1); !reflect.DeepEqual(got, tc.settled) {
				t.Errorf("Settle =\n%+v\nwant\n%+v", got, tc.settled)
			}
		})
	}
}

func TestReportHold(t *testing.T) {
	planned := Report{Revision: "r2", Completed: "r1", WavesDone: 2, NextWave: "prod-half", HasNextWave: true,
		LastWaveAt: Stamp{Text: "2026-11-23T12:30:00Z"}, CheckedAt: Stamp{Text: "2026-11-23T12:30:00Z"},
		Waiting: list("d3 p1 p2 p3 p4")}
	for _, tc := range []struct {
		name   string
		prior  Status
		missed []string
		want   Report
	}{
		{"nothing missed: as planned", Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0}, nil, planned},
		{
			"a wave missed at d2: the waves done and their time stay as they were; d2 waits",
			Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: t0}, []string{"d2"},
			Report{Revision: "r2", Completed: "r1", WavesDone: 1, NextWave: "prod-half", HasNextWave: true,
				LastWaveAt: Stamp{Text: "2026-11-23T10:00:00Z"}, CheckedAt: Stamp{Text: "2026-11-23T12:30:00Z"},
				Waiting: list("d2 d3 p1 p2 p3 p4")},
		},
		{
			"the first wave of a new revision missed: no wave done, no time; a missed destination already waiting is listed once",
			Status{Completed: "r1"}, []string{"p1", "c1"},
			Report{Revision: "r2", Completed: "r1", NextWave: "prod-half", HasNextWave: true,
				CheckedAt: Stamp{Text: "2026-11-23T12:30:00Z"}, Waiting: list("c1 d3 p1 p2 p3 p4")},
		},
		{
			"a restarted rollout's first wave missed: the waves done of the other revision do not count",
			Status{Completed: "r0", Target: "r9", WavesDone: 3, LastWave: t0}, []string{"c1"},
			Report{Revision: "r2", Completed: "r0", NextWave: "prod-half", HasNextWave: true,
				CheckedAt: Stamp{Text: "2026-11-23T12:30:00Z"}, Waiting: list("c1 d3 p1 p2 p3 p4")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := planned.Hold(tc.prior, tc.missed); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Hold =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
	if !reflect.DeepEqual(planned.Waiting, list("d3 p1 p2 p3 p4")) {
		t.Errorf("Hold changed the report it was called on: waiting %v", planned.Waiting)
	}
}

func TestSettleRevisions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         Settling
		want       map[string]string
		wantMissed []string
	}{
		{
			name: "everything as planned: the plan's revisions; a misscheduled destination keeps state's",
			in: Settling{Revision: "r2", Prior: "r2", Given: map[string]string{"c1": "r2", "d1": "r1"}, Before: map[string]string{"c1": "r1", "d1": "r1", "m1": "r0"},
				Planned: []string{"c1", "d1", "m1"}, Written: map[string]bool{"c1": true, "d1": true, "m1": true}},
			want: map[string]string{"c1": "r2", "d1": "r1", "m1": "r0"},
		},
		{
			name: "the wave failed at c1: it keeps what it held and missed the wave",
			in: Settling{Revision: "r2", Prior: "r1", Given: map[string]string{"c1": "r2", "d1": "r1"}, Before: map[string]string{"c1": "r1", "d1": "r1"},
				Planned: []string{"c1", "d1"}, Written: map[string]bool{"c1": false, "d1": true}},
			want: map[string]string{"c1": "r1", "d1": "r1"}, wantMissed: []string{"c1"},
		},
		{
			name: "a failed write where state recorded no revision: the prior revision; one that already held the revision did not miss it",
			in: Settling{Revision: "r2", Prior: "r1", Given: map[string]string{"c1": "r2", "d1": "r2"}, Before: map[string]string{"d1": "r2"},
				Planned: []string{"c1", "d1"}, Written: map[string]bool{"c1": false, "d1": false}},
			want: map[string]string{"c1": "r1", "d1": "r2"}, wantMissed: []string{"c1"},
		},
		{
			name: "a destination new here whose write failed is not recorded, and missed the wave",
			in: Settling{Revision: "r2", Prior: "r2", Given: map[string]string{"c1": "r2", "p5": "r2", "p6": "r1"}, Before: map[string]string{"c1": "r2"},
				Planned: []string{"c1", "p5", "p6"}, Written: map[string]bool{"c1": true}},
			want: map[string]string{"c1": "r2"}, wantMissed: []string{"p5"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, missed := SettleRevisions(tc.in)
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(missed, tc.wantMissed) {
				t.Errorf("SettleRevisions = %v, missed %v; want %v, %v", got, missed, tc.want, tc.wantMissed)
			}
		})
	}
}

// TestWaveFailedSomewhere: the dev wave fails at d2. After the apply d1 holds the new revision
// and d2 the old; the rollout stays at one wave done, and the next apply writes the dev wave
// again, to d2 alone, before prod.
func TestWaveFailedSomewhere(t *testing.T) {
	t1 := t0.Add(2 * time.Hour)
	stateReport := Report{Revision: "r2", Completed: "r1", WavesDone: 1, LastWaveAt: Stamp{Text: "2026-11-23T10:00:00Z"}}
	in := StageInput{Policy: Policy{Waves: stageWaves}, Status: StatusOf(&stateReport, "r2"), Revision: "r2", Prior: "r2",
		Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1"), Present: intact(), Staged: true, BaseKnown: true, Now: t1}
	s := Stage(in)
	if got := s.Message("p"); got != "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n"+
		"This apply writes wave \"dev\" to: d1, d2.\n"+
		"Waiting (they keep what they hold): d3, p1, p2, p3, p4.\n"+
		"Next wave: \"prod-half\", at the next apply." {
		t.Fatalf("the plan of the dev wave says:\n%s", got)
	}
	written := map[string]bool{}
	for _, n := range stageNames {
		written[n] = n != "d2"
	}
	revisions, missed := SettleRevisions(Settling{Revision: "r2", Prior: "r2", Given: s.Give, Before: in.Revisions, Planned: stageNames, Written: written})
	if want := revs("r1", "r2=c1,d1"); !reflect.DeepEqual(revisions, want) {
		t.Fatalf("after the apply: %v, want %v", revisions, want)
	}
	if !reflect.DeepEqual(missed, []string{"d2"}) {
		t.Fatalf("missed %v, want [d2]", missed)
	}
	after := s.Report(stateReport).Settle(0, t1).Hold(StatusOf(&stateReport, "r2"), missed)
	if after.WavesDone != 1 || after.LastWaveAt.Text != "2026-11-23T10:00:00Z" || !reflect.DeepEqual(after.Waiting, list("d2 d3 p1 p2 p3 p4")) {
		t.Fatalf("rollout_status after the apply: %+v", after)
	}
	next := Stage(StageInput{Policy: in.Policy, Status: StatusOf(&after, "r2"), Revision: "r2", Prior: "r2",
		Scheduled: stageFleet(), Revisions: revisions, Present: intact(), Staged: true, BaseKnown: true, Now: t1.Add(time.Minute)})
	if got := next.Message("p"); got != "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n"+
		"This apply writes wave \"dev\" to: d2.\n"+
		"Waiting (they keep what they hold): d3, p1, p2, p3, p4.\n"+
		"Next wave: \"prod-half\", at the next apply." {
		t.Fatalf("the next plan says:\n%s", got)
	}
	if next.Step.Wrote != 1 || next.Step.Status.WavesDone != 2 || !reflect.DeepEqual(next.Give, revs("r1", "r2=c1,d1,d2")) {
		t.Fatalf("the next plan: wrote %d, waves done %d, gives %v", next.Step.Wrote, next.Step.Status.WavesDone, next.Give)
	}
}

func TestStatusOfFailed(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *Report
		want Status
	}{
		{"rolled back: no revision in flight while the failed one is configured",
			&Report{Revision: "r2", Completed: "r1", Failed: "r2"}, Status{Completed: "r1", Failed: "r2"}},
		{"a report of another revision keeps the failed one; the plan clears it",
			&Report{Revision: "r3", Completed: "r1", Failed: "r2"}, Status{Completed: "r1", Target: "r3", Failed: "r2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusOf(tc.r, "r1"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("StatusOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestReportHoldAfterImmediateRevert: an immediate revert whose write failed at c1 leaves c1
// waiting, and the next plan reverts it alone.
func TestReportHoldAfterImmediateRevert(t *testing.T) {
	prior := Status{Completed: "r1", Failed: "r2"}
	planned := Report{Revision: "r1", Completed: "r1", CheckedAt: Stamp{Text: "2026-11-27T12:00:00Z"}}
	got := planned.Hold(prior, []string{"c1"})
	want := Report{Revision: "r1", Completed: "r1", CheckedAt: Stamp{Text: "2026-11-27T12:00:00Z"}, Waiting: []string{"c1"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Hold =\n%+v\nwant\n%+v", got, want)
	}
	next := Stage(StageInput{Policy: Policy{Waves: gateWaves, Revert: RevertImmediate}, Status: StatusOf(&got, "r1"), Revision: "r1", Prior: "r1",
		Scheduled: gateFleet(), Revisions: map[string]string{"c1": "r2", "c2": "r1", "p1": "r1", "p2": "r1"}, Present: gateIntact(),
		Staged: true, BaseKnown: true, Now: g0})
	if w := map[string]string{"c1": "r1", "c2": "r1", "p1": "r1", "p2": "r1"}; !reflect.DeepEqual(next.Give, w) || !reflect.DeepEqual(next.Step.Now, []string{"c1"}) || !next.Step.Complete {
		t.Fatalf("next: gives %v now %v", next.Give, next.Step.Now)
	}
}
