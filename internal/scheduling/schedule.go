package scheduling

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// Destination is a candidate: its name, its labels, and whether it refuses work without selectors.
type Destination struct {
	Name              string
	Labels            map[string]string
	StrictMatchLabels bool
}

// Decision explains what was decided for one candidate.
type Decision struct {
	Destination string
	Selected    bool
	Reason      string
}

// DryRunLabel marks a destination that Kratix reserves for dry-run Works: with the value "true"
// it never receives ordinary placements, whatever the selectors say.
const DryRunLabel = "kratix.io/dry-run"

// dryRunReason is the decision reason of a dry-run destination; it names the label so that a
// reader of the plan knows which label to remove.
const dryRunReason = "labelled " + DryRunLabel + "=true: dry-run destinations get no placements"

// IsDryRun reports whether labels mark a dry-run destination. Kratix compares the value with
// "true" exactly, so "false", "True" or an empty value leave the destination ordinary.
func IsDryRun(lbls map[string]string) bool { return lbls[DryRunLabel] == "true" }

// Schedule decides every destination of the pool for one merged selector: selected when it
// satisfies every label and every expression. An empty selector selects every destination except
// a labelled one with strict_match_labels (Kratix's rule: strictness only refuses work that has no
// selectors). A dry-run destination is never selected (Kratix keeps it for dry-run Works).
// Decisions come back in pool order.
func Schedule(sel Selector, pool []Destination) []Decision {
	out := make([]Decision, len(pool))
	for i, d := range pool {
		ok, reason := decideCandidate(sel, d)
		out[i] = Decision{Destination: d.Name, Selected: ok, Reason: reason}
	}
	return out
}

// ScheduleAny selects a destination when any entry, each a whole selector, selects it: the
// semantics of KubeStellar's and OCM's placements. No entries behaves like an empty selector. A
// dry-run destination is never selected, as in Schedule.
func ScheduleAny(entries []Selector, pool []Destination) []Decision {
	if len(entries) == 0 {
		return Schedule(Selector{}, pool)
	}
	out := make([]Decision, len(pool))
	for i, d := range pool {
		out[i] = Decision{Destination: d.Name}
		if IsDryRun(d.Labels) {
			out[i].Reason = dryRunReason
			continue
		}
		var why []string
		for j, e := range entries {
			ok, reason := decide(e, d)
			if ok {
				out[i].Selected = true
				out[i].Reason = fmt.Sprintf("matches entry %d: %s", j+1, reason)
				break
			}
			why = append(why, fmt.Sprintf("entry %d: %s", j+1, reason))
		}
		if !out[i].Selected {
			out[i].Reason = strings.Join(why, "; ")
		}
	}
	return out
}

// Matches is the plain answer for one set of labels, without strict_match_labels and without the
// dry-run rule: it says whether labels satisfy selectors, not whether a destination is a
// candidate. Use IsDryRun beside it to tell the two apart.
func Matches(sel Selector, lbls map[string]string) bool {
	ok, _ := decide(sel, Destination{Labels: lbls})
	return ok
}

// Selected returns the names of the selected destinations, sorted.
func Selected(ds []Decision) []string {
	var out []string
	for _, d := range ds {
		if d.Selected {
			out = append(out, d.Destination)
		}
	}
	sort.Strings(out)
	return out
}

// decideCandidate is decide for scheduling: a dry-run destination is refused before its labels
// are matched, because no selector can make it a candidate.
func decideCandidate(sel Selector, d Destination) (bool, string) {
	if IsDryRun(d.Labels) {
		return false, dryRunReason
	}
	return decide(sel, d)
}

func decide(sel Selector, d Destination) (bool, string) {
	if sel.Empty() {
		if d.StrictMatchLabels && len(d.Labels) > 0 {
			return false, "strict_match_labels: no selectors given"
		}
		return true, "no selectors: every destination matches"
	}
	var fails []string
	for _, k := range sortedKeys(sel.MatchLabels) {
		want := sel.MatchLabels[k]
		have, ok := d.Labels[k]
		switch {
		case !ok:
			fails = append(fails, fmt.Sprintf("missing label %s=%s", k, want))
		case have != want:
			fails = append(fails, fmt.Sprintf("%s=%s but destination has %s=%s", k, want, k, have))
		}
	}
	set := labels.Set(d.Labels)
	for _, r := range sel.MatchExpressions {
		req, err := r.requirement()
		if err != nil {
			fails = append(fails, fmt.Sprintf("%s: %v", r, err))
			continue
		}
		if !req.Matches(set) {
			fails = append(fails, explain(r, d.Labels))
		}
	}
	if len(fails) > 0 {
		return false, strings.Join(fails, "; ")
	}
	return true, "matches " + sel.String()
}

func explain(r Requirement, lbls map[string]string) string {
	have, ok := lbls[r.Key]
	switch r.Operator {
	case OpExists:
		return "requires label " + r.Key
	case OpDoesNotExist:
		return fmt.Sprintf("label %s must not be set (destination has %s=%s)", r.Key, r.Key, have)
	}
	if !ok {
		return fmt.Sprintf("%s but destination has no label %s", r, r.Key)
	}
	return fmt.Sprintf("%s but destination has %s=%s", r, r.Key, have)
}
