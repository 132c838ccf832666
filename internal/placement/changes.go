package placement

import (
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
)

// Change is what one operation makes one store location hold. It is declarative: the store
// compares it with what it holds when it writes, skips what is already there, and can apply it
// again on a newer revision after a concurrent write. It is the one change type from placement
// to the store (statestore.Change is this type). Paths are slash-separated, relative to the
// bucket or repository root, without a leading slash.
type Change struct {
	// Message names the operation in Kratix's style ("Update from: promise/jenkins"); git uses
	// it as the commit message. The caller sets it: the plan says what, not in whose name.
	Message string
	// Put maps a store path to the exact bytes it must hold.
	Put map[string][]byte
	// Delete lists files to remove; a path ending in "/" removes everything under it. Put wins
	// over Delete for the same path.
	Delete []string
	// Prune lists folders (ending in "/") owned outright: whatever is under them and not in Put
	// goes.
	Prune []string
	// Seen maps a folder of Prune, or a folder Delete removes whole, to the files the plan saw
	// there (sorted): the refreshed record of the placement that owns it. A file found under such
	// a folder that the plan did not see (another writer's, added after the plan was made) is
	// left and reported (Leaves), so that the apply of a saved plan deletes only what the plan
	// showed. A folder without an entry (a placement new there, which the plan did not look into)
	// is cleared as it is.
	Seen map[string][]string
	// Aggregates are rebuilt from their parts after the writes and deletes.
	Aggregates []layout.Aggregate
	// Stakes are the owner records (stakes.go) of the placements this change writes or takes
	// away, by path. The writer judges each against what the store holds (Judge) and turns the
	// verdicts into Put, Delete and Guards before the store makes the change.
	Stakes map[string]Stake
	// Guards make the change conditional: each path must hold content with this MD5 ("" for
	// absent) when the change is made, or the store makes none of it and fails with a conflict
	// (statestore.ErrGuard). Two writers that read an owner record at once cannot both take it.
	Guards map[string]string
}

// Leaves reports whether clearing a folder leaves the file at p, found there and not in Put:
// p is under a folder the plan looked into (Seen) and the plan did not see it there. The store
// reports such a file (statestore.Result.Unseen) instead of deleting it.
func (c Change) Leaves(p string) bool {
	for folder, seen := range c.Seen {
		if strings.HasPrefix(p, folder) {
			if i := sort.SearchStrings(seen, p); i == len(seen) || seen[i] != p {
				return true
			}
		}
	}
	return false
}

// watch notes, for each of folders, what the plan saw there: the paths recorded under it and
// those put there.
func (c *Change) watch(folders []string, recorded map[string]string) {
	if recorded == nil || len(folders) == 0 {
		return
	}
	if c.Seen == nil {
		c.Seen = map[string][]string{}
	}
	for _, folder := range folders {
		seen := map[string]bool{}
		for _, p := range c.Seen[folder] {
			seen[p] = true
		}
		for p := range recorded {
			if strings.HasPrefix(p, folder) {
				seen[p] = true
			}
		}
		c.Seen[folder] = sortedKeys(seen)
	}
}

// Empty reports whether the change asks for nothing.
func (c Change) Empty() bool {
	return len(c.Put) == 0 && len(c.Delete) == 0 && len(c.Prune) == 0 && len(c.Aggregates) == 0 && len(c.Stakes) == 0
}

// Op is the change of one resource operation at one store location.
type Op struct {
	Location Location
	// Member is a pool member at this location, for the provider to reach the store with.
	Member Member
	Change Change
	// Destinations are those whose records depend on this change being made.
	Destinations []string
	// Fresh lists, for placements this resource did not hold before, the files it is about to
	// take over (path => MD5): a file there with other content was written by someone else.
	Fresh map[string]string
}

// Record is what one placement holds in one destination, as state keeps it.
type Record struct {
	Store        string
	Location     string
	Root         string
	Misscheduled bool
	// Files maps store paths to the MD5 of their content; an aggregate file to AggregateMark +
	// the MD5 of this placement's part (see Hashes).
	Files map[string]string
}

// Prior is what a resource placed in a destination before: the record, and the destination as
// the resource saw it then (nil when unknown, as after an import).
type Prior struct {
	Record Record
	Member *Member
	// WrittenLabels are the destination's labels when the files of Record were last written (see
	// WrittenLabels); nil when unknown.
	WrittenLabels map[string]string
}

// ops gathers the changes of one resource operation by location, so that each location gets one
// write (one commit per Git branch) however many destinations it holds.
type ops struct {
	sums  memo.Sums // MD5s of what this computation lays out
	order []string
	byKey map[string]*Op
	// kept are destinations whose earlier records stay: their files could not be reached.
	kept []string
	// roots are, by location, the folders of every destination this operation knows of (see
	// know): the canaries of any mode at these roots are never deleted.
	roots map[string]map[string]bool
	// object, when set, is the promise or request the operation is for ("promise/db"): each
	// placement it writes or takes away gets its owner record (stakes.go).
	object string
}

// know notes the folders of destinations the operation knows of, as they are now or were: the
// canaries at each of them are protected (see owns).
func (o *ops) know(ms ...Member) {
	if o.roots == nil {
		o.roots = map[string]map[string]bool{}
	}
	for _, m := range ms {
		loc := m.Location.String()
		if o.roots[loc] == nil {
			o.roots[loc] = map[string]bool{}
		}
		o.roots[loc][m.Target.Root] = true
	}
}

// knowPrior notes the folders destinations had when the resource last saw them.
func (o *ops) knowPrior(prior map[string]Prior) {
	for _, before := range prior {
		if before.Member != nil {
			o.know(*before.Member)
		}
	}
}

func (o *ops) keep(dest string) { o.kept = append(o.kept, dest) }

func (o *ops) at(m Member, dest string) *Op {
	if o.byKey == nil {
		o.byKey = map[string]*Op{}
	}
	o.know(m)
	key := m.Location.String()
	op, ok := o.byKey[key]
	if !ok {
		op = &Op{Location: m.Location, Member: m, Change: Change{Put: map[string][]byte{}}, Fresh: map[string]string{}}
		o.byKey[key] = op
		o.order = append(o.order, key)
	}
	if n := len(op.Destinations); n == 0 || op.Destinations[n-1] != dest {
		op.Destinations = append(op.Destinations, dest)
	}
	return op
}

// write makes m hold f. Files the placement recorded there before and no longer writes go, as
// long as they are inside the destination's folder and are not its canaries.
func (o *ops) write(m Member, f layout.Files, dest string, recorded map[string]string, fresh bool) {
	op := o.at(m, dest)
	for p, c := range f.Put {
		op.Change.Put[p] = c
		if fresh {
			op.Fresh[p] = o.sums.Of(c)
		}
	}
	op.Change.Prune = append(op.Change.Prune, f.Prune...)
	op.Change.watch(f.Prune, recorded)
	for _, p := range f.Claims {
		if _, put := f.Put[p]; !put {
			op.Change.Delete = append(op.Change.Delete, p)
		}
	}
	for _, p := range sortedKeys(recorded) {
		if _, put := f.Put[p]; !put && o.owns(m, f, p, recorded[p]) {
			op.Change.Delete = append(op.Change.Delete, p)
		}
	}
	if f.Aggregate != nil {
		op.Change.Aggregates = append(op.Change.Aggregates, *f.Aggregate)
	}
	o.stake(op, m, Stake{Root: m.Target.Root, Files: stakeFiles(f, nil)})
}

// stake notes the owner record of a placement in m's folder; one that holds wins over one given
// up at the same path (a placement that leaves a folder under one destination's name and comes
// back under another's, or a request's workload groups), and two that hold join their files.
func (o *ops) stake(op *Op, m Member, s Stake) {
	if o.object == "" {
		return
	}
	s.Holder.Object = o.object
	s.File = OwnersFile(m.Target.StorePath, o.object)
	addStake(&op.Change, StakeKey(s.File, s.Root), s)
}

func addStake(c *Change, p string, s Stake) {
	if c.Stakes == nil {
		c.Stakes = map[string]Stake{}
	}
	before, ok := c.Stakes[p]
	switch {
	case !ok || before.Release && !s.Release:
		c.Stakes[p] = s
	case !before.Release && !s.Release:
		before.Files = unique(append(append([]string(nil), before.Files...), s.Files...))
		c.Stakes[p] = before
	case before.Release && s.Release:
		before.Files = unique(append(append([]string(nil), before.Files...), s.Files...))
		c.Stakes[p] = before
	}
}

// remove takes a placement laid out as f away from m: its owned folders, its claims, what it
// recorded there (confined as in write), and its part of an aggregate.
func (o *ops) remove(m Member, f layout.Files, dest string, recorded map[string]string) {
	op := o.at(m, dest)
	op.Change.Delete = append(op.Change.Delete, f.Prune...)
	op.Change.watch(f.Prune, recorded)
	op.Change.Delete = append(op.Change.Delete, f.Claims...)
	for _, p := range sortedKeys(recorded) {
		if o.owns(m, f, p, recorded[p]) {
			op.Change.Delete = append(op.Change.Delete, p)
		}
	}
	if f.Aggregate != nil {
		op.Change.Aggregates = append(op.Change.Aggregates, *f.Aggregate)
	}
	o.stake(op, m, Stake{Root: m.Target.Root, Files: stakeFiles(f, recorded), Release: true})
}

// owns says whether a path recorded by a placement in m is one it may delete. State is not
// trusted for this: only a clean file path inside the destination's folder qualifies, never a
// canary of any mode at the folder of a destination the operation knows of (see know), never an
// index file or an aggregate part it does not claim now, never the shared aggregate (rebuilt,
// not deleted). A file of the placement's own whose name only ends like a canary's path, in a
// sub-folder (a request's "sub/kratix-canary-namespace.yaml"), is the placement's like any other.
func (o *ops) owns(m Member, f layout.Files, p, value string) bool {
	t := m.Target
	if value == Stale || strings.HasPrefix(value, AggregateMark) {
		return false
	}
	if f.Aggregate != nil && p == f.Aggregate.File {
		return false
	}
	if p == "" || strings.HasSuffix(p, "/") || layout.Join(p) != p || o.isCanary(m.Location.String(), p) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == layout.IndexDir || seg == layout.AggregatesDir {
			return claimed(f, p)
		}
	}
	return p != t.Root && strings.HasPrefix(p, layout.Prefix(t.Root))
}

func claimed(f layout.Files, p string) bool {
	for _, c := range f.Claims {
		if c == p {
			return true
		}
	}
	return false
}

// isCanary reports whether a path at a location is the canary path of any mode at the folder of
// a destination the operation knows of there.
func (o *ops) isCanary(loc, p string) bool {
	for root := range o.roots[loc] {
		for _, m := range layout.Modes {
			if _, ok := layout.Canaries(m, root)[p]; ok {
				return true
			}
		}
	}
	return false
}

// list returns the operations in a stable order, their change lists sorted and without
// repeats.
func (o *ops) list() []Op {
	out := make([]Op, 0, len(o.order))
	for _, key := range o.order {
		op := *o.byKey[key]
		op.Change.Delete = unique(op.Change.Delete)
		op.Change.Prune = unique(op.Change.Prune)
		seen := map[string]bool{}
		var aggs []layout.Aggregate
		for _, a := range op.Change.Aggregates {
			if !seen[a.File+"|"+a.Dir] {
				seen[a.File+"|"+a.Dir] = true
				aggs = append(aggs, a)
			}
		}
		op.Change.Aggregates = aggs
		out = append(out, op)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Location.String() < out[j].Location.String() })
	return out
}

func unique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// Plan is everything a plan of one resource decides.
type Plan struct {
	// Records is the new state when every Op is made: per destination, what it holds.
	Records map[string]Record
	Ops     []Op
	// Scheduled are the destinations written to; Misscheduled those kept without updates.
	Scheduled, Misscheduled []string
	Warnings                []string

	prior map[string]Prior
}

// finish takes the operations gathered, and keeps the records of placements that could not be
// reached.
func (p *Plan) finish(o *ops) {
	p.Ops = o.list()
	for _, dest := range o.kept {
		if _, planned := p.Records[dest]; !planned {
			if before, ok := p.prior[dest]; ok {
				p.Records[dest] = before.Record
			}
		}
	}
}

// Outcome is what to record after the Ops were tried.
type Outcome struct {
	Records                 map[string]Record
	Scheduled, Misscheduled []string
}

// Settle returns what the resource holds when the Ops at the failed locations (by
// Location.String()) were not made: a destination whose every change was made gets its new
// record; any other keeps what it held before (or nothing), so that the next plan shows the
// difference again and the next apply finishes the job.
func (p Plan) Settle(failed map[string]bool) Outcome {
	broken := map[string]bool{}
	for _, op := range p.Ops {
		if failed[op.Location.String()] {
			for _, d := range op.Destinations {
				broken[d] = true
			}
		}
	}
	out := Outcome{Records: map[string]Record{}}
	for dest, r := range p.Records {
		if !broken[dest] {
			out.Records[dest] = r
		} else if before, ok := p.prior[dest]; ok {
			out.Records[dest] = before.Record
		}
	}
	for dest := range broken {
		if _, planned := p.Records[dest]; !planned {
			if before, ok := p.prior[dest]; ok {
				out.Records[dest] = before.Record // a removal that did not happen
			}
		}
	}
	scheduled := map[string]bool{}
	for _, d := range p.Scheduled {
		scheduled[d] = true
	}
	for _, dest := range sortedKeys(out.Records) {
		r := out.Records[dest]
		switch {
		case r.Misscheduled:
			out.Misscheduled = append(out.Misscheduled, dest)
		case scheduled[dest] && !broken[dest]:
			out.Scheduled = append(out.Scheduled, dest)
		}
	}
	return out
}
