package placement

import (
	"fmt"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Promise is what a plan of a promise starts from.
type Promise struct {
	Name     string
	Selector scheduling.Selector
	// Tolerations are the taints of destinations the promise's dependencies tolerate.
	Tolerations  []scheduling.Toleration
	Dependencies layout.Dependencies // All empty: no document
	Pool         []Member
	// Prior holds, per destination, what the promise placed before.
	Prior map[string]Prior
	// DeleteUnscheduled removes the files of a destination that stops matching
	// (on_unschedule = "delete"); otherwise they stay, misscheduled.
	DeleteUnscheduled bool
	// Staged maps scheduled destinations that do not get Dependencies in this apply (a rollout
	// waiting for their wave) to what they get instead: other dependencies, or nil to keep exactly
	// what they hold (nothing is written to them).
	Staged map[string]*layout.Dependencies
}

// PlanPromise schedules a promise's dependencies to every destination of the pool that matches
// and says what each store location must then hold. A destination written before that stops
// matching keeps its files (misscheduled, no longer updated) or loses them; one that left the
// pool is forgotten (its files are its own cleanup's business); one that moved (another store,
// folder or layout) has its files taken from where they were and written where it is now.
func PlanPromise(in Promise) (Plan, []scheduling.Decision, error) {
	decisions := SchedulePromise(in)
	p, err := PlacePromise(in, decisions)
	if err != nil {
		return Plan{}, nil, err
	}
	return p, decisions, nil
}

// SchedulePromise decides which destinations of the pool a promise is scheduled to: the first
// half of PlanPromise, for a caller that stages a rollout over them before placing it.
func SchedulePromise(in Promise) []scheduling.Decision {
	pool := Destinations(in.Pool)
	held := func(dest string) bool { _, ok := in.Prior[dest]; return ok }
	return scheduling.WithTaints(scheduling.Schedule(in.Selector, pool), pool, in.Tolerations, held)
}

// Selected lists, sorted, the destinations decisions select: the Scheduled of the plan that
// PlacePromise makes of them.
func Selected(decisions []scheduling.Decision) []string {
	var out []string
	for _, d := range decisions {
		if d.Selected {
			out = append(out, d.Destination)
		}
	}
	sort.Strings(out)
	return out
}

// PlacePromise says what each store location must hold for the destinations decisions
// (SchedulePromise's) select and drop: the second half of PlanPromise.
func PlacePromise(in Promise, decisions []scheduling.Decision) (Plan, error) {
	p := Plan{Records: map[string]Record{}, prior: in.Prior}
	o := ops{object: PromiseObject(in.Name)}
	o.know(in.Pool...)
	o.knowPrior(in.Prior)
	members := map[string]Member{}
	for _, m := range in.Pool {
		members[m.Name] = m
	}
	in.Dependencies.Kept = keptFiles(in.Prior)
	filesAt := func(m Member) (layout.Files, error) { return layout.DependencyFiles(m.Target, in.Dependencies) }
	renamed := map[string]bool{}
	for _, d := range decisions {
		m := members[d.Destination]
		before, held := in.Prior[d.Destination]
		if d.Selected {
			deps, staged := in.Staged[d.Destination]
			if staged && deps == nil && held {
				kept := before.Record
				kept.Misscheduled = false
				p.Records[d.Destination] = kept
				p.Scheduled = append(p.Scheduled, d.Destination)
				continue
			}
			files := filesAt
			if staged && deps != nil {
				staging := *deps
				staging.Kept = in.Dependencies.Kept
				files = func(m Member) (layout.Files, error) { return layout.DependencyFiles(m.Target, staging) }
			}
			f, err := files(m)
			if err != nil {
				return Plan{}, err
			}
			if !held {
				if err := takeFromRenamed(&o, in.Prior, members, m, renamed, filesAt); err != nil {
					return Plan{}, err
				}
			}
			r := record(&o, m, f)
			if !held || !Unchanged(before, m, r) {
				if err := place(&o, m, f, d.Destination, before, held, files); err != nil {
					return Plan{}, err
				}
			}
			p.Records[d.Destination] = r
			p.Scheduled = append(p.Scheduled, d.Destination)
			continue
		}
		if !held {
			continue
		}
		if in.DeleteUnscheduled {
			if before.Member == nil && before.Record.Root == m.Target.Root && before.Record.Location == m.Location.String() {
				before.Member = &m // imported: the record says it is where the destination is now
			}
			if err := unplace(&o, before, d.Destination, filesAt); err != nil {
				return Plan{}, err
			}
			p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q %s promise %q (%s): its files will be removed (on_unschedule = \"delete\").", d.Destination, leaves(in, m), in.Name, d.Reason()))
			continue
		}
		kept := before.Record
		kept.Misscheduled = true
		p.Records[d.Destination] = kept
		p.Misscheduled = append(p.Misscheduled, d.Destination)
		p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q %s promise %q (%s). Its files stay and are no longer updated (misscheduled); set on_unschedule = \"delete\" to remove them.", d.Destination, leaves(in, m), in.Name, d.Reason()))
	}
	sort.Strings(p.Scheduled)
	sort.Strings(p.Misscheduled)
	if len(p.Scheduled) == 0 {
		var why []string
		for _, d := range decisions {
			why = append(why, fmt.Sprintf("%s: %s", d.Destination, d.Reason()))
		}
		if len(why) == 0 {
			why = []string{"the pool is empty"}
		}
		p.Warnings = append([]string{fmt.Sprintf("Promise %q: no destinations can be selected for scheduling (selectors: %s). Nothing is written until a destination matches.\n\n%s%s",
			in.Name, selectorText(in.Selector), strings.Join(why, "\n"), keyHints(in.Selector, in.Pool))}, p.Warnings...)
	}
	p.finish(&o)
	return p, nil
}

// RemovePromise takes every placement of a promise away, misscheduled ones included, as
// Kratix cascades a promise's deletion: each owned folder goes whole.
func RemovePromise(deps layout.Dependencies, prior map[string]Prior) (Plan, error) {
	deps.Kept = keptFiles(prior)
	filesAt := func(m Member) (layout.Files, error) { return layout.DependencyFiles(m.Target, deps) }
	return removeAll(PromiseObject(deps.Promise), prior, filesAt)
}

// PromiseObject and RequestObject name a promise and a request as owner records and commit
// messages do: "promise/db", "request/db/default/one".
func PromiseObject(name string) string { return "promise/" + name }

// RequestObject: see PromiseObject.
func RequestObject(promise, namespace, name string) string {
	return "request/" + RequestID(promise, namespace, name)
}

func removeAll(object string, prior map[string]Prior, filesAt func(Member) (layout.Files, error)) (Plan, error) {
	p := Plan{Records: map[string]Record{}, prior: prior}
	o := ops{object: object}
	o.knowPrior(prior)
	for _, dest := range sortedKeys(prior) {
		if err := unplace(&o, prior[dest], dest, filesAt); err != nil {
			return Plan{}, err
		}
	}
	p.finish(&o)
	return p, nil
}

// place writes f to m. If the placement was somewhere else before (another location, folder or
// layout), it is taken from there in the same operation when the location is the same, or in
// that location's own operation.
func place(o *ops, m Member, f layout.Files, dest string, before Prior, held bool, filesAt func(Member) (layout.Files, error)) error {
	moved := held && before.Member != nil && !sameTarget(*before.Member, m)
	if moved {
		if err := unplace(o, before, dest, filesAt); err != nil {
			return err
		}
	}
	var recorded map[string]string
	if held && !moved {
		recorded = before.Record.Files
	}
	// A placement new here (never held, or moved from elsewhere) takes over whatever the folder
	// holds: the writer warns about files with other content.
	o.write(m, f, dest, recorded, !held || moved)
	return nil
}

// renamedFrom finds, for a destination m a placement is new on, the destination it was placed on
// before under another name: one that has left the pool, whose folder was m's (same location,
// folder, mode, aggregated file and store path), not already taken (taken). "" when none.
func renamedFrom(prior map[string]Prior, members map[string]Member, m Member, taken map[string]bool) string {
	for _, dest := range sortedKeys(prior) {
		before := prior[dest]
		if _, inPool := members[dest]; inPool || taken[dest] || before.Member == nil {
			continue
		}
		if sameTarget(*before.Member, m) && before.Record.Location == m.Location.String() && before.Record.Root == m.Target.Root {
			return dest
		}
	}
	return ""
}

// takeFromRenamed removes, in the operation that writes m, what the placement wrote under a
// destination renamed to m (renamedFrom): the files are the same paths and are put again, but
// what its old name is in (mode none's index file, .kratix/<namespace>-<placement>.yaml, whose
// placement carries the destination's name) would otherwise stay, and its list of files would
// keep them as another owner's at the next removal.
func takeFromRenamed(o *ops, prior map[string]Prior, members map[string]Member, m Member, taken map[string]bool, filesAt func(Member) (layout.Files, error)) error {
	old := renamedFrom(prior, members, m, taken)
	if old == "" {
		return nil
	}
	taken[old] = true
	return unplace(o, prior[old], old, filesAt)
}

// unplace removes a placement from where it was. Without the destination as it was then, only
// the recorded files inside the recorded folder can be found.
func unplace(o *ops, before Prior, dest string, filesAt func(Member) (layout.Files, error)) error {
	if before.Member == nil {
		// Nothing to reach the store with: the files stay, as on a forgotten destination, and the
		// record is kept so that they are not lost track of.
		o.keep(dest)
		return nil
	}
	f, err := filesAt(*before.Member)
	if err != nil {
		return err
	}
	o.remove(*before.Member, f, dest, before.Record.Files)
	return nil
}

func record(o *ops, m Member, f layout.Files) Record {
	return Record{Store: m.Store, Location: m.Location.String(), Root: m.Target.Root, Files: hashesWith(f, o.sums.Of)}
}

func selectorText(s scheduling.Selector) string {
	if t := s.String(); t != "" {
		return t
	}
	return "(none)"
}

// keyHints names the label keys sel requires that no destination of pool carries, each with
// the pool's closest key when one is close enough to be what was meant; "" when every key exists.
func keyHints(sel scheduling.Selector, pool []Member) string {
	var b strings.Builder
	for _, h := range scheduling.UnknownKeys(sel, Destinations(pool)) {
		fmt.Fprintf(&b, "\n\nNo destination in the pool has the label key %q", h.Key)
		if h.Closest != "" {
			fmt.Fprintf(&b, "; did you mean %q?", h.Closest)
		} else {
			b.WriteString(".")
		}
	}
	return b.String()
}

// keptFiles lists every file the prior records hold, so that a layout keeps the names of the
// files an import adopted (layout.Dependencies.Kept).
func keptFiles(prior map[string]Prior) []string {
	all := map[string]bool{}
	for _, pr := range prior {
		for f := range pr.Record.Files {
			all[f] = true
		}
	}
	return sortedKeys(all)
}

// leaves says how a destination that held the promise's files leaves it: drained by a taint, or
// no longer matching its selectors.
func leaves(in Promise, m Member) string {
	if len(noExecute(in.Tolerations, m.Destination)) > 0 {
		return "is drained of"
	}
	return "no longer matches"
}
