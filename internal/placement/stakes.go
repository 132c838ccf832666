package placement

// Owner records: one file, one owner, across workspaces. Every placement a promise or a request
// writes in a destination's folder has an owner record in the store's registry
// (layout.RegistryDir), at a path made of the folder and the object, so that whoever else comes to
// write, prune or delete there (another workspace, another state, a deposed object of this one)
// reads who holds it:
//
//	<store path>/.kratix-registry/owners/@<folder, path-escaped>/<kind>_<id with "/" as "_">.yaml
//
// The record names the holder (the provider's owner, the object, the instance of the object that
// wrote last) and the files and folders it covers there. The write that takes a placement makes
// the record hold it, on the condition that the record is still what the write read (absent, or
// the same content): two first applies racing for one placement meet at one path, and the
// store's compare-and-swap lets exactly one through (statestore.Change.Guards). A removal gives
// the record up only while its own instance holds it: a successor that took the placement over
// (create_before_destroy, an interrupted apply) keeps its files. Judge says what a write may do.

import (
	"fmt"
	"net/url"
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
	Object   string `json:"object"`
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

// Stake is an owner record a change holds or gives up.
type Stake struct {
	// Holder is who holds or gives it up: the plan names the object, the writer (As) the owner
	// and the instance.
	Holder Holder
	// TakeOver: an import takes the placement over on purpose, whoever holds it.
	TakeOver bool
	// Root is the destination's folder the record covers.
	Root string
	// Files are the files and owned folders (ending in "/") of the placement there, sorted.
	Files []string
	// Release: the placement leaves the folder, and the record goes with it if it is still ours.
	Release bool
}

// StakePath is where the owner record of object's placement in the folder root is kept, in the
// registry of a store whose path is storePath.
func StakePath(storePath, root, object string) string {
	return layout.RegistryPrefix(storePath) + OwnersDir + "/@" + url.PathEscape(root) + "/" + strings.ReplaceAll(object, "/", "_") + ".yaml"
}

// IsStake reports whether a store path is an owner record.
func IsStake(p string) bool {
	return strings.Contains("/"+p, "/"+layout.RegistryDir+"/"+OwnersDir+"/@") && strings.HasSuffix(p, ".yaml")
}

// StakesPrefix is the listing prefix of every owner record of a store whose path is storePath.
func StakesPrefix(storePath string) string {
	return layout.RegistryPrefix(storePath) + OwnersDir + "/"
}

type stakeFile struct {
	Holder `json:",inline"`
	Root   string   `json:"root"`
	Files  []string `json:"files"`
}

const stakeHeader = "# Owner record of terraform-provider-kratix: who holds this placement's files in folder %q.\n" +
	"# Another owner's plan that would write, prune or delete them is refused. Do not edit.\n"

// RenderStake is the content of an owner record.
func RenderStake(h Holder, s Stake) []byte {
	files := append([]string(nil), s.Files...)
	sort.Strings(files)
	body, _ := yaml.Marshal(stakeFile{Holder: h, Root: s.Root, Files: files}) // plain strings always marshal
	return append([]byte(fmt.Sprintf(stakeHeader, s.Root)), body...)
}

// ParseStake reads an owner record.
func ParseStake(content []byte) (Holder, Stake, error) {
	var f stakeFile
	if err := yaml.UnmarshalStrict(content, &f); err != nil {
		return Holder{}, Stake{}, fmt.Errorf("reading owner record: %w", err)
	}
	if f.Object == "" {
		return Holder{}, Stake{}, fmt.Errorf("reading owner record: it names no object")
	}
	return f.Holder, Stake{Root: f.Root, Files: f.Files}, nil
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
	case release && *there == me:
		return Drop
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

// StakesAt is the listing prefix of the owner records of the placements in the folder root.
func StakesAt(storePath, root string) string {
	return StakesPrefix(storePath) + "@" + url.PathEscape(root) + "/"
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
