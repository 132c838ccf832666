package rollout

import (
	"fmt"
	"strings"
	"time"
)

// Message is what a plan of promise says of its rollout: the revision it rolls out and the one
// the fleet held, whether a rollout of another revision starts again, what the apply writes now
// (a wave, or the revision to destinations that changed place) and what destinations new here
// get, what waits, and when the next wave goes. It is "" when the rollout is complete and the
// apply writes no wave.
func (s Staging) Message(promise string) string {
	step := s.Step
	if step.Complete && !step.Advanced {
		return ""
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
	var now, joined []string
	for _, dest := range step.Now { // sorted
		if s.Give[dest] == s.Revision {
			now = append(now, dest)
		} else {
			joined = append(joined, dest)
		}
	}
	switch {
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
	next := s.Waves[step.Next]
	switch {
	case s.Paused:
		fmt.Fprintf(&b, "\nThe rollout is paused; wave %q goes when `paused` is false again.", next)
	case !step.NotBefore.IsZero() && !step.Advanced:
		fmt.Fprintf(&b, "\nNext wave: %q, not before %s (min_wait).", next, step.NotBefore.UTC().Format(time.RFC3339))
	case !step.NotBefore.IsZero():
		fmt.Fprintf(&b, "\nNext wave: %q, at an apply after min_wait has passed.", next)
	default:
		fmt.Fprintf(&b, "\nNext wave: %q, at the next apply.", next)
	}
	return b.String()
}
