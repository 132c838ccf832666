package placement

import (
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Member is a destination of a pool: its name and labels for scheduling, where its folder is
// (store location and root), and its layout.
type Member struct {
	scheduling.Destination
	// Store is the name of the store resource, for messages and state only.
	Store    string
	Location Location
	Target   layout.Target
	// Instance is the destination's instance_id: new each time it is created (a replacement
	// whose cleanup may have emptied the folder), "" when not known yet. Placements on a new
	// instance are written again (see Unchanged).
	Instance string
}

// Folder identifies a member's folder across store resources: two members with equal folders
// write to the same place whatever their stores are called.
func (m Member) Folder() string { return m.Location.String() + "|" + m.Target.Root }

// sameTarget reports whether two members lay out files in the same place the same way.
func sameTarget(a, b Member) bool {
	return a.Folder() == b.Folder() && mode(a.Target) == mode(b.Target) &&
		aggregateName(a.Target) == aggregateName(b.Target) && a.Target.StorePath == b.Target.StorePath
}

func mode(t layout.Target) layout.Mode {
	if t.Mode == "" {
		return layout.ModeNestedByMetadata
	}
	return t.Mode
}

func aggregateName(t layout.Target) string {
	if mode(t) != layout.ModeAggregatedYAML {
		return ""
	}
	return layout.AggregateOf(t).File
}

// Destinations returns the scheduling view of a pool.
func Destinations(pool []Member) []scheduling.Destination {
	out := make([]scheduling.Destination, len(pool))
	for i, m := range pool {
		out[i] = m.Destination
	}
	return out
}

// AggregateMark prefixes the value recorded for an aggregatedYAML file: the file holds every
// placement's part, so its own hash depends on other writers (other resources, other
// workspaces). A placement records instead that the file is current and holds its part,
// "part:<md5 of the part>", or Stale when it is missing, edited, or out of date.
const AggregateMark = "part:"

// Stale is recorded for an aggregate that does not hold what its parts say.
const Stale = "stale"

// Hashes records files as path => hex MD5, and an aggregate as AggregateMark + the MD5 of this
// placement's part.
func Hashes(f layout.Files) map[string]string { return hashesWith(f, memo.MD5) }

func hashesWith(f layout.Files, sum func([]byte) string) map[string]string {
	out := make(map[string]string, len(f.Put)+1)
	for p, b := range f.Put {
		out[p] = sum(b)
	}
	if f.Aggregate != nil {
		for p, b := range f.Put {
			if strings.HasPrefix(p, f.Aggregate.Dir) {
				out[f.Aggregate.File] = AggregateMark + sum(b)
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
