package placement

import (
	"maps"
	"slices"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// GroupKey is what the destination of a request's workload group is chosen by: the request's
// rendezvous key and the group's cleaned folder, so that each group is placed on its own and
// the same on every machine. Never shown.
func GroupKey(requestKey, dir string) string {
	return requestKey + "#" + layout.CleanGroupDir(dir)
}

// MergeOps joins the operations of several plans of one resource (a request's default group and
// its other workload groups) into one per store location, so that each location still gets one
// write (one commit per Git branch). Puts are joined (Change's rule that a put wins over a delete
// of the same path holds across the plans), deletes, prunes and aggregates are joined without
// repeats, and so are the destinations each operation's records depend on.
func MergeOps(lists ...[]Op) []Op {
	o := ops{byKey: map[string]*Op{}}
	for _, list := range lists {
		for _, op := range list {
			key := op.Location.String()
			into, ok := o.byKey[key]
			if !ok {
				into = &Op{Location: op.Location, Member: op.Member, Change: Change{Message: op.Change.Message, Put: map[string][]byte{}},
					Fresh: map[string]string{}}
				o.byKey[key] = into
				o.order = append(o.order, key)
			}
			maps.Copy(into.Change.Put, op.Change.Put)
			maps.Copy(into.Fresh, op.Fresh)
			into.Change.Delete = append(into.Change.Delete, op.Change.Delete...)
			into.Change.Prune = append(into.Change.Prune, op.Change.Prune...)
			for folder, seen := range op.Change.Seen {
				into.Change.watch([]string{folder}, setOf(seen))
			}
			into.Change.Aggregates = append(into.Change.Aggregates, op.Change.Aggregates...)
			for _, sp := range sortedKeys(op.Change.Stakes) {
				addStake(&into.Change, sp, op.Change.Stakes[sp])
			}
			for _, d := range op.Destinations {
				if !slices.Contains(into.Destinations, d) {
					into.Destinations = append(into.Destinations, d)
				}
			}
		}
	}
	return o.list()
}

// setOf is paths as a set, as watch takes them.
func setOf(paths []string) map[string]string {
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		out[p] = ""
	}
	return out
}
