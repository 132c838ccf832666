package rollout

import "time"

// StageInput is what one plan of a promise with a rollout knows: the configuration, and what
// state says the destinations hold.
type StageInput struct {
	Policy Policy
	// Status is the rollout as state recorded it (see StatusOf).
	Status Status
	// Revision is the revision of the configured dependencies; Prior that of the dependencies
	// state holds ("" when state holds none, or they cannot be read).
	Revision, Prior string
	// Scheduled are the destinations the promise is scheduled to now.
	Scheduled []Destination
	// Revisions is state's `revisions`: per destination, the revision it was given. A destination
	// present without an entry holds Prior (it was written before the promise had a rollout).
	Revisions map[string]string
	// Present maps each scheduled destination that holds the promise where it is now (the store
	// location and folder state recorded) to whether its files are intact: state records some,
	// and they are laid out as when they were written (same filepath mode, aggregate file name
	// and store path). A destination not in it is new here, or moved: it holds nothing.
	Present map[string]bool
	// Staged is false when there is nothing to protect (the promise is created, or its prior
	// dependencies are unknown): every destination gets Revision at once.
	Staged bool
	// BaseKnown is true when the dependencies of Status.Completed are known, so that a destination
	// can be given them; otherwise a destination that holds nothing gets Revision.
	BaseKnown bool
	Now       time.Time
	// Health maps destinations to their health records, for the gate (see Input).
	Health map[string]Health
}

// Staging is what a plan decided about a promise's rollout.
type Staging struct {
	// Revision is the configured revision; From the one that had last completed before the plan.
	Revision, From string
	// Give maps every scheduled destination to the revision it holds after the apply.
	Give map[string]string
	Step Step
	// Waves are the waves' names, by index; Paused is the policy's.
	Waves  []string
	Paused bool
	// NoRollback is true when the gate's on_failure is rollback but the completed revision's
	// dependencies are not known: a failed gate stops the rollout instead.
	NoRollback bool
}

// Stage decides one plan of a rollout from what state says each destination holds.
//
// A destination holding an intermediate revision (of a rollout that a further change restarted)
// whose files are gone, or laid out differently now, cannot be given that revision again: it
// counts as new, and gets the completed revision as one new here does. When the completed
// revision's dependencies are not known, a destination that holds nothing gets Revision, the
// only dependencies there are.
func Stage(in StageInput) Staging {
	held := map[string]string{}
	for _, d := range in.Scheduled {
		intact, present := in.Present[d.Name]
		if !present {
			continue
		}
		rev, recorded := in.Revisions[d.Name]
		if !recorded {
			rev = in.Prior
		}
		if rev != in.Revision && rev != in.Status.Completed && !intact {
			continue
		}
		if rev != "" {
			held[d.Name] = rev
		}
	}
	policy, noRollback := in.Policy, false
	if g := policy.Gate; g != nil && g.rollsBack() && !in.BaseKnown {
		stops := *g
		stops.OnFailure = OnFailurePause
		policy.Gate, noRollback = &stops, true
	}
	step := Plan(Input{
		Policy: policy, Status: in.Status, Revision: in.Revision, Scheduled: in.Scheduled,
		Held: held, Staged: in.Staged, Now: in.Now, Health: in.Health,
	})
	s := Staging{Revision: in.Revision, From: in.Status.Completed, Give: map[string]string{}, Step: step, Paused: in.Policy.Paused, NoRollback: noRollback}
	for dest, rev := range step.Give {
		if _, isHeld := held[dest]; !isHeld && rev != in.Revision && !in.BaseKnown {
			rev = in.Revision
		}
		s.Give[dest] = rev
	}
	for _, w := range in.Policy.Waves {
		s.Waves = append(s.Waves, w.Name)
	}
	return s
}

// Source is where the files a destination gets in an apply come from.
type Source int

const (
	// Configured: the configured dependencies.
	Configured Source = iota
	// Base: the dependencies of the revision that last completed.
	Base
	// Keep: none; the destination keeps exactly what it holds and nothing is written to it.
	Keep
)

// Sources maps each destination that give does not give revision to where its files come from:
// the completed revision's dependencies when it is given base (the completed revision whose
// dependencies are known; "" when none are), else nothing.
func Sources(give map[string]string, revision, base string) map[string]Source {
	out := map[string]Source{}
	for dest, rev := range give {
		switch {
		case rev == revision:
		case base != "" && rev == base:
			out[dest] = Base
		default:
			out[dest] = Keep
		}
	}
	return out
}

// Revisions is what `revisions` records after a plan, for the destinations the plan records:
// the revision given, else the one state recorded (a destination kept without an update, being
// misscheduled, keeps the revision it had); a destination with neither has none.
func (s Staging) Revisions(recorded []string, before map[string]string) map[string]string {
	out := map[string]string{}
	for _, dest := range recorded {
		if rev, ok := s.Give[dest]; ok {
			out[dest] = rev
		} else if rev, ok := before[dest]; ok {
			out[dest] = rev
		}
	}
	return out
}

// KeepsBase reports whether the completed revision's dependencies are still needed after the
// apply: they are while the rollout is in flight.
func (s Staging) KeepsBase() bool { return !s.Step.Complete }
