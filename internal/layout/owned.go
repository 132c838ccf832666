package layout

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Owned says what the provider manages under a destination's root, for `cleanup = "all"`.
type Owned struct {
	// Prefixes are folders (ending in "/") removed with everything in them.
	Prefixes []string
	// Files are single files removed if present.
	Files []string
	// Indexes is the folder (ending in "/") holding index files; in mode none the files they
	// list are owned too, and must be read to be found.
	Indexes string
}

// OwnedBy returns what a destination owns under root in the given mode. Files beside these (a
// README, another tool's folder) are never touched.
func OwnedBy(mode Mode, root, aggregatedFilename string) Owned {
	o := Owned{Indexes: Prefix(root, IndexDir)}
	for p := range Canaries(mode, root) {
		o.Files = append(o.Files, p)
	}
	switch mode {
	case ModeNestedByMetadata:
		o.Prefixes = []string{Prefix(root, "dependencies"), Prefix(root, "resources")}
	case ModeSplitByKind:
		o.Prefixes = []string{Prefix(root, "crds"), Prefix(root, "resources")}
	case ModeAggregatedYAML:
		if aggregatedFilename == "" {
			aggregatedFilename = DefaultAggregatedFilename
		}
		o.Files = append(o.Files, Join(root, aggregatedFilename))
	}
	o.Prefixes = append(o.Prefixes, o.Indexes)
	sort.Strings(o.Files)
	return o
}

// Index is the content of a `.kratix/<namespace>-<placement>.yaml` file: the store paths a
// placement wrote in mode none, relative to the store's path (as Kratix records them).
type Index struct {
	Files []string `json:"files"`
}

// ParseIndex reads an index file.
func ParseIndex(content []byte) (Index, error) {
	var idx Index
	if err := yaml.UnmarshalStrict(content, &idx); err != nil {
		return Index{}, fmt.Errorf("reading index file: %w", err)
	}
	return idx, nil
}

// IndexedFiles turns the paths of an index, relative to the store's path, into store paths,
// dropping any that would leave the store's path.
func IndexedFiles(storePath string, idx Index) []string {
	base := clean(strings.TrimPrefix(storePath, "/"))
	var out []string
	for _, f := range idx.Files {
		if CheckRelative(f) != nil {
			continue
		}
		out = append(out, clean(path.Join(base, f)))
	}
	return out
}
