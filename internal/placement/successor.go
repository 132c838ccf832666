package placement

import (
	"slices"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// Successor is what the object that replaces a resource will write, as its plan decided: per
// store location (Location.String()), the paths its operation puts, and the aggregate files it
// rebuilds.
//
// Terraform replaces an object by deleting it first and creating its successor after, in the
// same apply: a promise whose first apply failed somewhere (Terraform taints it), a request
// whose name changed, `-replace`. Between the two, a GitOps agent that reconciles with pruning
// would remove from its cluster everything a deleted file declared, even though the successor
// puts the very same file back a moment later. The plan of the successor hands this list to
// the delete, which then leaves those paths alone.
type Successor map[string][]string

// SuccessorOf lists what ops will write.
func SuccessorOf(ops []Op) Successor {
	s := Successor{}
	for _, op := range ops {
		key := op.Location.String()
		paths := s[key]
		for p := range op.Change.Put {
			paths = append(paths, p)
		}
		for _, a := range op.Change.Aggregates {
			paths = append(paths, a.File)
		}
		if len(paths) > 0 {
			s[key] = unique(paths)
		}
	}
	return s
}

// Spare takes out of a removal everything the successor writes again at the same location: a
// path it puts is not deleted, and a folder deleted whole is narrowed to the files the removed
// placement recorded there that the successor does not write (the successor's own write owns
// that folder and clears what else is there). An aggregate the successor rebuilds is not
// rebuilt by the removal, unless the removal still deletes a part of it: the rebuild must then
// drop that part's documents (the aggregate may be another writer's, written before the
// removal). Locations the successor does not write to are removed as before. An operation left
// with nothing to do is dropped.
func (p Plan) Spare(s Successor) Plan {
	if len(s) == 0 {
		return p
	}
	out := p
	out.Ops = nil
	for _, op := range p.Ops {
		keeps := s[op.Location.String()]
		if len(keeps) == 0 {
			out.Ops = append(out.Ops, op)
			continue
		}
		kept := make(map[string]bool, len(keeps))
		for _, k := range keeps {
			kept[k] = true
		}
		var deletes []string
		for _, d := range op.Change.Delete {
			switch {
			case !strings.HasSuffix(d, "/"):
				if !kept[d] {
					deletes = append(deletes, d)
				}
			case !anyUnder(keeps, d):
				deletes = append(deletes, d)
			default:
				for _, f := range p.recordedUnder(op.Location.String(), d) {
					if !kept[f] {
						deletes = append(deletes, f)
					}
				}
			}
		}
		op.Change.Delete = unique(deletes)
		var aggs []layout.Aggregate
		for _, a := range op.Change.Aggregates {
			if !kept[a.File] || anyUnder(op.Change.Delete, a.Dir) {
				aggs = append(aggs, a)
			}
		}
		op.Change.Aggregates = aggs
		op.Change.Stakes = withoutTaken(op.Change.Stakes, keeps)
		if op.Change.Empty() {
			continue
		}
		out.Ops = append(out.Ops, op)
	}
	return out
}

// With is the union of two lists of what is written again, each location's paths sorted.
func (s Successor) With(o Successor) Successor {
	if len(o) == 0 {
		return s
	}
	if len(s) == 0 {
		return o
	}
	out := Successor{}
	for _, m := range []Successor{s, o} {
		for loc, paths := range m {
			out[loc] = append(out[loc], paths...)
		}
	}
	for loc, paths := range out {
		out[loc] = unique(paths)
	}
	return out
}

// anyUnder reports whether any of the sorted paths lies under the folder prefix.
func anyUnder(sorted []string, prefix string) bool {
	i := sort.SearchStrings(sorted, prefix)
	return i < len(sorted) && strings.HasPrefix(sorted[i], prefix)
}

// recordedUnder lists the files the prior records at a location hold under a folder, as owns
// allows a removal to delete them.
func (p Plan) recordedUnder(location, prefix string) []string {
	var out []string
	for _, dest := range sortedKeys(p.prior) {
		r := p.prior[dest].Record
		if r.Location != location {
			continue
		}
		for f, v := range r.Files {
			if strings.HasPrefix(f, prefix) && v != Stale && !strings.HasPrefix(v, AggregateMark) {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// SpareFiles takes out of a change at a location the files the successor writes there again,
// or other objects wrote there earlier in the same apply: a destination's cleanup keeps the
// canaries its successor in the same folder, laid out another way, writes at the same paths,
// and the files the promises and requests on that successor wrote. A folder removed whole that
// holds a kept path is narrowed to the files listed under it (listed: what the store held when
// the change was made) that are not kept (an aggregate's parts folder, when a promise wrote its
// part again).
func (s Successor) SpareFiles(loc Location, c Change, listed []string) Change {
	keeps := s[loc.String()]
	if len(keeps) == 0 {
		return c
	}
	sorted := unique(append([]string(nil), keeps...))
	kept := make(map[string]bool, len(sorted))
	for _, k := range sorted {
		kept[k] = true
	}
	var deletes []string
	for _, d := range c.Delete {
		switch {
		case !strings.HasSuffix(d, "/"):
			if !kept[d] {
				deletes = append(deletes, d)
			}
		case !anyUnder(sorted, d):
			deletes = append(deletes, d)
		default:
			for _, f := range listed {
				if strings.HasPrefix(f, d) && !kept[f] {
					deletes = append(deletes, f)
				}
			}
		}
	}
	c.Delete = deletes
	return c
}

// SuccessorHolding is what a new object will hold once its operations ran: the paths ops write
// and every file its records hold without writing it (a destination waiting for its wave, a
// placement the store already holds as recorded, which Unchanged leaves without an operation).
// The delete of the object it replaces must leave all of them.
func SuccessorHolding(ops []Op, records map[string]Record) Successor {
	return SuccessorOf(ops).With(successorKeeps(records))
}

// successorKeeps lists the files the records hold, by location.
func successorKeeps(records map[string]Record) Successor {
	out := Successor{}
	for _, rec := range records {
		for p := range rec.Files {
			out[rec.Location] = append(out[rec.Location], p)
		}
	}
	for loc, paths := range out {
		out[loc] = unique(paths)
	}
	return out
}

// withoutTaken drops the owner records given up for placements whose files the successor writes
// again: the successor holds them now.
func withoutTaken(stakes map[string]Stake, keeps []string) map[string]Stake {
	var out map[string]Stake
	for p, st := range stakes {
		if st.Release && slices.ContainsFunc(keeps, st.Covers) {
			continue
		}
		if out == nil {
			out = map[string]Stake{}
		}
		out[p] = st
	}
	return out
}
