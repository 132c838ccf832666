package refmodel

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// gateTestWorld: three destinations on store 0 (nestedByMetadata) and the gated promise pg on
// all of them with dependencies #1, failing by onFailure.
func gateTestWorld(onFailure string) *modelWorld {
	w := &modelWorld{kind: "bucket", stores: []*modelStore{{bucket: 0, secret: "s"}, {bucket: 1, secret: "s"}, {bucket: 0, secret: "s"}}}
	for i := range 3 {
		w.dests = append(w.dests, &modelDest{name: fmt.Sprintf("d%d", i), present: true, path: fmt.Sprintf("d%d", i),
			mode: modeNested, agg: "aggregated.yaml", cleanup: "none"})
	}
	p := gatedPromise(rand.New(rand.NewPCG(1, 2)))
	p.deps, p.rollout.gate.onFailure = 1, onFailure
	w.promises = []*modelPromise{p}
	return w
}

// gateHolds reads which corpus entry each destination's pg dependencies file holds.
func gateHolds(t *testing.T, m *Model) string {
	t.Helper()
	var out []string
	for _, d := range m.w.dests {
		loc := m.w.loc(d)
		got := "-"
		for i, y := range modelDepsCorpus {
			if b, ok := mustExpect(t, m, loc).certain[loc.root+"/dependencies/pg/5058f/static/pg-dependencies.yaml"]; ok && string(b) == y.literal {
				got = fmt.Sprint(i)
			}
		}
		out = append(out, got)
	}
	return strings.Join(out, " ")
}

// TestModelGate: the canary (d0) gets a new revision first; the gate holds the rest while d0 has
// no record, a degraded one, or a healthy one from before settle; a healthy one after settle
// lets the rest go. Past the timeout, "rollback" gives d0 the completed revision back (and
// nothing is in flight while the failed revision stays configured), "pause" stops where it is.
func TestModelGate(t *testing.T) {
	type step struct {
		do       func(m *Model, p *modelPromise)
		want     string
		inFlight bool
		verdict  string
	}
	// at sets the clock to the last wave's write + d; record gives d0 a record made then.
	at := func(d time.Duration) func(m *Model, p *modelPromise) {
		return func(m *Model, p *modelPromise) { m.now = m.rollouts["pg"].lastWave.Add(d) }
	}
	record := func(state string, run, now time.Duration) func(m *Model, p *modelPromise) {
		return func(m *Model, p *modelPromise) {
			m.records["d0"] = modelRecord{state: state, lastRun: m.rollouts["pg"].lastWave.Add(run)}
			at(now)(m, p)
		}
	}
	clock := func(d time.Duration) func(m *Model, p *modelPromise) {
		return func(m *Model, p *modelPromise) { m.now = m.now.Add(d) }
	}
	common := []step{
		{func(*Model, *modelPromise) {}, "1 1 1", false, ""},
		{func(_ *Model, p *modelPromise) { p.deps = 2 }, "2 1 1", true, ""},         // the canary wave
		{at(time.Minute), "2 1 1", true, "pg held"},                                 // no record
		{record("healthy", 4*time.Minute, 8*time.Minute), "2 1 1", true, "pg held"}, // made before settle
		{record("healthy", 6*time.Minute, 9*time.Minute), "2 2 2", false, "pg passed"},
		{func(_ *Model, p *modelPromise) { p.deps = 3 }, "3 2 2", true, ""},         // the next canary wave
		{record("healthy", -time.Minute, 10*time.Minute), "3 2 2", true, "pg held"}, // made before this wave
		{record("degraded", 20*time.Minute, 30*time.Minute), "3 2 2", true, "pg held"},
		{at(59 * time.Minute), "3 2 2", true, "pg held"}, // the hour is not up
	}
	for _, tc := range []struct {
		onFailure string
		last      []step
	}{
		{"rollback", []step{
			{at(time.Hour), "2 2 2", false, "pg rolled back"},
			{clock(time.Hour), "2 2 2", false, ""}, // the failed revision stays configured: nothing to do
			{func(_ *Model, p *modelPromise) { p.deps = 4 }, "4 2 2", true, ""},
		}},
		{"pause", []step{
			{at(time.Hour), "3 2 2", true, "pg failed, paused"},
			{func(_ *Model, p *modelPromise) { p.deps = 4 }, "4 2 2", true, ""},
		}},
	} {
		t.Run(tc.onFailure, func(t *testing.T) {
			w := gateTestWorld(tc.onFailure)
			m := newRefModel(w)
			p := w.promises[0]
			steps := append(common[:len(common):len(common)], tc.last...)
			for i, s := range steps {
				s.do(m, p)
				m.Settle(map[string]string{})
				verdict := strings.Join(m.GateVerdicts(), ", ")
				if got := gateHolds(t, m); got != s.want || (len(m.InFlight()) > 0) != s.inFlight || verdict != s.verdict {
					t.Fatalf("step %d: holds %s, in flight %v, gate %q; want %s, %v, %q (%s)", i, got, m.InFlight(), verdict, s.want, s.inFlight, s.verdict, m.RolloutText())
				}
			}
		})
	}
}

// TestModelGateReplaceAndImport: a replacement or an import of pg reads its rollout back from
// the stores (gate.go, "Replace and import"): mid-rollout the gate holds, its records and timeout
// counting from that apply; a rollback is kept when the canary's record is degraded and starts
// again from the canary when it has none.
func TestModelGateReplaceAndImport(t *testing.T) {
	type step struct {
		do       func(m *Model, p *modelPromise)
		want     string
		inFlight bool
		verdict  string
	}
	at := func(d time.Duration) func(m *Model, p *modelPromise) {
		return func(m *Model, p *modelPromise) { m.now = m.rollouts["pg"].lastWave.Add(d) }
	}
	record := func(state string, run, now time.Duration) func(m *Model, p *modelPromise) {
		return func(m *Model, p *modelPromise) {
			m.records["d0"] = modelRecord{state: state, lastRun: m.rollouts["pg"].lastWave.Add(run)}
			at(now)(m, p)
		}
	}
	readBack := func(how string, then func(m *Model, p *modelPromise)) func(m *Model, p *modelPromise) {
		return func(m *Model, p *modelPromise) {
			then(m, p)
			if how == "replace" {
				m.w.replaced = []string{"p:pg"}
			} else {
				m.w.reimported = []string{"p:pg"}
			}
		}
	}
	for _, how := range []string{"replace", "import"} {
		for _, tc := range []struct {
			onFailure string
			steps     []step
		}{
			{"pause", []step{
				{func(*Model, *modelPromise) {}, "1 1 1", false, ""},
				{func(_ *Model, p *modelPromise) { p.deps = 2 }, "2 1 1", true, ""},
				// A healthy record after settle, but made before the replacement: held.
				{readBack(how, record("healthy", 6*time.Minute, 7*time.Minute)), "2 1 1", true, "pg held"},
				{record("healthy", 6*time.Minute, 7*time.Minute), "2 2 2", false, "pg passed"},
				{func(_ *Model, p *modelPromise) { p.deps = 3 }, "3 2 2", true, ""},
				{record("degraded", 10*time.Minute, time.Hour), "3 2 2", true, "pg failed, paused"},
				// Failed, paused: held again, its timeout counted from the replacement.
				{readBack(how, at(time.Hour+time.Minute)), "3 2 2", true, "pg held"},
				{at(59 * time.Minute), "3 2 2", true, "pg held"},
				{at(time.Hour), "3 2 2", true, "pg failed, paused"},
			}},
			{"rollback", []step{
				{func(*Model, *modelPromise) {}, "1 1 1", false, ""},
				{func(_ *Model, p *modelPromise) { p.deps = 2 }, "2 1 1", true, ""},
				{record("degraded", 10*time.Minute, time.Hour), "1 1 1", false, "pg rolled back"},
				// The canary's record is degraded: the rollback is recovered, nothing written.
				{readBack(how, func(*Model, *modelPromise) {}), "1 1 1", false, ""},
				// No record: a change not started yet, the canary goes at once.
				{readBack(how, func(m *Model, _ *modelPromise) { delete(m.records, "d0") }), "2 1 1", true, ""},
			}},
		} {
			t.Run(how+"/"+tc.onFailure, func(t *testing.T) {
				w := gateTestWorld(tc.onFailure)
				m := newRefModel(w)
				p := w.promises[0]
				for i, s := range tc.steps {
					s.do(m, p)
					m.Settle(map[string]string{})
					verdict := strings.Join(m.GateVerdicts(), ", ")
					if got := gateHolds(t, m); got != s.want || (len(m.InFlight()) > 0) != s.inFlight || verdict != s.verdict {
						t.Fatalf("step %d: holds %s, in flight %v, gate %q; want %s, %v, %q (%s)", i, got, m.InFlight(), verdict, s.want, s.inFlight, s.verdict, m.RolloutText())
					}
				}
			})
		}
	}
}
