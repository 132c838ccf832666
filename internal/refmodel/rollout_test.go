package refmodel

import (
	"fmt"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------------------------
// Unit tests of the rollout model, without servers.

// rolloutTestWorld: five destinations on store 0 (nestedByMetadata), labelled env=dev (d0, d1) or
// env=prod (d2, d3, d4); promise p0 on all of them with waves dev, then prod two at a time.
func rolloutTestWorld() *modelWorld {
	w := &modelWorld{kind: "bucket", stores: []*modelStore{{bucket: 0, secret: "s"}, {bucket: 1, secret: "s"}, {bucket: 0, secret: "s"}}}
	for i, env := range []string{"dev", "dev", "prod", "prod", "prod"} {
		w.dests = append(w.dests, &modelDest{name: fmt.Sprintf("d%d", i), present: true, path: fmt.Sprintf("d%d", i),
			labels: map[string]string{"env": env}, mode: modeNested, agg: "aggregated.yaml", cleanup: "none"})
	}
	w.promises = []*modelPromise{{name: "p0", present: true, deps: 1, rollout: &modelRollout{waves: []modelWave{
		{name: "dev", sel: modelSelector{{"env": "dev"}}},
		{name: "prod", sel: modelSelector{{"env": "prod"}}, maxDests: 2},
		{name: "rest"},
	}}}}
	return w
}

// holds reads which corpus entry each destination's dependencies file holds ("-" none).
func rolloutHolds(t *testing.T, m *Model) string {
	t.Helper()
	var out []string
	for _, d := range m.w.dests {
		if !d.present {
			out = append(out, "-")
			continue
		}
		loc := m.w.loc(d)
		fe := mustExpect(t, m, loc)
		got := "-"
		for i, y := range modelDepsCorpus {
			if b, ok := fe.certain[loc.root+"/dependencies/p0/5058f/static/p0-dependencies.yaml"]; ok && string(b) == y.literal {
				got = fmt.Sprint(i)
			}
		}
		out = append(out, got)
	}
	return strings.Join(out, " ")
}

func TestModelRollout(t *testing.T) {
	w := rolloutTestWorld()
	m := newRefModel(w)
	p := w.promises[0]
	steps := []struct {
		do       func()
		want     string
		inFlight bool
	}{
		{func() {}, "1 1 1 1 1", false},                         // created: everywhere at once
		{func() { p.deps = 2 }, "2 2 1 1 1", true},              // wave dev
		{func() {}, "2 2 2 2 1", true},                          // wave prod: two of three
		{func() { p.rollout.paused = true }, "2 2 2 2 1", true}, // paused: nothing
		{func() { p.deps = 3 }, "2 2 2 2 1", true},              // restarts, paused
		{func() { w.dests[1].present = false }, "2 - 2 2 1", true},
		{func() { w.dests[1].present = true }, "2 1 2 2 1", true}, // d1 joins: the completed revision
		{func() { p.rollout.paused = false }, "3 3 2 2 1", true},  // wave dev again
		{func() { w.dests[2].labels["env"], p.rollout.paused = "dev", true }, "3 3 2 2 1", true},
		{func() { p.rollout.paused = false }, "3 3 3 3 3", false}, // d2, in dev (done), goes with prod
		{func() { w.dests[2].labels["env"], p.deps = "prod", 4 }, "4 4 3 3 3", true},
		{func() { w.dests[3].store = 1 }, "4 4 4 4 3", true}, // moved d3 gets 3, then its wave
		{func() {}, "4 4 4 4 4", false},                      // d4 in the last wave: it takes what no wave took
		{func() { p.deps = 5 }, "5 5 4 4 4", true},
		{func() { w.dests[4].store = 1 }, "5 5 5 5 4", true},
		{func() {}, "5 5 5 5 5", false},
		{func() { p.deps, p.rollout.paused = 1, true }, "5 5 5 5 5", true},
		{func() { w.dests[0].store = 1 }, "5 5 5 5 5", true}, // moved, paused: the completed revision, 5 again
		{func() { p.deps = 2; p.rollout = nil }, "2 2 2 2 2", false},
	}
	for i, s := range steps {
		s.do()
		m.Settle(map[string]string{})
		if got := rolloutHolds(t, m); got != s.want || (len(m.InFlight()) > 0) != s.inFlight {
			t.Fatalf("step %d: holds %s, in flight %v; want %s, %v (%s)", i, got, m.InFlight(), s.want, s.inFlight, m.RolloutText())
		}
	}
}

func TestModelAssignWaves(t *testing.T) {
	var dests []*modelDest
	for i := range 7 {
		dests = append(dests, &modelDest{name: fmt.Sprintf("d%d", 6-i), labels: map[string]string{"env": map[bool]string{true: "dev", false: "prod"}[i%2 == 0]}})
	}
	// dev: d0 d2 d4 d6; prod: d1 d3 d5.
	got := assignWaves([]modelWave{
		{name: "a", sel: modelSelector{{"env": "dev"}}, maxPct: 50},
		{name: "b", sel: modelSelector{{"env": "prod"}}, maxDests: 1},
		{name: "c", sel: modelSelector{{"env": "dev"}}, maxPct: 34},
		{name: "d", sel: modelSelector{{"env": "none"}}},
	}, dests)
	want := map[string]int{"d0": 0, "d2": 0, "d1": 1, "d4": 2, "d3": 3, "d5": 3, "d6": 3}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// waitingWithOwn: e is a promise's files on a destination that holds what neither the
// configuration nor the last completed rollout gave it: the next apply may keep them untouched
