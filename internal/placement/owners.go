package placement

// One file, one owner. Two placements that would write the same store path (two requests of
// different promises with one name in mode none, two requests whose files share a key) would
// overwrite each other on every apply, and the destroy of one would take the other's file. Kratix
// lets the last writer win; this provider refuses the second claim at plan, whether the first
// owner is planned in the same provider process (Claims) or only known from the index files of
// mode none in the store (ListedBy), and never deletes a file another placement's index lists
// (Spare).

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// Owner names who writes a placement, as messages name it: `request default/postgres/team-a`,
// `promise "postgres"`. Two plans of one owner are one owner.
type Owner string

// Collision is a path two owners would write.
type Collision struct {
	// Location is the store location (Location.String()), Path the store path.
	Location, Path string
	// Other is the owner that claimed it first; Index, when the claim is known from the store,
	// is the index file that lists it.
	Other Owner
	Index string
}

// Claims records, for one provider process, which owner's plan claims each store path. All
// resources of one plan are planned in one process, so the second plan that claims a path sees
// the first. It is not safe for concurrent use: the caller holds a lock.
type Claims struct {
	byPath  map[string]Owner
	byOwner map[Owner][]string
}

func claimKey(location, p string) string { return location + "|" + p }

// Claim records what an owner's plan writes (its records, per destination) in place of what its
// earlier plan in this process claimed, and returns the paths another owner claims already,
// sorted. Those stay the other owner's. The shared aggregatedYAML file is nobody's: each part
// is its writer's own.
func (c *Claims) Claim(o Owner, records map[string]Record) []Collision {
	if c.byPath == nil {
		c.byPath, c.byOwner = map[string]Owner{}, map[Owner][]string{}
	}
	for _, k := range c.byOwner[o] {
		if c.byPath[k] == o {
			delete(c.byPath, k)
		}
	}
	c.byOwner[o] = nil
	var out []Collision
	for _, dest := range sortedKeys(records) {
		r := records[dest]
		for _, p := range sortedKeys(r.Files) {
			if strings.HasPrefix(r.Files[p], AggregateMark) || r.Files[p] == Stale {
				continue
			}
			k := claimKey(r.Location, p)
			if other, taken := c.byPath[k]; taken && other != o {
				out = append(out, Collision{Location: r.Location, Path: p, Other: other})
				continue
			}
			c.byPath[k] = o
			c.byOwner[o] = append(c.byOwner[o], k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Location+out[i].Path < out[j].Location+out[j].Path })
	return out
}

// Owned reports whether an owner's latest plan in this process claims a path.
func (c *Claims) Owned(o Owner, location, p string) bool {
	return c.byPath != nil && c.byPath[claimKey(location, p)] == o
}

// Planned reports whether an owner has been planned in this process.
func (c *Claims) Planned(o Owner) bool {
	_, ok := c.byOwner[o]
	return ok
}

// IsIndexFile reports whether a store path is an index file of mode none: a file directly in a
// `.kratix/` folder.
func IsIndexFile(p string) bool {
	return path.Base(path.Dir(p)) == layout.IndexDir && !strings.HasSuffix(p, "/")
}

// ListedBy returns, for each of paths that an index file other than the placement's own lists,
// the first such index file (in name order). indexes maps each index file to the store paths it
// lists (layout.IndexedFiles); own says whether an index file is the placement's own (the one it
// writes, or the one Kratix wrote for the same WorkPlacement).
func ListedBy(indexes map[string][]string, own func(index string) bool, paths []string) map[string]string {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	out := map[string]string{}
	for _, idx := range sortedKeys(indexes) {
		if own != nil && own(idx) {
			continue
		}
		for _, p := range indexes[idx] {
			if _, seen := out[p]; want[p] && !seen {
				out[p] = idx
			}
		}
	}
	return out
}

// IndexDirs lists, sorted, the `.kratix/` folders a change touches an index file in: every
// placement of mode none puts or deletes its own index file, so these are the folders where
// another placement's index may list a file the change deletes.
func IndexDirs(c Change) []string {
	set := map[string]bool{}
	for p := range c.Put {
		if IsIndexFile(p) {
			set[path.Dir(p)+"/"] = true
		}
	}
	for _, p := range c.Delete {
		if IsIndexFile(p) {
			set[path.Dir(p)+"/"] = true
		}
	}
	return sortedKeys(set)
}

// Spared is a file a change no longer deletes, and the index file that lists it.
type Spared struct{ Path, Index string }

// KeepListed drops from a change's deletes every file that another placement's index file lists
// (indexes: index file => store paths it lists; own: see ListedBy), so that a destroy or a prune
// never takes a file someone else still writes. Index files the change itself puts or deletes
// are its own, and so are those Kratix wrote for the same WorkPlacements (see OwnIndex). Folder deletes ("…/") and prunes are left alone: they are a placement's own
// folders, where no index of mode none points.
func KeepListed(c Change, indexes map[string][]string) (Change, []Spared) {
	var mine []string
	for p := range c.Put {
		if IsIndexFile(p) {
			mine = append(mine, p)
		}
	}
	for _, p := range c.Delete {
		if IsIndexFile(p) {
			mine = append(mine, p)
		}
	}
	isOwn := OwnIndex(mine)
	var files []string
	for _, p := range c.Delete {
		if !strings.HasSuffix(p, "/") && !IsIndexFile(p) {
			files = append(files, p)
		}
	}
	listed := ListedBy(indexes, isOwn, files)
	if len(listed) == 0 {
		return c, nil
	}
	out := c
	out.Delete = nil
	var spared []Spared
	for _, p := range c.Delete {
		if idx, ok := listed[p]; ok {
			spared = append(spared, Spared{Path: p, Index: idx})
			continue
		}
		out.Delete = append(out.Delete, p)
	}
	return out, spared
}

// IndexOwner names the owner of an index file from its name, when this provider wrote it:
// `<namespace>-<promise>_<name>_<namespace>_<pipeline>.<destination>-5058f.yaml` for a request
// (Kubernetes names never hold "_", so the parts are certain), `kratix-platform-system-<promise>-
// static-deps.<destination>-5058f.yaml` for a promise's dependencies. ok is false for other
// names (Kratix's own, with five random characters).
func IndexOwner(index string) (Owner, bool) {
	name := path.Base(index)
	if parts := strings.Split(name, "_"); len(parts) == 4 {
		ns := parts[2]
		if promise, ok := strings.CutPrefix(parts[0], ns+"-"); ok && promise != "" && parts[1] != "" {
			return RequestOwner(ns, promise, parts[1]), true
		}
		return "", false
	}
	if rest, ok := strings.CutPrefix(name, layout.PromiseNamespace+"-"); ok {
		if promise, _, found := strings.Cut(rest, "-static-deps."); found && promise != "" {
			return PromiseOwner(promise), true
		}
	}
	return "", false
}

// RequestOwner is a request as an owner, named by its one identity (RequestID:
// <promise>/<namespace>/<name>), as its id and every message spell it.
func RequestOwner(namespace, promise, name string) Owner {
	return Owner("request " + RequestID(promise, namespace, name))
}

// PromiseOwner is a promise's dependencies as an owner.
func PromiseOwner(name string) Owner { return Owner(fmt.Sprintf("promise %q", name)) }

// CollisionDetail is the detail of the error that refuses a collision: who wants the path, who
// has it, where, and what to do.
func CollisionDetail(o Owner, dest string, c Collision) string {
	var first string
	switch {
	case c.Index == "":
		first = fmt.Sprintf("%s writes it too, in this plan", c.Other)
	case c.Other != "":
		first = fmt.Sprintf("%s writes it already: index file %q lists it (another workspace or state)", c.Other, c.Index)
	default:
		first = fmt.Sprintf("index file %q lists it already: another placement (written by Kratix, or by another tool) owns it", c.Index)
	}
	return fmt.Sprintf("%s would write %q in destination %q (%s), but %s. One file has one owner: Kratix would "+
		"let the last writer overwrite it, so that the two swap its content on every apply and the destroy of one "+
		"deletes the other's file; this provider refuses the plan instead. Give one of them another name or file "+
		"key, or place it on another destination. If the other owner gives the file up in this same apply "+
		"(destroyed, renamed), apply that change first.",
		capitalise(string(o)), c.Path, dest, c.Location, first)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// OwnIndex says whether an index file belongs to the placements whose own index files (as this
// provider names them) are mine: one of them, or one Kratix wrote for the same WorkPlacement,
// which an adopted placement finds beside its own and whose files are that placement's.
func OwnIndex(mine []string) func(index string) bool {
	set := map[string]bool{}
	for _, m := range mine {
		set[m] = true
	}
	return func(index string) bool {
		if set[index] {
			return true
		}
		for _, m := range mine {
			if kratixTwin(m, index) {
				return true
			}
		}
		return false
	}
}

// kratixTwin reports whether index is a file Kratix names after the same WorkPlacement as own,
// an index file this provider names. The name of own does not say where the pipeline (or the
// promise) ends and the destination begins when either holds ".", so every split is tried
// against Kratix's pattern for that placement.
func kratixTwin(own, index string) bool {
	dir := path.Dir(own)
	if path.Dir(index) != dir || path.Base(dir) != layout.IndexDir {
		return false
	}
	root := strings.TrimSuffix(strings.TrimSuffix(dir, layout.IndexDir), "/")
	name, ok := strings.CutSuffix(path.Base(own), "-"+layout.DefaultGroupID+".yaml")
	if !ok {
		return false
	}
	target := func(dest string) layout.Target { return layout.Target{Destination: dest, Root: root} }
	if parts := strings.Split(name, "_"); len(parts) == 4 {
		ns, rest := parts[2], parts[3]
		promise, ok := strings.CutPrefix(parts[0], ns+"-")
		if !ok {
			return false
		}
		for i := strings.Index(rest, "."); i >= 0; i = nextDot(rest, i) {
			r := layout.Request{Promise: promise, Namespace: ns, Name: parts[1], Pipeline: rest[:i]}
			if layout.KratixRequestIndex(target(rest[i+1:]), r).Match(index) {
				return true
			}
		}
		return false
	}
	rest, ok := strings.CutPrefix(name, layout.PromiseNamespace+"-")
	if !ok {
		return false
	}
	const deps = "-static-deps."
	for from := 0; ; {
		i := strings.Index(rest[from:], deps)
		if i < 0 {
			return false
		}
		i += from
		if layout.KratixDependencyIndex(target(rest[i+len(deps):]), rest[:i]).Match(index) {
			return true
		}
		from = i + 1
	}
}

func nextDot(s string, i int) int {
	j := strings.Index(s[i+1:], ".")
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
