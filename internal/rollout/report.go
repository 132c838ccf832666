package rollout

import (
	"slices"
	"time"
)

// Stamp is a time a Report shows, as RFC 3339 text ("" when it shows none). AtApply is true when
// the apply sets it: a plan does not know it yet.
type Stamp struct {
	Text    string
	AtApply bool
}

// stampOf formats t as a Report shows times: RFC 3339, in UTC, to the second.
func stampOf(t time.Time) Stamp { return Stamp{Text: t.UTC().Format(time.RFC3339)} }

// Report is what a promise's `rollout_status` says: where the rollout stands after an apply.
type Report struct {
	// Revision is the configured revision; Completed the one that last reached every scheduled
	// destination.
	Revision, Completed string
	// WavesDone counts the waves of Revision written so far (0 when complete).
	WavesDone int
	// NextWave names the wave that goes next, when HasNextWave.
	NextWave    string
	HasNextWave bool
	// NextWaveNotBefore is when min_wait lets the next wave go; LastWaveAt when the last wave was
	// written; CheckedAt when an apply last looked at the rollout.
	NextWaveNotBefore, LastWaveAt, CheckedAt Stamp
	// Waiting are the scheduled destinations that do not hold Revision after the apply, sorted.
	Waiting []string
	// Waves maps each scheduled destination to its wave's name.
	Waves map[string]string
	// Failed is the revision whose gate failed and that was rolled back ("" when none): while
	// it is the configured revision, nothing advances.
	Failed string
}

// StatusOf is the Status a recorded report says (nil: none recorded). Without one, the promise
// holds prior, the revision of its dependencies, everywhere. A report with no wave written and
// another revision than the completed one is a rollout in flight that is paused before its
// first wave. A report with a failed revision is a rollout rolled back: no revision is in flight
// while the failed one is configured.
func StatusOf(r *Report, prior string) Status {
	status := Status{Completed: prior}
	if r == nil {
		return status
	}
	if r.Completed != "" {
		status.Completed = r.Completed
	}
	status.Failed = r.Failed
	if r.WavesDone > 0 {
		status.Target = r.Revision
		status.WavesDone = r.WavesDone
		status.LastWave, _ = time.Parse(time.RFC3339, r.LastWaveAt.Text)
	} else if r.Revision != status.Completed && r.Revision != r.Failed {
		status.Target = r.Revision
	}
	return status
}

// Report is the report of a plan. The times it cannot know are left to the apply (see Settle):
// the time of a wave it writes, when the next may then go, and, while the rollout is not
// complete, when the apply looked at it, so that a plan of an incomplete rollout always shows a
// change; a rollout rolled back in an earlier apply is settled, and shows none. Otherwise the
// times come from before, the report state holds.
func (s Staging) Report(before Report) Report {
	step := s.Step
	r := Report{
		Revision: s.Revision, Completed: step.Status.Completed, WavesDone: step.Status.WavesDone, Failed: step.Status.Failed,
		Waiting: step.Waiting, Waves: map[string]string{},
		LastWaveAt: Stamp{Text: before.LastWaveAt.Text}, CheckedAt: Stamp{Text: before.CheckedAt.Text},
	}
	for dest, w := range step.Wave {
		r.Waves[dest] = s.Waves[w]
	}
	if step.Next >= 0 && !step.Complete {
		r.NextWave, r.HasNextWave = s.Waves[step.Next], true
	}
	if !step.NotBefore.IsZero() && !step.Complete && !step.Advanced {
		r.NextWaveNotBefore = stampOf(step.NotBefore)
	}
	if step.Advanced {
		r.LastWaveAt = Stamp{AtApply: true}
		if !step.Complete && !step.NotBefore.IsZero() {
			r.NextWaveNotBefore = Stamp{AtApply: true} // min_wait after the apply's time
		}
	}
	settled := step.Halt == HaltRolledBack && !step.RolledBack
	if !step.Complete && !settled {
		r.CheckedAt = Stamp{AtApply: true}
	}
	return r
}

// Settle sets the times the plan left to the apply, which runs at now.
func (r Report) Settle(minWait time.Duration, now time.Time) Report {
	if r.LastWaveAt.AtApply {
		r.LastWaveAt = stampOf(now)
	}
	if r.NextWaveNotBefore.AtApply {
		r.NextWaveNotBefore = stampOf(now.Add(minWait))
	}
	if r.CheckedAt.AtApply {
		r.CheckedAt = stampOf(now)
	}
	return r
}

// Hold records that the wave of an apply did not reach missed, destinations the plan gave
// Revision: the rollout stays where it stood before the apply (prior, from the report state
// held), so that the next apply writes the same wave again to the destinations that missed it
// rather than the next one, and the missed destinations are waiting. Without any missed, r is
// as it was. Failed stays as planned: an apply that rolls back or holds a failed revision gives
// no destination Revision, so it has nothing missed, and one that does belongs to a rollout of
// another revision, for which the failed one no longer counts.
func (r Report) Hold(prior Status, missed []string) Report {
	if len(missed) == 0 {
		return r
	}
	r.Completed = prior.Completed
	r.WavesDone, r.LastWaveAt = 0, Stamp{}
	if prior.Target == r.Revision && prior.WavesDone > 0 {
		r.WavesDone, r.LastWaveAt = prior.WavesDone, stampOf(prior.LastWave)
	}
	waiting := append(slices.Clone(r.Waiting), missed...)
	slices.Sort(waiting)
	r.Waiting = slices.Compact(waiting)
	return r
}

// Settling is what an apply did at the destinations of a promise with a rollout.
type Settling struct {
	// Revision is the configured revision; Prior that of the dependencies state held.
	Revision, Prior string
	// Given is what the plan recorded in `revisions`; Before what state recorded.
	Given, Before map[string]string
	// Planned lists the destinations the plan recorded.
	Planned []string
	// Written maps every destination the apply records to whether its record is the plan's
	// (false: a write there failed, and it keeps what it held).
	Written map[string]bool
}

// SettleRevisions says which revision each destination the apply records holds: the one the
// plan gave it where the apply went as planned, else the one it held before (state's, or the
// prior revision for a destination state recorded none for). It also returns, sorted, the
// destinations the plan gave Revision that did not get it: a failed write to a destination that
// did not hold it, or a destination new here whose write failed.
func SettleRevisions(in Settling) (revisions map[string]string, missed []string) {
	revisions = map[string]string{}
	for dest, asPlanned := range in.Written {
		switch {
		case asPlanned:
			// As the plan recorded it (Staging.Revisions): a destination the rollout does not
			// stage (misscheduled) has none.
			if rev, ok := in.Given[dest]; ok {
				revisions[dest] = rev
			} else if rev, ok := in.Before[dest]; ok {
				revisions[dest] = rev
			}
			continue
		case in.Given[dest] == in.Revision && in.Before[dest] != in.Revision:
			missed = append(missed, dest)
		}
		switch {
		case in.Before[dest] != "":
			revisions[dest] = in.Before[dest]
		case in.Prior != "":
			revisions[dest] = in.Prior
		}
	}
	for _, dest := range in.Planned {
		if _, kept := in.Written[dest]; !kept && in.Given[dest] == in.Revision {
			missed = append(missed, dest) // new here, and its write failed
		}
	}
	slices.Sort(missed)
	return revisions, missed
}
