package placement

import (
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// Query is what must be looked at in one store location to refresh a record.
type Query struct {
	// Prefixes are folders listed whole: a stray file in an owned folder is drift.
	Prefixes []string
	// Files are looked up one by one.
	Files []string
	// Aggregate, when set, is checked against its parts.
	Aggregate *layout.Aggregate
}

// Observe says what to look at to refresh a placement laid out as f at its target, recorded as r.
func Observe(f layout.Files, r Record) Query {
	q := Query{Prefixes: append([]string(nil), f.Prune...), Aggregate: f.Aggregate}
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] || underAny(p, q.Prefixes) || (f.Aggregate != nil && p == f.Aggregate.File) {
			return
		}
		seen[p] = true
		q.Files = append(q.Files, p)
	}
	for _, p := range sortedKeys(r.Files) {
		add(p)
	}
	for _, p := range f.Claims {
		add(p)
	}
	for _, p := range sortedKeys(f.Put) {
		add(p)
	}
	return q
}

// Observation is what a store location held for a Query: the MD5 of every file found (under the
// prefixes and among the files), and whether the aggregate holds exactly the join of its parts.
type Observation struct {
	Found          map[string]string
	AggregateFresh bool
}

// Refresh returns the record as the store holds it. A file gone disappears, an edited one gets
// its new hash, a stray one in an owned folder appears, and an aggregate that does not hold
// this placement's part as it is now is Stale; the next plan shows each as a difference, which
// the apply repairs.
func Refresh(r Record, q Query, o Observation) Record {
	out := r
	out.Files = map[string]string{}
	for p, sum := range o.Found {
		if underAny(p, q.Prefixes) {
			out.Files[p] = sum
		}
	}
	for _, p := range q.Files {
		sum, ok := o.Found[p]
		switch {
		case !ok:
		case isShare(r.Files[p]):
			// Recorded as this placement's share of an aggregate, and looked up as a plain file:
			// the destination's layout has changed since (aggregatedYAML to another mode) while the
			// placement was kept as it was (misscheduled). The file is still the shared aggregate,
			// never the placement's own: it stays recorded as a share, which no owner claims.
			out.Files[p] = r.Files[p]
		default:
			out.Files[p] = sum
		}
	}
	if a := q.Aggregate; a != nil {
		if _, claimed := r.Files[a.File]; claimed {
			out.Files[a.File] = Stale
			for p, sum := range out.Files {
				if strings.HasPrefix(p, a.Dir) && o.AggregateFresh {
					out.Files[a.File] = AggregateMark + sum
				}
			}
		}
	}
	return out
}

// isShare reports whether a recorded value is a share of an aggregate (AggregateMark or Stale)
// rather than the MD5 of a file of the placement's own.
func isShare(v string) bool { return v == Stale || strings.HasPrefix(v, AggregateMark) }

func underAny(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
