package scheduling

import (
	"fmt"
	"sort"
	"strings"
)

// Destination is a candidate: its name, its labels, and whether it refuses work without selectors.
type Destination struct {
	Name              string
	Labels            map[string]string
	StrictMatchLabels bool
	// Taints keep work that does not tolerate them away (see Taint).
	Taints []Taint
	// Weight is the destination's share of requests relative to the others' (below 1 counts as
	// 1; see Rank).
	Weight int
}

// Decision explains what was decided for one candidate. Its reason is written only when Reason
// is called: scheduling a pool decides every destination, and most reasons are never read.
type Decision struct {
	Destination string
	Selected    bool

	why    reasonKind
	sel    *compiled         // the selector decided on (kindMatches, kindMismatch), or the text (kindText)
	labels map[string]string // the destination's labels, for kindMismatch
}

// reasonKind says how a decision's reason is written.
type reasonKind uint8

const (
	kindText        reasonKind = iota // sel.text, written when the decision was made
	kindDryRun                        // dryRunReason
	kindStrict                        // strictReason
	kindNoSelectors                   // noSelectorsReason
	kindMatches                       // sel.matches
	kindMismatch                      // sel.explain(labels): every requirement the labels fail
)

const (
	strictReason      = "strict_match_labels: no selectors given"
	noSelectorsReason = "no selectors: every destination matches"
)

// Reason says why the destination is or is not selected, such as "missing label env=dev" or
// "matches env=dev". A reason that depends on the destination's labels reads them when Reason is
// called: change no label map of a scheduled pool while its decisions are still read.
func (d Decision) Reason() string {
	switch d.why {
	case kindDryRun:
		return dryRunReason
	case kindStrict:
		return strictReason
	case kindNoSelectors:
		return noSelectorsReason
	case kindMatches:
		return d.sel.matches
	case kindMismatch:
		return d.sel.explain(d.labels)
	}
	if d.sel == nil {
		return ""
	}
	return d.sel.text
}

// WithReason returns the decision with another reason, for a caller that overrides a decision
// (a match left out because mode = "one" chose another destination).
func (d Decision) WithReason(reason string) Decision {
	d.why, d.sel, d.labels = kindText, &compiled{text: reason}, nil
	return d
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
	c := compile(sel)
	out := make([]Decision, len(pool))
	for i := range pool {
		d := &pool[i]
		out[i] = Decision{Destination: d.Name, Selected: true, why: kindNoSelectors}
		switch {
		case IsDryRun(d.Labels):
			out[i].Selected, out[i].why = false, kindDryRun
		case c.empty:
			if d.StrictMatchLabels && len(d.Labels) > 0 {
				out[i].Selected, out[i].why = false, kindStrict
			}
		case c.match(d.Labels):
			out[i].why, out[i].sel = kindMatches, c
		default:
			out[i].Selected, out[i].why, out[i].sel, out[i].labels = false, kindMismatch, c, d.Labels
		}
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
	cs := make([]*compiled, len(entries))
	for j, e := range entries {
		cs[j] = compile(e)
	}
	out := make([]Decision, len(pool))
	for i, d := range pool {
		if IsDryRun(d.Labels) {
			out[i] = Decision{Destination: d.Name, why: kindDryRun}
			continue
		}
		var why []string
		reason, selected := "", false
		for j, c := range cs {
			ok, r := c.decide(d)
			if ok {
				selected, reason = true, fmt.Sprintf("matches entry %d: %s", j+1, r)
				break
			}
			why = append(why, fmt.Sprintf("entry %d: %s", j+1, r))
		}
		if !selected {
			reason = strings.Join(why, "; ")
		}
		out[i] = Decision{Destination: d.Name, Selected: selected}.WithReason(reason)
	}
	return out
}

// Matches is the plain answer for one set of labels, without strict_match_labels and without the
// dry-run rule: it says whether labels satisfy selectors, not whether a destination is a
// candidate. Use IsDryRun beside it to tell the two apart.
func Matches(sel Selector, lbls map[string]string) bool {
	c := compile(sel)
	return c.empty || c.match(lbls)
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

// compiled is a selector made ready to decide many destinations: its labels sorted once, its
// expressions checked once with Kubernetes' rules, and its texts written once, so that deciding
// a destination only looks its labels up.
type compiled struct {
	empty   bool
	labels  []labelTerm // in key order, as reasons list them
	exprs   []exprTerm  // in the selector's order
	matches string      // the reason of a match: "matches " and the selector
	text    string      // the whole reason of a kindText decision
}

type labelTerm struct{ key, want string }

type exprTerm struct {
	key    string
	op     string
	values []string
	text   string // the requirement as the selector's String writes it
	// invalid is the whole reason part of a requirement Kubernetes refuses (an unknown operator,
	// a bad key or value): such a requirement holds for no destination.
	invalid string
}

// emptySelector is every empty selector compiled; nothing changes a compiled selector.
var emptySelector = &compiled{empty: true}

func compile(sel Selector) *compiled {
	if sel.Empty() {
		return emptySelector
	}
	c := &compiled{}
	for _, k := range sortedKeys(sel.MatchLabels) {
		c.labels = append(c.labels, labelTerm{key: k, want: sel.MatchLabels[k]})
	}
	c.exprs = make([]exprTerm, len(sel.MatchExpressions))
	for i, r := range sel.MatchExpressions {
		c.exprs[i] = exprTerm{key: r.Key, op: r.Operator, values: r.Values, text: r.String()}
		if _, err := r.requirement(); err != nil {
			c.exprs[i].invalid = fmt.Sprintf("%s: %v", r, err)
		}
	}
	c.matches = "matches " + sel.String()
	return c
}

// match reports whether labels satisfy every term of a selector that is not empty. The
// operators mean what they mean in a Kubernetes label selector: NotIn and DoesNotExist hold for
// a destination without the label.
func (c *compiled) match(lbls map[string]string) bool {
	for _, t := range c.labels {
		if have, ok := lbls[t.key]; !ok || have != t.want {
			return false
		}
	}
	for i := range c.exprs {
		if !c.exprs[i].holds(lbls) {
			return false
		}
	}
	return true
}

func (t *exprTerm) holds(lbls map[string]string) bool {
	if t.invalid != "" {
		return false
	}
	have, ok := lbls[t.key]
	switch t.op {
	case OpIn:
		return ok && contains(t.values, have)
	case OpNotIn:
		return !ok || !contains(t.values, have)
	case OpExists:
		return ok
	}
	return !ok // OpDoesNotExist, the only other operator compile accepts
}

func contains(values []string, v string) bool {
	for _, x := range values {
		if x == v {
			return true
		}
	}
	return false
}

// decide is one destination's decision with its reason written out, without the dry-run rule.
func (c *compiled) decide(d Destination) (bool, string) {
	if c.empty {
		if d.StrictMatchLabels && len(d.Labels) > 0 {
			return false, strictReason
		}
		return true, noSelectorsReason
	}
	if c.match(d.Labels) {
		return true, c.matches
	}
	return false, c.explain(d.Labels)
}

// explain lists every term that labels fail, labels first in key order, then expressions in
// order.
func (c *compiled) explain(lbls map[string]string) string {
	var fails []string
	for _, t := range c.labels {
		have, ok := lbls[t.key]
		switch {
		case !ok:
			fails = append(fails, "missing label "+t.key+"="+t.want)
		case have != t.want:
			fails = append(fails, t.key+"="+t.want+" but destination has "+t.key+"="+have)
		}
	}
	for i := range c.exprs {
		t := &c.exprs[i]
		switch {
		case t.invalid != "":
			fails = append(fails, t.invalid)
		case !t.holds(lbls):
			fails = append(fails, t.explain(lbls))
		}
	}
	return strings.Join(fails, "; ")
}

func (t *exprTerm) explain(lbls map[string]string) string {
	have, ok := lbls[t.key]
	switch t.op {
	case OpExists:
		return "requires label " + t.key
	case OpDoesNotExist:
		return "label " + t.key + " must not be set (destination has " + t.key + "=" + have + ")"
	}
	if !ok {
		return t.text + " but destination has no label " + t.key
	}
	return t.text + " but destination has " + t.key + "=" + have
}
