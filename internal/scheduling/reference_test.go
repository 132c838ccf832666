package scheduling_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The engine compiles a selector once and writes a reason only when it is read; the reference
// below decides each destination the plain way, with Kubernetes' own requirement matching and
// the reasons written out in full. On thousands of random selectors and pools (a fixed seed)
// both must give the same decisions, reasons included, in the same order.
func TestScheduleAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 7))
	for c := range 3000 {
		sel := randomSelector(rng)
		pool := randomPool(rng)
		got := scheduling.Schedule(sel, pool)
		if len(got) != len(pool) {
			t.Fatalf("case %d: %d decisions for %d destinations", c, len(got), len(pool))
		}
		for i, d := range pool {
			wantOK, wantWhy := refScheduleOne(sel, d)
			if got[i].Destination != d.Name || got[i].Selected != wantOK || got[i].Reason() != wantWhy {
				t.Fatalf("case %d: selector %#v, destination %#v:\n got  %s %v %q\n want %s %v %q",
					c, sel, d, got[i].Destination, got[i].Selected, got[i].Reason(), d.Name, wantOK, wantWhy)
			}
		}
		if scheduling.Matches(sel, pool[0].Labels) != refMatchesOnly(sel, pool[0].Labels) {
			t.Fatalf("case %d: Matches(%#v, %v) disagrees with the reference", c, sel, pool[0].Labels)
		}

		entries := []scheduling.Selector{sel, randomSelector(rng)}[:rng.IntN(3)]
		anyOf := scheduling.ScheduleAny(entries, pool)
		for i, d := range pool {
			wantOK, wantWhy := refScheduleAny(entries, d)
			if anyOf[i].Destination != d.Name || anyOf[i].Selected != wantOK || anyOf[i].Reason() != wantWhy {
				t.Fatalf("case %d: entries %#v, destination %#v:\n got  %v %q\n want %v %q",
					c, entries, d, anyOf[i].Selected, anyOf[i].Reason(), wantOK, wantWhy)
			}
		}
	}
}

// A small vocabulary, with the dry-run label, keys and values Kubernetes refuses, and operators
// it does not know, so that every branch of a decision comes up often.
var (
	refKeys   = []string{"env", "zone", "tier", scheduling.DryRunLabel, "bad key!"}
	refValues = []string{"dev", "prod", "eu", "true", "True", "", "not valid!"}
	refOps    = []string{scheduling.OpIn, scheduling.OpNotIn, scheduling.OpExists, scheduling.OpDoesNotExist, "Maybe", ""}
)

func oneOf(rng *rand.Rand, from []string) string { return from[rng.IntN(len(from))] }

func randomSelector(rng *rand.Rand) scheduling.Selector {
	var s scheduling.Selector
	if rng.IntN(4) > 0 {
		s.MatchLabels = map[string]string{}
		for range rng.IntN(3) {
			s.MatchLabels[oneOf(rng, refKeys)] = oneOf(rng, refValues)
		}
	}
	for range rng.IntN(3) {
		r := scheduling.Requirement{Key: oneOf(rng, refKeys), Operator: oneOf(rng, refOps)}
		// Mostly the values each operator wants, sometimes not.
		n := rng.IntN(3)
		if r.Operator == scheduling.OpIn || r.Operator == scheduling.OpNotIn {
			n = 1 + rng.IntN(3)
		}
		if rng.IntN(10) == 0 {
			n = rng.IntN(3)
		}
		if r.Operator == scheduling.OpExists || r.Operator == scheduling.OpDoesNotExist {
			if rng.IntN(10) > 0 {
				n = 0
			}
		}
		for range n {
			r.Values = append(r.Values, oneOf(rng, refValues))
		}
		s.MatchExpressions = append(s.MatchExpressions, r)
	}
	return s
}

func randomPool(rng *rand.Rand) []scheduling.Destination {
	pool := make([]scheduling.Destination, 1+rng.IntN(8))
	for i := range pool {
		var lbls map[string]string
		if rng.IntN(5) > 0 {
			lbls = map[string]string{}
			for range rng.IntN(4) {
				lbls[oneOf(rng, refKeys)] = oneOf(rng, refValues)
			}
		}
		pool[i] = scheduling.Destination{Name: fmt.Sprintf("d%d", i), Labels: lbls, StrictMatchLabels: rng.IntN(3) == 0}
	}
	return pool
}

// refScheduleOne is Kratix's rule for one candidate: a dry-run destination first, then the
// selector.
func refScheduleOne(sel scheduling.Selector, d scheduling.Destination) (bool, string) {
	if v, ok := d.Labels["kratix.io/dry-run"]; ok && v == "true" {
		return false, "labelled kratix.io/dry-run=true: dry-run destinations get no placements"
	}
	return refDecide(sel, d)
}

func refScheduleAny(entries []scheduling.Selector, d scheduling.Destination) (bool, string) {
	if len(entries) == 0 {
		return refScheduleOne(scheduling.Selector{}, d)
	}
	if d.Labels["kratix.io/dry-run"] == "true" {
		return false, "labelled kratix.io/dry-run=true: dry-run destinations get no placements"
	}
	var why []string
	for j, e := range entries {
		ok, r := refDecide(e, d)
		if ok {
			return true, "matches entry " + fmt.Sprint(j+1) + ": " + r
		}
		why = append(why, "entry "+fmt.Sprint(j+1)+": "+r)
	}
	return false, strings.Join(why, "; ")
}

// refMatchesOnly is whether the labels satisfy a selector, by Kubernetes' own selector.
func refMatchesOnly(sel scheduling.Selector, lbls map[string]string) bool {
	ok, _ := refDecide(sel, scheduling.Destination{Labels: lbls})
	return ok
}

func refDecide(sel scheduling.Selector, d scheduling.Destination) (bool, string) {
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		if d.StrictMatchLabels && len(d.Labels) > 0 {
			return false, "strict_match_labels: no selectors given"
		}
		return true, "no selectors: every destination matches"
	}
	keys := make([]string, 0, len(sel.MatchLabels))
	for k := range sel.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var fails, parts []string
	for _, k := range keys {
		want := sel.MatchLabels[k]
		parts = append(parts, k+"="+want)
		have, ok := d.Labels[k]
		if !ok {
			fails = append(fails, "missing label "+k+"="+want)
		} else if have != want {
			fails = append(fails, k+"="+want+" but destination has "+k+"="+have)
		}
	}
	for _, r := range sel.MatchExpressions {
		text := refText(r)
		parts = append(parts, text)
		ops := map[string]selection.Operator{"In": selection.In, "NotIn": selection.NotIn, "Exists": selection.Exists, "DoesNotExist": selection.DoesNotExist}
		op, known := ops[r.Operator]
		if !known {
			fails = append(fails, text+": unknown operator "+fmt.Sprintf("%q", r.Operator))
			continue
		}
		req, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil {
			fails = append(fails, text+": "+err.Error())
			continue
		}
		if req.Matches(labels.Set(d.Labels)) {
			continue
		}
		have, ok := d.Labels[r.Key]
		switch {
		case r.Operator == "Exists":
			fails = append(fails, "requires label "+r.Key)
		case r.Operator == "DoesNotExist":
			fails = append(fails, "label "+r.Key+" must not be set (destination has "+r.Key+"="+have+")")
		case !ok:
			fails = append(fails, text+" but destination has no label "+r.Key)
		default:
			fails = append(fails, text+" but destination has "+r.Key+"="+have)
		}
	}
	if len(fails) > 0 {
		return false, strings.Join(fails, "; ")
	}
	return true, "matches " + strings.Join(parts, ",")
}

// refText writes a requirement in Kubernetes' selector syntax.
func refText(r scheduling.Requirement) string {
	switch r.Operator {
	case "Exists":
		return r.Key
	case "DoesNotExist":
		return "!" + r.Key
	case "NotIn":
		return r.Key + " notin (" + strings.Join(r.Values, ",") + ")"
	}
	return r.Key + " in (" + strings.Join(r.Values, ",") + ")"
}
