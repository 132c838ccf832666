package placement

// Owner records: one file, one owner, across workspaces. Every promise and request keeps, in the
// registry of each store it writes to (layout.RegistryDir), one owner record that says, folder by
// folder, who holds its placement there, so that whoever else comes to write, prune or delete
// there (another workspace, another state, a deposed object of this one) reads who holds it:
//
//	<store path>/.kratix-registry/owners/<kind>_<id with "/" as "_">.yaml
//
// Each entry names the holder (the provider's owner and the instance of the object that wrote
// last) and the files and folders it covers in its folder. A write that takes a placement
// rewrites the record on the condition that it still holds what the write read (absent, or the
// same content): two first applies racing for one placement meet at one path, and the store's
// compare-and-swap lets exactly one through (statestore.Change.Guards); shards of one promise in
// several workspaces, each on its own folders, take turns. A removal gives an entry up only while
// its own instance holds it: a successor that took the placement over (create_before_destroy, an
// interrupted apply) keeps its files. Judge says what a write may do with one entry, Settle what
// becomes of a record.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// OwnersDir is the folder of owner records in a store's registry.
const OwnersDir = "owners"

// Holder is who holds a placement: the provider's owner ("" is the unnamed owner), the object
// (its kind and id, "promise/db", "request/db/default/one") and the object's instance token,
// new at each create.
type Holder struct {
	Owner    string `json:"owner"`
	Object   string `json:"-"`
	Instance string `json:"instance,omitempty"`
}

// Lineage reports whether two holders are one object of one owner, whatever the instance: the
// same resource, or its replacement.
func (h Holder) Lineage(o Holder) bool { return h.Owner == o.Owner && h.Object == o.Object }

// String names a holder as messages do: `promise/db of owner "platform-eu"`.
func (h Holder) String() string {
	if h.Owner == "" {
		return h.Object + " of the unnamed owner"
	}
	return fmt.Sprintf("%s of owner %q", h.Object, h.Owner)
}

// Stake is one folder's entry in an owner record, as a change holds or gives it up.
type Stake struct {
	// File is the owner record (OwnersFile) the entry is in.
	File string
	// Holder is who holds or gives it up: the plan names the object, the writer (As) the owner
	// and the instance.
	Holder Holder
	// TakeOver: an import takes the placement over on purpose, whoever holds it.
	TakeOver bool
	// Root is the destination's folder the entry covers.
	Root string
	// Files are the files and owned folders (ending in "/") of the placement there, sorted.
	Files []string
	// Release: the placement leaves the folder, and the entry goes with it if it is still ours.
	Release bool
}

// OwnersFile is the owner record of object's placements in the registry of a store whose path
// is storePath.
func OwnersFile(storePath, object string) string {
	return StakesPrefix(storePath) + strings.ReplaceAll(object, "/", "_") + ".yaml"
}

// StakeKey keys a change's stakes: one per record and folder.
func StakeKey(file, root string) string { return file + "#" + root }

// StakesPrefix is the listing prefix of every owner record of a store whose path is storePath.
func StakesPrefix(storePath string) string {
	return layout.RegistryPrefix(storePath) + OwnersDir + "/"
}

// Entry is one folder of an owner record.
type Entry struct {
	Root     string   `json:"root"`
	Owner    string   `json:"owner"`
	Instance string   `json:"instance,omitempty"`
	Files    []string `json:"files"`
}

// Holder is who holds the entry's folder, for the record's object.
func (e Entry) Holder(object string) Holder {
	return Holder{Owner: e.Owner, Object: object, Instance: e.Instance}
}

// Stake is the entry as a stake held.
func (e Entry) Stake(file, object string) Stake {
	return Stake{File: file, Holder: e.Holder(object), Root: e.Root, Files: e.Files}
}

type ownersFile struct {
	Object  string  `json:"object"`
	Folders []Entry `json:"folders"`
}

const ownersHeader = "# Owner record of terraform-provider-kratix: who holds %s's placements, folder by folder.\n" +
	"# Another owner's plan that would write, prune or delete them is refused. Do not edit.\n"

// RenderOwners is the content of an owner record; entries are sorted by folder.
func RenderOwners(object string, entries []Entry) []byte {
	sorted := append([]Entry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Root < sorted[j].Root })
	for i := range sorted {
		sorted[i].Files = append([]string{}, sorted[i].Files...)
		sort.Strings(sorted[i].Files)
	}
	body, _ := yaml.Marshal(ownersFile{Object: object, Folders: sorted}) // plain strings always marshal
	return append([]byte(fmt.Sprintf(ownersHeader, object)), body...)
}

// ParseOwners reads an owner record.
func ParseOwners(content []byte) (object string, entries []Entry, err error) {
	var f ownersFile
	if err := yaml.UnmarshalStrict(content, &f); err != nil {
		return "", nil, fmt.Errorf("reading owner record: %w", err)
	}
	if f.Object == "" {
		return "", nil, fmt.Errorf("reading owner record: it names no object")
	}
	return f.Object, f.Folders, nil
}

// Refusal is a stake another owner (or another object) holds.
type Refusal struct {
	Stake Stake
	There Holder
}

// Settled is what a change makes of one owner record (Settle).
type Settled struct {
	// Content is what the record must hold; nil when no entry is left and it goes.
	Content []byte
	// Changed: Content differs from what the record holds.
	Changed bool
	// Refused are the stakes another holder has: the change must not be made.
	Refused []Refusal
	// Spared are the stakes given up that another instance holds now (with that holder): their
	// files stay.
	Spared []Refusal
}

// Settle judges the stakes a change holds or gives up in one owner record (all with the same
// File and object) against what it holds now (current; nil when absent).
func Settle(current []byte, stakes []Stake) (Settled, error) {
	var out Settled
	byRoot := map[string]Entry{}
	object := ""
	if current != nil {
		obj, entries, err := ParseOwners(current)
		if err != nil {
			return out, err
		}
		object = obj
		for _, e := range entries {
			byRoot[e.Root] = e
		}
	}
	sort.Slice(stakes, func(i, j int) bool { return stakes[i].Root < stakes[j].Root })
	for _, st := range stakes {
		if object == "" {
			object = st.Holder.Object
		}
		var there *Holder
		if e, ok := byRoot[st.Root]; ok {
			h := e.Holder(object)
			there = &h
		}
		switch Judge(st.Holder, there, st.Release, st.TakeOver) {
		case Refuse:
			out.Refused = append(out.Refused, Refusal{Stake: st, There: *there})
		case Take:
			byRoot[st.Root] = Entry{Root: st.Root, Owner: st.Holder.Owner, Instance: st.Holder.Instance, Files: st.Files}
		case Drop:
			delete(byRoot, st.Root)
		case Spare:
			out.Spared = append(out.Spared, Refusal{Stake: st, There: *there})
		}
	}
	if len(byRoot) > 0 {
		entries := make([]Entry, 0, len(byRoot))
		for _, e := range byRoot {
			entries = append(entries, e)
		}
		out.Content = RenderOwners(object, entries)
	}
	out.Changed = string(out.Content) != string(current) || (current == nil) != (out.Content == nil)
	return out, nil
}

// StakeVerdict is what a change may do with one owner record.
type StakeVerdict int

const (
	// Take: write the record (it is absent, or held by the same object of the same owner).
	Take StakeVerdict = iota
	// Refuse: another owner, or another object, holds the placement; the change must not be made.
	Refuse
	// Drop: give the record up (delete it): our own instance holds it.
	Drop
	// Spare: another instance holds it now; leave the record and every file it covers.
	Spare
	// Nothing: the record is absent and the placement leaves; nothing to do.
	Nothing
)

// Judge says what a change by holder me may do with an owner record that holds there (nil when
// absent): hold it (release false) or give it up (release true). takeOver is an import's
// deliberate taking over of another owner's placement.
func Judge(me Holder, there *Holder, release, takeOver bool) StakeVerdict {
	switch {
	case release && there == nil:
		return Nothing
	case release && (*there == me || takeOver):
		return Drop // an import's apply gives up what it took over, whoever wrote the entry
	case release:
		return Spare
	case there == nil || there.Lineage(me) || takeOver:
		return Take
	}
	return Refuse
}

// Covers reports whether a store path is one of the stake's files or lies under one of its
// folders.
func (s Stake) Covers(p string) bool {
	for _, f := range s.Files {
		if p == f || strings.HasSuffix(f, "/") && strings.HasPrefix(p, f) {
			return true
		}
	}
	return false
}

// WithoutCovered takes out of a change every delete and prune that the stake covers, and the
// aggregates rebuilt from a folder it covers: what a placement another instance holds now keeps.
func (c Change) WithoutCovered(s Stake) Change {
	out := c
	out.Delete = nil
	for _, p := range c.Delete {
		if !s.Covers(p) {
			out.Delete = append(out.Delete, p)
		}
	}
	out.Prune = nil
	for _, p := range c.Prune {
		if !s.Covers(p) {
			out.Prune = append(out.Prune, p)
		}
	}
	return out
}

// stakeFiles is what the owner record of a placement laid out as f in a folder covers: its owned
// folders, the single files it claims, and the files it puts outside those folders.
func stakeFiles(f layout.Files, recorded map[string]string) []string {
	set := map[string]bool{}
	for _, p := range f.Prune {
		set[p] = true
	}
	for _, p := range f.Claims {
		set[p] = true
	}
	under := func(p string) bool {
		for _, d := range f.Prune {
			if strings.HasPrefix(p, d) {
				return true
			}
		}
		return false
	}
	for p := range f.Put {
		if !under(p) && (f.Aggregate == nil || p != f.Aggregate.File) {
			set[p] = true
		}
	}
	for p, v := range recorded {
		if !under(p) && v != Stale && !strings.HasPrefix(v, AggregateMark) && (f.Aggregate == nil || p != f.Aggregate.File) {
			set[p] = true
		}
	}
	return sortedKeys(set)
}

// As returns the operations with their owner records held, or given up, by the instance of
// owner's object: what the writer knows and the plan does not.
func As(ops []Op, owner, instance string, takeOver bool) []Op {
	out := make([]Op, len(ops))
	for i, op := range ops {
		out[i] = op
		if len(op.Change.Stakes) == 0 {
			continue
		}
		stakes := make(map[string]Stake, len(op.Change.Stakes))
		for p, s := range op.Change.Stakes {
			s.Holder.Owner, s.Holder.Instance, s.TakeOver = owner, instance, takeOver
			stakes[p] = s
		}
		out[i].Change.Stakes = stakes
	}
	return out
}

// SpareForeign takes out of a destination's cleanup (Cleanup) what the owner records of other
// owners cover: their files stay, a folder removed whole is removed file by file (under, by
// folder: what it holds) without theirs, and an aggregate that keeps one of their parts is
// rebuilt from the parts that stay instead of deleted.
func SpareForeign(c Change, foreign []Stake, under map[string][]string, agg *layout.Aggregate) Change {
	if len(foreign) == 0 {
		return c
	}
	covered := func(p string) bool {
		for _, s := range foreign {
			if s.Covers(p) {
				return true
			}
		}
		return false
	}
	out := c
	out.Delete = nil
	keepsAggregate := false
	for _, d := range c.Delete {
		switch {
		case !strings.HasSuffix(d, "/"):
			if !covered(d) {
				out.Delete = append(out.Delete, d)
			}
		case !slices.ContainsFunc(under[d], covered):
			out.Delete = append(out.Delete, d)
		default:
			for _, p := range under[d] {
				if !covered(p) {
					out.Delete = append(out.Delete, p)
				}
			}
			if agg != nil && d == agg.Dir {
				keepsAggregate = true
			}
		}
	}
	if keepsAggregate {
		out.Delete = slices.DeleteFunc(out.Delete, func(p string) bool { return p == agg.File })
		out.Aggregates = append(slices.Clone(c.Aggregates), *agg)
	}
	out.Delete = unique(out.Delete)
	return out
}

// Covering is the stake a holder has on what st covers: what a change that gives st up must
// leave when h holds the folder now.
func (h Holder) Covering(st Stake) Stake {
	st.Holder = h
	return st
}

// HoldAll is what an import's first apply adds to its operations: an owner record entry for
// every placement the object holds now (records, by destination, at pool's members), taken over
// from whoever held it, so that the imported object owns its placements from then on, written
// again or not. An entry the operations hold already wins (MergeOps).
func HoldAll(object string, records map[string]Record, pool []Member) []Op {
	o := ops{object: object}
	for _, dest := range sortedKeys(records) {
		r := records[dest]
		name, _, _ := strings.Cut(dest, "#") // a request's workload group is keyed <destination>#<group>
		i := slices.IndexFunc(pool, func(m Member) bool {
			return m.Name == name && m.Location.String() == r.Location && m.Target.Root == r.Root
		})
		if i < 0 || len(r.Files) == 0 {
			continue
		}
		var files []string
		for p, v := range r.Files {
			if v != Stale && !strings.HasPrefix(v, AggregateMark) {
				files = append(files, p)
			}
		}
		sort.Strings(files)
		o.stake(o.at(pool[i], name), pool[i], Stake{Root: r.Root, Files: files})
	}
	return o.list()
}
