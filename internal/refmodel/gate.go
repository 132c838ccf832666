package refmodel

// Gated rollouts in the reference model: promise "pg" (drawn in half of the worlds) rolls its
// dependencies out in two waves, "canary" (the first scheduled destination by name) and "rest",
// behind a gate that reads HealthRecords from an observe store (a bucket or repository of its
// own, folder "health"). The operation "health" stages a new revision of it when its rollout is
// idle, and otherwise writes, for the destinations of the waves already written, records with a
// random verdict and moves the clock on, possibly past the gate's timeout. Written from the
// documented rules (docs/resources/promise.md, `rollout.gate`, `observe`, `health`), sharing no
// code with internal/rollout:
//
//   - The gate is asked before a wave goes while waves of the configured revision are already
//     written (not before the first wave). It looks at every scheduled destination that holds
//     the revision, whatever wave it is in now (one relabelled out of the canary wave still
//     counts). When none holds it (the canary left, was drained or moved), the gate does not
//     pass: the waves done are written again to their destinations that wait, the gate then
//     follows that write (settle and timeout count from it), and no later wave goes.
//   - A destination passes when it has a record in one of the gate's states, made after the
//     provider last wrote it and no earlier than the last wave's write + settle.
//   - When every one passes (min_healthy_percent is unset: 100), the next wave goes. Otherwise
//     nothing is written (but to joiners, as always) until the last wave's write + timeout; from
//     then on the gate has failed: with on_failure "pause" nothing advances; with "rollback" every
//     destination holding the revision gets the completed one back, byte for byte, the revision
//     is recorded as failed, and while it stays configured nothing advances and nothing is in
//     flight.
//
// Replace and import (issue 37, findings 4 and 5; the promise page's Import and the guide's
// "Moving the promise to another state" and "Replacing the promise mid-rollout"): `-replace`
// (with or without create_before_destroy) and `terraform state rm` + import of pg are drawn in
// any state of its rollout. The new object has no prior state and reads the rollout back from
// the stores:
//
//   - Idle (complete): a replacement is created as any promise is, everything at once, which
//     the folders hold already; an import adopts it. Neither writes.
//   - In flight (gate holding, or failed with "pause"): it goes on where the rollout stands. The
//     delete a replacement makes first leaves the files of the destinations waiting, and the
//     create writes nothing there; an import writes nothing. The last wave counts from this
//     apply: the gate holds (records count from it plus settle, the timeout from it), so nothing
//     advances in this apply and a gate that had failed is held again.
//   - Rolled back: the stores hold the completed revision everywhere. When a destination of the
//     first wave has a record whose state the gate does not pass, the revision is failed again
//     and nothing is written ("Rolled-Back Revision Recovered"); otherwise (no record, or a
//     healthy one, however old) it is a change not started yet: the first wave goes at once.
//
// The model keeps the clock: it starts at modelEpoch and every operation moves it on by a
// second ("health" by more), and the runner gives the provider that time. A "healthy" record is
// made at the time of its operation, after every write the provider made, so the model needs no
// record of when each destination was last written: a record that fails does so whatever that
// time is.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// modelEpoch is the clock's time at the first apply.
var modelEpoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	modelGatedPromise = "pg"
	modelGateSettle   = 5 * time.Minute
	modelGateTimeout  = time.Hour
	// modelHealthFolder is the observe store's path: records of destination D are in
	// health/D/pg.yaml.
	modelHealthFolder = "health"
)

// modelGate is a rollout's `gate`: states ["healthy"], settle modelGateSettle, timeout
// modelGateTimeout, and what a failure does.
type modelGate struct {
	onFailure string // "pause" or "rollback"
}

// Record is a HealthRecord the runner writes (or deletes) in the observe store before an apply:
// health/<Destination>/pg.yaml, for promise Promise, with State and LastRun.
type Record struct {
	Promise, Destination, State string
	LastRun                     time.Time
	Delete                      bool // remove the destination's record instead
}

// Path is where the record is in the observe store.
func (r Record) Path() string {
	return modelHealthFolder + "/" + r.Destination + "/" + r.Promise + ".yaml"
}

// modelRecord is what the model knows of a destination's record.
type modelRecord struct {
	state   string
	lastRun time.Time
}

// gateVerdict is what the gate did in the last apply, by promise ("passed", "held", "failed,
// paused", "rolled back"), for the runner's tally and the step log.
type gateVerdict string

const (
	gatePassed     gateVerdict = "passed"
	gateHeld       gateVerdict = "held"
	gatePausedFail gateVerdict = "failed, paused"
	gateRolledBack gateVerdict = "rolled back"
)

// gatedPromise draws promise pg: on every destination, dependencies deps, waves canary and rest,
// a gate that pauses or rolls back.
func gatedPromise(rng *rand.Rand) *modelPromise {
	return &modelPromise{
		name: modelGatedPromise, present: true, deps: 1 + rng.IntN(len(modelDepsCorpus)-1),
		rollout: &modelRollout{
			waves: []modelWave{{name: "canary", maxDests: 1}, {name: "rest"}},
			gate:  &modelGate{onFailure: pick(rng, []string{"pause", "rollback"})},
		},
	}
}

// gated: p's rollout has a gate (it is pg, which no other operation touches).
func (p *modelPromise) gated() bool { return p.rollout != nil && p.rollout.gate != nil }

// Gated says whether the world has a gated promise: then the runner serves the provider with
// the model's clock (Now) and an observe store.
func (m *Model) Gated() bool { return slices.ContainsFunc(m.w.promises, (*modelPromise).gated) }

// Now is the time the provider must read during this step's commands.
func (m *Model) Now() time.Time { return m.now }

// GateVerdicts are what the gates did in the last apply ("pg passed"), sorted.
func (m *Model) GateVerdicts() []string {
	var out []string
	for _, p := range modelKeys(m.verdicts) {
		out = append(out, p+" "+string(m.verdicts[p]))
	}
	return out
}

func (g *modelGate) hcl() string {
	return fmt.Sprintf("    gate = {\n      states     = [\"healthy\"]\n      settle     = %q\n      timeout    = %q\n      on_failure = %q\n    }\n",
		modelGateSettle, modelGateTimeout, g.onFailure)
}

// observeHCL is the `observe` block of a gated promise.
const observeHCL = "  observe = { state_store = kratix_state_store.health }\n"

// judgeGate is the gate's word on the waves of prog already written: gated are the scheduled
// destinations that hold the revision; none does not pass.
func (m *Model) judgeGate(prog *rolloutProgress, gated []string) gateVerdict {
	settled := prog.lastWave.Add(modelGateSettle)
	passing := 0
	for _, d := range gated {
		r, ok := m.records[d]
		if ok && r.state == "healthy" && !r.lastRun.Before(settled) && r.lastRun.After(prog.lastWave) {
			passing++
		}
	}
	switch {
	case len(gated) > 0 && passing == len(gated):
		return gatePassed
	case m.now.Before(prog.lastWave.Add(modelGateTimeout)):
		return gateHeld
	default:
		return gatePausedFail // the caller rolls back when the gate says so
	}
}

// modelClockSteps are how far "health" moves the clock on: before and after settle, and past the
// timeout.
var modelClockSteps = []time.Duration{2 * time.Minute, 10 * time.Minute, 30 * time.Minute, 70 * time.Minute}

// healthOp: with pg's rollout idle (complete, rolled back, or stopped by a failed gate), a new
// revision for it; else records with a random verdict for the destinations that hold the
// revision in the waves written, and the clock moved on.
func (m *Model) healthOp(rng *rand.Rand) (Op, bool) {
	p := m.w.promise(modelGatedPromise)
	if p == nil || !p.present {
		return Op{}, false
	}
	prog := m.rollouts[p.name]
	if prog == nil || len(prog.waiting) == 0 || prog.gateFailed {
		before := p.deps
		completed := p.deps
		if prog != nil {
			completed = prog.completed
		}
		for p.deps == before || p.deps == completed {
			p.deps = rng.IntN(len(modelDepsCorpus))
		}
		return Op{Desc: fmt.Sprintf("promise %s (gated) dependencies #%d -> #%d (completed #%d)", p.name, before, p.deps, completed)}, true
	}
	step := pick(rng, modelClockSteps)
	m.now = m.now.Add(step)
	var recs []Record
	var parts []string
	for _, d := range presentDests(m.w) {
		pl := m.placed[p.name+"@"+d.name]
		if pl == nil || !pl.scheduled || pl.rev != p.deps {
			continue
		}
		r := Record{Promise: p.name, Destination: d.name, State: "healthy", LastRun: m.now}
		switch verdict := pick(rng, []string{"healthy", "healthy", "degraded", "none", "stale"}); verdict {
		case "degraded":
			r.State = "degraded"
		case "none":
			r.Delete = true
		case "stale":
			r.LastRun = prog.lastWave.Add(modelGateSettle - time.Minute)
		}
		recs = append(recs, r)
		parts = append(parts, d.name+" "+r.text(prog.lastWave))
	}
	for _, r := range recs {
		if r.Delete {
			delete(m.records, r.Destination)
		} else {
			m.records[r.Destination] = modelRecord{state: r.State, lastRun: r.LastRun}
		}
	}
	desc := fmt.Sprintf("clock +%s (last wave +%s): records %s", step, m.now.Sub(prog.lastWave), strings.Join(parts, ", "))
	if len(parts) == 0 {
		desc = fmt.Sprintf("clock +%s (last wave +%s): no scheduled destination holds #%d", step, m.now.Sub(prog.lastWave), p.deps)
	}
	return Op{Desc: desc, Records: recs}, true
}

// text is the record as the step log shows it.
func (r Record) text(lastWave time.Time) string {
	if r.Delete {
		return "none"
	}
	return fmt.Sprintf("%s at last wave +%s", r.State, r.LastRun.Sub(lastWave))
}

// importRestarts: reading p's rollout back from the stores (an import or a replacement) starts
// it again from the first wave: its revision was rolled back and no record recovers that.
func (m *Model) importRestarts(p *modelPromise) bool {
	prog := m.rollouts[p.name]
	return prog != nil && prog.failed == p.deps && !m.rollbackRecovered(p)
}

// gateStateText says where pg's rollout stands, for a replacement's or import's description.
func (m *Model) gateStateText(p *modelPromise) string {
	prog := m.rollouts[p.name]
	switch {
	case prog == nil:
		return "no rollout yet"
	case prog.failed == p.deps && m.rollbackRecovered(p):
		return fmt.Sprintf("#%d rolled back, a first-wave record recovers it", p.deps)
	case prog.failed == p.deps:
		return fmt.Sprintf("#%d rolled back, no record recovers it", p.deps)
	case len(prog.waiting) == 0:
		return "idle"
	case prog.gateFailed:
		return fmt.Sprintf("gate failed, paused, %d waves done", prog.wavesDone)
	}
	return fmt.Sprintf("gate holding, %d waves done", prog.wavesDone)
}

// gateBusy: pg's rollout is in flight (its gate holding or failed) or rolled back.
func (m *Model) gateBusy() bool {
	p := m.w.promise(modelGatedPromise)
	if p == nil || !p.present {
		return false
	}
	prog := m.rollouts[p.name]
	return prog != nil && (len(prog.waiting) > 0 || prog.failed == p.deps)
}
