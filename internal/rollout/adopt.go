package rollout

import (
	"slices"
	"sort"
	"time"
)

// Adopted is a rollout found where it stands in the stores, for a promise imported without the
// state that staged it: the Status a state that never lost the promise would hold.
type Adopted struct {
	Status Status
	// Complete is true when every scheduled destination that holds the promise holds Revision.
	Complete bool
}

// Adopt reconstructs the Status of a rollout from the revision each destination holds (held: the
// destinations whose folders hold the promise; a scheduled destination not in it holds nothing),
// for the configured revision and the waves as configured now.
//
// The completed revision is what the destinations not yet reached hold: the revision that the
// most destinations hold, other than the configured one, in the last wave that has one (ties go
// to the smaller revision, so that every plan decides alike). Where destinations hold more than
// two revisions (a rollout that a further change restarted), the others are intermediate: they
// wait with what they hold, as they would have in state. Waves are done, in wave order, while
// every scheduled destination of the wave holds the configured revision; a destination holding
// nothing, or another revision, ends them, so that a wave is never passed over when one of its
// destinations still waits for it.
//
// When wavesDone > 0, LastWave is lastWave: the stores do not say when the last wave went, so the
// caller gives the time of the adoption, and min_wait counts from it.
func Adopt(waves []Wave, revision string, scheduled []Destination, held map[string]string, lastWave time.Time) Adopted {
	assigned := Assign(waves, scheduled)
	n := max(len(waves), 1)
	perWave := make([]map[string]int, n) // wave -> non-configured revision -> destinations holding it
	done := make([]bool, n)
	for i := range done {
		perWave[i] = map[string]int{}
		done[i] = true
	}
	for _, d := range scheduled {
		w := assigned[d.Name]
		rev, ok := held[d.Name]
		if !ok || rev != revision {
			done[w] = false
		}
		if ok && rev != revision && rev != "" {
			perWave[w][rev]++
		}
	}
	completed := ""
	for w := n - 1; w >= 0 && completed == ""; w-- {
		completed = mostCommon(perWave[w])
	}
	if completed == "" {
		return Adopted{Status: Status{Completed: revision}, Complete: true}
	}
	s := Status{Completed: completed, Target: revision}
	for s.WavesDone < len(waves) && done[s.WavesDone] {
		s.WavesDone++
	}
	if s.WavesDone > 0 {
		s.LastWave = lastWave
	}
	return Adopted{Status: s}
}

// mostCommon is the revision counted most often; ties go to the smaller one. "" when none.
func mostCommon(count map[string]int) string {
	revs := make([]string, 0, len(count))
	for rev := range count {
		revs = append(revs, rev)
	}
	sort.Strings(revs)
	best := ""
	for _, rev := range revs {
		if best == "" || count[rev] > count[best] {
			best = rev
		}
	}
	return best
}

// Rejudge is what a plan recovers, for a promise adopted from the stores, of a gate that failed
// and rolled its revision back before the state that recorded it was lost (`terraform state rm`,
// then an import): the stores then hold the completed revision everywhere and the configured
// one nowhere, as before a rollout starts, and only the health records tell the two apart.
// When the gate rolls back, no wave of the configured revision is written, and a destination of
// the first wave (the one the configured revision would go to first) reports, in the latest
// record found, a state the gate does not pass, the rollout is taken to have failed: Status
// records Revision as Failed, so that it is not written to that wave again until the
// dependencies change, as in the state that was lost. failing names those destinations, sorted
// (nil when the rollout is not taken to have failed).
func Rejudge(a Adopted, policy Policy, revision string, scheduled []Destination, health map[string]Health) (out Adopted, failing []string) {
	g := policy.Gate
	if a.Complete || g == nil || !g.rollsBack() || a.Status.WavesDone > 0 || a.Status.Target != revision || a.Status.Completed == "" {
		return a, nil
	}
	wave := Assign(policy.Waves, scheduled)
	for _, d := range scheduled {
		h, ok := health[d.Name]
		if wave[d.Name] == 0 && ok && h.Found && !slices.Contains(g.states(), h.State) {
			failing = append(failing, d.Name)
		}
	}
	if len(failing) == 0 {
		return a, nil
	}
	sort.Strings(failing)
	a.Status = Status{Completed: a.Status.Completed, Failed: revision}
	return a, failing
}
