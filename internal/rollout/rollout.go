// Package rollout stages a change of a promise's dependencies over its scheduled destinations in
// ordered waves, one wave per apply, and says after each plan which destination holds which
// revision (Stage), what `rollout_status` records (Report), what an apply whose wave failed
// somewhere leaves (SettleRevisions, Report.Hold) and what the plan tells the user (Message). It
// has no control plane: what it knows between applies is a Status recorded in state, and the time
// of the plan.
//
// It is pure: no Terraform, no I/O.
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

// Policy is a promise's rollout block.
type Policy struct {
	Waves   []Wave
	MinWait time.Duration // between the applies of two waves of one rollout
	Paused  bool
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
	Advanced bool
	Wrote    int
	// Restarted is true when a rollout of another revision was in flight and starts again from
	// the first wave with this one.
	Restarted bool
	// Next is the index of the first wave that still has a waiting destination (-1: none), and
	// NotBefore the earliest time it may go (zero: at the next apply), unless paused.
	Next      int
	NotBefore time.Time
	// Complete is true when every scheduled destination holds Revision after the apply.
	Complete bool
}

// Plan decides one apply of a rollout. A destination waiting for its wave keeps the revision it
// holds; one that is new (or moved) gets Status.Completed, the last revision that went everywhere.
// A wave with nothing to change is passed over in the same apply.
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
	s.Status = in.Status
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
	due := s.Status.LastWave.Add(in.Policy.MinWait)
	switch {
	case in.Policy.Paused:
	case s.Status.WavesDone > 0 && in.Policy.MinWait > 0 && in.Now.Before(due):
		s.NotBefore = due
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
