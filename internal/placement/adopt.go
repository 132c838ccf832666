package placement

import (
	"slices"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
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

// AdoptRequest is what the first plan after a request's import takes over of what Probe found in
// the pool's folders (found, by destination; holders, the destinations whose folder holds the
// request, as Holders lists them). With a destination named in the import id (named), it is that
// destination's record, whatever its folder holds. Without one, it is every holder, when they
// are no more than the request's replicas (at least 1): a request lives on that many
// destinations, so more holders leave the choice to the user, and several is true with nothing
// adopted.
func AdoptRequest(named string, replicas int, found map[string]Record, holders []string) (adopted map[string]Record, several bool) {
	if named != "" {
		return map[string]Record{named: found[named]}, false
	}
	if len(holders) > max(replicas, 1) {
		return nil, true
	}
	adopted = map[string]Record{}
	for _, dest := range holders {
		adopted[dest] = found[dest]
	}
	return adopted, false
}

// KratixIndexes picks, among the index files Kratix wrote for a placement in one folder (each
// index file's path and the store paths it lists, see layout.IndexedFiles), those that prove the
// placement is there: every file listed exists (found holds the MD5 of each file there). Kratix's
// names can be shared (request "a-b" of promise "db" and request "b" of promise "db-a" name their
// index files alike), so when several prove it, only those listing exactly the files the
// placement writes (own) are kept; more than one left is for the caller to refuse.
func KratixIndexes(indexes map[string][]string, found map[string]string, own []string) []string {
	var holding []string
	for _, idx := range sortedKeys(indexes) {
		listed := indexes[idx]
		ok := len(listed) > 0
		for _, p := range listed {
			if _, exists := found[p]; !exists {
				ok = false
			}
		}
		if ok {
			holding = append(holding, idx)
		}
	}
	if len(holding) < 2 {
		return holding
	}
	want := strings.Join(sortedSet(own), "\n")
	var exact []string
	for _, idx := range holding {
		if strings.Join(sortedSet(indexes[idx]), "\n") == want {
			exact = append(exact, idx)
		}
	}
	if len(exact) == 0 {
		return holding
	}
	return exact
}

func sortedSet(paths []string) []string {
	set := map[string]bool{}
	for _, p := range paths {
		set[p] = true
	}
	return sortedKeys(set)
}

// AggregateHolds reports whether an aggregatedYAML file Kratix wrote (with no parts of this
// provider), or the remainder part that keeps its documents (layout.RemainderPart), holds a
// placement: every document of every one of its contents is in the file, compared by meaning
// (layout.DocumentKeys), so that Kratix's own serialisation of the same objects counts. Content
// that is not Kubernetes YAML is compared as text. A placement with no document is held nowhere.
func AggregateHolds(aggregate []byte, contents [][]byte) bool {
	in := map[string]bool{}
	for _, k := range layout.AggregateKeys(aggregate) {
		in[k] = true
	}
	n := 0
	for _, c := range contents {
		for _, k := range layout.DocumentKeys(c) {
			if !in[k] {
				return false
			}
			n++
		}
	}
	return n > 0
}

// HoldsExactly reports whether a folder, as found there (a record as Refresh returns it), holds
// every file a placement laid out as f writes, with the same content: an imported promise's
// destination that holds the configured dependencies, which need not be read back.
func HoldsExactly(f layout.Files, r Record) bool {
	if len(f.Put) == 0 {
		return false
	}
	for p, content := range f.Put {
		if r.Files[p] != memo.MD5(content) {
			return false
		}
	}
	return true
}

// AggregateSource says which file shows whether an aggregatedYAML destination holds a placement
// Kratix wrote, given the listing of the aggregate's parts folder: the aggregate itself when
// there are no parts (Kratix keeps none), the remainder part when there is one (it keeps the
// documents of a file found with no part), and none (read false) when parts without a remainder
// are there: the file is rebuilt from them, and Holds has answered already.
func AggregateSource(agg layout.Aggregate, parts map[string]string) (source string, read bool) {
	if len(parts) == 0 {
		return agg.File, true
	}
	remainder := agg.Dir + layout.RemainderPart
	if _, ok := parts[remainder]; !ok {
		return "", false
	}
	return remainder, true
}

// AdoptKratixIndex adopts, for a placement that lays out files (mode none) and was recorded as
// rec, the index file Kratix wrote for it: indexes are the index files found in the folder (path
// => the store paths each lists), found the MD5 of every file there. It returns the record with
// every file the chosen index lists and the index itself (Kratix's index file is the placement's
// own from then on, as layout's Kept makes it), and the candidates: adopted only when there is
// exactly one (KratixIndexes); several are for the caller to refuse, naming them.
func AdoptKratixIndex(rec Record, files layout.Files, indexes map[string][]string, found map[string]string) (Record, []string) {
	var own []string
	for p := range files.Put {
		if !slices.Contains(files.Claims, p) {
			own = append(own, p)
		}
	}
	chosen := KratixIndexes(indexes, found, own)
	if len(chosen) != 1 {
		return rec, chosen
	}
	out := rec
	out.Files = map[string]string{}
	for p, sum := range rec.Files {
		out.Files[p] = sum
	}
	for _, p := range indexes[chosen[0]] {
		out.Files[p] = found[p]
	}
	out.Files[chosen[0]] = found[chosen[0]]
	return out, chosen
}
