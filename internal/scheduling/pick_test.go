package scheduling_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// pickCase states a request against five candidates by their rank for the key (0 is the best,
// as refRank ranks them), so that each rule's expected outcome is written down independently of
// the hash.
type pickCase struct {
	name      string
	taints    map[int]scheduling.Taint // by rank
	zones     map[int]string           // by rank; a rank not listed has no zone label
	current   []int                    // by rank; -1 is a destination that is no longer a candidate
	tols      []scheduling.Toleration
	replicas  int
	spread    bool
	chosen    []int          // by rank, best first
	left      map[int]string // by rank (-1: "gone")
	reasons   map[int]string // by rank, for the candidates not chosen; unlisted ones: "replicas = N already placed"
	notes     map[int]string // by rank, for chosen destinations with an untolerated taint
	shortfall int
	size      int // candidates; 0 means 5
}

var (
	maintNS = scheduling.Taint{Key: "maintenance", Value: "2026-12-01", Effect: scheduling.EffectNoSchedule}
	drainNE = scheduling.Taint{Key: "drain", Effect: scheduling.EffectNoExecute}
	spotPNS = scheduling.Taint{Key: "spot", Effect: scheduling.EffectPreferNoSchedule}
)

const (
	maintText = "tainted maintenance=2026-12-01:NoSchedule, not tolerated"
	drainText = "tainted drain:NoExecute, not tolerated"
	spotText  = "tainted spot:PreferNoSchedule, not tolerated; used only when no untainted candidate is left"
)

func TestPick(t *testing.T) {
	cases := []pickCase{
		{name: "a new request takes the best ranked", chosen: []int{0}},
		{name: "sticky: a request stays where it is though a better one exists", current: []int{2}, chosen: []int{2}},
		{name: "a current destination that is no longer a candidate is left", current: []int{-1}, chosen: []int{0},
			left: map[int]string{-1: "no longer a candidate"}},
		{name: "NoSchedule: no new placement", taints: map[int]scheduling.Taint{0: maintNS}, chosen: []int{1},
			reasons: map[int]string{0: maintText}},
		{name: "NoSchedule: a request already there stays", taints: map[int]scheduling.Taint{0: maintNS}, current: []int{0}, chosen: []int{0},
			notes: map[int]string{0: "tainted maintenance=2026-12-01:NoSchedule, not tolerated; placed before, so it stays"}},
		{name: "NoSchedule tolerated", taints: map[int]scheduling.Taint{0: maintNS},
			tols: []scheduling.Toleration{{Key: "maintenance", Operator: "Exists", Effect: "NoSchedule"}}, chosen: []int{0}},
		{name: "NoExecute: a request on it moves to the next choice", taints: map[int]scheduling.Taint{0: drainNE}, current: []int{0},
			chosen: []int{1}, left: map[int]string{0: drainText}, reasons: map[int]string{0: drainText}},
		{name: "NoExecute: moves to the best remaining, not the one after it", taints: map[int]scheduling.Taint{3: drainNE}, current: []int{3},
			chosen: []int{0}, left: map[int]string{3: drainText}, reasons: map[int]string{3: drainText}},
		{name: "NoExecute elsewhere moves nothing", taints: map[int]scheduling.Taint{0: drainNE}, current: []int{2},
			chosen: []int{2}, reasons: map[int]string{0: drainText}},
		{name: "NoExecute tolerated: stays", taints: map[int]scheduling.Taint{0: drainNE}, current: []int{0},
			tols: []scheduling.Toleration{{Operator: "Exists"}}, chosen: []int{0}},
		{name: "PreferNoSchedule: passed over while an untainted one is left", taints: map[int]scheduling.Taint{0: spotPNS},
			chosen: []int{1}, reasons: map[int]string{0: spotText}},
		{name: "PreferNoSchedule: chosen when nothing untainted is left", size: 2,
			taints: map[int]scheduling.Taint{0: spotPNS, 1: maintNS}, chosen: []int{0}, reasons: map[int]string{1: maintText},
			notes: map[int]string{0: "tainted spot:PreferNoSchedule, not tolerated; chosen: no untainted candidate is left"}},
		{name: "PreferNoSchedule: a request already there stays", taints: map[int]scheduling.Taint{0: spotPNS}, current: []int{0}, chosen: []int{0},
			notes: map[int]string{0: "tainted spot:PreferNoSchedule, not tolerated; placed before, so it stays"}},
		{name: "PreferNoSchedule: last, after every untainted one", size: 3, replicas: 3,
			taints: map[int]scheduling.Taint{0: spotPNS}, chosen: []int{0, 1, 2},
			notes: map[int]string{0: "tainted spot:PreferNoSchedule, not tolerated; chosen: no untainted candidate is left"}},
		{name: "replicas: the top N", replicas: 3, chosen: []int{0, 1, 2}},
		{name: "replicas raised: adds and moves none", replicas: 3, current: []int{0, 4}, chosen: []int{0, 1, 4}},
		{name: "replicas lowered: the lowest-ranked current one leaves", replicas: 2, current: []int{1, 3, 4}, chosen: []int{1, 3},
			left:    map[int]string{4: "replicas lowered to 2; ranked below the current destinations kept"},
			reasons: map[int]string{4: "replicas lowered to 2; ranked below the current destinations kept"}},
		{name: "fewer candidates than replicas: what there is", size: 3, replicas: 5, chosen: []int{0, 1, 2}, shortfall: 2},
		{name: "fewer usable candidates than replicas", size: 3, replicas: 3, taints: map[int]scheduling.Taint{1: maintNS, 2: drainNE},
			chosen: []int{0}, shortfall: 2, reasons: map[int]string{1: maintText, 2: drainText}},
		{name: "spread: zones a, a, b and N = 2 take the better a and the b", size: 3, spread: true, replicas: 2,
			zones: map[int]string{0: "a", 1: "a", 2: "b"}, chosen: []int{0, 2}},
		{name: "spread: then fill by rank", size: 4, spread: true, replicas: 3,
			zones: map[int]string{0: "a", 1: "a", 2: "b", 3: "b"}, chosen: []int{0, 1, 2}},
		{name: "spread: destinations without the label share one domain", size: 3, spread: true, replicas: 2,
			zones: map[int]string{2: "a"}, chosen: []int{0, 2}},
		{name: "spread: a current destination covers its domain", size: 3, spread: true, replicas: 2, current: []int{1},
			zones: map[int]string{0: "a", 1: "a", 2: "b"}, chosen: []int{1, 2}},
		{name: "spread: lowering keeps one per domain first", size: 3, spread: true, replicas: 2, current: []int{0, 1, 2},
			zones: map[int]string{0: "a", 1: "a", 2: "b"}, chosen: []int{0, 2},
			left:    map[int]string{1: "replicas lowered to 2; ranked below the current destinations kept"},
			reasons: map[int]string{1: "replicas lowered to 2; ranked below the current destinations kept"}},
		{name: "spread off: zones are ignored", size: 3, replicas: 2, zones: map[int]string{0: "a", 1: "a", 2: "b"}, chosen: []int{0, 1}},
		{name: "NoExecute with replicas: only that replica moves", replicas: 2, current: []int{1, 3}, taints: map[int]scheduling.Taint{1: drainNE},
			chosen: []int{0, 3}, left: map[int]string{1: drainText}, reasons: map[int]string{1: drainText}},
		{name: "replicas 0 counts as 1", replicas: 0, chosen: []int{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, name := c.input()
			got := scheduling.Pick(in)
			var chosen []string
			for _, r := range c.chosen {
				chosen = append(chosen, name(r))
			}
			left := map[string]string{}
			for r, why := range c.left {
				left[name(r)] = why
			}
			reasons := map[string]string{}
			for _, d := range in.Candidates {
				if !slices.Contains(chosen, d.Name) {
					reasons[d.Name] = fmt.Sprintf("replicas = %d already placed", max(c.replicas, 1))
				}
			}
			for r, why := range c.reasons {
				reasons[name(r)] = why
			}
			if !slices.Equal(got.Chosen, chosen) {
				t.Errorf("chosen %v, want %v", got.Chosen, chosen)
			}
			if !maps.Equal(got.Left, left) {
				t.Errorf("left %v, want %v", got.Left, left)
			}
			if !maps.Equal(got.Reasons, reasons) {
				t.Errorf("reasons %v, want %v", got.Reasons, reasons)
			}
			notes := map[string]string{}
			for r, why := range c.notes {
				notes[name(r)] = why
			}
			if !maps.Equal(got.Notes, notes) {
				t.Errorf("notes %v, want %v", got.Notes, notes)
			}
			if got.Shortfall != c.shortfall {
				t.Errorf("shortfall %d, want %d", got.Shortfall, c.shortfall)
			}
		})
	}
}

// input builds the case's request and a function from rank to name.
func (c pickCase) input() (scheduling.PickInput, func(int) string) {
	size := c.size
	if size == 0 {
		size = 5
	}
	const key = "default/app/request"
	var cands []scheduling.Destination
	for i := range size {
		cands = append(cands, scheduling.Destination{Name: fmt.Sprintf("dest-%d", i)})
	}
	order := refRank(key, cands)
	name := func(r int) string {
		if r < 0 {
			return "gone"
		}
		return order[r]
	}
	at := map[string]int{}
	for r, n := range order {
		at[n] = r
	}
	for i := range cands {
		r := at[cands[i].Name]
		if t, ok := c.taints[r]; ok {
			cands[i].Taints = []scheduling.Taint{t}
		}
		if z, ok := c.zones[r]; ok {
			cands[i].Labels = map[string]string{"zone": z}
		}
	}
	in := scheduling.PickInput{Key: key, Candidates: cands, Tolerations: c.tols, Replicas: c.replicas}
	for _, r := range c.current {
		in.Current = append(in.Current, name(r))
	}
	if c.spread {
		in.SpreadKey = "zone"
	}
	return in, name
}

// Raising replicas step by step only adds destinations, and the same request on another
// machine (candidates in another order) lands in the same places.
func TestPickRaiseOnlyAddsAndIsDeterministic(t *testing.T) {
	var cands []scheduling.Destination
	for i := range 12 {
		cands = append(cands, scheduling.Destination{Name: fmt.Sprintf("dest-%02d", i), Weight: i % 4,
			Labels: map[string]string{"zone": string(rune('a' + i%3))}})
	}
	cands[5].Taints = []scheduling.Taint{maintNS}
	cands[7].Taints = []scheduling.Taint{spotPNS}
	for _, spread := range []string{"", "zone"} {
		var current []string
		for n := 1; n <= 12; n++ {
			in := scheduling.PickInput{Key: "ns/app/r", Candidates: cands, Current: current, Replicas: n, SpreadKey: spread}
			got := scheduling.Pick(in)
			for _, c := range current {
				if !slices.Contains(got.Chosen, c) {
					t.Fatalf("spread %q, replicas %d: %s left (%v)", spread, n, c, got.Left)
				}
			}
			if len(got.Left) > 0 {
				t.Fatalf("spread %q, replicas %d: left %v", spread, n, got.Left)
			}
			reversed := slices.Clone(cands)
			slices.Reverse(reversed)
			in.Candidates = reversed
			if again := scheduling.Pick(in); !slices.Equal(again.Chosen, got.Chosen) {
				t.Fatalf("spread %q, replicas %d: %v, and %v with the candidates reversed", spread, n, got.Chosen, again.Chosen)
			}
			current = got.Chosen
		}
		// dest-05 (NoSchedule) never gets the request: 11 placed, 1 short.
		if slices.Contains(current, "dest-05") || len(current) != 11 {
			t.Fatalf("spread %q: at 12 replicas the request is on %v", spread, current)
		}
	}
}
