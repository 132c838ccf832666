package scheduling

import "sort"

// KeyHint is a label key a selector requires that no destination of the pool carries, with the
// pool's key closest to it in spelling ("" when none is close): most often a typo.
type KeyHint struct {
	Key     string
	Closest string
}

// UnknownKeys lists, in key order, the keys sel needs a destination to carry (match_labels, In,
// Exists) that no destination in pool has. Keys a selector requires to be absent (NotIn,
// DoesNotExist) are not listed: their absence is what they ask for.
func UnknownKeys(sel Selector, pool []Destination) []KeyHint {
	have := map[string]bool{}
	for _, d := range pool {
		for k := range d.Labels {
			have[k] = true
		}
	}
	need := map[string]bool{}
	for k := range sel.MatchLabels {
		need[k] = true
	}
	for _, r := range sel.MatchExpressions {
		if r.Operator == OpIn || r.Operator == OpExists {
			need[r.Key] = true
		}
	}
	var out []KeyHint
	for k := range need {
		if !have[k] {
			out = append(out, KeyHint{Key: k, Closest: closest(k, have)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// closest is the key of keys nearest to key in edit distance, if it is near enough to be a
// plausible misspelling (at most a third of key's length, and at least one edit); the first in
// order on a tie.
func closest(key string, keys map[string]bool) string {
	limit := max(1, len(key)/3)
	best, bestDist := "", limit+1
	for k := range keys {
		d := editDistance(key, k)
		if d < bestDist || (d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	if bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the number of edits that turn a into b: a byte inserted, deleted or replaced,
// or two neighbours swapped (the optimal string alignment distance; label keys are ASCII by
// Kubernetes' rules). A swap counts once because it is the commonest slip of a typist.
func editDistance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev2, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		rows[0], rows[1], rows[2] = prev, cur, prev2
	}
	return rows[1][len(b)]
}
