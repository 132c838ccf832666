package placement

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// PreviewInput is a placement asked about before anything is placed: what the kratix_placement
// data source shows.
type PreviewInput struct {
	Pool []scheduling.Destination
	// Selectors are the promise's destination_selectors; Second a request's selectors, combined
	// with them as a request's are (the promise's win).
	Selectors, Second []scheduling.Selector
	// MatchAny: each entry of Selectors is a whole selector, and a destination any of them
	// matches is selected. Second must then be empty.
	MatchAny bool
	// One: a resource request's choice among the matches (rendezvous hashing of Key, Replicas,
	// SpreadKey), as PlanRequest makes it for a new request; otherwise a promise's placement.
	One       bool
	Key       string
	Replicas  int
	SpreadKey string
	// By names the choice in the reasons of the matches left out ("request jenkins/default/dev").
	By          string
	Tolerations []scheduling.Toleration
}

// Preview is what a placement previewed gives: a decision per destination of the pool, in the
// pool's order, and the destinations selected, sorted.
type Preview struct {
	Decisions []scheduling.Decision
	Selected  []string
	// Ignored are the request selectors the promise's selectors override (Combine's conflicts).
	Ignored []scheduling.Conflict
}

// ErrAnyWithSecond is PreviewPlacement's answer to MatchAny with request selectors.
var ErrAnyWithSecond = errors.New(`with match = "any" every entry is a whole selector; request selectors cannot be combined with them`)

// PreviewPlacement decides a placement as the resources would for a first placement: a promise's
// destinations as SchedulePromise selects them with nothing placed before, or a new request's as
// PlanRequest picks them (pickRequest with no current destination).
func PreviewPlacement(in PreviewInput) (Preview, error) {
	var p Preview
	if in.MatchAny {
		if len(in.Second) > 0 {
			return Preview{}, ErrAnyWithSecond
		}
		p.Decisions = scheduling.ScheduleAny(in.Selectors, in.Pool)
	} else {
		sel := scheduling.Merge(in.Selectors)
		if len(in.Second) > 0 {
			sel, p.Ignored = scheduling.Combine(sel, scheduling.Merge(in.Second))
		}
		p.Decisions = scheduling.Schedule(sel, in.Pool)
	}
	if in.One {
		p.Decisions = previewPick(p.Decisions, in)
	} else {
		p.Decisions = scheduling.WithTaints(p.Decisions, in.Pool, in.Tolerations, placedNowhere)
	}
	p.Selected = Selected(p.Decisions)
	return p, nil
}

// previewPick keeps the matches a new request goes to (one, or its replicas); the other matches
// say who was chosen instead, and for what (in.By), or the taint that passed them over.
func previewPick(decisions []scheduling.Decision, in PreviewInput) []scheduling.Decision {
	pick := scheduling.Pick(scheduling.PickInput{Key: in.Key, Candidates: selectedOf(in.Pool, decisions), Tolerations: in.Tolerations,
		Replicas: max(in.Replicas, 1), SpreadKey: in.SpreadKey})
	if len(pick.Chosen) == 0 {
		return scheduling.WithTaints(decisions, in.Pool, in.Tolerations, placedNowhere)
	}
	chosen := strings.Join(pick.Chosen, ", ")
	out := make([]scheduling.Decision, len(decisions))
	for i, d := range decisions {
		if d.Selected && !slices.Contains(pick.Chosen, d.Destination) {
			d.Selected = false
			why, tainted := pick.Reasons[d.Destination]
			if !tainted || !strings.HasPrefix(why, "tainted") {
				why = fmt.Sprintf("matches, but mode = \"one\" chose %s for %s", chosen, in.By)
			}
			d = d.WithReason(why)
		}
		out[i] = d
	}
	return out
}

// placedNowhere: a preview places for the first time.
func placedNowhere(string) bool { return false }
