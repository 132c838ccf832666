package scheduling_test

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

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

// The references below decide taints, ranking and picking the plain way, sharing nothing with
// the package: Kubernetes' own ToleratesTaint, the score computed with math.Log straight from
// SHA-256, a full sort, and picks made one at a time by scanning explicit lists.

// refHash is the 64-bit rendezvous hash: the first 8 bytes, big-endian, of SHA-256 over the
// key, a zero byte and the name.
func refHash(key, name string) uint64 {
	sum := sha256.Sum256([]byte(key + "\x00" + name))
	return binary.BigEndian.Uint64(sum[:8])
}

// refRank sorts every candidate by -w/ln(u), u the hash's top 53 bits plus a half over 2^53;
// weights below 1 count as 1; ties to the higher hash, then the smaller name.
func refRank(key string, cands []scheduling.Destination) []string {
	type scored struct {
		name  string
		h     uint64
		score float64
	}
	all := make([]scored, 0, len(cands))
	for _, d := range cands {
		w := d.Weight
		if w < 1 {
			w = 1
		}
		h := refHash(key, d.Name)
		u := (float64(h>>11) + 0.5) / math.Pow(2, 53)
		all = append(all, scored{d.Name, h, -float64(w) / math.Log(u)})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		if all[i].h != all[j].h {
			return all[i].h > all[j].h
		}
		return all[i].name < all[j].name
	})
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.name
	}
	return names
}

// refUntolerated is the taints of one effect that no toleration tolerates, by Kubernetes.
func refUntolerated(tols []scheduling.Toleration, taints []scheduling.Taint, effect string) []string {
	var out []string
	for _, t := range taints {
		if t.Effect != effect {
			continue
		}
		kt := corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}
		tolerated := false
		for _, tol := range tols {
			k := corev1.Toleration{Key: tol.Key, Operator: corev1.TolerationOperator(tol.Operator), Value: tol.Value, Effect: corev1.TaintEffect(tol.Effect)}
			if k.ToleratesTaint(logr.Discard(), &kt, false) {
				tolerated = true
			}
		}
		if !tolerated {
			out = append(out, kt.ToString())
		}
	}
	return out
}

// refTaint is a destination's strongest untolerated effect ("" if none) and its reason.
func refTaint(tols []scheduling.Toleration, d scheduling.Destination) (string, string) {
	for _, effect := range []string{"NoExecute", "NoSchedule", "PreferNoSchedule"} {
		if un := refUntolerated(tols, d.Taints, effect); len(un) > 0 {
			return effect, "tainted " + strings.Join(un, ", ") + ", not tolerated"
		}
	}
	return "", ""
}

func refVerdict(tols []scheduling.Toleration, d scheduling.Destination, before bool) (bool, string) {
	effect, why := refTaint(tols, d)
	switch {
	case effect == "NoExecute":
		return false, why
	case effect == "NoSchedule" && before:
		return true, why + "; placed before, so it stays"
	case effect == "NoSchedule":
		return false, why
	case effect == "PreferNoSchedule":
		return true, why + "; kept: a promise goes to every matching destination"
	}
	return true, ""
}

// refPick places a request one destination at a time: each step takes, from the first list that
// still has one, the best-ranked destination of a domain nobody chosen covers, else the
// best-ranked one.
func refPick(in scheduling.PickInput) scheduling.PickResult {
	n := in.Replicas
	if n == 0 {
		n = 1
	}
	order := refRank(in.Key, in.Candidates)
	byName := map[string]scheduling.Destination{}
	for _, d := range in.Candidates {
		byName[d.Name] = d
	}
	isCurrent := func(name string) bool { return slices.Contains(in.Current, name) }
	res := scheduling.PickResult{Reasons: map[string]string{}, Left: map[string]string{}}
	effect, why := map[string]string{}, map[string]string{}
	var stay, clean, prefer []string // each in rank order
	for _, name := range order {
		effect[name], why[name] = refTaint(in.Tolerations, byName[name])
		switch {
		case effect[name] == "NoExecute":
			res.Reasons[name] = why[name]
			if isCurrent(name) {
				res.Left[name] = why[name]
			}
		case isCurrent(name):
			stay = append(stay, name)
		case effect[name] == "NoSchedule":
			res.Reasons[name] = why[name]
		case effect[name] == "PreferNoSchedule":
			prefer = append(prefer, name)
		default:
			clean = append(clean, name)
		}
	}
	for _, c := range in.Current {
		if _, ok := byName[c]; !ok {
			res.Left[c] = "no longer a candidate"
		}
	}
	domainOf := func(name string) string {
		if v, ok := byName[name].Labels[in.SpreadKey]; ok {
			return "=" + v
		}
		return "none"
	}
	// next removes and returns the one to take from list, given what is chosen so far.
	next := func(list *[]string, chosen []string) string {
		if in.SpreadKey != "" {
			for i, cand := range *list {
				covered := false
				for _, c := range chosen {
					covered = covered || domainOf(c) == domainOf(cand)
				}
				if !covered {
					*list = slices.Delete(*list, i, i+1)
					return cand
				}
			}
		}
		first := (*list)[0]
		*list = (*list)[1:]
		return first
	}
	var chosen []string
	if len(stay) > n {
		rest := slices.Clone(stay)
		for len(chosen) < n {
			chosen = append(chosen, next(&rest, chosen))
		}
		for _, name := range rest {
			res.Left[name] = fmt.Sprintf("replicas lowered to %d; ranked below the current destinations kept", n)
			res.Reasons[name] = res.Left[name]
		}
	} else {
		chosen = slices.Clone(stay)
	}
	usedPrefer := false
	for len(chosen) < n && len(clean)+len(prefer) > 0 {
		if len(clean) > 0 {
			chosen = append(chosen, next(&clean, chosen))
		} else {
			chosen = append(chosen, next(&prefer, chosen))
			usedPrefer = true
		}
	}
	res.Shortfall = n - len(chosen)
	res.Notes = map[string]string{}
	for _, name := range chosen {
		switch {
		case why[name] == "":
		case isCurrent(name):
			res.Notes[name] = why[name] + "; placed before, so it stays"
		default: // a PreferNoSchedule one, taken when the clean ones ran out
			res.Notes[name] = why[name] + "; chosen: no untainted candidate is left"
		}
	}
	for _, name := range clean {
		res.Reasons[name] = fmt.Sprintf("replicas = %d already placed", n)
	}
	for _, name := range prefer {
		if usedPrefer {
			res.Reasons[name] = fmt.Sprintf("replicas = %d already placed", n)
		} else {
			res.Reasons[name] = why[name] + "; used only when no untainted candidate is left"
		}
	}
	for _, name := range order {
		if slices.Contains(chosen, name) {
			res.Chosen = append(res.Chosen, name)
		}
	}
	return res
}

// Pick and PromiseTaintVerdict against the references, and Rank against refRank, on random
// pools with taints of every effect, weights 0..4, zone labels (some missing), random current
// destinations (some no longer candidates), random tolerations, replicas 0..4, spread or not.
func TestPickAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 4))
	counts := map[string]int{}
	for c := range 20_000 {
		in := randomPickInput(rng)
		if got, want := scheduling.Rank(in.Key, in.Candidates), refRank(in.Key, in.Candidates); !slices.Equal(got, want) {
			t.Fatalf("case %d: Rank(%q, %+v) = %v, reference %v", c, in.Key, in.Candidates, got, want)
		}
		got, want := scheduling.Pick(in), refPick(in)
		if !slices.Equal(got.Chosen, want.Chosen) || got.Shortfall != want.Shortfall ||
			!maps.Equal(got.Left, want.Left) || !maps.Equal(got.Reasons, want.Reasons) || !maps.Equal(got.Notes, want.Notes) {
			t.Fatalf("case %d: Pick(%+v)\n got  %+v\n want %+v", c, in, got, want)
		}
		for _, d := range in.Candidates {
			before := rng.IntN(2) == 0
			keep, why := scheduling.PromiseTaintVerdict(in.Tolerations, d, before)
			if wantKeep, wantWhy := refVerdict(in.Tolerations, d, before); keep != wantKeep || why != wantWhy {
				t.Fatalf("case %d: PromiseTaintVerdict(%+v, %+v, %v) = %v %q, reference %v %q", c, in.Tolerations, d, before, keep, why, wantKeep, wantWhy)
			}
		}
		// Count what came up, so that a vocabulary that stops exercising a rule is noticed.
		for _, why := range want.Left {
			counts["left: "+strings.SplitN(why, " ", 2)[0]]++
		}
		for _, why := range want.Notes {
			counts["note"+why[strings.LastIndex(why, ";"):]]++
		}
		if want.Shortfall > 0 {
			counts["shortfall"]++
		}
		if len(want.Chosen) > 1 && in.SpreadKey != "" {
			counts["spread"]++
		}
		for _, why := range want.Reasons {
			for _, e := range []string{":NoSchedule", ":PreferNoSchedule", ":NoExecute"} {
				if strings.Contains(why, e) {
					counts["reason"+e]++
				}
			}
		}
	}
	t.Logf("came up: %v", counts)
	for _, k := range []string{"left: no", "left: tainted", "left: replicas", "shortfall", "spread", "reason:NoSchedule", "reason:PreferNoSchedule", "reason:NoExecute",
		"note; placed before, so it stays", "note; chosen: no untainted candidate is left"} {
		if counts[k] < 100 {
			t.Errorf("%q came up %d times in 20,000 cases: the random inputs no longer exercise it", k, counts[k])
		}
	}
}

func randomPickInput(rng *rand.Rand) scheduling.PickInput {
	taints := []scheduling.Taint{
		{Key: "maint", Value: "x", Effect: "NoSchedule"}, {Key: "maint", Effect: "NoExecute"},
		{Key: "spot", Effect: "PreferNoSchedule"}, {Key: "gpu", Value: "y", Effect: "NoSchedule"},
		{Key: "drain", Value: "x", Effect: "NoExecute"}, {Key: "gpu", Value: "y", Effect: "PreferNoSchedule"},
	}
	tols := []scheduling.Toleration{
		{Key: "maint", Operator: "Exists"}, {Key: "gpu", Value: "y"}, {Key: "spot", Operator: "Exists", Effect: "PreferNoSchedule"},
		{Operator: "Exists", Effect: "NoExecute"}, {Key: "maint", Value: "x", Effect: "NoSchedule"}, {Operator: "Exists"},
	}
	in := scheduling.PickInput{Key: fmt.Sprintf("ns/kind/req-%d", rng.IntN(1_000_000)), Replicas: rng.IntN(5)}
	if rng.IntN(2) == 0 {
		in.SpreadKey = "zone"
	}
	uniformWeights := rng.IntN(3) == 0
	for i := range 1 + rng.IntN(8) {
		d := scheduling.Destination{Name: fmt.Sprintf("d%d", i)}
		if !uniformWeights {
			d.Weight = rng.IntN(5)
		}
		if rng.IntN(5) > 0 {
			d.Labels = map[string]string{"zone": oneOf(rng, []string{"a", "b", "c"})}
		}
		if rng.IntN(3) == 0 {
			for range 1 + rng.IntN(2) {
				d.Taints = append(d.Taints, taints[rng.IntN(len(taints))])
			}
		}
		in.Candidates = append(in.Candidates, d)
		if rng.IntN(3) == 0 {
			in.Current = append(in.Current, d.Name)
		}
	}
	if rng.IntN(5) == 0 {
		in.Current = append(in.Current, "gone")
	}
	rng.Shuffle(len(in.Candidates), func(i, j int) { in.Candidates[i], in.Candidates[j] = in.Candidates[j], in.Candidates[i] })
	for range rng.IntN(3) {
		in.Tolerations = append(in.Tolerations, tols[rng.IntN(len(tols))])
	}
	return in
}
