package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// What a gate does when it fails (Gate.OnFailure).
const (
	OnFailurePause    = "pause"
	OnFailureRollback = "rollback"
)

// DefaultGateStates are the states a destination may report to pass a gate that names none.
var DefaultGateStates = []string{"healthy", "ready"}

// Gate is what the destinations of the waves already written must report before the next wave
// goes.
type Gate struct {
	// States are the states that pass (empty: DefaultGateStates).
	States []string
	// MinHealthyPercent is the share of the gated destinations that must pass, 1 to 100 (0: 100).
	MinHealthyPercent int
	// Settle is how long after a wave is written its destinations' records start to count: a
	// record from a run before the wave's write + Settle says nothing of the wave.
	Settle time.Duration
	// Timeout is how long after a wave is written the gate may take to pass before it fails (0:
	// it never fails, it holds).
	Timeout time.Duration
	// OnFailure is OnFailurePause ("" too) or OnFailureRollback.
	OnFailure string
}

func (g Gate) states() []string {
	if len(g.States) == 0 {
		return DefaultGateStates
	}
	return g.States
}

func (g Gate) need() int {
	if g.MinHealthyPercent <= 0 || g.MinHealthyPercent > 100 {
		return 100
	}
	return g.MinHealthyPercent
}

func (g Gate) rollsBack() bool { return g.OnFailure == OnFailureRollback }

// Applied says whether a destination reports that it applied what it was given.
type Applied int

const (
	// AppliedUnknown: the record does not say.
	AppliedUnknown Applied = iota
	// AppliedYes: it reports the revision it was given.
	AppliedYes
	// AppliedNo: it reports another (Health.Reports).
	AppliedNo
)

// Health is what a destination's health record says.
type Health struct {
	// Found is false when the destination has no record.
	Found bool
	State string
	// Fresh is false when the record is too old to be believed.
	Fresh bool
	// LastRun is when the destination last ran its check.
	LastRun time.Time
	Applied Applied
	// Reports is what the destination reports it applied, when Applied is AppliedNo.
	Reports string
}

// Verdict is the gate's word on one destination. Reason is its state when it passes, else why
// it does not: "no record", "stale: ...", "not applied: reports ...", "state ... not in [...]".
type Verdict struct {
	Destination string
	Pass        bool
	Reason      string
}

// GatePhase is where a gate stands.
type GatePhase int

const (
	// GatePassed: the next wave may go (as far as the gate is concerned).
	GatePassed GatePhase = iota
	// GateSettling: it is earlier than the wave's write + Settle; no record can count yet.
	GateSettling
	// GateHolding: the records do not pass yet, and the gate has not timed out.
	GateHolding
	// GateFailed: the records do not pass at or after the wave's write + Timeout.
	GateFailed
)

// GateCheck is the gate's word on the waves written so far.
type GateCheck struct {
	// Wave is the index of the last wave written, the one the gate follows.
	Wave int
	// Verdicts are per gated destination (every scheduled destination that holds the revision,
	// whatever its wave now), sorted by name; Passing counts those that pass.
	Verdicts []Verdict
	Passing  int
	// Need is the share, in percent, that must pass; States the states that pass.
	Need   int
	States []string
	Phase  GatePhase
	// SettledAt is the wave's write + Settle; Deadline its write + Timeout (zero: no timeout).
	SettledAt, Deadline time.Time
	// RollsBack is true when a failure gives the gated destinations the completed revision
	// back; false when it stops the rollout.
	RollsBack bool
	// Empty is true when no scheduled destination holds the revision, though the waves done
	// wrote it (their destinations left the promise, moved, or were given another revision): the
	// revision is proven healthy nowhere, so the gate does not pass. The waves done then go again
	// to their destinations that wait (Step.Rewrote), and the gate judges those.
	Empty bool
}

// Passes reports whether the gate lets the next wave go.
func (c GateCheck) Passes() bool { return c.Phase == GatePassed }

// checkGate is the gate's word on the waves of status.Target already written, at in.Now; nil
// when there is no gate or no wave of the configured revision written yet.
func checkGate(in Input, status Status) *GateCheck {
	g := in.Policy.Gate
	if g == nil || status.Target != in.Revision || status.WavesDone == 0 {
		return nil
	}
	c := &GateCheck{
		Wave: status.WavesDone - 1, Need: g.need(), States: g.states(),
		SettledAt: status.LastWave.Add(g.Settle), RollsBack: g.rollsBack(),
	}
	if g.Timeout > 0 {
		c.Deadline = status.LastWave.Add(g.Timeout)
	}
	// Every scheduled destination that holds the revision is judged, whatever wave it is in
	// now: one relabelled out of the waves done after its write still runs the revision.
	for _, d := range in.Scheduled {
		if in.Held[d.Name] != in.Revision {
			continue
		}
		v := judge(in.Health[d.Name], c.States, c.SettledAt)
		v.Destination = d.Name
		if v.Pass {
			c.Passing++
		}
		c.Verdicts = append(c.Verdicts, v)
	}
	slices.SortFunc(c.Verdicts, func(a, b Verdict) int { return strings.Compare(a.Destination, b.Destination) })
	c.Empty = len(c.Verdicts) == 0
	switch {
	case !c.Empty && c.Passing*100 >= c.Need*len(c.Verdicts):
		c.Phase = GatePassed
	case in.Now.Before(c.SettledAt):
		c.Phase = GateSettling
	case c.Deadline.IsZero() || in.Now.Before(c.Deadline):
		c.Phase = GateHolding
	default:
		c.Phase = GateFailed
	}
	return c
}

// judge is the verdict on one destination's record. A stale record says nothing of the state
// the destination is in now, so staleness is reported before what the record says.
func judge(h Health, states []string, settled time.Time) Verdict {
	switch {
	case !h.Found:
		return Verdict{Reason: "no record"}
	case h.LastRun.IsZero():
		return Verdict{Reason: "stale: no run recorded"}
	case h.LastRun.Before(settled):
		return Verdict{Reason: fmt.Sprintf("stale: last run %s before the wave's write + settle (%s)", stamp(h.LastRun), stamp(settled))}
	case !h.Fresh:
		return Verdict{Reason: "stale: last run " + stamp(h.LastRun) + ", older than max_age or than the destination's last write"}
	case h.Applied == AppliedNo:
		return Verdict{Reason: "not applied: reports " + orNone(h.Reports)}
	case !slices.Contains(states, h.State):
		return Verdict{Reason: fmt.Sprintf("state %s not in [%s]", orNone(h.State), strings.Join(states, " "))}
	}
	return Verdict{Pass: true, Reason: h.State}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
