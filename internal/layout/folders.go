package layout

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// Folder is a destination's folder as the stores see it: Location is the store's normalised
// identity (the same bucket or repository and branch give the same string, however it was
// spelled), and Root is the folder relative to the bucket or repository root, as Root returns it
// ("" for the root, no leading or trailing slash). Two destinations in different store resources
// that point at one place have equal folders. Mode and AggregatedFilename are the destination's
// filepath mode and aggregatedYAML file name: they say whether the folder may hold other
// destinations' folders (Holds). A folder that is no destination's (an observe folder) leaves
// them empty and holds none.
type Folder struct {
	Location           string
	Root               string
	Mode               Mode
	AggregatedFilename string
}

// Overlap is a pair of FindOverlaps' folders, by index with I < J, that are equal (Equal) or one
// inside the other while the outer one may not hold it (Holds). Either way both destinations
// would own the same files, so one must go.
type Overlap struct {
	I, J  int
	Equal bool
}

// Overlaps reports whether two folders are equal or nested: same location, and one root is the
// other or a folder inside it, by whole path segments ("w1" holds "w1/resources/x" but not "w10";
// the store root "" holds everything in its location). Whether that is allowed is Conflict's to
// say.
func Overlaps(a, b Folder) bool {
	if a.Location != b.Location {
		return false
	}
	ra, rb := cleanRoot(a.Root), cleanRoot(b.Root)
	return within(ra, rb) || within(rb, ra)
}

// Conflict reports whether two destinations' folders may not both be: equal, or one inside the
// other that the outer one may not hold (Holds). FindOverlaps reports exactly these pairs.
func Conflict(a, b Folder) bool {
	return Overlaps(a, b) && !Holds(a, b) && !Holds(b, a)
}

// HoldsOthers says whether a destination in mode m may have other destinations' folders inside
// its own, as Kratix allows (its only check is that two paths differ; the usual case is the
// platform cluster's destination at a repository's root, path ".", mode none, beside the
// workers' folders). It may when everything it writes, keeps and removes is a file it names,
// never a folder it owns whole:
//
//   - none: each placement writes its files at their paths and lists them in its index file
//     under .kratix/; a rewrite removes only what its old index listed, a refresh looks at those
//     files alone, and cleanup = "all" removes the canaries, the index files in .kratix/ and the
//     files they list (placement.Cleanup). Nothing under another destination's folder is
//     touched unless a placement writes it there by name, which the owners check refuses as
//     it refuses any path two owners claim.
//   - aggregatedYAML: the destination writes one file (its aggregate) and its canaries; the
//     aggregate's parts live under the store's .kratix-aggregates/, named after the
//     destination's folder, and its cleanup removes those and nothing else.
//
// nestedByMetadata and splitByKind may not: a placement owns whole folders
// (dependencies/<promise>/<id>/, resources/<namespace>/..., crds/, resources/), pruned of every
// file it does not write and cleaned up by their shape, so a destination inside them would lose
// its files, and their refresh would read its files as drift.
func HoldsOthers(m Mode) bool {
	return m == ModeNone || m == ModeAggregatedYAML
}

// Holds reports whether outer may hold inner: same location, inner's folder strictly inside
// outer's, outer in a mode that HoldsOthers, and inner not in a place outer writes itself: its
// index folder .kratix, its canary files, its aggregate file, or the store's .kratix-aggregates
// (compared by the first segment of inner's folder under outer's).
func Holds(outer, inner Folder) bool {
	if outer.Location != inner.Location || !HoldsOthers(outer.Mode) {
		return false
	}
	return holds(outer, cleanRoot(outer.Root), cleanRoot(inner.Root))
}

// holds is Holds on cleaned roots of one location.
func holds(outer Folder, ro, ri string) bool {
	if ro == ri || !within(ro, ri) || !HoldsOthers(outer.Mode) {
		return false
	}
	rel := ri
	if ro != "" {
		rel = ri[len(ro)+1:]
	}
	first := headSegment(rel)
	for _, own := range ownPlaces(outer) {
		if first == own {
			return false
		}
	}
	return true
}

// ownPlaces are the first segments, under a destination's folder, of what it writes itself in a
// mode that HoldsOthers.
func ownPlaces(f Folder) []string {
	ns, cm := canaryPaths(f.Mode)
	out := []string{IndexDir, AggregatesDir, headSegment(ns), headSegment(cm)}
	if f.Mode == ModeAggregatedYAML {
		name := f.AggregatedFilename
		if name == "" {
			name = DefaultAggregatedFilename
		}
		out = append(out, headSegment(clean(name)))
	}
	return out
}

// headSegment is what comes before a clean path's first "/", or the whole path.
func headSegment(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}

// FindOverlaps returns every pair of folders in Conflict, sorted by I then J. A pool can hold
// thousands of destinations, so it does not compare every pair: sorted by location and then by
// root segment by segment, the folders inside a root come right after it, and one walk with a
// stack of the roots that hold the current one finds every pair in O(n log n + pairs).
func FindOverlaps(folders []Folder) []Overlap {
	roots := make([]string, len(folders))
	order := make([]int, len(folders))
	for i, f := range folders {
		roots[i], order[i] = cleanRoot(f.Root), i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(folders[a].Location, folders[b].Location); c != 0 {
			return c
		}
		return compareRoots(roots[a], roots[b])
	})
	var out []Overlap
	var holders []int // a chain of folders, each holding the next, that hold the current one
	for n, i := range order {
		if n > 0 && folders[i].Location != folders[order[n-1]].Location {
			holders = holders[:0]
		}
		for len(holders) > 0 && !within(roots[holders[len(holders)-1]], roots[i]) {
			holders = holders[:len(holders)-1]
		}
		for _, h := range holders {
			if !holds(folders[h], roots[h], roots[i]) {
				out = append(out, pair(h, i, roots[h] == roots[i]))
			}
		}
		holders = append(holders, i)
	}
	slices.SortFunc(out, func(x, y Overlap) int {
		if x.I != y.I {
			return x.I - y.I
		}
		return x.J - y.J
	})
	return out
}

// Claim is a destination's folder as one resource of a plan sees it: the destination's own
// resource, or a pool (of a promise, a request) that lists it.
type Claim struct {
	Destination string
	Folder      Folder
}

// Clash is a claim of the resource that Claims.Add was given that breaks the rule FindOverlaps
// holds one pool to: Other, a claim of another destination recorded earlier, by OtherBy, has a
// folder equal to Claim's (Equal) or one inside the other that the outer one may not hold.
type Clash struct {
	At      int // Claim's position in Add's claims
	Claim   Claim
	Other   Claim
	OtherBy string
	Equal   bool
}

// Claims holds the destination folders that the resources of one plan see, so that nested
// folders follow one rule wherever the plan can see them: two destinations in one pool, in the
// pools of two promises, or in two destination resources whose stores are one repository under
// two names. Terraform plans every resource of a configuration in one provider process, each
// after those it depends on, so the second resource to see one of two overlapping destinations
// finds the first here. A destination seen by several resources (its own, each pool that lists
// it) is one claim while its name and folder agree. Safe for concurrent use: Terraform plans
// resources in parallel.
type Claims struct {
	mu    sync.Mutex
	all   []Claim
	index map[Claim]int  // position in all, with cleaned roots
	by    []string       // the resource that recorded each claim first
	at    map[Folder]int // the first claim of each location and cleaned root (Mode and name left out)
}

// Add records the claims of one resource (by names it in messages) and returns, sorted by
// position in claims, each of them that overlaps a claim recorded earlier for another
// destination that claims does not list. Overlaps within claims are FindOverlaps' to report
// (the pool's own check), and are left out here.
func (c *Claims) Add(by string, claims []Claim) []Clash {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index == nil {
		c.index = map[Claim]int{}
	}
	mine := map[int]int{} // position in all -> position in claims
	for i, cl := range claims {
		cl.Folder = cl.Folder.key()
		j, seen := c.index[cl]
		if !seen {
			j = len(c.all)
			c.index[cl] = j
			c.all = append(c.all, cl)
			c.by = append(c.by, by)
			if c.at == nil {
				c.at = map[Folder]int{}
			}
			if _, known := c.at[Folder{Location: cl.Folder.Location, Root: cl.Folder.Root}]; !known {
				c.at[Folder{Location: cl.Folder.Location, Root: cl.Folder.Root}] = j
			}
		}
		if _, dup := mine[j]; !dup {
			mine[j] = i
		}
	}
	folders := make([]Folder, len(c.all))
	for i, cl := range c.all {
		folders[i] = cl.Folder
	}
	var out []Clash
	for _, o := range FindOverlaps(folders) {
		i, iMine := mine[o.I]
		j, jMine := mine[o.J]
		switch {
		case iMine && jMine, !iMine && !jMine:
			continue
		case iMine:
			out = append(out, Clash{At: i, Claim: claims[i], Other: c.all[o.J], OtherBy: c.by[o.J], Equal: o.Equal})
		default:
			out = append(out, Clash{At: j, Claim: claims[j], Other: c.all[o.I], OtherBy: c.by[o.I], Equal: o.Equal})
		}
	}
	slices.SortStableFunc(out, func(x, y Clash) int { return x.At - y.At })
	return out
}

// HeldFolder returns the claim, recorded by any resource, of a destination whose folder lies
// inside holder's and holds the store path p: a file that a placement on holder (a destination
// that Holds others) would write into another destination's folder, where that destination
// would read it as its own (a stray file in a folder it owns, drift, a cleanup's). The deepest
// such folder is returned; none when p is in holder's folder alone.
func (c *Claims) HeldFolder(holder Folder, p string) (Claim, bool) {
	holder.Root, p = cleanRoot(holder.Root), cleanRoot(p)
	if p == holder.Root || !within(holder.Root, p) {
		return Claim{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// The folders holding p, deepest first, down to holder's own (left out): a pool of
	// thousands of destinations is asked once per file.
	for dir := path.Dir(p); dir != "." && dir != holder.Root; dir = path.Dir(dir) {
		if j, ok := c.at[Folder{Location: holder.Location, Root: dir}]; ok {
			return c.all[j], true
		}
	}
	return Claim{}, false
}

// key is the folder as Claims compares it: root cleaned, and the aggregate's file name only in
// mode aggregatedYAML, defaulted, so that one destination seen with and without the default
// spelled out (its resource, an object literal) is one claim.
func (f Folder) key() Folder {
	f.Root = cleanRoot(f.Root)
	switch {
	case f.Mode != ModeAggregatedYAML:
		f.AggregatedFilename = ""
	case f.AggregatedFilename == "":
		f.AggregatedFilename = DefaultAggregatedFilename
	}
	return f
}

// cleanRoot is clean without its allocation for a root that is clean already, as roots from Root
// are: a pool of thousands of folders is checked on every plan.
func cleanRoot(r string) string {
	for start := 0; start <= len(r); {
		end := strings.IndexByte(r[start:], '/')
		if end < 0 {
			end = len(r) - start
		}
		if seg := r[start : start+end]; seg == "" && r != "" || seg == "." || seg == ".." {
			return clean(r)
		}
		start += end + 1
	}
	return r
}

func pair(a, b int, equal bool) Overlap {
	if a > b {
		a, b = b, a
	}
	return Overlap{I: a, J: b, Equal: equal}
}

// within reports whether inner is outer or a folder inside it. Both are cleaned roots.
func within(outer, inner string) bool {
	if outer == "" || outer == inner {
		return true
	}
	return len(inner) > len(outer) && inner[len(outer)] == '/' && strings.HasPrefix(inner, outer)
}

// compareRoots orders roots segment by segment, as if "/" sorted before every other byte, so
// that the folders inside a root follow it with nothing between ("w1", "w1/a", "w1-b", not
// "w1", "w1-b", "w1/a" as plain string order would have it).
func compareRoots(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		if ca < cb {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}
