package placement

import (
	"fmt"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// RequestID is a request's identity as users read and type it: its id, its import id, and the
// name messages and commit messages give it. ids in users' states have this form.
func RequestID(promise, namespace, name string) string {
	return promise + "/" + namespace + "/" + name
}

// RequestKey is what a request's destination is chosen by (the rendezvous key) and
// what its keyed hashes are bound to. Its order differs from RequestID's, and changing it would
// move requests and change every keyed hash, so it is never shown: messages say RequestID.
func RequestKey(promise, namespace, name string) string {
	return namespace + "/" + promise + "/" + name
}

// Request is what a plan of a resource request starts from.
type Request struct {
	// Key is RequestKey of the request: the rendezvous key.
	Key string
	// PromiseSelector and Selector are the promise's selectors and the request's own.
	PromiseSelector, Selector scheduling.Selector
	// Tolerations are the taints of destinations the request tolerates.
	Tolerations []scheduling.Toleration
	Output      layout.Request
	Pool        []Member
	// PriorDestination is the destination chosen before ("" for none), and Prior what the
	// request placed there.
	PriorDestination string
	Prior            *Prior
	// HashKey, when set, makes the record hold keyed hashes instead of MD5s (see KeyedMark): the
	// content came from write-only attributes.
	HashKey []byte
}

// RequestPlan is a Plan with the one destination chosen.
type RequestPlan struct {
	Plan
	// Chosen is the destination, nil when none matches.
	Chosen       *Member
	Misscheduled bool
	// MovedFrom is the destination the request leaves in this plan, its files removed there once
	// they are written on Chosen: one whose taint the request does not tolerate (NoExecute).
	MovedFrom string
}

// PlanRequest places a request on exactly one destination: the one it is on while that stays in
// the pool (even if it stops matching: misscheduled, still updated, as Kratix keeps its first
// choice), otherwise the rendezvous choice among the candidates. A request whose destination
// left the pool moves, and its old files are that destination's cleanup's business.
func PlanRequest(in Request) (RequestPlan, []scheduling.Decision, error) {
	id := RequestID(in.Output.Promise, in.Output.Namespace, in.Output.Name)
	sel, conflicts := scheduling.Combine(in.PromiseSelector, in.Selector)
	p := RequestPlan{Plan: Plan{Records: map[string]Record{}, prior: map[string]Prior{}}}
	if in.Prior != nil && in.PriorDestination != "" {
		p.prior[in.PriorDestination] = *in.Prior
		in.Output.Kept = sortedKeys(in.Prior.Record.Files)
	}
	for _, c := range conflicts {
		p.Warnings = append(p.Warnings, fmt.Sprintf("destination_selectors: %s=%s is ignored: promise %q selects %s=%s, and a request can never leave its promise's placement.",
			c.Key, c.RequestValue, in.Output.Promise, c.Key, c.PromiseValue))
	}
	pool := Destinations(in.Pool)
	decisions := scheduling.Schedule(sel, pool)
	members := map[string]Member{}
	for _, m := range in.Pool {
		members[m.Name] = m
	}
	chosen, drainedFrom := "", ""
	prior, inPool := members[in.PriorDestination]
	switch {
	case in.PriorDestination != "" && inPool && len(noExecute(in.Tolerations, prior.Destination)) == 0:
		chosen = in.PriorDestination
		for _, d := range decisions {
			if d.Destination == chosen && !d.Selected {
				p.Misscheduled = true
				p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s stays on destination %q, which no longer matches (%s): it is misscheduled and still updated.", id, chosen, d.Reason()))
			}
		}
	default:
		if in.PriorDestination != "" && inPool {
			drainedFrom = in.PriorDestination
		}
		pick := scheduling.Pick(scheduling.PickInput{Key: in.Key, Candidates: selectedOf(pool, decisions), Tolerations: in.Tolerations})
		decisions = withReasons(decisions, pick.Reasons)
		switch {
		case len(pick.Chosen) > 0 && drainedFrom != "":
			chosen = pick.Chosen[0]
			p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q is tainted %s, which request %s does not tolerate: the request moves to %q. Its files are written there first, then removed from %q.",
				drainedFrom, taintList(noExecute(in.Tolerations, prior.Destination)), id, chosen, drainedFrom))
		case len(pick.Chosen) > 0:
			chosen = pick.Chosen[0]
			if in.PriorDestination != "" {
				p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q left the pool: request %s moves to %q.", in.PriorDestination, id, chosen))
			}
		case drainedFrom != "":
			// Nowhere to go: the request stays rather than lose its files.
			chosen, drainedFrom = in.PriorDestination, ""
			p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q is tainted %s, which request %s does not tolerate, but no other destination can take it: it stays there until one can.\n\n%s",
				chosen, taintList(noExecute(in.Tolerations, prior.Destination)), id, whyNot(decisions)))
		default:
			p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s: no destinations can be selected for scheduling (selectors: %s). Nothing is written until a destination matches.\n\n%s%s",
				id, selectorText(sel), whyNot(decisions), keyHints(sel, in.Pool)))
		}
	}
	if chosen == "" {
		return p, decisions, nil
	}
	m := members[chosen]
	p.Chosen = &m
	filesAt := func(m Member) (layout.Files, error) { return layout.RequestFiles(m.Target, in.Output) }
	f, err := filesAt(m)
	if err != nil {
		return RequestPlan{}, nil, err
	}
	var o ops
	o.know(in.Pool...)
	o.knowPrior(p.prior)
	before, held := p.prior[chosen]
	if err := place(&o, m, f, chosen, before, held, filesAt); err != nil {
		return RequestPlan{}, nil, err
	}
	if drainedFrom != "" {
		// Make before break: the provider's writer (writeMove) removes these files only once
		// the new destination's are written, so the request is never in neither place.
		p.MovedFrom = drainedFrom
		if err := unplace(&o, p.prior[drainedFrom], drainedFrom, filesAt); err != nil {
			return RequestPlan{}, nil, err
		}
	}
	r := record(&o, m, f)
	if in.HashKey != nil {
		r.Files = KeyedHashes(f, in.HashKey)
	}
	r.Misscheduled = p.Misscheduled
	p.Records[chosen] = r
	p.Scheduled = []string{chosen}
	p.finish(&o)
	return p, decisions, nil
}

// RemoveRequest takes a request's files away from its destination: its owned folder whole.
func RemoveRequest(out layout.Request, dest string, prior Prior) (Plan, error) {
	out.Kept = sortedKeys(prior.Record.Files)
	filesAt := func(m Member) (layout.Files, error) { return layout.RequestFiles(m.Target, out) }
	return removeAll(map[string]Prior{dest: prior}, filesAt)
}

// noExecute returns d's NoExecute taints that tols do not tolerate: those that drain it.
func noExecute(tols []scheduling.Toleration, d scheduling.Destination) []scheduling.Taint {
	var out []scheduling.Taint
	for _, t := range scheduling.Untolerated(tols, d.Taints) {
		if t.Effect == scheduling.EffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// selectedOf returns the destinations of pool that decisions select.
func selectedOf(pool []scheduling.Destination, decisions []scheduling.Decision) []scheduling.Destination {
	var out []scheduling.Destination
	for i, d := range decisions {
		if d.Selected {
			out = append(out, pool[i])
		}
	}
	return out
}

// withReasons turns off the selected decisions that a pick left out for a reason of its own (a
// taint), with that reason.
func withReasons(decisions []scheduling.Decision, reasons map[string]string) []scheduling.Decision {
	out := make([]scheduling.Decision, len(decisions))
	for i, d := range decisions {
		if why, ok := reasons[d.Destination]; ok && d.Selected {
			d = d.WithReason(why)
			d.Selected = false
		}
		out[i] = d
	}
	return out
}

// whyNot lists each destination with the reason of its decision, one per line.
func whyNot(decisions []scheduling.Decision) string {
	var why []string
	for _, d := range decisions {
		why = append(why, d.Destination+": "+d.Reason())
	}
	return strings.Join(why, "\n")
}

// taintList writes taints as kubectl does, joined by ", ".
func taintList(taints []scheduling.Taint) string {
	var out []string
	for _, t := range taints {
		out = append(out, t.String())
	}
	return strings.Join(out, ", ")
}
