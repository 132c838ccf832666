package scheduling

import (
	"math"
	"slices"
	"strings"
)

// Rank orders every candidate by weighted rendezvous hashing, best first: a candidate of weight
// w scores -w / ln(u), where u in (0,1) comes from the same hash of (key, name) as Choose's, and
// the highest score wins. A candidate then wins a key with probability w over the sum of the
// weights, and changing one candidate's weight moves only keys to or from that candidate (the
// "logarithmic method" of weighted rendezvous hashing). Weights below 1 count as 1. Equal scores
// go to the higher hash, then to the smaller name.
//
// When all candidates weigh the same, the order is the hash order itself, so Rank(key, c)[0] is
// Choose(key, names of c): requests placed before weights existed do not move.
func Rank(key string, cands []Destination) []string {
	rs := rankCandidates(key, cands)
	out := make([]string, len(rs))
	for i := range rs {
		out[i] = cands[rs[i].idx].Name
	}
	return out
}

// ranked is one candidate's place in a ranking.
type ranked struct {
	idx   int     // in the candidates given
	hash  uint64  // weight(key, name), as Choose uses it
	score float64 // -w / ln(u); 0 for every candidate when all weights are equal
}

// rankCandidates hashes every candidate once and sorts them best first.
func rankCandidates(key string, cands []Destination) []ranked {
	rs := make([]ranked, len(cands))
	uniform := true
	for i := range cands {
		rs[i] = ranked{idx: i, hash: weight(key, cands[i].Name)}
		uniform = uniform && weightOf(cands[i]) == weightOf(cands[0])
	}
	if !uniform {
		for i := range rs {
			rs[i].score = score(rs[i].hash, weightOf(cands[i]))
		}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		switch {
		case a.score != b.score:
			return cmpDesc(a.score, b.score)
		case a.hash != b.hash:
			return cmpDesc(a.hash, b.hash)
		}
		return strings.Compare(cands[a.idx].Name, cands[b.idx].Name)
	})
	return rs
}

// weightOf is a destination's weight, at least 1.
func weightOf(d Destination) int { return max(d.Weight, 1) }

// score is -w / ln(u) with u = (the hash's top 53 bits + 1/2) / 2^53: strictly between 0 and 1,
// and as fine as a float64 allows.
func score(hash uint64, w int) float64 {
	u := (float64(hash>>11) + 0.5) / (1 << 53)
	return -float64(w) / math.Log(u)
}

func cmpDesc[T float64 | uint64](a, b T) int {
	if a > b {
		return -1
	}
	return 1
}
