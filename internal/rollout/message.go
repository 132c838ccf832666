package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Message is what a plan of promise says of its rollout: the revision it rolls out and the one
// the fleet held, whether a rollout of another revision starts again, what the apply writes now
// (a wave, or the revision to destinations that changed place) and what destinations new here
// get, what waits, and when the next wave goes, or what holds it: the gate's verdict on each
// destination of the waves written, the windows, a rollback. It is "" when the rollout is
// complete and the apply writes no wave, nor reverts at once.
func (s Staging) Message(promise string) string {
	step := s.Step
	switch {
	case step.Reverted:
		return s.revertMessage(promise)
	case step.Complete && !step.Advanced:
		return ""
	case step.Halt == HaltRolledBack:
		return s.rollbackMessage(promise)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Promise %q rolls out revision %s", promise, s.Revision)
	if s.From != "" && s.From != s.Revision {
		fmt.Fprintf(&b, " (the fleet held %s)", s.From)
	}
	b.WriteString(".")
	if step.Restarted {
		b.WriteString(" A rollout of another revision was in flight: this one starts again from the first wave.")
	}
	if step.Gate != nil {
		b.WriteString("\n\n" + s.gateSummary())
	}
	var now, joined []string
	for _, dest := range step.Now { // sorted
		if s.Give[dest] == s.Revision {
			now = append(now, dest)
		} else {
			joined = append(joined, dest)
		}
	}
	switch {
	case step.Rewrote:
		fmt.Fprintf(&b, "\n\nThis apply writes wave %q again, to its destinations that wait: %s; the gate judges them.", s.Waves[step.Wrote], strings.Join(now, ", "))
	case step.Advanced && len(now) > 0:
		fmt.Fprintf(&b, "\n\nThis apply writes wave %q to: %s.", s.Waves[step.Wrote], strings.Join(now, ", "))
	case len(now) > 0:
		fmt.Fprintf(&b, "\n\nThis apply writes revision %s to: %s.", s.Revision, strings.Join(now, ", "))
	case len(joined) == 0:
		b.WriteString("\n\nThis apply writes nothing.")
	}
	if len(joined) > 0 {
		fmt.Fprintf(&b, "\n\nNew here, these get %s, the revision that last went everywhere: %s.", s.From, strings.Join(joined, ", "))
	}
	if step.Complete {
		b.WriteString(" The rollout is then complete.")
		return b.String()
	}
	fmt.Fprintf(&b, "\nWaiting (they keep what they hold): %s.", strings.Join(step.Waiting, ", "))
	b.WriteString("\n" + s.nextLine())
	return b.String()
}

// nextLine says when the next wave goes, or what holds it.
func (s Staging) nextLine() string {
	step := s.Step
	next := s.Waves[step.Next]
	switch step.Halt {
	case HaltPaused:
		return fmt.Sprintf("The rollout is paused; wave %q goes when `paused` is false again.", next)
	case HaltClosed:
		w := step.Window.Opens
		if !w.Found {
			return fmt.Sprintf("Outside the rollout's windows: they do not open within a year. Wave %q waits.", next)
		}
		kind := "allow window %d"
		if !w.Allow {
			kind = "end of deny window %d"
		}
		return fmt.Sprintf("Outside the rollout's windows: it opens at %s (%s, %s). Next wave: %q, at an apply from then.",
			stamp(w.At), fmt.Sprintf(kind, w.Index), w.Zone, next)
	case HaltSettling:
		why := "settle"
		if !step.NotBefore.Equal(step.Gate.SettledAt) {
			why = "min_wait"
		}
		return fmt.Sprintf("Next wave: %q, when the gate passes, not before %s (%s)%s", next, stamp(step.NotBefore), why, s.timeoutTail())
	case HaltGate:
		if step.Gate.Empty && !step.Rewrote {
			return fmt.Sprintf("Next wave: %q, when the gate passes%s To go on, give a wave already done a destination again "+
				"(it gets the revision and the gate judges it), or change the dependencies.", next, strings.TrimSuffix(s.timeoutTail(), ".")+".")
		}
		return fmt.Sprintf("Next wave: %q, when the gate passes%s", next, s.timeoutTail())
	case HaltGateFailed:
		line := fmt.Sprintf("Gate failed at %s (timeout): the rollout stops here; wave %q goes only if the gate passes, and changing the dependencies starts a new rollout.",
			stamp(step.Gate.Deadline), next)
		if s.NoRollback {
			line += fmt.Sprintf(" It is not rolled back: the dependencies of %s are not known.", s.From)
		}
		return line
	}
	switch {
	case !step.NotBefore.IsZero() && !step.Advanced:
		return fmt.Sprintf("Next wave: %q, not before %s (min_wait).", next, step.NotBefore.UTC().Format(time.RFC3339))
	case !step.NotBefore.IsZero():
		return fmt.Sprintf("Next wave: %q, at an apply after min_wait has passed.", next)
	}
	return fmt.Sprintf("Next wave: %q, at the next apply.", next)
}

// timeoutTail says what happens when the gate times out.
func (s Staging) timeoutTail() string {
	g := s.Step.Gate
	switch {
	case g.Deadline.IsZero():
		return "."
	case g.RollsBack:
		return fmt.Sprintf(", or rolled back at %s (timeout).", stamp(g.Deadline))
	}
	return fmt.Sprintf(", or the rollout stops at %s (timeout).", stamp(g.Deadline))
}

// gateSummary is the gate's verdict on each destination of the waves written.
func (s Staging) gateSummary() string {
	g := s.Step.Gate
	var b strings.Builder
	fmt.Fprintf(&b, "Wave %q done; gate: ", s.Waves[g.Wave])
	if g.Empty {
		fmt.Fprintf(&b, "no scheduled destination holds revision %s, though the waves done wrote it (their destinations left the promise, "+
			"were drained or moved, or hold another revision): it is proven healthy nowhere, so the gate does not pass.", s.Revision)
		return b.String()
	}
	fmt.Fprintf(&b, "%d of %d destinations pass (need %d%%): ", g.Passing, len(g.Verdicts), g.Need)
	for i, v := range g.Verdicts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.Destination + " " + v.Reason)
	}
	b.WriteString(".")
	return b.String()
}

// rollbackMessage is what a plan says of a revision whose gate failed: in the apply that rolls
// it back, and in the plans after it while it is still configured.
func (s Staging) rollbackMessage(promise string) string {
	step := s.Step
	var b strings.Builder
	if step.RolledBack {
		fmt.Fprintf(&b, "Promise %q rolls out revision %s (the fleet held %s).", promise, s.Revision, s.From)
		if step.Gate != nil {
			b.WriteString("\n\n" + s.gateSummary())
		}
		verb := "get"
		if len(step.GaveBack) == 1 {
			verb = "gets"
		}
		if len(step.GaveBack) == 0 {
			fmt.Fprintf(&b, "\n\nGate failed at %s (timeout): no scheduled destination holds revision %s, so none gets %s back.", stamp(step.Gate.Deadline), s.Revision, s.From)
		} else {
			fmt.Fprintf(&b, "\n\nGate failed at %s (timeout): %s %s revision %s back.", stamp(step.Gate.Deadline), strings.Join(step.GaveBack, ", "), verb, s.From)
		}
	} else {
		fmt.Fprintf(&b, "Promise %q: revision %s was rolled back after its gate failed; the fleet keeps %s.", promise, s.Revision, s.From)
		switch {
		case len(step.GaveBack) > 0:
			fmt.Fprintf(&b, "\n\nThis apply gives revision %s back to: %s.", s.From, strings.Join(step.GaveBack, ", "))
		case len(step.Now) == 0:
			b.WriteString("\n\nThis apply writes nothing.")
		}
	}
	var joined []string
	for _, dest := range step.Now {
		if !slices.Contains(step.GaveBack, dest) {
			joined = append(joined, dest)
		}
	}
	if len(joined) > 0 {
		fmt.Fprintf(&b, "\n\nNew here, these get %s, the revision that last went everywhere: %s.", s.From, strings.Join(joined, ", "))
	}
	fmt.Fprintf(&b, "\nRevision %s is rolled back: nothing advances; changing the dependencies starts a new rollout.", s.Revision)
	return b.String()
}

// revertMessage is what a plan says of an immediate revert.
func (s Staging) revertMessage(promise string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Promise %q reverts to revision %s, the revision that last went everywhere, in one apply (revert is immediate)", promise, s.Revision)
	if s.Step.RevertedFrom != "" {
		fmt.Fprintf(&b, ": the rollout of %s stops", s.Step.RevertedFrom)
	}
	fmt.Fprintf(&b, ".\n\nThis apply writes revision %s to: %s. The rollout is then complete.", s.Revision, strings.Join(s.Step.Now, ", "))
	return b.String()
}
