package refmodel

// Workload groups in the model-based test: a request may place folders of its files on their own
// (`groups = { <folder> = { destination_selectors = [...] } }`); "groups" adds a group, drops one
// or changes one's selectors. The rules, from the documentation of kratix_resource_request
// ("Workload groups") and issue 23, written here without the provider's code:
//
//   - Each key names a folder directly in the request's files. Its files, at any depth, are the
//     group's and keep their paths; every other file (and `documents`, as <name>.yaml) is the
//     default group, placed as a request is (replicas.go). With no file left for the default
//     group, the request has no default placement: `destinations` is empty.
//   - A group goes to one destination of the promise's pool, among those its own selectors
//     select (neither the promise's nor the request's are added), by the rules of a request of
//     one destination (taints.go, with the request's tolerations), ranked on the key
//     "<namespace>/<promise>/<name>#<folder>". It stays while its destination is in the pool,
//     misscheduled when that stops matching, and moves only when drained (written before it is
//     removed) or when the destination leaves the pool.
//   - Where its files go: nestedByMetadata under <pipeline>/<short id>/ instead of 5058f/, the
//     short id being the first five hex digits of the MD5 of the folder's name; none at their
//     paths, listed by an index file of their own (whose name is the provider's business, as the
//     default group's is: the model compares indexes by what they list); aggregatedYAML as the
//     group's documents in the aggregate; splitByKind in files named after the request's work
//     followed by "-<short id>".
//   - A group removed from the configuration: its files go back to the default group.
//
// The model keeps a group's destination in Model.choice and its files in the ledger under the key
// "<request>#<folder>" (groupKey), beside the request's own.

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// groupShort is the short id of the workload group of folder: the first five hex digits of the
// MD5 of its name.
func groupShort(folder string) string {
	sum := md5.Sum([]byte(folder))
	return hex.EncodeToString(sum[:])[:5]
}

// groupKey is the model's name for r's group of folder, in Model.choice, in the ledger's owners
// and in the runner's `choices` output.
func groupKey(r *modelRequest, folder string) string { return r.name + "#" + folder }

// splitGroupKey is the request and the folder of a groupKey ("" for a request's own key).
func splitGroupKey(key string) (request, folder string) {
	request, folder, _ = strings.Cut(key, "#")
	return request, folder
}

// groupFolders are the folders directly in r's files that hold a file, sorted: what a group may
// name.
func groupFolders(r *modelRequest) []string {
	var out []string
	for name := range modelRequestFiles(r.kratixName(), r.files) {
		if top, _, nested := strings.Cut(name, "/"); nested && !slices.Contains(out, top) {
			out = append(out, top)
		}
	}
	return sorted(out)
}

// groupOf is the group a file of r's output is in: its top folder when r groups it, else ""
// (the default group).
func (r *modelRequest) groupOf(name string) string {
	if top, _, nested := strings.Cut(name, "/"); nested {
		if _, ok := r.groups[top]; ok {
			return top
		}
	}
	return ""
}

// groupOutput is the part of r's output in the group of folder ("" for the default group).
func (w *modelWorld) groupOutput(r *modelRequest, folder string) map[string]modelYAML {
	out := map[string]modelYAML{}
	for name, y := range w.requestOutput(r) {
		if r.groupOf(name) == folder {
			out[name] = y
		}
	}
	return out
}

// hasDefaultGroup: some file of r is left for its default group.
func (w *modelWorld) hasDefaultGroup(r *modelRequest) bool {
	return len(w.groupOutput(r, "")) > 0
}

// groupCandidates are the destinations of r's promise's pool that the group's own selectors
// select, sorted.
func (w *modelWorld) groupCandidates(r *modelRequest, folder string) []string {
	p := w.promises[r.promise]
	sel := r.groups[folder].merged()
	var out []string
	for _, d := range w.dests {
		if p.inPool(d) && selects(sel, d) {
			out = append(out, d.name)
		}
	}
	return out
}

// placeGroup is where r's group of folder goes when it is on prior (none or one destination).
func (w *modelWorld) placeGroup(r *modelRequest, folder string, prior []string) requestPlacement {
	return w.placeOn(placeSpec{key: w.rendezvousKey(r) + "#" + folder, promise: w.promises[r.promise],
		candidates: w.groupCandidates(r, folder), n: 1, tolerations: r.tolerations, replicas: "1 (a group)"}, prior)
}

// randomGroupSelectors are a group's selectors: mostly one label some present destination has
// (so that the group usually finds a destination), sometimes none.
func randomGroupSelectors(rng *rand.Rand, w *modelWorld) modelSelector {
	var labels []map[string]string
	for _, d := range presentDests(w) {
		for _, k := range modelKeys(d.labels) {
			labels = append(labels, map[string]string{k: d.labels[k]})
		}
	}
	if len(labels) == 0 || rng.IntN(5) == 0 {
		return nil
	}
	return modelSelector{pick(rng, labels)}
}

// drawGroups gives a third of a new world's requests the files of modelRequestGroupFiles and a
// group or two, and a few others a group for a folder they have. It draws after everything else.
func drawGroups(rng *rand.Rand, w *modelWorld) {
	for _, r := range w.requests {
		switch rng.IntN(6) {
		case 0, 1:
			r.files = modelRequestGroupFiles
		case 2:
		default:
			continue
		}
		folders := groupFolders(r)
		if len(folders) == 0 {
			continue
		}
		r.groups = map[string]modelSelector{}
		for _, f := range folders {
			if len(r.groups) == 0 || rng.IntN(2) == 0 {
				r.groups[f] = randomGroupSelectors(rng, w)
			}
		}
	}
}

// dropStaleGroups removes r's groups whose folder its files no longer have (the plan refuses
// them), and says which.
func dropStaleGroups(r *modelRequest) []string {
	var gone []string
	for _, f := range modelKeys(r.groups) {
		if !slices.Contains(groupFolders(r), f) {
			delete(r.groups, f)
			gone = append(gone, f)
		}
	}
	if len(r.groups) == 0 {
		r.groups = nil
	}
	return gone
}

// groupsText describes r's groups and where the model has them.
func (m *Model) groupsText(r *modelRequest) string {
	if len(r.groups) == 0 {
		return "none"
	}
	var parts []string
	for _, f := range modelKeys(r.groups) {
		parts = append(parts, fmt.Sprintf("%s (%s, on %q)", f, selectorText2(r.groups[f]), m.choice[groupKey(r, f)]))
	}
	return strings.Join(parts, ", ")
}

// groupsOp makes "groups": a present request gets a group (its files changed to
// modelRequestGroupFiles when it has no folder to group), loses one (its files go back to the
// default group), or one of its groups gets other selectors (sticky: nothing moves while its
// destination stays in the pool).
func (m *Model) groupsOp(rng *rand.Rand, requests []*modelRequest) (Op, bool) {
	if len(requests) == 0 {
		return Op{}, false
	}
	r := pick(rng, requests)
	before := m.groupsText(r)
	var free []string
	for _, f := range groupFolders(r) {
		if _, ok := r.groups[f]; !ok {
			free = append(free, f)
		}
	}
	switch k := rng.IntN(3); {
	case k == 0 && len(r.groups) > 0:
		f := pick(rng, modelKeys(r.groups))
		delete(r.groups, f)
		if len(r.groups) == 0 {
			r.groups = nil
		}
		return Op{Desc: fmt.Sprintf("request %s groups %s: %s dropped, its files go back to the default group (on %q)", r.name, before, f, m.choice[r.name])}, true
	case k == 1 && len(r.groups) > 0:
		f := pick(rng, modelKeys(r.groups))
		old := r.groups[f]
		for j := 0; j < 8 && selectorText2(r.groups[f]) == selectorText2(old); j++ {
			r.groups[f] = randomGroupSelectors(rng, m.w)
		}
		if selectorText2(r.groups[f]) == selectorText2(old) {
			return Op{}, false
		}
		op := Op{Desc: fmt.Sprintf("request %s groups %s: %s selectors %s -> %s", r.name, before, f, selectorText2(old), selectorText2(r.groups[f]))}
		if on := m.choice[groupKey(r, f)]; len(on) > 0 && slices.Equal(m.w.placeGroup(r, f, on).set, on) {
			// (Not while it waits drained for somewhere to go, which the new selectors may give.)
			op.Desc += ": sticky, nothing moves"
			op.Quiet = true
		}
		return op, true
	}
	desc := ""
	if len(free) == 0 {
		if r.files == modelRequestGroupFiles {
			return Op{}, false
		}
		desc = fmt.Sprintf(", files #%d -> #%d", r.files, modelRequestGroupFiles)
		r.files = modelRequestGroupFiles
		if gone := dropStaleGroups(r); len(gone) > 0 {
			desc += fmt.Sprintf(" (dropping groups %q)", gone)
		}
		free = groupFolders(r)
	}
	f := pick(rng, free)
	if r.groups == nil {
		r.groups = map[string]modelSelector{}
	}
	r.groups[f] = randomGroupSelectors(rng, m.w)
	return Op{Desc: fmt.Sprintf("request %s groups %s%s: %s added with selectors %s", r.name, before, desc, f, selectorText2(r.groups[f]))}, true
}

// groupDrains: some group of r is on d, which drains it, and has somewhere else to go.
func (m *Model) groupDrains(r *modelRequest, d *modelDest) bool {
	for _, f := range modelKeys(r.groups) {
		on := m.choice[groupKey(r, f)]
		if slices.Contains(on, d.name) && drains(r.tolerations, d) && !slices.Contains(m.w.placeGroup(r, f, on).set, d.name) {
			return true
		}
	}
	return false
}

// hclGroups renders r's groups.
func hclGroups(r *modelRequest) string {
	var parts []string
	for _, f := range modelKeys(r.groups) {
		parts = append(parts, fmt.Sprintf("    %s = { destination_selectors = %s }\n", hclString(f), hclSelectors(r.groups[f])))
	}
	return "  groups = {\n" + strings.Join(parts, "") + "  }\n"
}

// settleGroups checks where the provider placed each of r's groups (placed by groupKey: none or
// one destination) against placeGroup, and records it.
func (m *Model) settleGroups(r *modelRequest, placed map[string][]string) []string {
	var problems []string
	for _, f := range modelKeys(r.groups) {
		key := groupKey(r, f)
		got, listed := placed[key]
		if !listed {
			problems = append(problems, fmt.Sprintf("request %s group %s: the state has no group_placements entry for it", r.name, f))
		}
		prior := m.choice[key]
		pl := m.w.placeGroup(r, f, prior)
		if !slices.Equal(got, pl.set) {
			problems = append(problems, fmt.Sprintf("request %s group %s (key %q, selectors %s): placed on %q, want %q; %s",
				r.name, f, m.w.rendezvousKey(r)+"#"+f, selectorText2(r.groups[f]), got, pl.set, pl.why))
		}
		for _, l := range pl.left {
			if !slices.Contains(got, l.from) {
				m.left = append(m.left, leftMove{request: key, leftDest: l})
			}
		}
		m.choice[key] = slices.Clone(got)
	}
	return problems
}
