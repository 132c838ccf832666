package placement

import (
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// Holds reports whether a folder holds a placement laid out there as f, given what was found
// there (a record as Refresh returns it): a file in a folder the placement owns, or a single
// file it claims (a splitByKind file, the index file of mode none, its part of an aggregate).
// A file it would write but does not claim (a file of mode none without its index) is no proof:
// another placement may have written a file of that name. This is how an imported resource
// learns where Kratix, or an earlier configuration, put it.
func Holds(f layout.Files, r Record) bool {
	for p, sum := range r.Files {
		if sum == Stale || strings.HasPrefix(sum, AggregateMark) {
			continue // the shared aggregate says nothing about this placement
		}
		if underAny(p, f.Prune) || claimed(f, p) {
			return true
		}
	}
	return false
}

// Probe is the record to observe a folder with when nothing is known of it yet: an aggregate is
// marked as claimed, so that Refresh says whether it holds its parts.
func Probe(m Member, f layout.Files) Record {
	r := Record{Store: m.Store, Location: m.Location.String(), Root: m.Target.Root, Files: map[string]string{}}
	if f.Aggregate != nil {
		r.Files[f.Aggregate.File] = Stale
	}
	return r
}

// Holders lists, sorted, the destinations whose observed records hold their placement.
func Holders(files map[string]layout.Files, found map[string]Record) []string {
	var out []string
	for dest, f := range files {
		if r, ok := found[dest]; ok && Holds(f, r) {
			out = append(out, dest)
		}
	}
	sort.Strings(out)
	return out
}
