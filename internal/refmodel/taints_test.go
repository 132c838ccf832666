package refmodel

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"testing"
)

// TestModelTolerates: Kubernetes' matching rule, case by case.
func TestModelTolerates(t *testing.T) {
	maint := modelTaint{key: "maintenance", value: "v1", effect: effNoExecute}
	tests := []struct {
		tol  modelToleration
		want bool
	}{
		{modelToleration{key: "maintenance", op: "Exists"}, true},
		{modelToleration{key: "maintenance", op: "Equal", value: "v1", effect: effNoExecute}, true},
		{modelToleration{key: "maintenance", op: "Equal", value: "v2", effect: effNoExecute}, false},
		{modelToleration{key: "maintenance", value: "v1"}, true}, // no operator: Equal, any effect
		{modelToleration{key: "maintenance"}, false},             // Equal to the empty value
		{modelToleration{key: "maintenance", op: "Exists", effect: effNoSchedule}, false},
		{modelToleration{op: "Exists"}, true},
		{modelToleration{op: "Exists", effect: effNoExecute}, true},
		{modelToleration{key: "team", op: "Exists"}, false},
	}
	for _, tt := range tests {
		if got := tt.tol.tolerates(maint); got != tt.want {
			t.Errorf("%s tolerates %s: got %v", tt.tol, maint, got)
		}
	}
	d := &modelDest{taints: []modelTaint{{key: "team", effect: effPreferNoSchedule}, {key: "maintenance", value: "v1", effect: effNoSchedule}}}
	if got := strongest(nil, d); got != effNoSchedule {
		t.Errorf("strongest untolerated: %q", got)
	}
	if got := strongest([]modelToleration{{key: "maintenance", op: "Exists"}}, d); got != effPreferNoSchedule {
		t.Errorf("strongest untolerated with maintenance tolerated: %q", got)
	}
	if drains(nil, d) {
		t.Errorf("no NoExecute taint, yet it drains")
	}
}

// TestModelRank: with equal weights the order is that of the first 8 bytes of SHA-256(key, 0,
// name), highest first (computed here apart from rankOrder); with weights 1, 1 and 4 the heavy
// one wins about two keys in three; raising one weight moves keys only to that destination.
func TestModelRank(t *testing.T) {
	dests := []*modelDest{{name: "d0"}, {name: "d1", weight: 1}, {name: "d2"}}
	names := func(ds []*modelDest) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.name)
		}
		return out
	}
	for i := range 50 {
		key := fmt.Sprintf("default/p0/r%d", i)
		want := []string{"d0", "d1", "d2"}
		sort.Slice(want, func(a, b int) bool {
			ha, hb := sha256.Sum256([]byte(key+"\x00"+want[a])), sha256.Sum256([]byte(key+"\x00"+want[b]))
			return binary.BigEndian.Uint64(ha[:8]) > binary.BigEndian.Uint64(hb[:8])
		})
		if got := names(rankOrder(key, dests)); !slices.Equal(got, want) {
			t.Fatalf("%s: %v, want %v", key, got, want)
		}
	}
	dests[2].weight = 4
	wins := map[string]int{}
	first := map[string]string{}
	for i := range 3000 {
		key := fmt.Sprintf("ns/p/r%d", i)
		first[key] = rankOrder(key, dests)[0].name
		wins[first[key]]++
	}
	if wins["d2"] < 1860 || wins["d2"] > 2140 {
		t.Errorf("weights 1, 1, 4: %v; want about 2000 for d2", wins)
	}
	dests[0].weight = 3
	for key, was := range first {
		if now := rankOrder(key, dests)[0].name; now != was && now != "d0" {
			t.Fatalf("%s moved from %s to %s when d0's weight went up", key, was, now)
		}
	}
}

// modelTaintWorld: modelTestWorld with both destinations matching p0 (env=dev), so that the
// request has two candidates.
func modelTaintWorld() (*modelWorld, *Model) {
	w := modelTestWorld(modeNested, "none")
	w.dests[1].labels = map[string]string{"env": "dev"}
	return w, newRefModel(w)
}

func TestModelDrain(t *testing.T) {
	w, m := modelTaintWorld()
	r := w.requests[0]
	first := w.requestPick(r)
	other := map[string]string{"d0": "d1", "d1": "d0"}[first]
	if p := m.Settle(map[string]string{"r0": first}); p != nil {
		t.Fatal(p)
	}
	if p := m.Settle(map[string]string{"r0": other}); len(p) != 1 {
		t.Errorf("a request that moves without a drain is a problem: %v", p)
	}
	m.choice["r0"] = []string{first}
	// Cordoned: nothing moves, and a wrong choice is still a problem.
	w.dest(first).taints = []modelTaint{{key: "maintenance", effect: effNoSchedule}}
	if p := m.Settle(map[string]string{"r0": first}); p != nil {
		t.Errorf("cordoned: %v", p)
	}
	// Drained: the request moves to the other; the promise (keep) stays there, misscheduled.
	w.dest(first).taints = append(w.dest(first).taints, modelTaint{key: "maintenance", value: "v2", effect: effNoExecute})
	if p := m.Settle(map[string]string{"r0": first}); len(p) != 1 {
		t.Errorf("a drained request that stays although another destination can take it: %v", p)
	}
	m.choice["r0"] = []string{first}
	if p := m.Settle(map[string]string{"r0": other}); p != nil {
		t.Fatalf("drained: %v", p)
	}
	if len(m.left) != 1 || m.left[0] != (leftMove{"r0", leftDest{from: first, to: other, drained: true}}) {
		t.Errorf("drained moves: %v", m.left)
	}
	firstLoc, otherLoc := m.applied[first].loc, m.applied[other].loc
	req := func(root string) string {
		return root + "/resources/default/p0/r0/instance-configure/5058f/r0-app.yaml"
	}
	dep := func(root string) string { return root + "/dependencies/p0/5058f/static/p0-dependencies.yaml" }
	fe := mustExpect(t, m, firstLoc)
	if fe.certain[req(firstLoc.root)] != nil || fe.certain[dep(firstLoc.root)] == nil {
		t.Errorf("the drained destination: %v", modelKeys(fe.certain))
	}
	if fe := mustExpect(t, m, otherLoc); fe.certain[req(otherLoc.root)] == nil {
		t.Errorf("where the request went: %v", modelKeys(fe.certain))
	}
	// The promise's dependencies change: the drained destination keeps the old bytes.
	w.promises[0].deps = 2
	m.Settle(map[string]string{"r0": other})
	if got := string(mustExpect(t, m, firstLoc).certain[dep(firstLoc.root)]); got != modelDepsCorpus[1].literal {
		t.Errorf("misscheduled on the drained destination: %q", got)
	}
	// on_unschedule = "delete": gone. The taint removed: the promise comes back, the request does not.
	w.promises[0].delete = true
	m.Settle(map[string]string{"r0": other})
	if fe := mustExpect(t, m, firstLoc); fe.certain[dep(firstLoc.root)] != nil {
		t.Errorf("on_unschedule delete on a drained destination: %v", modelKeys(fe.certain))
	}
	w.dest(first).taints = nil
	if p := m.Settle(map[string]string{"r0": other}); p != nil {
		t.Errorf("untainted: %v", p)
	}
	if fe := mustExpect(t, m, firstLoc); string(fe.certain[dep(firstLoc.root)]) != modelDepsCorpus[2].literal {
		t.Errorf("untainted: the promise is back: %v", modelKeys(fe.certain))
	}
	// Both drained, a toleration for one of them: the request goes there.
	w.dest(first).taints = []modelTaint{{key: "maintenance", value: "v1", effect: effNoExecute}}
	w.dest(other).taints = []modelTaint{{key: "team", effect: effNoExecute}}
	r.tolerations = []modelToleration{{key: "maintenance", op: "Equal", value: "v1", effect: effNoExecute}}
	if p := m.Settle(map[string]string{"r0": first}); p != nil {
		t.Errorf("drained to the tolerated one: %v", p)
	}
	// Nowhere else to go: it stays.
	r.tolerations = nil
	if p := m.Settle(map[string]string{"r0": first}); p != nil {
		t.Errorf("drained with nowhere to go: %v", p)
	}
	if p := m.Settle(map[string]string{"r0": ""}); len(p) != 1 {
		t.Errorf("a drained request with nowhere to go must stay: %v", p)
	}
}

func TestModelCordonedNewPlacements(t *testing.T) {
	w, m := modelTaintWorld()
	r := w.requests[0]
	first := w.requestPick(r)
	other := map[string]string{"d0": "d1", "d1": "d0"}[first]
	// The first choice cordoned before anything is placed: the promise goes only to the other,
	// and so does the request; PreferNoSchedule is taken only when nothing else is left.
	w.dest(first).taints = []modelTaint{{key: "team", value: "v1", effect: effNoSchedule}}
	if p := m.Settle(map[string]string{"r0": other}); p != nil {
		t.Fatal(p)
	}
	if m.placed["p0@"+first] != nil || m.placed["p0@"+other] == nil {
		t.Errorf("promise placements on a cordoned destination: %v", m.placed)
	}
	w.replaced = []string{"r:r0"}
	w.dest(first).taints = []modelTaint{{key: "team", effect: effPreferNoSchedule}}
	w.dest(other).taints = []modelTaint{{key: "team", effect: effNoSchedule}}
	if p := m.Settle(map[string]string{"r0": first}); p != nil {
		t.Errorf("PreferNoSchedule when nothing else is left: %v", p)
	}
	if m.placed["p0@"+first] == nil || m.placed["p0@"+other] == nil {
		t.Errorf("a promise goes to PreferNoSchedule, and stays on a cordoned destination it held: %v", m.placed)
	}
	// A tolerated NoSchedule taint counts for nothing.
	w.replaced = []string{"r:r0"}
	r.tolerations = []modelToleration{{key: "team", effect: effNoSchedule}}
	if p := m.Settle(map[string]string{"r0": other}); p != nil {
		t.Errorf("a tolerated NoSchedule taint: %v", p)
	}
}

// TestModelCollideAvoidsCordoned: "collide" pins new requests only on a destination they would
// be placed on: not one tainted NoSchedule or NoExecute (found by the acceptance run, seed 20:
// the new requests went nowhere and nothing collided).
func TestModelCollideAvoidsCordoned(t *testing.T) {
	w := modelTestWorld(modeNone, "none")
	d := w.dests[0]
	if len(w.collidePins(d)) == 0 {
		t.Fatal("no pin on an untainted destination")
	}
	for _, e := range []string{effNoSchedule, effNoExecute} {
		d.taints = []modelTaint{{key: "team", effect: e}}
		if pins := w.collidePins(d); len(pins) != 0 {
			t.Errorf("%s: pins %v", e, pins)
		}
	}
	d.taints = []modelTaint{{key: "team", effect: effPreferNoSchedule}}
	if len(w.collidePins(d)) == 0 {
		t.Error("no pin on a destination tainted PreferNoSchedule, the only candidate")
	}
}

// TestModelDrainProblems: after a failed apply, a drained request must be whole where it was or
// whole where it goes.
func TestModelDrainProblems(t *testing.T) {
	w, m := modelTaintWorld()
	first := w.requestPick(w.requests[0])
	other := map[string]string{"d0": "d1", "d1": "d0"}[first]
	m.Settle(map[string]string{"r0": first})
	before := m.RequestHoldings()
	w.dest(first).taints = []modelTaint{{key: "maintenance", effect: effNoExecute}}
	if p := m.Settle(map[string]string{"r0": other}); p != nil {
		t.Fatal(p)
	}
	was, now := before["r0"][first], m.RequestHoldings()["r0"][other]
	if len(was.files) == 0 || len(now.files) == 0 {
		t.Fatalf("holdings before %v, after %v", was, now)
	}
	snap := func(hs ...holding) [2]map[string][]byte {
		out := [2]map[string][]byte{{}, {}}
		for _, h := range hs {
			for p, b := range h.files {
				out[h.store][p] = b
			}
		}
		return out
	}
	for what, s := range map[string][2]map[string][]byte{"old whole": snap(was), "new whole": snap(now), "both": snap(was, now)} {
		if p := m.DrainProblems(before, s); p != nil {
			t.Errorf("%s: %v", what, p)
		}
	}
	if p := m.DrainProblems(before, snap()); len(p) != 1 {
		t.Errorf("in neither place: %v", p)
	}
}
