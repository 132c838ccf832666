package refmodel

// Rollouts in the reference model: which dependencies (corpus entries) each scheduled destination
// of a promise with `rollout` holds after each apply. Written from the documented rules
// (docs/resources/promise.md, `rollout`), sharing no code with internal/rollout:
//
//   - On create everything is written at once, and so it is without `rollout`.
//   - Waves take, in order, the scheduled destinations (by name) their selectors match that no
//     earlier wave took, up to max_destinations and to max_percent (rounded up) of those matched;
//     the last wave also takes what no wave took.
//   - A change of dependencies goes to one more wave per apply; a wave with nothing to change is
//     passed over in the same apply. Waiting destinations keep what they hold; one that joins or
//     moves gets the revision that last completed the whole rollout; one waiting in a wave already
//     done goes with the next wave that advances (or at once when every wave is done).
//   - A further change restarts from the first wave; paused writes nothing but to joiners.
//   - When every scheduled destination holds the configured dependencies, the rollout is complete.
//
// A revision is named by the dependencies' canonical YAML; the corpus entries are canonical and
// pairwise different, so the model names revisions by corpus index.
//
// The model cannot know time: generated worlds use no min_wait (or "0s").

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
)

// modelRollout is a promise's `rollout` block.
type modelRollout struct {
	waves   []modelWave
	paused  bool
	minWait bool       // render min_wait = "0s" (no wait)
	gate    *modelGate // nil: none (gate.go)
}

type modelWave struct {
	name     string
	sel      modelSelector // match_labels of each entry
	maxDests int           // 0: no cap
	maxPct   int           // 0: no cap
}

func (r *modelRollout) clone() *modelRollout {
	if r == nil {
		return nil
	}
	c := *r
	if r.gate != nil {
		g := *r.gate
		c.gate = &g
	}
	c.waves = slices.Clone(r.waves)
	for i := range c.waves {
		var sel modelSelector
		for _, e := range r.waves[i].sel {
			sel = append(sel, maps2s(e))
		}
		c.waves[i].sel = sel
	}
	return &c
}

func maps2s(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// rolloutProgress is what the model knows of a promise's rollout after an apply.
type rolloutProgress struct {
	completed int      // the dependencies (corpus index) that last reached every scheduled destination
	target    int      // the dependencies being rolled out; -1: none in flight
	wavesDone int      // waves of target written so far
	waiting   []string // scheduled destinations that do not hold the configured dependencies, sorted
	next      int      // the wave that goes next (-1: none)
	// With a gate (gate.go): lastWave is when the last wave of target was written; failed is
	// the revision whose gate failed and that was rolled back (-1: none); gateFailed says that
	// the gate failed with on_failure = "pause", which stops the rollout.
	lastWave   time.Time
	failed     int
	gateFailed bool
}

// waveMatches: a wave's selector matches labels. (Unlike a promise's, a wave's selector is not
// asked about strict_match_labels: the generator gives every wave but the last a selector, and
// the last takes what is left anyway.)
func waveMatches(sel modelSelector, labels map[string]string) bool {
	for k, v := range sel.merged() {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// assignWaves puts every scheduled destination in a wave (by index), from the rules above.
func assignWaves(waves []modelWave, scheduled []*modelDest) map[string]int {
	dests := slices.Clone(scheduled)
	sort.Slice(dests, func(i, j int) bool { return dests[i].name < dests[j].name })
	out := map[string]int{}
	for i, wave := range waves {
		var matched []string
		for _, d := range dests {
			if _, taken := out[d.name]; !taken && waveMatches(wave.sel, d.labels) {
				matched = append(matched, d.name)
			}
		}
		take := len(matched)
		if wave.maxPct > 0 {
			take = min(take, (len(matched)*wave.maxPct+99)/100)
		}
		if wave.maxDests > 0 {
			take = min(take, wave.maxDests)
		}
		for _, name := range matched[:take] {
			out[name] = i
		}
	}
	for _, d := range dests {
		if _, taken := out[d.name]; !taken {
			out[d.name] = len(waves) - 1
		}
	}
	return out
}

// rolloutHolder is one scheduled destination of a promise as stage sees it.
type rolloutHolder struct {
	dest *modelDest
	// held: the promise's placement was recorded here before this apply, in this folder, on this
	// incarnation of the destination (or one re-created in place that kept its files); heldRev
	// is then what the promise recorded it holds.
	held    bool
	heldRev int
}

// stage decides what each scheduled destination of p gets in this apply. staged is false when
// there is nothing to protect (the promise is created, or had no placement): everything gets
// p.deps. It returns the dependencies given, by destination, and the progress after the apply.
func (m *Model) stageRollout(p *modelPromise, prior *rolloutProgress, holders []rolloutHolder, staged bool) (map[string]int, *rolloutProgress) {
	give := map[string]int{}
	done := func() *rolloutProgress {
		return &rolloutProgress{completed: p.deps, target: -1, next: -1, failed: -1}
	}
	if p.rollout == nil || !staged || prior == nil {
		for _, h := range holders {
			give[h.dest.name] = p.deps
		}
		return give, done()
	}
	prog := *prior
	var waiting []string
	var scheduled []*modelDest
	for _, h := range holders {
		give[h.dest.name] = prog.completed
		if h.held {
			give[h.dest.name] = h.heldRev
		}
		if give[h.dest.name] != p.deps {
			waiting = append(waiting, h.dest.name)
		}
		scheduled = append(scheduled, h.dest)
	}
	if len(waiting) == 0 {
		return give, done()
	}
	if p.gated() && prior.failed == p.deps {
		// Rolled back: while the failed revision is configured nothing advances, and nothing
		// is in flight; a joiner gets the completed revision.
		return give, &rolloutProgress{completed: prior.completed, target: -1, next: -1, failed: p.deps}
	}
	if prog.target != p.deps {
		prog = rolloutProgress{completed: prior.completed, target: p.deps, failed: -1}
	}
	waves := p.rollout.waves
	wave := assignWaves(waves, scheduled)
	next := len(waves)
	for _, d := range waiting {
		if w := wave[d]; w >= prog.wavesDone && w < next {
			next = w
		}
	}
	halt := p.rollout.paused
	if !halt && p.gated() && prog.wavesDone > 0 {
		// Every scheduled destination holding the revision is judged, whatever its wave now.
		var gated []string
		for _, h := range holders {
			if give[h.dest.name] == p.deps {
				gated = append(gated, h.dest.name)
			}
		}
		prog.gateFailed = false
		verdict := m.judgeGate(&prog, gated)
		m.verdicts[p.name] = verdict
		switch {
		case verdict == gatePassed:
		case verdict == gatePausedFail && p.rollout.gate.onFailure == "rollback":
			// Every destination holding the revision gets the completed one back.
			m.verdicts[p.name] = gateRolledBack
			for d, g := range give {
				if g == p.deps {
					give[d] = prior.completed
				}
			}
			return give, &rolloutProgress{completed: prior.completed, target: -1, next: -1, failed: p.deps}
		default:
			halt = true
			prog.gateFailed = verdict == gatePausedFail
		}
		if len(gated) == 0 && verdict == gateHeld {
			// Nothing holds the revision to judge: the waves done go again to their destinations
			// that wait, and the gate follows that write; no later wave goes.
			var still []string
			for _, d := range waiting {
				if wave[d] < prog.wavesDone {
					give[d] = p.deps
					prog.lastWave = m.now
				} else {
					still = append(still, d)
				}
			}
			waiting = still
		}
	}
	if !halt {
		prog.lastWave = m.now
		prog.wavesDone = min(next+1, len(waves))
		var still []string
		for _, d := range waiting {
			if wave[d] <= next {
				give[d] = p.deps
			} else {
				still = append(still, d)
			}
		}
		waiting = still
	}
	if len(waiting) == 0 {
		return give, done()
	}
	sort.Strings(waiting)
	prog.waiting = waiting
	prog.next = len(waves) - 1
	for _, d := range waiting {
		prog.next = min(prog.next, max(wave[d], prog.wavesDone))
	}
	return give, &prog
}

// InFlight are the promises whose rollout is not complete after the last apply, sorted.
func (m *Model) InFlight() []string {
	var out []string
	for name, prog := range m.rollouts {
		if p := m.w.promise(name); p != nil && p.present && len(prog.waiting) > 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// RolloutText describes where the rollouts stand, for the step log and failure reports.
func (m *Model) RolloutText() string {
	var parts []string
	for _, p := range m.w.promises {
		prog := m.rollouts[p.name]
		if !p.present || p.rollout == nil || prog == nil {
			continue
		}
		s := fmt.Sprintf("%s holds #%d", p.name, prog.completed)
		if len(prog.waiting) > 0 {
			s = fmt.Sprintf("%s rolls #%d out (fleet held #%d), %d waves done, next %s, waiting %s", p.name, p.deps, prog.completed,
				prog.wavesDone, p.rollout.waves[prog.next].name, strings.Join(prog.waiting, ","))
		}
		if p.rollout.paused {
			s += " (paused)"
		}
		if prog.failed >= 0 && p.gated() {
			s += fmt.Sprintf(" (#%d failed its gate and was rolled back)", prog.failed)
		}
		if v, ok := m.verdicts[p.name]; ok {
			s += ", gate " + string(v)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "rollouts: " + strings.Join(parts, "; ")
}

// ---------------------------------------------------------------------------------------------
// Generation.

var modelWaveNames = []string{"canary", "early", "zz-last", "beta", "alpha"} // names in no particular order

// randomRollout draws a rollout: one to three waves, all but the last with a selector over the
// world's labels; caps now and then; sometimes paused.
func randomRollout(rng *rand.Rand) *modelRollout {
	r := &modelRollout{paused: rng.IntN(5) == 0, minWait: rng.IntN(4) == 0}
	names := slices.Clone(modelWaveNames)
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	n := 1 + rng.IntN(3)
	if n == 1 && rng.IntN(2) == 0 {
		n = 2
	}
	for i := range n {
		w := modelWave{name: names[i]}
		if i < n-1 || rng.IntN(2) == 0 {
			w.sel = modelSelector{randomLabel(rng)}
			if rng.IntN(4) == 0 {
				w.sel = append(w.sel, randomLabel(rng))
			}
		}
		switch {
		case i == 0 && n > 1 && rng.IntN(3) > 0:
			// A canary: one destination (the first by name, whatever its labels, or among
			// those of a label).
			if rng.IntN(2) == 0 {
				w.sel = nil
			}
			w.maxDests = 1
		case rng.IntN(3) == 0:
			w.maxDests = 1 + rng.IntN(2)
		}
		if rng.IntN(3) == 0 {
			w.maxPct = pick(rng, []int{34, 50, 50, 67, 100})
		}
		r.waves = append(r.waves, w)
	}
	return r
}

func (r *modelRollout) String() string {
	if r == nil {
		return "none"
	}
	var waves []string
	for _, w := range r.waves {
		s := w.name + " " + selectorText2(w.sel)
		if w.maxDests > 0 {
			s += fmt.Sprintf(" max %d", w.maxDests)
		}
		if w.maxPct > 0 {
			s += fmt.Sprintf(" max %d%%", w.maxPct)
		}
		waves = append(waves, s)
	}
	out := "waves [" + strings.Join(waves, "; ") + "]"
	if r.gate != nil {
		out += fmt.Sprintf(" gate (healthy, settle %s, timeout %s, on_failure %s)", modelGateSettle, modelGateTimeout, r.gate.onFailure)
	}
	if r.paused {
		out += " paused"
	}
	return out
}

func (r *modelRollout) hcl() string {
	var b strings.Builder
	b.WriteString("  rollout = {\n    waves = [\n")
	for _, w := range r.waves {
		fmt.Fprintf(&b, "      { name = %q", w.name)
		if len(w.sel) > 0 {
			fmt.Fprintf(&b, ", destination_selectors = %s", hclSelectors(w.sel))
		}
		if w.maxDests > 0 {
			fmt.Fprintf(&b, ", max_destinations = %d", w.maxDests)
		}
		if w.maxPct > 0 {
			fmt.Fprintf(&b, ", max_percent = %d", w.maxPct)
		}
		b.WriteString(" },\n")
	}
	b.WriteString("    ]\n")
	if r.paused {
		b.WriteString("    paused = true\n")
	}
	if r.minWait {
		b.WriteString("    min_wait = \"0s\"\n")
	}
	if r.gate != nil {
		b.WriteString(r.gate.hcl())
	}
	b.WriteString("  }\n")
	return b.String()
}

// modelRolloutOps are the operations drawn first, half of the time, while a rollout is in flight:
// further changes, pauses, new waves, destinations joining, leaving, moving or relabelled.
var modelRolloutOps = []string{"stage", "stage", "stage", "pause", "rollout", "relabel", "pool", "destroy", "selectors", "move", "storepath"}

// rolloutOp: "stage" changes the dependencies of a promise with a rollout (giving one a rollout
// first when none has); "pause" flips paused; "rollout" gives a promise a rollout, draws its
// waves again, or takes it away.
func (m *Model) rolloutOp(rng *rand.Rand, name string, promises []*modelPromise) (Op, bool) {
	if len(promises) == 0 {
		return Op{}, false
	}
	var with []*modelPromise
	for _, p := range promises {
		if p.rollout != nil {
			with = append(with, p)
		}
	}
	switch name {
	case "stage":
		desc := ""
		if len(with) == 0 {
			p := pick(rng, promises)
			p.rollout = randomRollout(rng)
			with = []*modelPromise{p}
			desc = fmt.Sprintf("promise %s rollout %s, and ", p.name, p.rollout)
		}
		p := pick(rng, with)
		before := p.deps
		for p.deps == before {
			p.deps = rng.IntN(len(modelDepsCorpus))
		}
		return Op{Desc: desc + fmt.Sprintf("promise %s (rollout) dependencies #%d -> #%d", p.name, before, p.deps)}, true
	case "pause":
		if len(with) == 0 {
			return Op{}, false
		}
		p := pick(rng, with)
		p.rollout.paused = !p.rollout.paused
		return Op{Desc: fmt.Sprintf("promise %s rollout paused = %v", p.name, p.rollout.paused)}, true
	default: // "rollout"
		p := pick(rng, promises)
		before := p.rollout.String()
		switch {
		case p.rollout != nil && rng.IntN(4) == 0:
			p.rollout = nil
		case p.rollout != nil:
			paused := p.rollout.paused
			p.rollout = randomRollout(rng)
			p.rollout.paused = paused
		default:
			p.rollout = randomRollout(rng)
		}
		return Op{Desc: fmt.Sprintf("promise %s rollout %s -> %s", p.name, before, p.rollout)}, true
	}
}

// (a waiting destination is not written to), so a hand edit there would not be repaired.
func (m *Model) waitingWithOwn(e *ledgerEntry) bool {
	kind, name := ownerKind(e.owner)
	if kind != "p" {
		return false
	}
	prog, pl := m.rollouts[name], m.placed[name+"@"+e.dest]
	return prog != nil && pl != nil && pl.lastDeps != prog.completed
}

// hasRollout: some present promise has a rollout.
func (m *Model) hasRollout() bool {
	return slices.ContainsFunc(m.w.promises, func(p *modelPromise) bool { return p.present && p.rollout != nil && !p.gated() })
}

// replacedRollout is the rollout progress a promise plans from in this apply, and whether it is
// read back from the stores midway: readBack says the promise is replaced in this apply
// (-replace, with or without create_before_destroy) or imported after `terraform state rm`.
// Either way the new object finds in the stores which revision each destination holds: while a
// rollout is in flight it goes on where it stands, its last wave counted from this apply (a
// gate's records count from it plus settle again, and a gate that had failed with "pause" is
// held again until its timeout counts from here); after a gate rolled the configured revision
// back, the stores hold the completed revision everywhere, and the rollback is recovered only
// when the first wave's destination reports a state the gate does not pass (else the rollout
// starts again from the first wave). A rollout that is complete is created afresh (replaced) or
// adopted as it is (imported): either writes nothing.
func (m *Model) replacedRollout(p *modelPromise, readBack bool) (bool, *rolloutProgress) {
	prior := m.rollouts[p.name]
	if !readBack || p.rollout == nil || prior == nil || !p.present {
		return false, prior
	}
	prog := *prior
	switch {
	case p.gated() && prior.failed == p.deps:
		if m.rollbackRecovered(p) {
			return true, &prog // recovered: it stays rolled back
		}
		prog = rolloutProgress{completed: prior.completed, target: -1, next: -1, failed: -1}
		return true, &prog
	case len(prior.waiting) > 0:
		if prog.wavesDone > 0 {
			prog.lastWave = m.now
		}
		prog.gateFailed = false
		return true, &prog
	}
	return false, prior
}

// rollbackRecovered: a destination of p's first wave has a record whose state the gate does not
// pass (a record gone, or "healthy" but too old, does not count), so a promise read back from
// stores that hold the completed revision everywhere takes the configured one as failed.
func (m *Model) rollbackRecovered(p *modelPromise) bool {
	var scheduled []*modelDest
	for _, d := range presentDests(m.w) {
		if pl := m.placed[p.name+"@"+d.name]; pl != nil && pl.scheduled {
			scheduled = append(scheduled, d)
		}
	}
	wave := assignWaves(p.rollout.waves, scheduled)
	for _, d := range scheduled {
		if r, ok := m.records[d.name]; ok && wave[d.name] == 0 && r.state != "healthy" {
			return true
		}
	}
	return false
}
