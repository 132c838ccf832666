package refmodel

import (
	"bytes"
	"maps"
	"slices"
	"testing"
)

// modelZoneWorld: four destinations in nestedByMetadata, in their own folders of store 0; d1, d2
// and d3 match promise p0 (env=dev), d0 does not. Zones: d2 and d3 in a, d1 in b, d0 none. For
// the key "default/p0/r0" the rendezvous order of equal weights is h's, highest first, worked out
// apart from the model (SHA-256 of "default/p0/r0\x00<name>", first 8 bytes):
//
//	d2 0xfb057f0950011de5 > d3 0xf03e43e4ed46b04a > d1 0xcfdb604f3587d47f > d0 0x5c6fcbb8be77f359
func modelZoneWorld() (*modelWorld, *Model) {
	w := modelTestWorld(modeNested, "none")
	dest := func(name, env, zone string) *modelDest {
		d := &modelDest{name: name, present: true, path: name, labels: map[string]string{"env": env}, mode: modeNested, agg: "aggregated.yaml", cleanup: "none"}
		if zone != "" {
			d.labels[modelZoneKey] = zone
		}
		return d
	}
	w.dests = []*modelDest{dest("d0", "prod", ""), dest("d1", "dev", "b"), dest("d2", "dev", "a"), dest("d3", "dev", "a")}
	return w, newRefModel(w)
}

func TestModelReplicasOrder(t *testing.T) {
	w, _ := modelZoneWorld()
	ranked := func() []string {
		var out []string
		for _, d := range rankOrder("default/p0/r0", w.dests) {
			out = append(out, d.name)
		}
		return out
	}
	if got := ranked(); !slices.Equal(got, []string{"d2", "d3", "d1", "d0"}) {
		t.Fatalf("the worked-out order is d2 d3 d1 d0, the model ranks %v", got)
	}
}

// TestModelReplicasSpread: zones a, a, b with replicas = 2 take the better a and the b with
// spread, the two best without; raising adds and moves nothing; lowering keeps the spread order.
func TestModelReplicasSpread(t *testing.T) {
	w, m := modelZoneWorld()
	r := w.requests[0]
	r.replicas = 2
	if got := w.placeRequest(r, nil).set; !slices.Equal(got, []string{"d2", "d3"}) {
		t.Errorf("replicas 2 without spread: %v, want the two best, d2 and d3", got)
	}
	r.spread = true
	if got := w.placeRequest(r, nil).set; !slices.Equal(got, []string{"d2", "d1"}) {
		t.Errorf("replicas 2 with spread: %v, want the better a (d2) and the b (d1)", got)
	}
	if p := m.SettleAll(map[string][]string{"r0": {"d2", "d1"}}); p != nil {
		t.Fatal(p)
	}
	file := func(d string) string { return d + "/resources/default/p0/r0/instance-configure/5058f/r0-app.yaml" }
	holds := func(d string) bool {
		_, ok := mustExpect(t, m, modelLoc{0, d}).certain[file(d)]
		return ok
	}
	for d, want := range map[string]bool{"d0": false, "d1": true, "d2": true, "d3": false} {
		if holds(d) != want {
			t.Errorf("on d2, d1: %s holds the request: %v, want %v", d, !want, want)
		}
	}
	// The state's order is the provider's: another order of the same set is a problem.
	m.choice["r0"] = []string{"d2", "d1"}
	if p := m.SettleAll(map[string][]string{"r0": {"d1", "d2"}}); len(p) != 1 {
		t.Errorf("the set in another order: %v", p)
	}
	m.choice["r0"] = []string{"d2", "d1"}

	// Raising to 3 adds d3 after the two it is on; nothing else in any folder changes.
	was := map[string]folderExpect{"d1": mustExpect(t, m, modelLoc{0, "d1"}), "d2": mustExpect(t, m, modelLoc{0, "d2"})}
	r.replicas = 3
	if p := m.SettleAll(map[string][]string{"r0": {"d2", "d1", "d3"}}); p != nil {
		t.Fatal(p)
	}
	for _, d := range []string{"d1", "d2"} {
		if fe := mustExpect(t, m, modelLoc{0, d}); !maps.EqualFunc(fe.certain, was[d].certain, bytes.Equal) || len(fe.maybe) != 0 {
			t.Errorf("after raising, %s changed: %v, was %v", d, modelKeys(fe.certain), modelKeys(was[d].certain))
		}
	}
	if !holds("d3") {
		t.Errorf("after raising, d3 does not hold the request")
	}

	// Lowering to 2 with spread keeps the best of each domain, d2 (a) and d1 (b), although d3
	// ranks above d1; d3's files go.
	r.replicas = 2
	if got := w.placeRequest(r, m.choice["r0"]); !slices.Equal(got.set, []string{"d2", "d1"}) || len(got.left) != 1 || got.left[0] != (leftDest{from: "d3"}) {
		t.Errorf("lowered to 2 with spread: %v, leaving %v; want d2, d1, leaving d3", got.set, got.left)
	}
	r.spread = false
	if got := w.placeRequest(r, m.choice["r0"]).set; !slices.Equal(got, []string{"d2", "d3"}) {
		t.Errorf("lowered to 2 without spread: %v, want the two best, d2 and d3 (in the order it is on them)", got)
	}
	r.spread = true
	if p := m.SettleAll(map[string][]string{"r0": {"d2", "d1"}}); p != nil {
		t.Fatal(p)
	}
	if holds("d3") || !holds("d1") || !holds("d2") {
		t.Errorf("lowered to 2: d1 %v, d2 %v, d3 %v", holds("d1"), holds("d2"), holds("d3"))
	}
	if got := m.LoweredReplicas(); !slices.Equal(got, []string{"r0 left d3"}) {
		t.Errorf("lowered: %v", got)
	}
	// Null counts as one: the best stays.
	r.replicas = 0
	if got := w.placeRequest(r, m.choice["r0"]).set; !slices.Equal(got, []string{"d2"}) {
		t.Errorf("replicas null: %v, want d2", got)
	}
}

// TestModelReplicasDomains: destinations without the zone label are one domain together, and a
// staying destination covers its domain.
func TestModelReplicasDomains(t *testing.T) {
	w, _ := modelZoneWorld()
	r := w.requests[0]
	r.replicas, r.spread = 3, true
	w.dests[0].labels["env"] = "dev" // d0 (no zone) matches too
	if got := w.placeRequest(r, nil).set; !slices.Equal(got, []string{"d2", "d1", "d0"}) {
		t.Errorf("a, a, b and none, replicas 3 with spread: %v, want d2 (a), d1 (b), d0 (none), best first", got)
	}
	delete(w.dests[1].labels, modelZoneKey) // d1 joins d0's domain: none
	if got := w.placeRequest(r, nil).set; !slices.Equal(got, []string{"d2", "d3", "d1"}) {
		t.Errorf("a, a, none, none: %v, want d2 (a), d1 (none), then d3 by rank, listed best first: d2, d3, d1", got)
	}
	r.replicas = 2
	if got := w.placeRequest(r, nil).set; !slices.Equal(got, []string{"d2", "d1"}) {
		t.Errorf("a, a, none, none, replicas 2: %v, want d2 (a) and d1 (the better of the two without a zone)", got)
	}
	// On d3 (a) already: the new ones skip a.
	w.dests[1].labels[modelZoneKey] = "b"
	r.replicas = 2
	if got := w.placeRequest(r, []string{"d3"}).set; !slices.Equal(got, []string{"d3", "d1"}) {
		t.Errorf("on d3 (a), replicas 2 with spread: %v, want d3 then d1 (b)", got)
	}
}

// TestModelReplicasDrained: a drained replica is replaced by the best candidate it is not on, a
// PreferNoSchedule one only when no clean one is left; with none, it stays.
func TestModelReplicasDrained(t *testing.T) {
	w, m := modelZoneWorld()
	r := w.requests[0]
	r.replicas = 2
	if p := m.SettleAll(map[string][]string{"r0": {"d2", "d3"}}); p != nil {
		t.Fatal(p)
	}
	w.dest("d3").taints = []modelTaint{{key: "maintenance", effect: effNoExecute}}
	w.dest("d1").taints = []modelTaint{{key: "team", effect: effNoSchedule}}
	if got := w.placeRequest(r, m.choice["r0"]); !slices.Equal(got.set, []string{"d2", "d3"}) || len(got.left) != 0 {
		t.Errorf("drained, d1 NoSchedule: %v leaving %v, want d2 and d3 (nowhere else to go)", got.set, got.left)
	}
	w.dest("d1").taints = []modelTaint{{key: "team", effect: effPreferNoSchedule}}
	got := w.placeRequest(r, m.choice["r0"])
	if !slices.Equal(got.set, []string{"d2", "d1"}) || len(got.left) != 1 || got.left[0] != (leftDest{from: "d3", to: "d1", drained: true}) {
		t.Errorf("drained, d1 PreferNoSchedule: %v leaving %v, want d2 then d1, d3 drained to d1", got.set, got.left)
	}
	before := m.RequestHoldings()
	if p := m.SettleAll(map[string][]string{"r0": {"d2", "d1"}}); p != nil {
		t.Fatal(p)
	}
	// Make before break: after a failed apply, d3 whole, or d2 and d1 whole.
	snap := func(hs ...holding) [2]map[string][]byte {
		out := [2]map[string][]byte{{}, {}}
		for _, h := range hs {
			for p, b := range h.files {
				out[h.store][p] = b
			}
		}
		return out
	}
	now := m.RequestHoldings()["r0"]
	if p := m.DrainProblems(before, snap(before["r0"]["d3"])); p != nil {
		t.Errorf("d3 whole: %v", p)
	}
	if p := m.DrainProblems(before, snap(now["d2"], now["d1"])); p != nil {
		t.Errorf("d2 and d1 whole: %v", p)
	}
	if p := m.DrainProblems(before, snap(now["d2"])); len(p) != 1 {
		t.Errorf("d3 gone before d1 is written: %v", p)
	}
}
