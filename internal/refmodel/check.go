package refmodel

import (
	"bytes"
	"fmt"
	"strings"
)

// Comparing the stores with the model: which files of a snapshot belong to which destination
// folder, and what may be outside every folder.

// folderFiles are the files of folder root: not those of a folder inside it that the model knows
// too (one a destination had before, or has now, while this one was elsewhere), not aggregate
// parts (a destination at its store's root holds <store path>/.kratix-aggregates/), and not the
// files the store held from the start (see outsideFolders).
func folderFiles(m *Model, initial, snap map[string][]byte, root string) map[string][]byte {
	actual := map[string][]byte{}
	for p, b := range snap {
		if !under(root, p) || isPart(p) {
			continue
		}
		if was, ok := initial[p]; ok && bytes.Equal(was, b) {
			continue
		}
		inner := false
		for other := range m.roots {
			inner = inner || other != root && under(root, other) && under(other, p)
		}
		if !inner {
			actual[p] = b
		}
	}
	return actual
}

// isPart: p is in a store path's aggregate parts folder, or in its registry (the owner records,
// bookkeeping outside every destination folder that the model does not state; the owner tests
// check them).
func isPart(p string) bool {
	for _, sp := range modelStorePaths {
		if strings.HasPrefix(p, inFolder(sp, modelAggregatesDir)+"/") || strings.HasPrefix(p, inFolder(sp, modelRegistryDir)+"/") {
			return true
		}
	}
	return false
}

// modelRegistryDir is where, under a store's path, the provider keeps its owner records.
const modelRegistryDir = ".kratix-registry"

// outsideFolders reports files that are in no destination folder the model knows, not in an
// aggregate parts folder (<store path>/.kratix-aggregates/), and not in the store from the start.
func outsideFolders(m *Model, initial, snap [2]map[string][]byte) []string {
	var report []string
	for store := range 2 {
		for _, p := range modelKeys(initial[store]) {
			if b, ok := snap[store][p]; !ok || !bytes.Equal(b, initial[store][p]) {
				report = append(report, fmt.Sprintf("store %d: %s, there from the start, was changed or deleted (present %v)", store, p, ok))
			}
		}
		for _, p := range modelKeys(snap[store]) {
			if b, ok := initial[store][p]; ok && bytes.Equal(b, snap[store][p]) {
				continue
			}
			inside := isPart(p)
			for root := range m.roots {
				inside = inside || under(root, p)
			}
			if !inside {
				report = append(report, fmt.Sprintf("store %d: unexpected %s, outside every destination folder\n    got %q", store, p, snap[store][p]))
			}
		}
	}
	return report
}

// modelAggregatesDir is where, under a store's path, the provider keeps the parts of aggregatedYAML
// files (so that every writer can rebuild the whole, as the flat modes require).
const modelAggregatesDir = ".kratix-aggregates"

// FolderProblems compares what the stores hold (snap, read back by the runner) with what the
// model says every destination folder it knows must hold, and reports what differs, and every
// file outside those folders. initial is what the stores held before the first apply (a git
// repository's README), which must stay as it was; names are the stores' bucket or repository
// names, for the report.
func (m *Model) FolderProblems(initial, snap [2]map[string][]byte, names [2]string) ([]string, error) {
	w := m.w
	var report []string
	for _, root := range modelKeys(m.roots) {
		for store := range 2 {
			loc := modelLoc{store, root}
			fe, err := m.expect(loc)
			if err != nil {
				return nil, err
			}
			actual := folderFiles(m, initial[store], snap[store], root)
			if diffs := fe.compare(actual); len(diffs) > 0 {
				where := "no destination here now"
				for _, d := range presentDests(w) {
					if w.loc(d) == loc {
						where = fmt.Sprintf("destination %s, %s, cleanup %s, init_workloads %v", d.name, d.mode, d.cleanup, !d.noInit)
					}
				}
				report = append(report, fmt.Sprintf("store %d (%s) folder %s (%s):\n  %s", store, names[store], loc.root, where, strings.Join(diffs, "\n  ")))
			}
		}
	}
	return append(report, outsideFolders(m, initial, snap)...), nil
}
