package registry

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Found is a destination record read from one of the stores a discovery reads: the index of the
// store in the order they were given, the record's path, and its content.
type Found struct {
	Store   int
	Path    string
	Content []byte
}

// Listed is a destination found in a registry, with the store it was found in.
type Listed struct {
	Store       int
	Path        string
	Destination Destination
}

// Skipped is a record a discovery leaves out, and why.
type Skipped struct {
	Store int
	Path  string
	Why   string
}

// Discover reads the destination records found in one or more stores, leaves out those that do
// not parse, whose name is not their file's, or whose name a record of an earlier store (or an
// earlier path in the same store) has already, and, when selectors is not nil, those the
// promise's selectors do not select (entries merged as a promise merges them; Kratix's rules,
// with strict_match_labels and dry-run destinations: scheduling.Schedule). Taints do not filter:
// a tainted destination stays in the pool, where the promise decides what its taints do. The
// result is sorted by name.
func Discover(found []Found, selectors []scheduling.Selector) (out []Listed, skipped []Skipped) {
	sorted := slices.Clone(found)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Store != sorted[j].Store {
			return sorted[i].Store < sorted[j].Store
		}
		return sorted[i].Path < sorted[j].Path
	})
	seen := map[string]Listed{}
	for _, f := range sorted {
		d, err := ParseDestination(f.Content)
		if err != nil {
			skipped = append(skipped, Skipped{Store: f.Store, Path: f.Path, Why: err.Error()})
			continue
		}
		if file := strings.TrimSuffix(f.Path[strings.LastIndex(f.Path, "/")+1:], recordExt); file != d.Name {
			skipped = append(skipped, Skipped{Store: f.Store, Path: f.Path,
				Why: fmt.Sprintf("it names destination %q, but a record of %q is %s.yaml", d.Name, d.Name, d.Name)})
			continue
		}
		if first, dup := seen[d.Name]; dup {
			skipped = append(skipped, Skipped{Store: f.Store, Path: f.Path,
				Why: fmt.Sprintf("destination %q is registered already, in %s of store %d", d.Name, first.Path, first.Store+1)})
			continue
		}
		seen[d.Name] = Listed{Store: f.Store, Path: f.Path, Destination: d}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	pool := make([]scheduling.Destination, len(names))
	for i, n := range names {
		d := seen[n].Destination
		pool[i] = scheduling.Destination{Name: n, Labels: d.Labels, StrictMatchLabels: d.StrictMatchLabels, Taints: d.Taints, Weight: d.Weight}
	}
	decisions := make([]scheduling.Decision, len(pool))
	for i, d := range pool {
		decisions[i] = scheduling.Decision{Destination: d.Name, Selected: true}
	}
	if selectors != nil {
		decisions = scheduling.Schedule(scheduling.Merge(selectors), pool)
	}
	for i, n := range names {
		if decisions[i].Selected {
			out = append(out, seen[n])
		}
	}
	return out, skipped
}
