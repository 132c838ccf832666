package refmodel

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------------------------

// TestModelRandomWalks runs the generator and the model together without servers, with a
// stand-in for the provider's choice of destination (the model's own rule: it stays unless its
// destination left the pool or drains it, else the weighted rendezvous choice): the operations keep
// the world valid (unique folders, no destroyed object left behind), the configuration renders,
// and the model never claims one path with two contents.
func TestModelRandomWalks(t *testing.T) {
	conn := &Stores{Kind: "git-http", Names: [2]string{"a", "b"}, Address: func(s, v int) string { return fmt.Sprintf("http://h/%d/%d", s, v) }}
	counts := map[string]int{}
	for seed := int64(1); seed <= 150; seed++ {
		rng := newModelRNG(seed)
		w := newModelWorld(rng, pick(rng, []string{"bucket", "git-http"}), Modes)
		conn.Kind = w.kind
		m := newRefModel(w)
		for step := 0; step <= 20; step++ {
			if step > 0 {
				flying := len(m.InFlight()) > 0
				op := m.nextOp(rng, OpNames)
				counts[op.Name]++
				if flying {
					counts["in flight"]++
					if op.Name == "stage" || op.Name == "deps" || op.Name == "emptydeps" {
						counts["change in flight"]++
					}
				}
				if op.AckGuard != "" {
					w.promise(op.AckGuard).guard = nil // refused, acknowledged and applied
				} else if op.ExpectError != "" {
					if op.Name == "overlap" && !modelFoldersOverlap(w) {
						t.Fatalf("seed %d step %d: %s: no two folders overlap: %s", seed, step, op.Name, w.describe())
					}
					op.Revert()
				}
			}
			if cfg := w.render(conn); !strings.Contains(cfg, "output \"choices\"") {
				t.Fatalf("seed %d step %d: %s", seed, step, cfg)
			}
			placed := map[string][]string{}
			for _, r := range w.requests {
				if !r.present {
					continue
				}
				prior := m.choice[r.name]
				if slices.Contains(w.replaced, "r:"+r.name) {
					prior = nil
				}
				placed[r.name] = w.placeRequest(r, prior).set
				if !w.hasDefaultGroup(r) {
					placed[r.name] = nil
					counts["requests without a default group"]++
				}
				if len(placed[r.name]) > 1 {
					counts["requests on several destinations"]++
				}
				for _, f := range modelKeys(r.groups) {
					prior := m.choice[groupKey(r, f)]
					if slices.Contains(w.replaced, "r:"+r.name) {
						prior = nil
					}
					placed[groupKey(r, f)] = w.placeGroup(r, f, prior).set
					if len(placed[groupKey(r, f)]) == 1 {
						counts["groups placed"]++
					}
				}
			}
			p := m.SettleAll(placed)
			for _, v := range m.GateVerdicts() {
				counts["gate "+strings.TrimPrefix(v, modelGatedPromise+" ")]++
			}
			if p != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, p)
			}
			for _, l := range m.left {
				if _, folder := splitGroupKey(l.request); folder != "" && l.to != "" {
					counts["drained groups"]++
				}
				switch {
				case !l.drained:
					counts["replicas lowered"]++
				case l.to != "":
					counts["drained requests"]++
				}
			}
			if modelFoldersOverlap(w) {
				t.Fatalf("seed %d step %d: two destinations' folders overlap: %s", seed, step, w.describe())
			}
			for root := range m.roots {
				for store := range 2 {
					if _, err := m.expect(modelLoc{store, root}); err != nil {
						t.Fatalf("seed %d step %d: %v", seed, step, err)
					}
				}
			}
		}
	}
	for _, name := range append(slices.Clone(OpNames), "recreate") {
		if counts[name] == 0 {
			t.Errorf("operation %s never drawn: %v", name, counts)
		}
	}
	// "collide" arranges what it needs, so it runs about as often as its weight says: some eight
	// times in the 200 steps of a default run.
	if counts["collide"] < 60 {
		t.Errorf("of 3000 steps, only %d are collide", counts["collide"])
	}
	// Rollouts are in flight often enough, and their dependencies change while they are.
	if counts["in flight"] < 450 || counts["change in flight"] < 80 {
		t.Errorf("of 3000 steps, %d start with a rollout in flight and %d change dependencies during one", counts["in flight"], counts["change in flight"])
	}
	t.Logf("of 3000 steps, %d start with a rollout in flight and %d change dependencies during one", counts["in flight"], counts["change in flight"])
	// Drains move requests now and then: a request is on the drained destination and some other
	// candidate takes it.
	if counts["drained requests"] < 22 {
		t.Errorf("of 3000 steps, only %d requests moved off a drained destination", counts["drained requests"])
	}
	// Requests are on several destinations often, and lose some to a lowered replicas now and then.
	if counts["requests on several destinations"] < 600 || counts["replicas lowered"] < 7 {
		t.Errorf("of 3000 steps, %d settle a request on several destinations and %d lower one's replicas", counts["requests on several destinations"], counts["replicas lowered"])
	}
	t.Logf("of 3000 steps: %d replicas ops, %d requests on several destinations, %d destinations left for lowered replicas",
		counts["replicas"], counts["requests on several destinations"], counts["replicas lowered"])
	// Groups are placed in many steps, change often, and are drained now and then.
	if counts["groups placed"] < 450 || counts["groups"] < 75 || counts["requests without a default group"] < 30 {
		t.Errorf("of 3000 steps, %d settle a placed group, %d are groups ops and %d settle a request without a default group",
			counts["groups placed"], counts["groups"], counts["requests without a default group"])
	}
	t.Logf("of 3000 steps: %d groups ops, %d placed groups settled, %d requests without a default group, %d groups moved off a drained destination",
		counts["groups"], counts["groups placed"], counts["requests without a default group"], counts["drained groups"])
	// Gated rollouts meet every verdict.
	if counts["health"] < 80 || counts["gate passed"] < 12 || counts["gate held"] < 50 || counts["gate rolled back"] < 2 || counts["gate failed, paused"] < 3 {
		t.Errorf("of 3000 steps, %d are health ops; gates passed %d, held %d, rolled back %d, failed and paused %d",
			counts["health"], counts["gate passed"], counts["gate held"], counts["gate rolled back"], counts["gate failed, paused"])
	}
	t.Logf("of 3000 steps: %d health ops; gates passed %d, held %d, rolled back %d, failed and paused %d",
		counts["health"], counts["gate passed"], counts["gate held"], counts["gate rolled back"], counts["gate failed, paused"])
	t.Logf("of 3000 steps: cordon %d, drain %d, untaint %d, reweight %d, tolerate %d; %d requests moved off a drained destination",
		counts["cordon"], counts["drain"], counts["untaint"], counts["reweight"], counts["tolerate"], counts["drained requests"])
}

// modelFoldersOverlap: two destinations (present or not: they come back) have equal or nested
// TestModelSeedsReplay: a seed names one sequence of operations, so that a failure reported with
// its seed can be replayed.
func TestModelSeedsReplay(t *testing.T) {
	play := func(seed int64) []string {
		rng := newModelRNG(seed)
		w := newModelWorld(rng, "bucket", Modes)
		m := newRefModel(w)
		out := []string{w.describe()}
		for range 15 {
			choices := map[string]string{}
			for _, r := range w.requests {
				if c := w.candidates(r); r.present && len(c) > 0 {
					choices[r.name] = c[len(c)-1]
				}
			}
			m.choice = map[string][]string{} // no stickiness needed here: only the sequence matters
			m.Settle(choices)
			op := m.nextOp(rng, OpNames)
			out = append(out, op.Name+": "+op.Desc)
		}
		return out
	}
	a, b := play(42), play(42)
	if !slices.Equal(a, b) {
		t.Errorf("seed 42 played twice differs:\n%q\n%q", a, b)
	}
	if slices.Equal(a, play(43)) {
		t.Errorf("seeds 42 and 43 play the same sequence")
	}
}
