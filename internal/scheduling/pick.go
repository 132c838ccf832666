package scheduling

import (
	"fmt"
	"slices"
)

// PickInput is what Pick needs to place one resource request.
type PickInput struct {
	// Key is the request's rendezvous key.
	Key string
	// Candidates are the destinations that match the request's selectors, dry-run ones already
	// left out, in any order. Names are unique.
	Candidates []Destination
	// Current are the destinations the request is on now; names that are not candidates any
	// more may be among them.
	Current []string
	// Tolerations are the request's tolerations of the candidates' taints.
	Tolerations []Toleration
	// Replicas is how many destinations the request goes to; 0 counts as 1.
	Replicas int
	// SpreadKey is a label key whose values are topology domains (such as "zone"): the request
	// takes one destination per domain before it takes a second in any. Empty: no spread.
	SpreadKey string
}

// PickResult is where a request goes and why it does not go elsewhere.
type PickResult struct {
	// Chosen are the destinations the request goes to, in rank order (best first).
	Chosen []string
	// Left maps each current destination the request leaves to why, such as "no longer a
	// candidate" or "tainted maintenance:NoExecute, not tolerated".
	Left map[string]string
	// Reasons maps each candidate that is not chosen to why, such as
	// "tainted maintenance=2026-12-01:NoSchedule, not tolerated" or "replicas = 1 already placed".
	Reasons map[string]string
	// Notes maps each chosen destination that has an untolerated taint to why it is chosen all
	// the same, such as "tainted maintenance:NoSchedule, not tolerated; placed before, so it
	// stays".
	Notes map[string]string
	// Shortfall is how many replicas found no destination: there were fewer usable candidates
	// than Replicas. The request goes to the ones there are.
	Shortfall int
}

// Texts of Pick's reasons that do not name a taint or a number.
const (
	notCandidateReason = "no longer a candidate"
	preferSuffix       = "; used only when no untainted candidate is left"
	stayedSuffix       = "; placed before, so it stays"
	preferChosenSuffix = "; chosen: no untainted candidate is left"
)

// Pick decides which destinations a resource request goes to. Candidates are ranked by Rank
// (weighted rendezvous hashing on the request's key), and the rules of issue 23 apply in this
// order:
//
//   - A candidate with an untolerated NoExecute taint is never chosen, and a request on it
//     leaves it. Only requests on that destination move, each to its best remaining choice, the
//     same one on every machine.
//   - Sticky: every other current destination that is still a candidate stays, even when a
//     better-ranked candidate exists, and even when it has an untolerated NoSchedule or
//     PreferNoSchedule taint. A current destination that is no longer a candidate is left.
//   - Replicas N: when more than N current destinations stay, the lowest-ranked of them leave
//     (with spread, "ranked" is the spread order below). When fewer stay, new destinations are
//     added until there are N: nothing that stays moves, so raising N only adds.
//   - NoSchedule: a candidate with an untolerated NoSchedule taint gets no new placement.
//   - PreferNoSchedule: a candidate whose strongest untolerated taint is PreferNoSchedule is
//     added only when no untainted (or fully tolerated) candidate is left to add.
//   - Spread: with a SpreadKey, new destinations are taken one per domain first (a domain is the
//     destination's value of that label; every destination without the label is in one shared
//     domain, so unlabelled destinations do not each count as a domain of their own), in rank
//     order, skipping domains that the staying destinations already cover; then the rest fill
//     by rank. Over zones a, a, b with N = 2 this takes the better a and the b.
//   - When fewer usable candidates than N exist, Pick chooses what there is and says how many
//     are missing in Shortfall.
//
// Pick is deterministic: the same input gives the same result on every machine.
func Pick(in PickInput) PickResult {
	p := picker{in: &in, n: max(in.Replicas, 1), rs: rankCandidates(in.Key, in.Candidates)}
	p.chosen, p.taints = make([]bool, len(p.rs)), make([]string, len(p.rs))
	res := PickResult{Reasons: make(map[string]string, len(p.rs))}
	p.sort(&res)
	p.choose(&res)
	p.explain(&res)
	return res
}

// picker is one Pick's working state; candidates are referred to by rank (0 is the best).
type picker struct {
	in     *PickInput
	n      int      // replicas
	rs     []ranked // best first
	chosen []bool   // by rank
	taints []string // by rank: the untolerated taints' reason, "" for none
	// The candidates that may be chosen, each best first: the current ones that stay, the
	// untainted (or fully tolerated) ones, and those whose strongest untolerated taint is
	// PreferNoSchedule.
	stay, clean, prefer []int
	addedPrefer         int // how many PreferNoSchedule ones were added
}

func (p *picker) name(i int) string { return p.in.Candidates[p.rs[i].idx].Name }

// sort puts every candidate where the taint and sticky rules put it, and records the current
// destinations that are left for a taint or for no longer being a candidate.
func (p *picker) sort(res *PickResult) {
	current := make(map[string]bool, len(p.in.Current))
	for _, c := range p.in.Current {
		current[c] = true
	}
	for i := range p.rs {
		d := &p.in.Candidates[p.rs[i].idx]
		effect := ""
		if len(d.Taints) > 0 {
			effect, p.taints[i] = strongest(p.in.Tolerations, d.Taints)
		}
		isCurrent := current[d.Name]
		delete(current, d.Name) // what remains afterwards is no longer a candidate
		switch {
		case effect == EffectNoExecute:
			res.Reasons[d.Name] = p.taints[i]
			if isCurrent {
				res.leave(d.Name, p.taints[i])
			}
		case isCurrent:
			p.stay = append(p.stay, i)
		case effect == EffectNoSchedule:
			res.Reasons[d.Name] = p.taints[i]
		case effect == EffectPreferNoSchedule:
			p.prefer = append(p.prefer, i)
		default:
			p.clean = append(p.clean, i)
		}
	}
	for _, c := range p.in.Current {
		if current[c] {
			res.leave(c, notCandidateReason)
		}
	}
}

// choose keeps at most n of the staying destinations, then adds from the clean candidates, and
// from the PreferNoSchedule ones only when the clean ones run out.
func (p *picker) choose(res *PickResult) {
	if len(p.stay) > p.n {
		kept := p.take(p.stay, p.n, map[domain]bool{})
		lowered := fmt.Sprintf("replicas lowered to %d; ranked below the current destinations kept", p.n)
		for _, i := range p.stay {
			if !p.chosen[i] {
				res.leave(p.name(i), lowered)
				res.Reasons[p.name(i)] = lowered
			}
		}
		p.stay = kept
	}
	covered := map[domain]bool{}
	for _, i := range p.stay {
		p.chosen[i] = true
		if p.in.SpreadKey != "" {
			covered[p.domainOf(i)] = true
		}
	}
	need := p.n - len(p.stay)
	need -= len(p.take(p.clean, need, covered))
	p.addedPrefer = len(p.take(p.prefer, need, covered))
	res.Shortfall = need - p.addedPrefer
	for i := range p.rs {
		if p.chosen[i] {
			res.Chosen = append(res.Chosen, p.name(i))
		}
	}
}

// explain writes why each candidate left out is left out, and why each chosen one with an
// untolerated taint is chosen all the same.
func (p *picker) explain(res *PickResult) {
	full := fmt.Sprintf("replicas = %d already placed", p.n)
	for _, i := range p.clean {
		if !p.chosen[i] {
			res.Reasons[p.name(i)] = full
		}
	}
	for _, i := range p.prefer {
		switch {
		case p.chosen[i]:
			res.note(p.name(i), p.taints[i]+preferChosenSuffix)
		case p.addedPrefer == 0:
			res.Reasons[p.name(i)] = p.taints[i] + preferSuffix
		default:
			res.Reasons[p.name(i)] = full
		}
	}
	for _, i := range p.stay {
		if p.taints[i] != "" {
			res.note(p.name(i), p.taints[i]+stayedSuffix)
		}
	}
}

func (r *PickResult) note(name, why string) {
	if r.Notes == nil {
		r.Notes = map[string]string{}
	}
	r.Notes[name] = why
}

func (r *PickResult) leave(name, why string) {
	if r.Left == nil {
		r.Left = map[string]string{}
	}
	r.Left[name] = why
}

// domain is a spread domain: a value of the spread label, or (set false) every destination
// without it.
type domain struct {
	value string
	set   bool
}

func (p *picker) domainOf(i int) domain {
	v, ok := p.in.Candidates[p.rs[i].idx].Labels[p.in.SpreadKey]
	return domain{v, ok}
}

// take chooses up to need of the ranks given (best first): with spread, first one per domain
// not yet covered (covering it), then the rest in rank order. It marks them chosen and returns
// them in rank order.
func (p *picker) take(ranks []int, need int, covered map[domain]bool) []int {
	if need <= 0 {
		return nil
	}
	var taken []int
	if p.in.SpreadKey != "" {
		for _, i := range ranks {
			if len(taken) == need {
				break
			}
			if d := p.domainOf(i); !covered[d] {
				covered[d], p.chosen[i] = true, true
				taken = append(taken, i)
			}
		}
	}
	for _, i := range ranks {
		if len(taken) == need {
			break
		}
		if !p.chosen[i] {
			p.chosen[i] = true
			taken = append(taken, i)
		}
	}
	slices.Sort(taken)
	return taken
}
