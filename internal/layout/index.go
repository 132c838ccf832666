package layout

import (
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

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
