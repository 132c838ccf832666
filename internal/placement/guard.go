package placement

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The blast-radius guard: a plan that would take files away from too many destinations, from a
// protected one, or move a request off its destination, is refused unless the user acknowledges
// that exact change. Plan warnings say what is misscheduled or removed; the guard makes the
// dangerous ones stop.

// LossKind says what a destination loses.
type LossKind string

const (
	// LossRemoved: the placement goes from the destination, every file with it.
	LossRemoved LossKind = "removed"
	// LossMoved: the placement leaves where it was for another store location or folder (its
	// files are taken from there), or, for a request, for another destination or none (its files
	// stay when the destination left the pool: they are that destination's cleanup's business).
	LossMoved LossKind = "moved"
	// LossFiles: the placement stays, but some of the files it holds there are deleted.
	LossFiles LossKind = "files"
)

// Loss is what one destination loses in a plan.
type Loss struct {
	Destination string
	Kind        LossKind
	// From and To say, for a move, where the files were and where they go ("" for nowhere):
	// "<location> <root>", or "destination <name>" for a request that changes destination.
	From, To string
	// Paths are, for LossFiles, the deleted store paths, sorted.
	Paths []string
	// Files is how many files the destination loses: those the placement held there for a
	// placement removed or moved, len(Paths) for LossFiles. Not part of the acknowledgement.
	Files int
	// Labels are the destination's labels after the change (from the pool, else as the resource
	// last saw it), and PriorLabels its labels as the resource last saw it (nil when it never saw
	// the destination, as after an import). The protect selector is judged against both: a
	// relabel must not take a protected destination out of the guard's sight in the very plan
	// whose deletions the new labels cause.
	Labels, PriorLabels map[string]string
	// WrittenLabels are the destination's labels when the placement's files there were last
	// written (Prior.WrittenLabels; nil when unknown). A placement kept misscheduled
	// (on_unschedule = "keep") is not written again, so a relabel in one plan and a removal in a
	// later one are judged by the labels its files were written under.
	WrittenLabels map[string]string
}

// What says in words what the destination loses; a long list of paths is cut after a few.
func (l Loss) What() string {
	switch l.Kind {
	case LossRemoved:
		return "every file of the placement is removed"
	case LossMoved:
		if l.To == "" {
			return fmt.Sprintf("moves from %s to nowhere", l.From)
		}
		return fmt.Sprintf("moves from %s to %s", l.From, l.To)
	}
	const shown = 3
	paths := l.Paths
	more := ""
	if len(paths) > shown {
		more = fmt.Sprintf(" and %d more", len(paths)-shown)
		paths = paths[:shown]
	}
	return fmt.Sprintf("%d file(s) deleted: %s%s", len(l.Paths), strings.Join(paths, ", "), more)
}

// key is the loss as the acknowledgement hashes it: its fields joined by tabs, the paths last.
func (l Loss) key() string {
	fields := []string{l.Destination, string(l.Kind)}
	switch l.Kind {
	case LossMoved:
		fields = append(fields, l.From, l.To)
	case LossFiles:
		fields = append(fields, l.Paths...)
	}
	return strings.Join(fields, "\t")
}

// Losses compares, per destination, what a resource held (prior) with what it holds once the
// plan is made (next): a placement gone, a placement whose store location or folder changed, or
// files recorded before and not after. An aggregatedYAML file is shared and rebuilt, never
// deleted, so its recorded value (AggregateMark or Stale) is not a file this placement loses:
// its part is. A destination that left the pool is forgotten, its files left where they are, and
// loses nothing here; one whose earlier record is kept (misscheduled, or unreachable) neither.
// The result is sorted by destination.
func Losses(prior map[string]Prior, next map[string]Record, pool []Member) []Loss {
	inPool := map[string]Member{}
	for _, m := range pool {
		inPool[m.Name] = m
	}
	var out []Loss
	for _, dest := range sortedKeys(prior) {
		before := prior[dest]
		if len(before.Record.Files) == 0 {
			continue
		}
		loss := Loss{Destination: dest}
		loss.Labels, loss.PriorLabels = labelsOf(dest, before, inPool)
		loss.WrittenLabels = before.WrittenLabels
		after, kept := next[dest]
		switch {
		case !kept:
			if _, ok := inPool[dest]; !ok {
				continue // left the pool: forgotten, not removed
			}
			loss.Kind, loss.Files = LossRemoved, len(removedPaths(before.Record.Files, nil))
		case after.Location != before.Record.Location || after.Root != before.Record.Root:
			if before.Member == nil {
				continue // without the destination as it was, the old files cannot be reached: they stay
			}
			loss.Kind, loss.From, loss.To, loss.Files = LossMoved, folder(before.Record), folder(after), len(removedPaths(before.Record.Files, nil))
		default:
			loss.Kind, loss.Paths = LossFiles, removedPaths(before.Record.Files, after.Files)
			if len(loss.Paths) == 0 {
				continue
			}
			loss.Files = len(loss.Paths)
		}
		out = append(out, loss)
	}
	return out
}

// RequestLosses is Losses for a request, plus its moves off its destinations while it held files
// there: to another destination, to none, or to another store location or folder of the same
// destination (even when its old files cannot be reached and stay). priorDest and prior are its
// first destination before ("" and nil for none); the plan knows the others.
func RequestLosses(priorDest string, prior *Prior, p RequestPlan, pool []Member) []Loss {
	priors := map[string]Prior{}
	for dest, pr := range p.prior {
		priors[dest] = pr
	}
	if prior != nil && priorDest != "" {
		priors[priorDest] = *prior
	}
	out := Losses(priors, p.Records, pool)
	listed := map[string]bool{}
	for i, l := range out {
		if to := p.movedTo[l.Destination]; l.Kind == LossRemoved && to != "" {
			// Drained (a NoExecute taint): its files go to another destination of the pool.
			out[i].Kind, out[i].From, out[i].To = LossMoved, folder(priors[l.Destination].Record), "destination "+to
		}
		listed[l.Destination] = l.Kind != LossFiles
	}
	inPool := map[string]Member{}
	for _, m := range pool {
		inPool[m.Name] = m
	}
	for _, dest := range sortedKeys(priors) {
		before := priors[dest]
		if len(before.Record.Files) == 0 || listed[dest] {
			continue // nothing held, or removed or moved: listed already
		}
		after, stays := p.Records[dest]
		if stays && after.Location == before.Record.Location && after.Root == before.Record.Root {
			continue
		}
		to := ""
		switch {
		case stays:
			to = folder(after)
		case p.movedTo[dest] != "":
			to = "destination " + p.movedTo[dest]
		}
		move := Loss{Destination: dest, Kind: LossMoved, From: folder(before.Record), To: to}
		move.Labels, move.PriorLabels = labelsOf(dest, before, inPool)
		move.WrittenLabels = before.WrittenLabels
		out = append(out, move)
	}
	return out
}

// labelsOf returns a destination's labels after the change (the pool's, else as the resource
// last saw them) and before it (as the resource last saw them, from the member recorded in its
// prior state; nil when none was recorded).
func labelsOf(dest string, before Prior, pool map[string]Member) (after, prior map[string]string) {
	if before.Member != nil {
		after, prior = before.Member.Labels, before.Member.Labels
		if prior == nil {
			prior = map[string]string{} // seen, without labels: nil would mean never seen
		}
	}
	if m, ok := pool[dest]; ok {
		after = m.Labels
	}
	return after, prior
}

// labelsText writes labels as k=v pairs, sorted, joined by commas; "(none)" when there are none.
func labelsText(labels map[string]string) string {
	if len(labels) == 0 {
		return "(none)"
	}
	pairs := make([]string, 0, len(labels))
	for _, k := range sortedKeys(labels) {
		pairs = append(pairs, k+"="+labels[k])
	}
	return strings.Join(pairs, ",")
}

func folder(r Record) string { return r.Location + " " + r.Root }

// removedPaths are the paths recorded before and not after, except aggregate files.
func removedPaths(before, after map[string]string) []string {
	var out []string
	for _, p := range sortedKeys(before) {
		v := before[p]
		if v == Stale || strings.HasPrefix(v, AggregateMark) {
			continue
		}
		if _, still := after[p]; !still {
			out = append(out, p)
		}
	}
	return out
}

// Resource kinds, as the acknowledgement names them.
const (
	GuardPromise = "kratix_promise"
	GuardRequest = "kratix_resource_request"
)

// Guard is a resource's blast-radius guard.
type Guard struct {
	// MaxRemoved is how many destinations may lose files in one plan; below zero, any number.
	MaxRemoved int
	// Protect selects destinations where nothing may be deleted; nil for none.
	Protect *scheduling.Selector
	// Acknowledge is the value of the one change the user lets through (see Acknowledgement).
	Acknowledge string
}

// Verdict is what the guard says of a plan's losses.
type Verdict struct {
	// Rules are the rules the change breaks, in words; none when it passes the guard.
	Rules []string
	// Losses are every loss of the change: the set the acknowledgement stands for.
	Losses []Loss
	// Ack is the acknowledgement of exactly this change.
	Ack string
	// Acknowledged is true when the guard's Acknowledge is Ack: the change proceeds.
	Acknowledged bool
}

// Refused reports whether the change stops.
func (v Verdict) Refused() bool { return len(v.Rules) > 0 && !v.Acknowledged }

// Check applies the guard to the losses of one plan of the resource kind (GuardPromise or
// GuardRequest) named name. A request moved off its destination always breaks the guard.
func (g Guard) Check(kind, name string, losses []Loss) Verdict {
	v := Verdict{Losses: losses}
	if len(losses) == 0 {
		return v
	}
	if g.MaxRemoved >= 0 && len(losses) > g.MaxRemoved {
		v.Rules = append(v.Rules, fmt.Sprintf("%d destinations lose files, more than max_destinations_removed = %d", len(losses), g.MaxRemoved))
	}
	if g.Protect != nil {
		var hit []string
		for _, l := range losses {
			switch {
			case scheduling.Matches(*g.Protect, l.Labels):
				hit = append(hit, l.Destination)
			case l.PriorLabels != nil && scheduling.Matches(*g.Protect, l.PriorLabels):
				// Protected by the labels it had: a relabel does not lift the protection in the
				// plan that makes it.
				hit = append(hit, fmt.Sprintf("%s (labelled %s before this change)", l.Destination, labelsText(l.PriorLabels)))
			case l.WrittenLabels != nil && scheduling.Matches(*g.Protect, l.WrittenLabels):
				// Protected by the labels its files were written under: a relabel while the files
				// were kept, then a removal, is the same change made in two plans.
				hit = append(hit, fmt.Sprintf("%s (labelled %s when its files were written)", l.Destination, labelsText(l.WrittenLabels)))
			}
		}
		if len(hit) > 0 {
			v.Rules = append(v.Rules, fmt.Sprintf("protected destinations (%s) lose files: %s", selectorText(*g.Protect), strings.Join(hit, ", ")))
		}
	}
	if kind == GuardRequest {
		for _, l := range losses {
			if l.Kind == LossMoved {
				v.Rules = append(v.Rules, fmt.Sprintf("the request moves off destination %q", l.Destination))
			}
		}
	}
	if len(v.Rules) == 0 {
		return v
	}
	v.Ack = Acknowledgement(kind, name, losses)
	v.Acknowledged = g.Acknowledge == v.Ack
	return v
}

// Acknowledgement is the value that lets one change through: "ack-" and the first 16 hex digits
// of the SHA-256 of kind, a tab, name, a newline, then one line per loss in destination order,
// each its fields joined by tabs and ended by a newline: the destination, the kind, then for a
// move where the files were and where they go, for deleted files their paths. Any other set of
// destinations, or other losses at them, gives another value.
func Acknowledgement(kind, name string, losses []Loss) string {
	lines := make([]string, len(losses))
	for i, l := range losses {
		lines[i] = l.key() + "\n"
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(kind + "\t" + name + "\n" + strings.Join(lines, "")))
	return "ack-" + hex.EncodeToString(sum[:])[:16]
}

// WrittenLabels returns, per destination the resource holds files in after an apply (o), the
// labels the destination had when those files were last written: its labels in the pool where
// the apply wrote it, and what was known before where it did not (a placement kept misscheduled
// or waiting, a write that failed): the prior WrittenLabels, else the labels the resource last
// saw. A destination with no labels known is left out.
func WrittenLabels(prior map[string]Prior, o Outcome, pool []Member) map[string]map[string]string {
	inPool := map[string]Member{}
	for _, m := range pool {
		inPool[m.Name] = m
	}
	written := map[string]bool{}
	for _, d := range o.Scheduled {
		written[d] = true
	}
	out := map[string]map[string]string{}
	for dest := range o.Records {
		before, held := prior[dest]
		switch m, ok := inPool[dest]; {
		case ok && (written[dest] || !held):
			out[dest] = nonNil(m.Labels)
		case held && before.WrittenLabels != nil:
			out[dest] = before.WrittenLabels
		case held && before.Member != nil:
			out[dest] = nonNil(before.Member.Labels)
		}
	}
	return out
}

func nonNil(labels map[string]string) map[string]string {
	if labels == nil {
		return map[string]string{}
	}
	return labels
}
