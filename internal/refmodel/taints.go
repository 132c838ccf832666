package refmodel

// Taints, tolerations and weights in the model-based test: destinations carry taints
// (NoSchedule, PreferNoSchedule, NoExecute, with or without a value) and weights (1 to 4, or
// unset), requests and promises some tolerations; "cordon", "drain", "untaint", "reweight" and
// "tolerate" change them. The rules, from the documentation of kratix_destination's taints and
// weight and of issue 23, written here without the provider's code:
//
//   - A toleration tolerates a taint as in Kubernetes: its effect, when set, is the taint's; its
//     key, when set, is the taint's; then Exists takes any value and Equal (or no operator) the
//     same value only.
//   - A request stays on its destination while that is in its promise's pool, unless the
//     destination has a NoExecute taint the request does not tolerate: then it moves to its
//     best choice among the other candidates (below), and stays, warned, when there is none.
//   - A request choosing (new, or its destination left the pool, or drained) takes the candidate
//     ranked first by weighted rendezvous hashing among those with no untolerated NoExecute or
//     NoSchedule taint and no untolerated PreferNoSchedule one; only when there is none of those,
//     the first of those whose strongest untolerated taint is PreferNoSchedule; else nothing.
//   - A promise's dependencies go to every matching destination, but one with an untolerated
//     NoExecute taint (unscheduled there as on_unschedule says), and one with an untolerated
//     NoSchedule taint that did not hold them before.
//
// The ranking: candidate d of weight w (unset is 1) scores -w / ln(u), u = (h>>11 + 1/2) / 2^53
// with h the first 8 bytes, big-endian, of SHA-256(key, 0x00, d's name), key being
// "<namespace>/<promise>/<name>"; the highest score first. When every candidate weighs the same the
// order is h's, highest first. Ties go to the higher h, then to the smaller name.

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

const (
	effNoSchedule       = "NoSchedule"
	effPreferNoSchedule = "PreferNoSchedule"
	effNoExecute        = "NoExecute"
)

// modelTaint is one of a destination's taints.
type modelTaint struct{ key, value, effect string }

func (t modelTaint) String() string {
	if t.value == "" {
		return t.key + ":" + t.effect
	}
	return t.key + "=" + t.value + ":" + t.effect
}

// modelToleration is a toleration of a request or a promise; op "" is Equal.
type modelToleration struct{ key, op, value, effect string }

func (t modelToleration) String() string {
	s := t.key
	if s == "" {
		s = "*"
	}
	switch t.op {
	case "Exists":
		s += " Exists"
	default:
		s += "=" + t.value
	}
	if t.effect != "" {
		s += ":" + t.effect
	}
	return s
}

var (
	modelTaintKeys   = []string{"maintenance", "team"}
	modelTaintValues = []string{"", "v1", "v2"}
	modelEffects     = []string{effNoSchedule, effPreferNoSchedule, effNoExecute}
	// modelTolerations are the tolerations a request or promise may have: every taint of a key,
	// one value and effect, everything, an effect only, and one that matches no value drawn.
	modelTolerations = []modelToleration{
		{key: "maintenance", op: "Exists"},
		{key: "maintenance", op: "Equal", value: "v1", effect: effNoExecute},
		{op: "Exists"},
		{key: "team", effect: effNoSchedule},
		{key: "team", op: "Exists", effect: effPreferNoSchedule},
		{key: "maintenance", value: "v3"},
	}
)

// tolerates: the toleration tolerates the taint (Kubernetes' rule, without Lt and Gt).
func (t modelToleration) tolerates(x modelTaint) bool {
	if t.effect != "" && t.effect != x.effect || t.key != "" && t.key != x.key {
		return false
	}
	return t.op == "Exists" || t.value == x.value
}

func tolerated(tols []modelToleration, x modelTaint) bool {
	return slices.ContainsFunc(tols, func(t modelToleration) bool { return t.tolerates(x) })
}

// effectStrength orders effects: none, PreferNoSchedule, NoSchedule, NoExecute.
func effectStrength(e string) int {
	return map[string]int{effPreferNoSchedule: 1, effNoSchedule: 2, effNoExecute: 3}[e]
}

// strongest is the strongest effect among d's taints that tols do not tolerate (NoExecute, then
// NoSchedule, then PreferNoSchedule), "" when every taint is tolerated.
func strongest(tols []modelToleration, d *modelDest) string {
	best := ""
	for _, x := range d.taints {
		if !tolerated(tols, x) && effectStrength(x.effect) > effectStrength(best) {
			best = x.effect
		}
	}
	return best
}

// drains: d has a NoExecute taint that tols do not tolerate.
func drains(tols []modelToleration, d *modelDest) bool {
	return slices.ContainsFunc(d.taints, func(x modelTaint) bool { return x.effect == effNoExecute && !tolerated(tols, x) })
}

// rendezvousKey is what a request's destination is chosen by.
func (w *modelWorld) rendezvousKey(r *modelRequest) string {
	return r.namespace + "/" + w.promises[r.promise].name + "/" + r.kratixName()
}

// rankHash is the first 8 bytes, big-endian, of SHA-256(key, 0x00, name).
func rankHash(key, name string) uint64 {
	sum := sha256.Sum256([]byte(key + "\x00" + name))
	return binary.BigEndian.Uint64(sum[:8])
}

// rankOrder orders dests by weighted rendezvous hashing for key, best first (see the top of the file).
func rankOrder(key string, dests []*modelDest) []*modelDest {
	type scored struct {
		d     *modelDest
		h     uint64
		score float64
	}
	uniform := true
	var all []scored
	for _, d := range dests {
		s := scored{d: d, h: rankHash(key, d.name)}
		u := (float64(s.h>>11) + 0.5) / math.Exp2(53)
		s.score = -float64(max(d.weight, 1)) / math.Log(u)
		uniform = uniform && max(d.weight, 1) == max(dests[0].weight, 1)
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if !uniform && a.score != b.score {
			return a.score > b.score
		}
		if a.h != b.h {
			return a.h > b.h
		}
		return a.d.name < b.d.name
	})
	out := make([]*modelDest, len(all))
	for i, s := range all {
		out[i] = s.d
	}
	return out
}

// requestPick is where a new request of one destination goes ("" nowhere): the first clean
// candidate by rank, else the first PreferNoSchedule one. (placeRequest is the whole rule; the
// unit tests use this one to state a single choice apart from it.)
func (w *modelWorld) requestPick(r *modelRequest) string {
	var cands []*modelDest
	for _, name := range w.candidates(r) {
		cands = append(cands, w.dest(name))
	}
	var clean, prefer []string
	for _, d := range rankOrder(w.rendezvousKey(r), cands) {
		switch strongest(r.tolerations, d) {
		case "":
			clean = append(clean, d.name)
		case effPreferNoSchedule:
			prefer = append(prefer, d.name)
		}
	}
	switch {
	case len(clean) > 0:
		return clean[0]
	case len(prefer) > 0:
		return prefer[0]
	}
	return ""
}

// promiseKeeps: p's dependencies go to (or stay on) d, which matches p's selectors, given
// whether p held them there before.
func promiseKeeps(p *modelPromise, d *modelDest, held bool) bool {
	switch strongest(p.tolerations, d) {
	case effNoExecute:
		return false
	case effNoSchedule:
		return held
	}
	return true
}

// ---------------------------------------------------------------------------------------------
// Drawing them.

func randomTaint(rng *rand.Rand, effect string) modelTaint {
	return modelTaint{key: pick(rng, modelTaintKeys), value: pick(rng, modelTaintValues), effect: effect}
}

func randomTolerations(rng *rand.Rand) []modelToleration {
	return []modelToleration{pick(rng, modelTolerations)}
}

func randomWeight(rng *rand.Rand) int {
	if rng.IntN(2) == 0 {
		return 0 // unset
	}
	return 1 + rng.IntN(4)
}

// drawTaints gives a new world's destinations taints (one in four, of any effect) and weights
// (half of them), a third of its requests and a quarter of its promises a toleration. It draws
// after everything else, so that a seed's stores, destinations, promises and requests are
// those it drew before taints existed.
func drawTaints(rng *rand.Rand, w *modelWorld) {
	for _, d := range w.dests {
		if rng.IntN(4) == 0 {
			d.taints = []modelTaint{randomTaint(rng, pick(rng, modelEffects))}
		}
		d.weight = randomWeight(rng)
	}
	for _, r := range w.requests {
		if rng.IntN(3) == 0 {
			r.tolerations = randomTolerations(rng)
		}
	}
	for _, p := range w.promises {
		if rng.IntN(4) == 0 {
			p.tolerations = randomTolerations(rng)
		}
	}
}

// addTaint gives d a taint of effect with a key it has no taint of that effect under (two taints
// of one key and effect are refused); false when both keys are taken.
func addTaint(rng *rand.Rand, d *modelDest, effect string) (modelTaint, bool) {
	for _, i := range rng.Perm(len(modelTaintKeys)) {
		key := modelTaintKeys[i]
		if !slices.ContainsFunc(d.taints, func(x modelTaint) bool { return x.key == key && x.effect == effect }) {
			t := modelTaint{key: key, value: pick(rng, modelTaintValues), effect: effect}
			d.taints = append(slices.Clone(d.taints), t)
			return t, true
		}
	}
	return modelTaint{}, false
}

// taintOp makes "cordon", "drain", "untaint", "reweight" and "tolerate".
func (m *Model) taintOp(rng *rand.Rand, name string, dests []*modelDest, promises []*modelPromise, requests []*modelRequest) (Op, bool) {
	switch name {
	case "cordon", "drain":
		if len(dests) == 0 {
			return Op{}, false
		}
		effect := effNoExecute
		if name == "cordon" {
			// Mostly NoSchedule, sometimes PreferNoSchedule: neither moves anything.
			effect = pick(rng, []string{effNoSchedule, effNoSchedule, effPreferNoSchedule})
		}
		d := pick(rng, dests)
		if movable := m.movable(rng, dests); name == "drain" && len(movable) > 0 && rng.IntN(4) > 0 {
			d = pick(rng, movable) // mostly one with a request on it that a drain moves
		}
		t, ok := addTaint(rng, d, effect)
		if !ok {
			return Op{}, false
		}
		op := Op{Desc: fmt.Sprintf("%s (%s, cleanup %s) tainted %s, now %s", d.name, d.mode, d.cleanup, t, listText(d.taints))}
		if name == "cordon" {
			// Nothing is placed or removed: no request moves, no promise leaves or joins.
			op.Quiet = true
			return op, true
		}
		op.Desc += m.onDest(d)
		return op, true

	case "untaint":
		var tainted []*modelDest
		for _, d := range dests {
			if len(d.taints) > 0 {
				tainted = append(tainted, d)
			}
		}
		if len(tainted) == 0 {
			return Op{}, false
		}
		d := pick(rng, tainted)
		before := listText(d.taints)
		if rng.IntN(2) == 0 {
			d.taints = nil
		} else {
			i := rng.IntN(len(d.taints))
			d.taints = slices.Delete(slices.Clone(d.taints), i, i+1)
		}
		return Op{Desc: fmt.Sprintf("%s taints %s -> %s%s", d.name, before, listText(d.taints), m.onDest(d))}, true

	case "reweight":
		if len(dests) == 0 {
			return Op{}, false
		}
		d := pick(rng, dests)
		before := d.weight
		for max(d.weight, 1) == max(before, 1) {
			d.weight = randomWeight(rng)
		}
		// Requests stay where they are: nothing is written.
		return Op{Desc: fmt.Sprintf("%s weight %s -> %s", d.name, weightText(before), weightText(d.weight)), Quiet: true}, true

	case "tolerate":
		n := len(promises) + len(requests)
		if n == 0 {
			return Op{}, false
		}
		var tols *[]modelToleration
		what := ""
		if i := rng.IntN(n); i < len(promises) {
			tols, what = &promises[i].tolerations, "promise "+promises[i].name
		} else {
			r := requests[i-len(promises)]
			tols, what = &r.tolerations, fmt.Sprintf("request %s (on %q)", r.name, m.choice[r.name])
		}
		before := listText(*tols)
		for listText(*tols) == before {
			*tols = nil
			if rng.IntN(3) > 0 {
				*tols = randomTolerations(rng)
			}
		}
		return Op{Desc: fmt.Sprintf("%s tolerations %s -> %s", what, before, listText(*tols))}, true
	}
	panic("unknown operation " + name)
}

// movable are the destinations of dests that a NoExecute taint (drawn here, as addTaint would)
// drains of some present request that has somewhere else to go.
func (m *Model) movable(rng *rand.Rand, dests []*modelDest) []*modelDest {
	var out []*modelDest
	for _, d := range dests {
		saved := d.taints
		if _, ok := addTaint(rng, d, effNoExecute); ok && slices.ContainsFunc(m.w.requests, func(r *modelRequest) bool {
			on := m.choice[r.name]
			return r.present && (slices.Contains(on, d.name) && drains(r.tolerations, d) && !slices.Contains(m.w.placeRequest(r, on).set, d.name) ||
				m.groupDrains(r, d))
		}) {
			out = append(out, d)
		}
		d.taints = saved
	}
	return out
}

// onDest names the requests on d, for a step's description.
func (m *Model) onDest(d *modelDest) string {
	var on []string
	for _, r := range m.w.requests {
		if r.present && slices.Contains(m.choice[r.name], d.name) {
			on = append(on, fmt.Sprintf("%s (tolerations %s)", r.name, listText(r.tolerations)))
		}
	}
	if len(on) == 0 {
		return ""
	}
	return "; on it: " + strings.Join(on, ", ")
}

// listText writes items joined by commas, or "none".
func listText[T fmt.Stringer](items []T) string {
	if len(items) == 0 {
		return "none"
	}
	parts := make([]string, len(items))
	for i, t := range items {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

func weightText(w int) string {
	if w == 0 {
		return "unset"
	}
	return fmt.Sprint(w)
}

// ---------------------------------------------------------------------------------------------
// Rendering them.

func hclTaints(ts []modelTaint) string {
	var parts []string
	for _, t := range ts {
		s := "{ key = " + hclString(t.key)
		if t.value != "" {
			s += ", value = " + hclString(t.value)
		}
		parts = append(parts, s+", effect = "+hclString(t.effect)+" }")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func hclTolerations(ts []modelToleration) string {
	var parts []string
	for _, t := range ts {
		var fields []string
		if t.key != "" {
			fields = append(fields, "key = "+hclString(t.key))
		}
		if t.op != "" {
			fields = append(fields, "operator = "+hclString(t.op))
		}
		if t.value != "" {
			fields = append(fields, "value = "+hclString(t.value))
		}
		if t.effect != "" {
			fields = append(fields, "effect = "+hclString(t.effect))
		}
		parts = append(parts, "{ "+strings.Join(fields, ", ")+" }")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// DrainedMoves describes the requests the last Settle saw moved off a destination that drains
// them, such as "r0 d3->d1" ("r0 d3->" when nothing replaced it), for the runner's log.
func (m *Model) DrainedMoves() []string {
	var out []string
	for _, mv := range m.left {
		if mv.drained {
			out = append(out, fmt.Sprintf("%s %s->%s", mv.request, mv.from, mv.to))
		}
	}
	return out
}
