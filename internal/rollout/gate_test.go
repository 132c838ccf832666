package rollout

import (
	"math/rand"
	"reflect"
	"testing"
	"time"
)

// The fleet of the gate tests: two canaries and two prod destinations, in two waves. Revision r2
// rolls out over r1; the canary wave went at g0.
var (
	gateWaves = []Wave{{Name: "canary", Selector: env("canary")}, {Name: "rest"}}
	g0        = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
)

func gateFleet() []Destination {
	d := func(name, env string) Destination {
		return Destination{Name: name, Labels: map[string]string{"env": env}}
	}
	return []Destination{d("c1", "canary"), d("c2", "canary"), d("p1", "prod"), d("p2", "prod")}
}

func gateIntact() map[string]bool {
	return map[string]bool{"c1": true, "c2": true, "p1": true, "p2": true}
}

// record is a fresh health record in state, from a run at the given time, that applied what it
// was given.
func record(state string, run time.Time) Health {
	return Health{Found: true, State: state, Fresh: true, LastRun: run, Applied: AppliedYes}
}

// gatePolicy: settle ten minutes, time out after two hours.
func gatePolicy(onFailure string, need int) Policy {
	return Policy{Waves: gateWaves, Gate: &Gate{
		States: []string{"healthy", "ready"}, MinHealthyPercent: need,
		Settle: 10 * time.Minute, Timeout: 2 * time.Hour, OnFailure: onFailure,
	}}
}

// canaryDone is the rollout after the canary wave: c1 and c2 hold r2.
var canaryDone = Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: g0}

func gateInput(policy Policy, now time.Time, health map[string]Health) StageInput {
	return StageInput{Policy: policy, Status: canaryDone, Revision: "r2", Prior: "r2", Scheduled: gateFleet(),
		Revisions: map[string]string{"c1": "r2", "c2": "r2", "p1": "r1", "p2": "r1"}, Present: gateIntact(),
		Staged: true, BaseKnown: true, Now: now, Health: health}
}

func TestStageGate(t *testing.T) {
	canariesHold := map[string]string{"c1": "r2", "c2": "r2", "p1": "r1", "p2": "r1"}
	all := func(rev string) map[string]string {
		return map[string]string{"c1": rev, "c2": rev, "p1": rev, "p2": rev}
	}
	const head = "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n"
	type want struct {
		give      map[string]string
		halt      Halt
		advanced  bool
		status    Status
		notBefore time.Time
		verdicts  []Verdict
		message   string
	}
	for _, tc := range []struct {
		name string
		in   StageInput
		want want
	}{
		{
			name: "no record: the gate holds, until the timeout",
			in:   gateInput(gatePolicy("pause", 100), g0.Add(30*time.Minute), nil),
			want: want{
				give: canariesHold, halt: HaltGate, status: canaryDone,
				verdicts: []Verdict{{"c1", false, "no record"}, {"c2", false, "no record"}},
				message: head + "Wave \"canary\" done; gate: 0 of 2 destinations pass (need 100%): c1 no record; c2 no record.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", when the gate passes, or the rollout stops at 2026-11-27T12:00:00Z (timeout).",
			},
		},
		{
			name: "fresh healthy records from after the settle: the next wave goes",
			in: gateInput(gatePolicy("pause", 100), g0.Add(30*time.Minute), map[string]Health{
				"c1": record("healthy", g0.Add(15*time.Minute)), "c2": record("ready", g0.Add(10*time.Minute)),
			}),
			want: want{
				give: all("r2"), advanced: true, status: Status{Completed: "r2"},
				verdicts: []Verdict{{"c1", true, "healthy"}, {"c2", true, "ready"}},
				message: head + "Wave \"canary\" done; gate: 2 of 2 destinations pass (need 100%): c1 healthy; c2 ready.\n\n" +
					"This apply writes wave \"rest\" to: p1, p2. The rollout is then complete.",
			},
		},
		{
			name: "every destination holding r2 is gated, whatever its wave: p1, relabelled into prod after the canary wave, has no record",
			in: func() StageInput {
				in := gateInput(gatePolicy("pause", 100), g0.Add(30*time.Minute), map[string]Health{
					"c1": record("healthy", g0.Add(15*time.Minute)), "c2": record("healthy", g0.Add(15*time.Minute)),
				})
				in.Revisions["p1"] = "r2"
				return in
			}(),
			want: want{
				give: map[string]string{"c1": "r2", "c2": "r2", "p1": "r2", "p2": "r1"}, halt: HaltGate, status: canaryDone,
				verdicts: []Verdict{{"c1", true, "healthy"}, {"c2", true, "healthy"}, {"p1", false, "no record"}},
				message: head + "Wave \"canary\" done; gate: 2 of 3 destinations pass (need 100%): c1 healthy; c2 healthy; p1 no record.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p2.\n" +
					"Next wave: \"rest\", when the gate passes, or the rollout stops at 2026-11-27T12:00:00Z (timeout).",
			},
		},
		{
			name: "both canaries relabelled into prod, one degraded: it is still judged, the gate holds",
			in: func() StageInput {
				in := gateInput(gatePolicy("pause", 100), g0.Add(30*time.Minute), map[string]Health{
					"c1": record("degraded", g0.Add(15*time.Minute)), "c2": record("healthy", g0.Add(15*time.Minute)),
				})
				in.Scheduled = []Destination{
					{Name: "c1", Labels: map[string]string{"env": "prod"}}, {Name: "c2", Labels: map[string]string{"env": "prod"}},
					{Name: "p1", Labels: map[string]string{"env": "prod"}}, {Name: "p2", Labels: map[string]string{"env": "prod"}},
				}
				return in
			}(),
			want: want{
				give: canariesHold, halt: HaltGate, status: canaryDone,
				verdicts: []Verdict{{"c1", false, "state degraded not in [healthy ready]"}, {"c2", true, "healthy"}},
				message: head + "Wave \"canary\" done; gate: 1 of 2 destinations pass (need 100%): c1 state degraded not in [healthy ready]; c2 healthy.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", when the gate passes, or the rollout stops at 2026-11-27T12:00:00Z (timeout).",
			},
		},
		{
			name: "both canaries drained (no longer scheduled): nothing to judge, the gate does not pass",
			in: func() StageInput {
				in := gateInput(gatePolicy("pause", 100), g0.Add(30*time.Minute), nil)
				in.Scheduled = gateFleet()[2:]
				return in
			}(),
			want: want{
				give: map[string]string{"p1": "r1", "p2": "r1"}, halt: HaltGate, status: canaryDone,
				message: head + "Wave \"canary\" done; gate: no scheduled destination holds revision r2, though the waves done wrote it (their destinations left the promise, " +
					"were drained or moved, or hold another revision): it is proven healthy nowhere, so the gate does not pass.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", when the gate passes, or the rollout stops at 2026-11-27T12:00:00Z (timeout). To go on, give a wave already done a destination again " +
					"(it gets the revision and the gate judges it), or change the dependencies.",
			},
		},
		{
			name: "both canaries drained, past the timeout, on_failure rollback: nothing to give back, r2 is recorded as failed",
			in: func() StageInput {
				in := gateInput(gatePolicy("rollback", 100), g0.Add(3*time.Hour), nil)
				in.Scheduled = gateFleet()[2:]
				return in
			}(),
			want: want{
				give: map[string]string{"p1": "r1", "p2": "r1"}, halt: HaltRolledBack, status: Status{Completed: "r1", Failed: "r2"},
				message: head + "Wave \"canary\" done; gate: no scheduled destination holds revision r2, though the waves done wrote it (their destinations left the promise, " +
					"were drained or moved, or hold another revision): it is proven healthy nowhere, so the gate does not pass.\n\n" +
					"Gate failed at 2026-11-27T12:00:00Z (timeout): no scheduled destination holds revision r2, so none gets r1 back.\n" +
					"Revision r2 is rolled back: nothing advances; changing the dependencies starts a new rollout.",
			},
		},
		{
			name: "both canaries moved (they hold nothing where they are now): the canary wave goes again to them, not the next wave",
			in: func() StageInput {
				in := gateInput(gatePolicy("pause", 100), g0.Add(30*time.Minute), nil)
				in.Present = map[string]bool{"p1": true, "p2": true}
				return in
			}(),
			want: want{
				give: canariesHold, halt: HaltGate, advanced: true,
				status: Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: g0.Add(30 * time.Minute)},
				message: head + "Wave \"canary\" done; gate: no scheduled destination holds revision r2, though the waves done wrote it (their destinations left the promise, " +
					"were drained or moved, or hold another revision): it is proven healthy nowhere, so the gate does not pass.\n\n" +
					"This apply writes wave \"canary\" again, to its destinations that wait: c1, c2; the gate judges them.\n" +
					"Waiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", when the gate passes, or the rollout stops at 2026-11-27T12:30:00Z (timeout).",
			},
		},
		{
			name: "min_healthy_percent 50: one of two passes",
			in: gateInput(gatePolicy("rollback", 50), g0.Add(3*time.Hour), map[string]Health{
				"c1": record("healthy", g0.Add(15*time.Minute)), "c2": record("degraded", g0.Add(15*time.Minute)),
			}),
			want: want{
				give: all("r2"), advanced: true, status: Status{Completed: "r2"},
				verdicts: []Verdict{{"c1", true, "healthy"}, {"c2", false, "state degraded not in [healthy ready]"}},
				message: head + "Wave \"canary\" done; gate: 1 of 2 destinations pass (need 50%): c1 healthy; c2 state degraded not in [healthy ready].\n\n" +
					"This apply writes wave \"rest\" to: p1, p2. The rollout is then complete.",
			},
		},
		{
			name: "the settle has not passed: the plan says when the records start to count",
			in:   gateInput(gatePolicy("rollback", 100), g0.Add(5*time.Minute), map[string]Health{"c1": record("healthy", g0.Add(time.Minute))}),
			want: want{
				give: canariesHold, halt: HaltSettling, status: canaryDone, notBefore: g0.Add(10 * time.Minute),
				verdicts: []Verdict{{"c1", false, "stale: last run 2026-11-27T10:01:00Z before the wave's write + settle (2026-11-27T10:10:00Z)"}, {"c2", false, "no record"}},
				message: head + "Wave \"canary\" done; gate: 0 of 2 destinations pass (need 100%): " +
					"c1 stale: last run 2026-11-27T10:01:00Z before the wave's write + settle (2026-11-27T10:10:00Z); c2 no record.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", when the gate passes, not before 2026-11-27T10:10:00Z (settle), or rolled back at 2026-11-27T12:00:00Z (timeout).",
			},
		},
		{
			name: "stale records: one ran before the settle ended, one is not fresh; without a timeout the gate holds",
			in: func() StageInput {
				in := gateInput(gatePolicy("pause", 100), g0.Add(5*time.Hour), map[string]Health{
					"c1": record("healthy", g0.Add(9*time.Minute)),
					"c2": {Found: true, State: "healthy", Fresh: false, LastRun: g0.Add(20 * time.Minute), Applied: AppliedYes},
				})
				in.Policy.Gate.Timeout = 0
				return in
			}(),
			want: want{
				give: canariesHold, halt: HaltGate, status: canaryDone,
				verdicts: []Verdict{
					{"c1", false, "stale: last run 2026-11-27T10:09:00Z before the wave's write + settle (2026-11-27T10:10:00Z)"},
					{"c2", false, "stale: last run 2026-11-27T10:20:00Z, older than max_age or than the destination's last write"},
				},
				message: head + "Wave \"canary\" done; gate: 0 of 2 destinations pass (need 100%): " +
					"c1 stale: last run 2026-11-27T10:09:00Z before the wave's write + settle (2026-11-27T10:10:00Z); c2 stale: last run 2026-11-27T10:20:00Z, older than max_age or than the destination's last write.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", when the gate passes.",
			},
		},
		{
			name: "a destination that did not apply its revision fails",
			in: gateInput(gatePolicy("pause", 100), g0.Add(time.Hour), map[string]Health{
				"c1": record("healthy", g0.Add(15*time.Minute)),
				"c2": {Found: true, State: "healthy", Fresh: true, LastRun: g0.Add(15 * time.Minute), Applied: AppliedNo, Reports: "0a1b2c3d4e5f"},
			}),
			want: want{
				give: canariesHold, halt: HaltGate, status: canaryDone,
				verdicts: []Verdict{{"c1", true, "healthy"}, {"c2", false, "not applied: reports 0a1b2c3d4e5f"}},
				message: head + "Wave \"canary\" done; gate: 1 of 2 destinations pass (need 100%): c1 healthy; c2 not applied: reports 0a1b2c3d4e5f.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", when the gate passes, or the rollout stops at 2026-11-27T12:00:00Z (timeout).",
			},
		},
		{
			name: "degraded at the timeout, on_failure pause: the rollout stops where it is",
			in: gateInput(gatePolicy("pause", 100), g0.Add(2*time.Hour), map[string]Health{
				"c1": record("healthy", g0.Add(15*time.Minute)), "c2": record("degraded", g0.Add(time.Hour)),
			}),
			want: want{
				give: canariesHold, halt: HaltGateFailed, status: canaryDone,
				verdicts: []Verdict{{"c1", true, "healthy"}, {"c2", false, "state degraded not in [healthy ready]"}},
				message: head + "Wave \"canary\" done; gate: 1 of 2 destinations pass (need 100%): c1 healthy; c2 state degraded not in [healthy ready].\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Gate failed at 2026-11-27T12:00:00Z (timeout): the rollout stops here; wave \"rest\" goes only if the gate passes, and changing the dependencies starts a new rollout.",
			},
		},
		{
			name: "degraded at the timeout, on_failure rollback: the canaries get r1 back, r2 is recorded as failed",
			in: gateInput(gatePolicy("rollback", 100), g0.Add(2*time.Hour), map[string]Health{
				"c1": record("healthy", g0.Add(15*time.Minute)), "c2": record("degraded", g0.Add(time.Hour)),
			}),
			want: want{
				give: all("r1"), halt: HaltRolledBack, status: Status{Completed: "r1", Failed: "r2"},
				verdicts: []Verdict{{"c1", true, "healthy"}, {"c2", false, "state degraded not in [healthy ready]"}},
				message: head + "Wave \"canary\" done; gate: 1 of 2 destinations pass (need 100%): c1 healthy; c2 state degraded not in [healthy ready].\n\n" +
					"Gate failed at 2026-11-27T12:00:00Z (timeout): c1, c2 get revision r1 back.\n" +
					"Revision r2 is rolled back: nothing advances; changing the dependencies starts a new rollout.",
			},
		},
		{
			name: "rollback without the completed revision's dependencies: it stops instead",
			in: func() StageInput {
				in := gateInput(gatePolicy("rollback", 100), g0.Add(2*time.Hour), nil)
				in.BaseKnown = false
				return in
			}(),
			want: want{
				give: canariesHold, halt: HaltGateFailed, status: canaryDone,
				verdicts: []Verdict{{"c1", false, "no record"}, {"c2", false, "no record"}},
				message: head + "Wave \"canary\" done; gate: 0 of 2 destinations pass (need 100%): c1 no record; c2 no record.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Gate failed at 2026-11-27T12:00:00Z (timeout): the rollout stops here; wave \"rest\" goes only if the gate passes, and changing the dependencies starts a new rollout. " +
					"It is not rolled back: the dependencies of r1 are not known.",
			},
		},
		{
			name: "paused comes first: a failed gate is not rolled back while paused",
			in: func() StageInput {
				in := gateInput(gatePolicy("rollback", 100), g0.Add(2*time.Hour), nil)
				in.Policy.Paused = true
				return in
			}(),
			want: want{
				give: canariesHold, halt: HaltPaused, status: canaryDone,
				verdicts: []Verdict{{"c1", false, "no record"}, {"c2", false, "no record"}},
				message: head + "Wave \"canary\" done; gate: 0 of 2 destinations pass (need 100%): c1 no record; c2 no record.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"The rollout is paused; wave \"rest\" goes when `paused` is false again.",
			},
		},
		{
			name: "a rollback passes the windows: outside them the failed canaries still get r1 back",
			in: func() StageInput {
				in := gateInput(gatePolicy("rollback", 100), g0.Add(2*time.Hour), nil)
				in.Policy.Windows = []Window{{Allow: false, Schedule: "0 0 * * *", Duration: 24 * time.Hour}}
				return in
			}(),
			want: want{
				give: all("r1"), halt: HaltRolledBack, status: Status{Completed: "r1", Failed: "r2"},
				verdicts: []Verdict{{"c1", false, "no record"}, {"c2", false, "no record"}},
				message: head + "Wave \"canary\" done; gate: 0 of 2 destinations pass (need 100%): c1 no record; c2 no record.\n\n" +
					"Gate failed at 2026-11-27T12:00:00Z (timeout): c1, c2 get revision r1 back.\n" +
					"Revision r2 is rolled back: nothing advances; changing the dependencies starts a new rollout.",
			},
		},
		{
			name: "the gate passes but min_wait has not: min_wait holds",
			in: func() StageInput {
				in := gateInput(gatePolicy("pause", 100), g0.Add(30*time.Minute), map[string]Health{
					"c1": record("healthy", g0.Add(15*time.Minute)), "c2": record("healthy", g0.Add(15*time.Minute)),
				})
				in.Policy.MinWait = time.Hour
				return in
			}(),
			want: want{
				give: canariesHold, halt: HaltMinWait, status: canaryDone, notBefore: g0.Add(time.Hour),
				verdicts: []Verdict{{"c1", true, "healthy"}, {"c2", true, "healthy"}},
				message: head + "Wave \"canary\" done; gate: 2 of 2 destinations pass (need 100%): c1 healthy; c2 healthy.\n\n" +
					"This apply writes nothing.\nWaiting (they keep what they hold): p1, p2.\n" +
					"Next wave: \"rest\", not before 2026-11-27T11:00:00Z (min_wait).",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Stage(tc.in)
			w, st := tc.want, s.Step
			if !reflect.DeepEqual(s.Give, w.give) {
				t.Errorf("Give = %v, want %v", s.Give, w.give)
			}
			if st.Halt != w.halt || st.Advanced != w.advanced || !st.NotBefore.Equal(w.notBefore) {
				t.Errorf("halt %d advanced %v not before %v; want %d %v %v", st.Halt, st.Advanced, st.NotBefore, w.halt, w.advanced, w.notBefore)
			}
			if !reflect.DeepEqual(st.Status, w.status) {
				t.Errorf("Status = %+v, want %+v", st.Status, w.status)
			}
			if st.Gate == nil || !reflect.DeepEqual(st.Gate.Verdicts, w.verdicts) || st.Gate.Empty != (w.verdicts == nil) {
				t.Errorf("gate = %+v, want verdicts %v", st.Gate, w.verdicts)
			}
			if got := s.Message("p"); got != w.message {
				t.Errorf("Message:\n%s\nwant:\n%s", got, w.message)
			}
		})
	}
}

// TestGateRollbackAndAfter: the apply that rolls back writes the completed revision's files to
// the canaries; the report records the failed revision; the plans after it hold, until the
// dependencies change.
func TestGateRollbackAndAfter(t *testing.T) {
	in := gateInput(gatePolicy("rollback", 100), g0.Add(2*time.Hour), nil)
	s := Stage(in)
	if got, want := Sources(s.Give, "r2", "r1"), map[string]Source{"c1": Base, "c2": Base, "p1": Base, "p2": Base}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Sources = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(s.Step.Now, []string{"c1", "c2"}) || !reflect.DeepEqual(s.Step.GaveBack, []string{"c1", "c2"}) || !s.Step.RolledBack {
		t.Fatalf("now %v gave back %v rolled back %v", s.Step.Now, s.Step.GaveBack, s.Step.RolledBack)
	}
	if !s.KeepsBase() {
		t.Fatal("a rolled back rollout still needs the completed revision's dependencies")
	}
	before := Report{Revision: "r2", Completed: "r1", WavesDone: 1, LastWaveAt: Stamp{Text: "2026-11-27T10:00:00Z"}, CheckedAt: Stamp{Text: "2026-11-27T11:00:00Z"}}
	report := s.Report(before).Settle(0, g0.Add(2*time.Hour))
	wantReport := Report{Revision: "r2", Completed: "r1", Failed: "r2", LastWaveAt: Stamp{Text: "2026-11-27T10:00:00Z"},
		CheckedAt: Stamp{Text: "2026-11-27T12:00:00Z"}, Waiting: []string{"c1", "c2", "p1", "p2"},
		Waves: map[string]string{"c1": "canary", "c2": "canary", "p1": "rest", "p2": "rest"}}
	if !reflect.DeepEqual(report, wantReport) {
		t.Fatalf("report =\n%+v\nwant\n%+v", report, wantReport)
	}
	status := StatusOf(&report, "r2")
	if want := (Status{Completed: "r1", Failed: "r2"}); status != want {
		t.Fatalf("StatusOf = %+v, want %+v", status, want)
	}
	r1 := map[string]string{"c1": "r1", "c2": "r1", "p1": "r1", "p2": "r1"}

	// The next plan, with the same configuration and healthy records: nothing advances.
	healthy := map[string]Health{"c1": record("healthy", g0.Add(3*time.Hour)), "c2": record("healthy", g0.Add(3*time.Hour))}
	next := Stage(StageInput{Policy: in.Policy, Status: status, Revision: "r2", Prior: "r2", Scheduled: gateFleet(), Revisions: r1,
		Present: gateIntact(), Staged: true, BaseKnown: true, Now: g0.Add(4 * time.Hour), Health: healthy})
	if !reflect.DeepEqual(next.Give, r1) || len(next.Step.Now) != 0 || next.Step.Advanced || next.Step.Halt != HaltRolledBack || next.Step.Status != status {
		t.Fatalf("after the rollback: %+v", next.Step)
	}
	if got, want := next.Message("p"), "Promise \"p\": revision r2 was rolled back after its gate failed; the fleet keeps r1.\n\n"+
		"This apply writes nothing.\n"+
		"Revision r2 is rolled back: nothing advances; changing the dependencies starts a new rollout."; got != want {
		t.Fatalf("Message:\n%s\nwant:\n%s", got, want)
	}
	// A settled rollback shows no change of its own: the report stays as state holds it.
	if got := next.Report(report); !reflect.DeepEqual(got, report) {
		t.Fatalf("the report after the rollback changes:\n%+v\nwas\n%+v", got, report)
	}

	// A canary whose rollback write failed still holds r2: it gets r1 again; a joiner gets r1.
	held := map[string]string{"c1": "r1", "c2": "r2", "p1": "r1", "p2": "r1"}
	fleet := append(gateFleet(), Destination{Name: "p3", Labels: map[string]string{"env": "prod"}})
	retry := Stage(StageInput{Policy: in.Policy, Status: status, Revision: "r2", Prior: "r2", Scheduled: fleet, Revisions: held,
		Present: gateIntact(), Staged: true, BaseKnown: true, Now: g0.Add(4 * time.Hour)})
	if want := map[string]string{"c1": "r1", "c2": "r1", "p1": "r1", "p2": "r1", "p3": "r1"}; !reflect.DeepEqual(retry.Give, want) {
		t.Fatalf("retry gives %v, want %v", retry.Give, want)
	}
	if got, want := retry.Message("p"), "Promise \"p\": revision r2 was rolled back after its gate failed; the fleet keeps r1.\n\n"+
		"This apply gives revision r1 back to: c2.\n\n"+
		"New here, these get r1, the revision that last went everywhere: p3.\n"+
		"Revision r2 is rolled back: nothing advances; changing the dependencies starts a new rollout."; got != want {
		t.Fatalf("Message:\n%s\nwant:\n%s", got, want)
	}

	// Another revision clears the failed one and rolls out from the first wave.
	r3 := Stage(StageInput{Policy: in.Policy, Status: status, Revision: "r3", Prior: "r2", Scheduled: gateFleet(), Revisions: r1,
		Present: gateIntact(), Staged: true, BaseKnown: true, Now: g0.Add(5 * time.Hour)})
	if want := (Status{Completed: "r1", Target: "r3", WavesDone: 1, LastWave: g0.Add(5 * time.Hour)}); r3.Step.Status != want || r3.Step.Restarted {
		t.Fatalf("r3: status %+v restarted %v, want %+v", r3.Step.Status, r3.Step.Restarted, want)
	}
	if want := map[string]string{"c1": "r3", "c2": "r3", "p1": "r1", "p2": "r1"}; !reflect.DeepEqual(r3.Give, want) {
		t.Fatalf("r3 gives %v, want %v", r3.Give, want)
	}
	if got := r3.Report(report); got.Failed != "" {
		t.Fatalf("r3's report keeps the failed revision %q", got.Failed)
	}

	// Back to r1, the revision everywhere: complete at once, nothing failed any more.
	back := Stage(StageInput{Policy: in.Policy, Status: status, Revision: "r1", Prior: "r2", Scheduled: gateFleet(), Revisions: r1,
		Present: gateIntact(), Staged: true, BaseKnown: true, Now: g0.Add(5 * time.Hour)})
	if !back.Step.Complete || back.Step.Status != (Status{Completed: "r1"}) || back.Message("p") != "" {
		t.Fatalf("back to r1: %+v, message %q", back.Step, back.Message("p"))
	}
}

// TestRevert: the configuration goes back to the completed revision while the canary and dev
// waves of r2 are written (c1 d1 d2 hold r2). Staged, the revert is a rollout of r1 from the
// first wave; immediate, every destination has r1 after this apply, whatever the windows and
// min_wait say.
func TestRevert(t *testing.T) {
	in := func(revert string) StageInput {
		return StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour, Revert: revert,
			Windows: []Window{{Allow: true, Schedule: "0 9 * * 1-5", Duration: 8 * time.Hour, TimeZone: "Europe/London"}}},
			Status:   Status{Completed: "r1", Target: "r2", WavesDone: 2, LastWave: t0.Add(time.Hour)},
			Revision: "r1", Prior: "r2", Scheduled: stageFleet(), Revisions: revs("r1", "r2=c1,d1,d2"), Present: intact(),
			Staged: true, BaseKnown: true, Now: t0.Add(90 * time.Minute)} // Monday 11:30 London: inside the window
	}
	staged := Stage(in("staged"))
	if !reflect.DeepEqual(staged.Give, revs("r1", "r2=d1,d2")) || staged.Step.Status != (Status{Completed: "r1", Target: "r1", WavesDone: 1, LastWave: t0.Add(90 * time.Minute)}) || staged.Step.Reverted {
		t.Fatalf("staged: gives %v, status %+v", staged.Give, staged.Step.Status)
	}
	immediate := Stage(in("immediate"))
	if !reflect.DeepEqual(immediate.Give, revs("r1")) || immediate.Step.Status != (Status{Completed: "r1"}) || !immediate.Step.Complete || !immediate.Step.Reverted {
		t.Fatalf("immediate: gives %v, status %+v", immediate.Give, immediate.Step.Status)
	}
	if got, want := immediate.Message("p"), "Promise \"p\" reverts to revision r1, the revision that last went everywhere, in one apply (revert is immediate): the rollout of r2 stops.\n\n"+
		"This apply writes revision r1 to: c1, d1, d2. The rollout is then complete."; got != want {
		t.Fatalf("Message:\n%s\nwant:\n%s", got, want)
	}
	// Outside the windows (Saturday), the immediate revert still goes; a staged one waits.
	saturday := in("immediate")
	saturday.Now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	if s := Stage(saturday); !reflect.DeepEqual(s.Give, revs("r1")) || !s.Step.Complete {
		t.Fatalf("immediate on Saturday: %v", s.Give)
	}
	saturday.Policy.Revert = ""
	if s := Stage(saturday); !reflect.DeepEqual(s.Give, revs("r1", "r2=c1,d1,d2")) || s.Step.Halt != HaltClosed {
		t.Fatalf("staged on Saturday: gives %v halt %d", s.Give, s.Step.Halt)
	}
	// Paused holds an immediate revert too.
	paused := in("immediate")
	paused.Policy.Paused = true
	if s := Stage(paused); !reflect.DeepEqual(s.Give, revs("r1", "r2=c1,d1,d2")) || s.Step.Reverted {
		t.Fatalf("paused: gives %v", s.Give)
	}
}

// TestGateNeverPassedOver: whatever the policy, the records and the time, a plan whose gate does
// not pass gives no destination the configured revision that did not hold it, and writes no
// wave.
func TestGateNeverPassedOver(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	states := []string{"healthy", "ready", "degraded", ""}
	fails := 0
	for i := 0; i < 3000; i++ {
		g := &Gate{MinHealthyPercent: rng.Intn(101), Settle: time.Duration(rng.Intn(60)) * time.Minute,
			Timeout: time.Duration(rng.Intn(4)) * time.Hour, OnFailure: []string{"", "pause", "rollback"}[rng.Intn(3)]}
		policy := Policy{Waves: stageWaves, Gate: g, MinWait: time.Duration(rng.Intn(3)) * 30 * time.Minute, Revert: []string{"", "immediate"}[rng.Intn(2)]}
		done := 1 + rng.Intn(3)
		revisions := revs("r1")
		for dest, w := range Assign(stageWaves, stageFleet()) {
			if w < done && rng.Intn(5) > 0 {
				revisions[dest] = "r2"
			}
		}
		health := map[string]Health{}
		for _, n := range stageNames {
			if rng.Intn(4) > 0 {
				health[n] = Health{Found: true, State: states[rng.Intn(len(states))], Fresh: rng.Intn(4) > 0,
					LastRun: t0.Add(time.Duration(rng.Intn(240)) * time.Minute), Applied: Applied(rng.Intn(3))}
			}
		}
		in := StageInput{Policy: policy, Status: Status{Completed: "r1", Target: "r2", WavesDone: done, LastWave: t0},
			Revision: "r2", Prior: "r2", Scheduled: stageFleet(), Revisions: revisions, Present: intact(), Staged: true, BaseKnown: true,
			Now: t0.Add(time.Duration(rng.Intn(300)) * time.Minute), Health: health}
		s := Stage(in)
		if s.Step.Gate == nil {
			t.Fatalf("case %d: no gate checked", i)
		}
		if s.Step.Gate.Passes() {
			continue
		}
		fails++
		if s.Step.Advanced && (!s.Step.Rewrote || !s.Step.Gate.Empty || s.Step.Wrote >= done) {
			t.Fatalf("case %d: a wave written past a failing gate: %+v", i, s.Step)
		}
		for dest, rev := range s.Give {
			// Only a wave already done goes again, when no destination holding r2 is left to judge.
			if rev == "r2" && revisions[dest] != "r2" && (!s.Step.Gate.Empty || s.Step.Wave[dest] >= done) {
				t.Fatalf("case %d: %s gets r2 past a failing gate", i, dest)
			}
		}
	}
	if fails < 1000 {
		t.Fatalf("only %d of the cases had a failing gate", fails)
	}
}
