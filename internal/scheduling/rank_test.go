package scheduling_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Existing requests must not move on upgrade: with every weight equal (0 and 1 mixed, as 0
// counts as 1), Rank's first is Choose's choice, and its second is Choose's choice without the
// first, for 10,000 keys over pools of 1 to 50 destinations.
func TestRankFirstIsChoose(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 2))
	for k := range 10_000 {
		key := fmt.Sprintf("default/app/request-%d", k)
		size := 1 + k%50
		pool := make([]scheduling.Destination, size)
		names := make([]string, size)
		for i, j := range rng.Perm(size) { // a shuffled order, different per key
			names[i] = fmt.Sprintf("dest-%02d", j)
			pool[i] = scheduling.Destination{Name: names[i], Weight: (k + i) % 2}
		}
		ranked := scheduling.Rank(key, pool)
		if len(ranked) != size {
			t.Fatalf("key %q: Rank returned %d of %d", key, len(ranked), size)
		}
		want, _ := scheduling.Choose(key, names)
		if ranked[0] != want {
			t.Fatalf("key %q, %d destinations: Rank starts with %s, Choose picks %s", key, size, ranked[0], want)
		}
		if size > 1 {
			rest := make([]string, 0, size-1)
			for _, n := range names {
				if n != want {
					rest = append(rest, n)
				}
			}
			if second, _ := scheduling.Choose(key, rest); ranked[1] != second {
				t.Fatalf("key %q: Rank's second is %s, Choose without %s picks %s", key, ranked[1], want, second)
			}
		}
	}
}

// binomialBound is five standard deviations of the count of n trials that each succeed with
// probability p: a correct share falls outside it about once in 1.7 million runs, and the keys
// are fixed, so a pass or a failure repeats exactly.
func binomialBound(n int, p float64) float64 { return 5 * math.Sqrt(float64(n)*p*(1-p)) }

// A destination of weight 3 among nine of weight 1 wins 3/12 of the keys, each peer 1/12.
func TestRankWeightShare(t *testing.T) {
	pool := make([]scheduling.Destination, 10)
	for i := range pool {
		pool[i] = scheduling.Destination{Name: fmt.Sprintf("dest-%d", i), Weight: 1}
	}
	pool[0].Weight = 3
	const keys = 10_000
	wins := map[string]int{}
	for k := range keys {
		wins[scheduling.Rank(fmt.Sprintf("req-%d", k), pool)[0]]++
	}
	for _, d := range pool {
		p := float64(d.Weight) / 12
		want, bound := keys*p, binomialBound(keys, p)
		if got := float64(wins[d.Name]); math.Abs(got-want) > bound {
			t.Errorf("%s (weight %d) won %v of %d keys; expected %.0f +- %.0f", d.Name, d.Weight, got, keys, want, bound)
		}
	}
}

// Changing one destination's weight moves only keys that must move: each moved key goes to the
// destination whose weight rose (or leaves the one whose weight fell), so the count moved is
// exactly the change in that destination's wins, and that change is within five standard
// deviations of the change in its expected share (w / sum of weights) times the keys.
func TestRankReweightMovesOnlyWhatMust(t *testing.T) {
	weights := []int{1, 2, 3, 4, 1, 2, 3, 4, 1, 2} // sum 23
	cases := []struct {
		dest     int
		to       int
		pBefore  float64
		pAfter   float64
		increase bool
	}{
		{dest: 0, to: 4, pBefore: 1.0 / 23, pAfter: 4.0 / 26, increase: true},
		{dest: 9, to: 1, pBefore: 2.0 / 23, pAfter: 1.0 / 22},
	}
	for _, c := range cases {
		before := make([]scheduling.Destination, len(weights))
		for i, w := range weights {
			before[i] = scheduling.Destination{Name: fmt.Sprintf("dest-%d", i), Weight: w}
		}
		after := append([]scheduling.Destination(nil), before...)
		after[c.dest].Weight = c.to
		name := before[c.dest].Name
		const keys = 1000
		moved, winsBefore, winsAfter := 0, 0, 0
		for k := range keys {
			key := fmt.Sprintf("req-%d", k)
			was, now := scheduling.Rank(key, before)[0], scheduling.Rank(key, after)[0]
			if was == name {
				winsBefore++
			}
			if now == name {
				winsAfter++
			}
			if was == now {
				continue
			}
			moved++
			if c.increase && now != name || !c.increase && was != name {
				t.Errorf("%s weight %d -> %d: key %s moved %s -> %s, not to or from %s", name, weights[c.dest], c.to, key, was, now, name)
			}
		}
		delta := math.Abs(c.pAfter - c.pBefore)
		minimum, bound := keys*delta, binomialBound(keys, delta)
		t.Logf("%s weight %d -> %d: %d keys moved; its wins %d -> %d; expected minimum %.1f +- %.1f", name, weights[c.dest], c.to, moved, winsBefore, winsAfter, minimum, bound)
		if d := winsAfter - winsBefore; moved != max(d, -d) {
			t.Errorf("%s weight %d -> %d: %d keys moved, but its wins changed by %d: keys moved between other destinations", name, weights[c.dest], c.to, moved, d)
		}
		if math.Abs(float64(moved)-minimum) > bound {
			t.Errorf("%s weight %d -> %d: %d keys moved; the minimum is %.1f +- %.1f", name, weights[c.dest], c.to, moved, minimum, bound)
		}
	}
}

// Rank orders by weight too, and breaks nothing on edge cases: no candidates, one candidate.
func TestRankEdges(t *testing.T) {
	if got := scheduling.Rank("k", nil); len(got) != 0 {
		t.Errorf("Rank of no candidates = %v", got)
	}
	if got := scheduling.Rank("k", []scheduling.Destination{{Name: "only", Weight: 5}}); len(got) != 1 || got[0] != "only" {
		t.Errorf("Rank of one candidate = %v", got)
	}
}
