package refmodel

// Replicas and spread in the model-based test: a request may ask for up to three destinations
// (`replicas`, null counts as 1) and spread them over the destinations' `zone` label (`spread =
// { topology_key = "zone" }`); "replicas" raises or lowers the number, or sets or unsets spread.
// The rules, from the documentation of kratix_resource_request ("Replicas and spread") and issue
// 23, written here without the provider's code:
//
//   - The candidates are the destinations of the promise's pool that match the request's and the
//     promise's selectors, plus the pool members the request is on that stopped matching: a
//     request keeps its destinations (misscheduled ones too) while they stay in the pool.
//   - Every destination the request is on stays, unless it left the pool (dropped; its files
//     are its cleanup's business) or has a NoExecute taint the request does not tolerate (it
//     leaves, its files are removed once the rest is written).
//   - More stay than N: the N best of them by rank stay (with spread: the best of each domain
//     first, the domains in rank order, then the rest by rank); the others leave and their files
//     go, once the rest is written.
//   - Fewer than N: new ones are added, in rank order, from the candidates without an
//     untolerated taint; only when those run out, from those whose strongest untolerated taint
//     is PreferNoSchedule; never one with an untolerated NoSchedule or NoExecute taint. With
//     spread, first the best of each domain the request does not cover yet, then the rest by
//     rank. A domain is a value of the `zone` label; every destination without it is in one
//     domain together.
//   - A drained destination stays when nothing replaces it: one per missing replica, in the
//     order the request was on them.
//   - The order the state lists them in (`destinations`): those it stays on first, in the order
//     it was on them, then the new ones best first. Raising N therefore moves nothing.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// modelZoneKey is the label the destinations' zones are in, and the spread's topology key.
const modelZoneKey = "zone"

// modelZones are the zones a drawn destination may have ("": no zone label), two in three with
// one: zone a twice as often as b, so that spread has a domain with two destinations to choose
// between.
var modelZones = []string{"a", "a", "b", ""}

// spreadDomain is a destination's domain: its zone, or "" (with set false) for every destination
// without one.
type spreadDomain struct {
	zone string
	set  bool
}

func domainOf(d *modelDest) spreadDomain {
	z, ok := d.labels[modelZoneKey]
	return spreadDomain{z, ok}
}

// requestPlacement is where the model puts a request: set, in the order the state lists it, and
// what it leaves.
type requestPlacement struct {
	set []string
	// left are the pool members the request was on and leaves: drained ones that something
	// replaces (to names the new destination, in order) and those past its replicas (to "").
	left []leftDest
	why  string
}

// leftDest is a destination a request leaves while it stays in the pool.
type leftDest struct {
	from, to string
	drained  bool
}

// takeRanked takes up to need of ranked (best first) that chosen does not hold yet: with spread,
// first one per domain covered does not hold (covering it), then the rest by rank. It marks them
// in chosen.
func takeRanked(ranked []*modelDest, need int, spread bool, covered map[spreadDomain]bool, chosen map[string]bool) int {
	taken := 0
	if spread {
		for _, d := range ranked {
			if taken == need {
				break
			}
			if dom := domainOf(d); !covered[dom] && !chosen[d.name] {
				covered[dom], chosen[d.name] = true, true
				taken++
			}
		}
	}
	for _, d := range ranked {
		if taken == need {
			break
		}
		if !chosen[d.name] {
			chosen[d.name] = true
			taken++
		}
	}
	return taken
}

// placeRequest is where request r goes when it is on prior (in the state's order), by the rules
// at the top of the file.
func (w *modelWorld) placeRequest(r *modelRequest, prior []string) requestPlacement {
	return w.placeOn(placeSpec{key: w.rendezvousKey(r), promise: w.promises[r.promise], candidates: w.candidates(r),
		n: max(r.replicas, 1), spread: r.spread, tolerations: r.tolerations, replicas: replicasText(r.replicas)}, prior)
}

// placeSpec is what a placement of a request's files (the default group or a workload group)
// is ranked and chosen by.
type placeSpec struct {
	key         string // the rendezvous key
	promise     *modelPromise
	candidates  []string // the destinations of the pool its selectors select, sorted
	n           int      // how many destinations
	spread      bool
	tolerations []modelToleration
	replicas    string // for the explanation
}

// placeOn is where a placement of spec goes when it is on prior (in the state's order), by the
// rules at the top of the file.
func (w *modelWorld) placeOn(spec placeSpec, prior []string) requestPlacement {
	p := spec.promise
	n := spec.n
	r := &modelRequest{tolerations: spec.tolerations, spread: spec.spread}
	cands := map[string]*modelDest{}
	for _, name := range spec.candidates {
		cands[name] = w.dest(name)
	}
	var stay, drained []string
	for _, name := range prior {
		d := w.dest(name)
		switch {
		case !p.inPool(d):
			// Dropped: not a candidate any more.
		case drains(r.tolerations, d):
			drained = append(drained, name)
		default:
			stay = append(stay, name)
		}
		if p.inPool(d) {
			cands[name] = d // matching or not
		}
	}
	var all []*modelDest
	for _, name := range modelKeys(cands) {
		all = append(all, cands[name])
	}
	ranked := rankOrder(spec.key, all)
	var pl requestPlacement
	kept := map[string]bool{}
	var stayRanked []*modelDest
	for _, d := range ranked {
		if slices.Contains(stay, d.name) {
			stayRanked = append(stayRanked, d)
		}
	}
	takeRanked(stayRanked, n, r.spread, map[spreadDomain]bool{}, kept)
	covered := map[spreadDomain]bool{}
	for _, d := range stayRanked {
		if kept[d.name] && r.spread {
			covered[domainOf(d)] = true
		}
	}
	// The candidates it may be added to: not on them already, clean ones and PreferNoSchedule ones.
	chosen := map[string]bool{}
	for name := range kept {
		chosen[name] = true
	}
	var clean, prefer, ranking []*modelDest
	var texts []string
	for _, d := range ranked {
		e := strongest(r.tolerations, d)
		texts = append(texts, fmt.Sprintf("%s (zone %q, weight %d%s)", d.name, d.labels[modelZoneKey], max(d.weight, 1), map[bool]string{true: ", untolerated " + e, false: ""}[e != ""]))
		ranking = append(ranking, d)
		if slices.Contains(prior, d.name) {
			continue
		}
		switch e {
		case "":
			clean = append(clean, d)
		case effPreferNoSchedule:
			prefer = append(prefer, d)
		}
	}
	need := n - len(kept)
	need -= takeRanked(clean, need, r.spread, covered, chosen)
	need -= takeRanked(prefer, need, r.spread, covered, chosen)
	// Drained ones stay while nothing replaces them.
	stuck := map[string]bool{}
	for _, name := range drained {
		if need > 0 {
			stuck[name] = true
			need--
		}
	}
	for _, name := range prior {
		if kept[name] || stuck[name] {
			pl.set = append(pl.set, name)
		}
	}
	var added []string
	for _, d := range ranking {
		if chosen[d.name] && !kept[d.name] {
			added = append(added, d.name)
		}
	}
	pl.set = append(pl.set, added...)
	for _, name := range prior {
		switch {
		case kept[name] || stuck[name] || !p.inPool(w.dest(name)):
		case slices.Contains(drained, name):
			to := ""
			if len(added) > 0 {
				to, added = added[0], added[1:]
			}
			pl.left = append(pl.left, leftDest{from: name, to: to, drained: true})
		default:
			pl.left = append(pl.left, leftDest{from: name})
		}
	}
	pl.why = fmt.Sprintf("replicas %s, spread %v, on %q; ranking %s", spec.replicas, r.spread, prior, strings.Join(texts, " > "))
	return pl
}

func replicasText(n int) string {
	if n == 0 {
		return "null"
	}
	return fmt.Sprint(n)
}

// ---------------------------------------------------------------------------------------------
// Drawing them.

// drawReplicas gives a new world's destinations zones and a third of its requests replicas (2 or
// 3), a quarter spread. It draws after everything else, as drawTaints does.
func drawReplicas(rng *rand.Rand, w *modelWorld) {
	for _, d := range w.dests {
		if z := pick(rng, modelZones); z != "" {
			d.labels[modelZoneKey] = z
		}
	}
	for _, r := range w.requests {
		if rng.IntN(2) == 0 {
			r.replicas = 2 + rng.IntN(2)
			if rng.IntN(4) > 0 {
				// Mostly without selectors of its own, so that it has candidates for several.
				r.selectors = nil
			}
		}
		r.spread = rng.IntN(4) == 0
	}
}

// replicasOp makes "replicas": a present request's replicas raised or lowered, or its spread set
// or unset.
func (m *Model) replicasOp(rng *rand.Rand, requests []*modelRequest) (Op, bool) {
	if len(requests) == 0 {
		return Op{}, false
	}
	var several []*modelRequest
	for _, r := range requests {
		if len(m.choice[r.name]) > 1 {
			several = append(several, r)
		}
	}
	r := pick(rng, requests)
	on := m.choice[r.name]
	if len(several) > 0 && rng.IntN(4) > 0 {
		// Mostly lower a request that is on several destinations, so that one leaves.
		r = pick(rng, several)
		on = m.choice[r.name]
		before := r.replicas
		r.replicas = rng.IntN(len(on)) // 0: null
		if r.replicas == 1 && rng.IntN(2) == 0 {
			r.replicas = 0
		}
		return Op{Desc: fmt.Sprintf("request %s (on %q, spread %v) replicas %s -> %s, lowered: the lowest-ranked go", r.name, on, r.spread, replicasText(before), replicasText(r.replicas))}, true
	}
	if rng.IntN(4) == 0 {
		r.spread = !r.spread
		return Op{Desc: fmt.Sprintf("request %s (on %q, replicas %s) spread %v -> %v", r.name, on, replicasText(r.replicas), !r.spread, r.spread)}, true
	}
	before := r.replicas
	for max(r.replicas, 1) == max(before, 1) {
		r.replicas = rng.IntN(4) // 0: null
	}
	how := "raised: nothing moves"
	if max(r.replicas, 1) < max(before, 1) {
		how = "lowered: the lowest-ranked go"
	}
	return Op{Desc: fmt.Sprintf("request %s (on %q, spread %v) replicas %s -> %s, %s", r.name, on, r.spread, replicasText(before), replicasText(r.replicas), how)}, true
}

// LoweredReplicas describes the destinations the last Settle saw a request leave for its
// replicas, such as "r0 left d2", for the runner's log.
func (m *Model) LoweredReplicas() []string {
	var out []string
	for _, l := range m.left {
		if !l.drained {
			out = append(out, fmt.Sprintf("%s left %s", l.request, l.from))
		}
	}
	return out
}
