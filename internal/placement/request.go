package placement

import (
	"fmt"
	"slices"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// RequestID is a request's identity as users read and type it: its id, its import id, and the
// name messages and commit messages give it. ids in users' states have this form.
func RequestID(promise, namespace, name string) string {
	return promise + "/" + namespace + "/" + name
}

// ParseRequestImportID splits a request's import id, `<promise>/<namespace>/<name>` (its
// RequestID) or `<promise>/<namespace>/<name>@<destination>` (the destination to keep it on).
func ParseRequestImportID(id string) (base string, parts []string, destination string, err error) {
	base, destination, named := strings.Cut(id, "@")
	parts = strings.Split(base, "/")
	bad := len(parts) != 3 || named && destination == ""
	for _, p := range parts {
		bad = bad || p == ""
	}
	if bad {
		return "", nil, "", fmt.Errorf("%q: import a request as <promise>/<namespace>/<name>, or as "+
			"<promise>/<namespace>/<name>@<destination> to keep it on that destination", id)
	}
	return base, parts, destination, nil
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
	// Replicas is how many destinations the request goes to (0 counts as 1), and SpreadKey the
	// label whose values it spreads them over first ("" for none); see scheduling.Pick.
	Replicas  int
	SpreadKey string
	Output    layout.Request
	Pool      []Member
	// PriorDestination is the destination chosen before ("" for none), and Prior what the
	// request placed there. With replicas, OtherPriors are the other destinations it was on.
	PriorDestination string
	Prior            *Prior
	OtherPriors      map[string]Prior
	// PriorOrder is the order the request was on its destinations in (the state's list); those
	// of OtherPriors it leaves out follow by name.
	PriorOrder []string
	// HashKey, when set, makes the record hold keyed hashes instead of MD5s (see KeyedMark): the
	// content came from write-only attributes.
	HashKey []byte
}

// RequestPlan is a Plan with the destinations chosen.
type RequestPlan struct {
	Plan
	// Chosen is the first destination, nil when none matches; All every destination chosen, the
	// ones the request stays on first (in the order it was on them), then the new ones best
	// first.
	Chosen       *Member
	All          []Member
	Misscheduled bool
	// MovedFrom is the first destination the request is drained from (a NoExecute taint it does
	// not tolerate) in this plan, "" for none; Leaving every destination of the pool it leaves
	// (drained, or past its replicas), whose files the provider's writer removes only once the
	// others are written (make before break).
	MovedFrom string
	Leaving   []string
	// PassedOver are the candidates the request matches and is not placed on for a taint it
	// does not tolerate, by name: where a request placed before this state knew of it may be.
	PassedOver []string

	// movedTo maps each destination the request leaves for another to that one: drained, or
	// gone from the pool.
	movedTo map[string]string
}

// PlanRequest places a request on its destinations, Replicas of them (one by default): those it
// is on while they stay in the pool (even if they stop matching: misscheduled, still updated, as
// Kratix keeps its first choice), and for the rest the rendezvous choices among the candidates
// (scheduling.Pick: taints, weights, spread). A request whose destination left the pool moves,
// and its old files are that destination's cleanup's business; one drained by a NoExecute taint
// moves to its best remaining choice, written there before it is removed from the drained one.
func PlanRequest(in Request) (RequestPlan, []scheduling.Decision, error) {
	id := RequestID(in.Output.Promise, in.Output.Namespace, in.Output.Name)
	sel, conflicts := scheduling.Combine(in.PromiseSelector, in.Selector)
	p := RequestPlan{Plan: Plan{Records: map[string]Record{}, prior: map[string]Prior{}}}
	var current []string
	if in.Prior != nil && in.PriorDestination != "" {
		p.prior[in.PriorDestination] = *in.Prior
		current = append(current, in.PriorDestination)
	}
	for _, dest := range append(slices.Clone(in.PriorOrder), sortedKeys(in.OtherPriors)...) {
		if _, other := in.OtherPriors[dest]; !other {
			continue
		}
		if _, dup := p.prior[dest]; !dup && dest != "" {
			p.prior[dest] = in.OtherPriors[dest]
			current = append(current, dest)
		}
	}
	in.Output.Kept = keptFiles(p.prior)
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
	matched := map[string]bool{}
	for _, d := range decisions {
		matched[d.Destination] = d.Selected
	}
	chosen, drained := pickRequest(&p, in, id, current, pool, members, &decisions, sel)
	if len(chosen) == 0 {
		return p, decisions, nil
	}
	filesAt := func(m Member) (layout.Files, error) { return layout.RequestFiles(m.Target, in.Output) }
	o := ops{object: RequestObject(in.Output.Promise, in.Output.Namespace, in.Output.Name)}
	o.know(in.Pool...)
	o.knowPrior(p.prior)
	// Make before break: while the request leaves a destination, every one it stays on is written
	// (the store confirms it holds the files) before the files leave; otherwise a placement that
	// holds what it records is not written at all (Unchanged).
	leaves := false
	for _, dest := range current {
		if _, inPool := members[dest]; inPool && !slices.Contains(chosen, dest) {
			leaves = true
		}
	}
	renamed := map[string]bool{}
	for _, name := range chosen {
		m := members[name]
		f, err := filesAt(m)
		if err != nil {
			return RequestPlan{}, nil, err
		}
		before, held := p.prior[name]
		if !held {
			if err := takeFromRenamed(&o, p.prior, members, m, renamed, filesAt); err != nil {
				return RequestPlan{}, nil, err
			}
		}
		r := record(&o, m, f)
		if in.HashKey != nil {
			r.Files = KeyedHashes(f, in.HashKey)
		}
		if !held || leaves || !Unchanged(before, m, r) {
			if err := place(&o, m, f, name, before, held, filesAt); err != nil {
				return RequestPlan{}, nil, err
			}
		}
		r.Misscheduled = held && !matched[name]
		p.Records[name] = r
		p.All = append(p.All, m)
		p.Scheduled = append(p.Scheduled, name)
	}
	p.Chosen = &p.All[0]
	p.Misscheduled = p.Records[p.Chosen.Name].Misscheduled
	for _, dest := range current {
		if _, stays := p.Records[dest]; stays {
			continue
		}
		if _, inPool := members[dest]; !inPool {
			continue // left the pool: its files are that destination's cleanup's business
		}
		// Make before break: the provider's writer (writeMove) removes these files only once
		// the other destinations' are written, so the request is never in none of its places.
		p.Leaving = append(p.Leaving, dest)
		if p.MovedFrom == "" && drained[dest] {
			p.MovedFrom = dest
		}
		if err := unplace(&o, p.prior[dest], dest, filesAt); err != nil {
			return RequestPlan{}, nil, err
		}
	}
	p.finish(&o)
	return p, decisions, nil
}

// pickRequest decides the destinations of a request (see PlanRequest) and adds the warnings that
// explain the decision. drained are the current destinations it leaves for a NoExecute taint.
func pickRequest(p *RequestPlan, in Request, id string, current []string, pool []scheduling.Destination, members map[string]Member,
	decisions *[]scheduling.Decision, sel scheduling.Selector) ([]string, map[string]bool) {
	n := max(in.Replicas, 1)
	// The destinations the request is on stay candidates while they are in the pool, matching or
	// not: a request keeps its destinations, as Kratix keeps its first choice.
	cands := selectedOf(pool, *decisions)
	onPool := map[string]bool{}
	for _, d := range current {
		if m, ok := members[d]; ok && !selectedIn(*decisions, d) {
			cands = append(cands, m.Destination)
		}
		onPool[d] = members[d].Name != ""
	}
	pick := scheduling.Pick(scheduling.PickInput{Key: in.Key, Candidates: cands, Current: current, Tolerations: in.Tolerations,
		Replicas: n, SpreadKey: in.SpreadKey})
	*decisions = withReasons(*decisions, pick.Reasons)
	for _, c := range cands {
		if why, ok := pick.Reasons[c.Name]; ok && strings.HasPrefix(why, "tainted ") {
			p.PassedOver = append(p.PassedOver, c.Name)
		}
	}
	slices.Sort(p.PassedOver)
	drained := map[string]bool{}
	var drainedOrder []string
	for _, d := range current {
		if onPool[d] && len(noExecute(in.Tolerations, members[d].Destination)) > 0 {
			drained[d] = true
			drainedOrder = append(drainedOrder, d)
		}
	}
	// A drained destination with nowhere to go keeps the request rather than lose its files.
	var stuck []string
	for _, d := range drainedOrder {
		if len(stuck) < pick.Shortfall {
			stuck = append(stuck, d)
			delete(drained, d)
		}
	}
	stays := map[string]bool{}
	var chosen, added []string
	for _, d := range pick.Chosen {
		stays[d] = true
	}
	for _, d := range stuck {
		stays[d] = true
	}
	for _, d := range current {
		if stays[d] {
			chosen = append(chosen, d)
		}
	}
	for _, d := range pick.Chosen {
		if !slices.Contains(current, d) {
			added = append(added, d)
		}
	}
	chosen = append(chosen, added...)
	for _, d := range chosen {
		if slices.Contains(current, d) && !selectedIn(*decisions, d) && !slices.Contains(stuck, d) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s stays on destination %q, which no longer matches (%s): it is misscheduled and still updated.",
				id, d, reasonFor(*decisions, d)))
		}
	}
	to := added // the new destinations, handed to the ones left in order
	next := func() string {
		if len(to) == 0 {
			return ""
		}
		d := to[0]
		to = to[1:]
		return d
	}
	p.movedTo = map[string]string{}
	for _, d := range current {
		switch {
		case stays[d]:
		case drained[d]:
			taints := taintList(noExecute(in.Tolerations, members[d].Destination))
			if dest := next(); dest != "" {
				p.movedTo[d] = dest
				p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q is tainted %s, which request %s does not tolerate: the request moves to %q. Its files are written there first, then removed from %q.",
					d, taints, id, dest, d))
			} else {
				p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q is tainted %s, which request %s does not tolerate: the request leaves it. Its files are removed there once its other destinations are written.",
					d, taints, id))
			}
		case !onPool[d]:
			if dest := next(); dest != "" {
				p.movedTo[d] = dest
				p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q left the pool: request %s moves to %q.", d, id, dest))
			} else {
				p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q left the pool: request %s is no longer placed there.", d, id))
			}
		default:
			p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s leaves destination %q: replicas = %d, and it ranks below the %d kept. Its files are removed there once its other destinations are written.",
				id, d, n, n))
		}
	}
	for _, d := range stuck {
		p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q is tainted %s, which request %s does not tolerate, but no other destination can take it: it stays there until one can.\n\n%s",
			d, taintList(noExecute(in.Tolerations, members[d].Destination)), id, whyNot(*decisions)))
	}
	switch short := n - len(chosen); {
	case len(chosen) == 0:
		p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s: no destinations can be selected for scheduling (selectors: %s). Nothing is written until a destination matches.\n\n%s%s",
			id, selectorText(sel), whyNot(*decisions), keyHints(sel, in.Pool)))
	case short > 0:
		p.Warnings = append(p.Warnings, fmt.Sprintf("Request %s asks for %d replicas, but only %d destination(s) can take it (%s): it goes to those, and to more once they match.\n\n%s",
			id, n, len(chosen), strings.Join(chosen, ", "), whyNot(*decisions)))
	}
	return chosen, drained
}

// selectedIn reports whether decisions select the destination named.
func selectedIn(decisions []scheduling.Decision, name string) bool {
	for _, d := range decisions {
		if d.Destination == name {
			return d.Selected
		}
	}
	return false
}

// reasonFor is the reason of the decision on the destination named.
func reasonFor(decisions []scheduling.Decision, name string) string {
	for _, d := range decisions {
		if d.Destination == name {
			return d.Reason()
		}
	}
	return "not in the pool"
}

// RemoveRequest takes a request's files away from each destination it holds them in (prior, by
// destination): its owned folder whole.
func RemoveRequest(out layout.Request, prior map[string]Prior) (Plan, error) {
	out.Kept = keptFiles(prior)
	filesAt := func(m Member) (layout.Files, error) { return layout.RequestFiles(m.Target, out) }
	return removeAll(RequestObject(out.Promise, out.Namespace, out.Name), prior, filesAt)
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
