package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Revision names a set of dependencies by their canonical YAML: two configurations that write the
// same bytes are one revision.
func Revision(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:6])
}

// Wave is one step of a rollout.
type Wave struct {
	Name     string
	Selector scheduling.Selector // empty: every destination not taken by an earlier wave
	// MaxDestinations caps the wave (0: no cap); MaxPercent caps it to a share, rounded up, of
	// the destinations its selector matches among those no earlier wave took (0: no cap).
	MaxDestinations int
	MaxPercent      int
}

// How a change back to the completed revision goes (Policy.Revert).
const (
	// RevertStaged: like any other change, wave by wave (the default, also for "").
	RevertStaged = "staged"
	// RevertImmediate: every destination gets the completed revision back in one apply.
	RevertImmediate = "immediate"
)

// Policy is a promise's rollout block.
//
// What holds a rollout is looked at in this order, and the first that holds says why the
// apply writes no wave: Paused; then the windows (outside them nothing advances); then the
// gate (settling, holding, or failed); then MinWait. Paused comes first because it is the
// user's own word; the windows come before the gate because a wave that may not be written
// need not be judged. Two writes are not a rollout's advance and pass the windows, the gate and
// MinWait (Paused still holds them): the rollback of a failed gate and an immediate revert, both
// of which give destinations back the revision that last went everywhere.
type Policy struct {
	Waves   []Wave
	MinWait time.Duration // between the applies of two waves of one rollout
	Paused  bool
	// Gate, when set, must pass over the destinations of the waves written before the next
	// wave goes.
	Gate *Gate
	// Windows say when the rollout may advance (see ParseWindows); none: at any time.
	Windows []Window
	// Revert is RevertStaged ("" too) or RevertImmediate.
	Revert string
}

// Status is what state keeps of a rollout between applies.
type Status struct {
	// Completed is the revision that last reached every scheduled destination; a destination
	// that joins while a rollout is in flight gets it.
	Completed string
	// Target is the revision being rolled out; "" when none is in flight.
	Target string
	// WavesDone counts the waves of Target already written.
	WavesDone int
	// LastWave is when the last wave of Target was written (zero before the first).
	LastWave time.Time
	// Failed is a revision whose gate failed and that was rolled back: while it is the
	// configured revision, every destination keeps Completed and nothing advances. Target is
	// then "".
	Failed string
}

// Destination is a scheduled destination, with the labels the wave selectors look at.
type Destination struct {
	Name   string
	Labels map[string]string
}

// Assign puts each destination in a wave, by index: wave i takes, in name order, the destinations
// its selector matches that no earlier wave took, up to its cap. The last wave also takes every
// destination no wave took, whatever its selector and cap, so that a rollout always reaches the
// whole fleet. Without waves, every destination is in wave 0.
func Assign(waves []Wave, dests []Destination) map[string]int {
	sorted := append([]Destination(nil), dests...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	out := make(map[string]int, len(sorted))
	for i, w := range waves {
		var matched []string
		for _, d := range sorted {
			if _, taken := out[d.Name]; !taken && scheduling.Matches(w.Selector, d.Labels) {
				matched = append(matched, d.Name)
			}
		}
		n := len(matched)
		if w.MaxPercent > 0 {
			n = min(n, (len(matched)*w.MaxPercent+99)/100)
		}
		if w.MaxDestinations > 0 {
			n = min(n, w.MaxDestinations)
		}
		for _, name := range matched[:n] {
			out[name] = i
		}
	}
	last := max(len(waves)-1, 0)
	for _, d := range sorted {
		if _, taken := out[d.Name]; !taken {
			out[d.Name] = last
		}
	}
	return out
}

// Input is what one plan of a rollout starts from.
type Input struct {
	Policy Policy
	Status Status
	// Revision is the revision of the configured dependencies.
	Revision string
	// Scheduled are the destinations the promise is scheduled to now.
	Scheduled []Destination
	// Held maps the destinations that hold the promise where they are now to the revision they
	// hold. A destination that is new, or moved to another store or folder, is not in it.
	Held map[string]string
	// Staged is false when there is nothing to protect (the promise is created, or has no
	// rollout): every destination gets Revision at once.
	Staged bool
	Now    time.Time
	// Health maps destinations to their health records, for the gate.
	Health map[string]Health
}

// Step is what one apply does.
type Step struct {
	// Give maps every scheduled destination to the revision it holds after the apply.
	Give map[string]string
	// Wave maps every scheduled destination to its wave's index.
	Wave map[string]int
	// Now are the destinations whose revision changes in this apply; Waiting those that do not
	// hold Revision after it. Both sorted.
	Now, Waiting []string
	// Status is what to record; when Advanced, its LastWave is the time of the apply.
	Status Status
	// Advanced is true when the apply writes a wave, the one at index Wrote (-1: none).
	// Rewrote is true when that wave is one already done, written again to its destinations
	// that wait because no destination holding the revision was left for the gate to judge
	// (GateCheck.Empty); the gate still holds the next wave.
	Advanced bool
	Rewrote  bool
	Wrote    int
	// Restarted is true when a rollout of another revision was in flight and starts again from
	// the first wave with this one.
	Restarted bool
	// Next is the index of the first wave that still has a waiting destination (-1: none, also
	// while a failed revision is rolled back), and NotBefore the earliest time it may go as far
	// as min_wait, the windows and the gate's settle say (zero: at the next apply, or no time
	// is known: paused, a gate that holds, windows that do not open within a year).
	Next      int
	NotBefore time.Time
	// Complete is true when every scheduled destination holds Revision after the apply.
	Complete bool
	// Halt says why the apply writes no wave, when a wave was due.
	Halt Halt
	// Gate is the gate's word on the waves written (nil: no gate, or no wave written yet).
	Gate *GateCheck
	// Window is what the windows say now (nil: the policy has none).
	Window *WindowCheck
	// RolledBack is true when the apply gives the destinations holding the revision whose gate
	// failed the completed revision back.
	RolledBack bool
	// GaveBack are the destinations that held the failed revision and get the completed one in
	// this apply, sorted.
	GaveBack []string
	// Reverted is true when an immediate revert gives every destination the completed revision
	// in this apply; RevertedFrom names the revision whose rollout it stops ("" when none was).
	Reverted     bool
	RevertedFrom string
}

// Halt is why an apply writes no wave.
type Halt int

const (
	HaltNone Halt = iota
	// HaltPaused: the policy is paused.
	HaltPaused
	// HaltClosed: outside the windows.
	HaltClosed
	// HaltSettling, HaltGate, HaltGateFailed: the gate is settling, does not pass yet, or
	// failed and stops the rollout.
	HaltSettling
	HaltGate
	HaltGateFailed
	// HaltRolledBack: the configured revision's gate failed and it was rolled back.
	HaltRolledBack
	// HaltMinWait: min_wait has not passed since the last wave.
	HaltMinWait
)

// Plan decides one apply of a rollout. A destination waiting for its wave keeps the revision it
// holds; one that is new (or moved) gets Status.Completed, the last revision that went everywhere.
// A wave with nothing to change is passed over in the same apply. What holds the next wave is
// looked at in the order Policy gives (paused, windows, gate, min_wait); a gate that failed with
// on_failure rollback gives the destinations holding Revision Status.Completed back and records
// Revision as Status.Failed, after which, while Revision is configured, nothing advances. With
// Revert immediate, a change back to Status.Completed reaches every destination in one apply.
func Plan(in Input) Step {
	s := Step{Give: map[string]string{}, Next: -1, Wrote: -1, Wave: Assign(in.Policy.Waves, in.Scheduled)}
	base := in.Status.Completed
	if base == "" || !in.Staged {
		base = in.Revision
	}
	current := func(dest string) string {
		if rev, ok := in.Held[dest]; ok && in.Staged {
			return rev
		}
		return base
	}
	var waiting []string
	for _, d := range in.Scheduled {
		s.Give[d.Name] = current(d.Name)
		if s.Give[d.Name] != in.Revision {
			waiting = append(waiting, d.Name)
		}
	}
	if len(waiting) == 0 {
		s.Status = Status{Completed: in.Revision}
		s.Complete = true
		s.Now = changing(in, s.Give)
		return s
	}
	if in.Status.Failed != "" && in.Status.Failed == in.Revision {
		return holdRolledBack(in, s)
	}
	if in.Policy.Revert == RevertImmediate && in.Staged && in.Revision == in.Status.Completed && !in.Policy.Paused {
		return revertNow(in, s)
	}
	s.Status = in.Status
	s.Status.Failed = ""
	if s.Status.Target != in.Revision {
		s.Restarted = s.Status.Target != ""
		s.Status = Status{Completed: in.Status.Completed, Target: in.Revision}
	}
	// The first wave not done that has a destination to change; a destination waiting in a wave
	// already done (it joined or moved after its wave went) goes with it, or alone when every
	// wave is done.
	next := len(in.Policy.Waves)
	for _, dest := range waiting {
		if w := s.Wave[dest]; w >= s.Status.WavesDone && w < next {
			next = w
		}
	}
	s.Gate = checkGate(in, s.Status)
	s.Window = checkWindows(in.Policy.Windows, in.Now)
	s.Halt = halt(in, s)
	switch {
	case s.Halt == HaltGateFailed && s.Gate.RollsBack && in.Status.Completed != "":
		return rollBack(in, s)
	case s.Halt == HaltPaused:
	case (s.Halt == HaltGate || s.Halt == HaltSettling) && s.Gate.Empty && rewrite(&s, in, waiting):
		waiting = s.Waiting
	case s.Halt != HaltNone:
		s.NotBefore = notBefore(in, s)
	default:
		s.Advanced = true
		s.Wrote = min(next, max(len(in.Policy.Waves)-1, 0))
		s.Status.WavesDone = min(next+1, max(len(in.Policy.Waves), 1))
		s.Status.LastWave = in.Now
		var still []string
		for _, dest := range waiting {
			if s.Wave[dest] <= next {
				s.Give[dest] = in.Revision
			} else {
				still = append(still, dest)
			}
		}
		waiting = still
	}
	s.Now = changing(in, s.Give)
	sort.Strings(waiting)
	s.Waiting = waiting
	if len(waiting) == 0 {
		s.Status = Status{Completed: in.Revision}
		s.Complete = true
		return s
	}
	s.Next = len(in.Policy.Waves)
	for _, dest := range waiting {
		if w := s.Wave[dest]; w < s.Next {
			s.Next = w
		}
	}
	if s.Next < s.Status.WavesDone {
		s.Next = s.Status.WavesDone // a straggler in a wave already done goes with the next wave
	}
	if s.Next >= len(in.Policy.Waves) {
		s.Next = len(in.Policy.Waves) - 1
	}
	if s.Advanced && in.Policy.MinWait > 0 {
		s.NotBefore = in.Now.Add(in.Policy.MinWait)
	}
	return s
}

// rewrite writes the revision again to the destinations of the waves done that wait for it,
// when none holds it (the gate has nothing to judge: GateCheck.Empty): a wave done goes again,
// never the next one. It sets Waiting to those still waiting, and reports false when no
// destination of the waves done waits.
func rewrite(s *Step, in Input, waiting []string) bool {
	var still []string
	wrote := -1
	for _, dest := range waiting {
		if w := s.Wave[dest]; w < s.Status.WavesDone {
			s.Give[dest] = in.Revision
			wrote = max(wrote, w)
		} else {
			still = append(still, dest)
		}
	}
	if wrote < 0 {
		return false
	}
	s.Advanced, s.Rewrote, s.Wrote = true, true, wrote
	s.Status.LastWave = in.Now
	// The gate now follows this write: its records count from its settle, it times out from it.
	g := *s.Gate
	g.SettledAt = in.Now.Add(in.Policy.Gate.Settle)
	if in.Policy.Gate.Timeout > 0 {
		g.Deadline = in.Now.Add(in.Policy.Gate.Timeout)
	}
	s.Gate, s.Halt = &g, HaltGate
	s.Waiting = still
	return true
}

// halt is the first of what holds the rollout, in the order Policy describes.
func halt(in Input, s Step) Halt {
	switch {
	case in.Policy.Paused:
		return HaltPaused
	case s.Gate != nil && s.Gate.Phase == GateFailed && s.Gate.RollsBack && in.Status.Completed != "":
		return HaltGateFailed // a rollback passes the windows
	case s.Window != nil && !s.Window.Open:
		return HaltClosed
	case s.Gate != nil && s.Gate.Phase == GateSettling:
		return HaltSettling
	case s.Gate != nil && s.Gate.Phase == GateHolding:
		return HaltGate
	case s.Gate != nil && s.Gate.Phase == GateFailed:
		return HaltGateFailed
	case s.Status.WavesDone > 0 && in.Policy.MinWait > 0 && in.Now.Before(s.Status.LastWave.Add(in.Policy.MinWait)):
		return HaltMinWait
	}
	return HaltNone
}

// notBefore is the earliest time the next wave may go, as far as the times that hold it say:
// the latest of when the windows open, when the gate's records start to count and when
// min_wait has passed, of those still ahead. It is zero when the windows do not open within a
// year.
func notBefore(in Input, s Step) time.Time {
	if s.Window != nil && !s.Window.Open && !s.Window.Opens.Found {
		return time.Time{}
	}
	var at time.Time
	later := func(t time.Time) {
		if t.After(in.Now) && t.After(at) {
			at = t
		}
	}
	if s.Window != nil && !s.Window.Open {
		later(s.Window.Opens.At)
	}
	if s.Gate != nil && s.Gate.Phase == GateSettling {
		later(s.Gate.SettledAt)
	}
	if s.Status.WavesDone > 0 && in.Policy.MinWait > 0 {
		later(s.Status.LastWave.Add(in.Policy.MinWait))
	}
	return at
}

// checkWindows is what the windows say at now; nil without windows. Windows that do not parse
// (the caller reports them, see ParseWindows) keep the rollout closed, never opening.
func checkWindows(ws []Window, now time.Time) *WindowCheck {
	if len(ws) == 0 {
		return nil
	}
	parsed, errs := ParseWindows(ws)
	if len(errs) > 0 {
		return &WindowCheck{}
	}
	c := parsed.Check(now)
	return &c
}

// rollBack gives every destination holding the revision whose gate failed the completed
// revision back, and records the revision as failed.
func rollBack(in Input, s Step) Step {
	for _, d := range in.Scheduled {
		if s.Give[d.Name] == in.Revision {
			s.Give[d.Name] = in.Status.Completed
			s.GaveBack = append(s.GaveBack, d.Name)
		}
	}
	s.Status = Status{Completed: in.Status.Completed, Failed: in.Revision}
	s.RolledBack, s.Halt = true, HaltRolledBack
	return stopped(in, s)
}

// holdRolledBack keeps every destination where it is while the configured revision is the one
// rolled back; a destination that still holds it (its rollback write failed) gets the completed
// revision, unless paused.
func holdRolledBack(in Input, s Step) Step {
	for _, d := range in.Scheduled {
		if s.Give[d.Name] == in.Revision && !in.Policy.Paused {
			s.Give[d.Name] = in.Status.Completed
			s.GaveBack = append(s.GaveBack, d.Name)
		}
	}
	s.Status = Status{Completed: in.Status.Completed, Failed: in.Revision}
	s.Halt = HaltRolledBack
	return stopped(in, s)
}

// stopped completes a step of a rollout that does not advance: every destination that does not
// hold Revision waits, and no wave is next.
func stopped(in Input, s Step) Step {
	sort.Strings(s.GaveBack)
	s.Now = changing(in, s.Give)
	s.Waiting = nil
	for _, d := range in.Scheduled {
		if s.Give[d.Name] != in.Revision {
			s.Waiting = append(s.Waiting, d.Name)
		}
	}
	sort.Strings(s.Waiting)
	return s
}

// revertNow gives every destination the configured revision, the completed one, in this apply.
func revertNow(in Input, s Step) Step {
	for _, d := range in.Scheduled {
		s.Give[d.Name] = in.Revision
	}
	s.Reverted, s.RevertedFrom = true, in.Status.Target
	if s.RevertedFrom == "" || s.RevertedFrom == in.Revision {
		s.RevertedFrom = in.Status.Failed
	}
	s.Status = Status{Completed: in.Revision}
	s.Complete = true
	s.Now = changing(in, s.Give)
	return s
}

// changing lists, sorted, the scheduled destinations whose revision an apply that gives them
// give changes, or that hold nothing yet.
func changing(in Input, give map[string]string) []string {
	var out []string
	for _, d := range in.Scheduled {
		if rev, held := in.Held[d.Name]; !held || give[d.Name] != rev {
			out = append(out, d.Name)
		}
	}
	sort.Strings(out)
	return out
}

// EmptyWave is a wave that takes no scheduled destination: a rollout passes it over, and the
// next wave goes in the same apply.
type EmptyWave struct {
	Index int
	Name  string
	// Matching counts the scheduled destinations its selectors match (all of them taken by
	// earlier waves when it is more than 0).
	Matching int
}

// EmptyWaves lists, in order, the waves Assign gives no scheduled destination, when there are
// scheduled destinations (none: no wave has anything to take, and none is reported). A wave
// whose selectors match nothing (a label misspelt) is one; so is a wave whose destinations
// earlier waves all took.
func EmptyWaves(waves []Wave, scheduled []Destination) []EmptyWave {
	if len(scheduled) == 0 {
		return nil
	}
	count := make([]int, len(waves))
	for _, w := range Assign(waves, scheduled) {
		count[w]++
	}
	var out []EmptyWave
	for i, w := range waves {
		if count[i] > 0 {
			continue
		}
		e := EmptyWave{Index: i, Name: w.Name}
		for _, d := range scheduled {
			if scheduling.Matches(w.Selector, d.Labels) {
				e.Matching++
			}
		}
		out = append(out, e)
	}
	return out
}
