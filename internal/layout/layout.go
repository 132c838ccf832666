// Package layout says where each file goes in a State Store, in Kratix's folder layout: the root
// folder of a destination, the canary files written when a destination is registered, and the
// files and folders the provider owns (and may therefore remove) under a destination's root.
//
// It is pure: no Terraform, no I/O. Paths are slash-separated, relative to the bucket or
// repository root, never with a leading slash.
package layout

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is a destination's filepath mode.
type Mode string

const (
	// ModeNestedByMetadata is Kratix's default: dependencies/ and resources/ trees.
	ModeNestedByMetadata Mode = "nestedByMetadata"
	// ModeNone writes files straight under the root and tracks them in .kratix/ index files.
	ModeNone Mode = "none"
	// ModeAggregatedYAML writes one file holding every placement's documents.
	ModeAggregatedYAML Mode = "aggregatedYAML"
	// ModeSplitByKind is Kratix's 2023 layout: crds/ and resources/ folders.
	ModeSplitByKind Mode = "splitByKind"
)

// Modes lists every mode, the default first.
var Modes = []Mode{ModeNestedByMetadata, ModeNone, ModeAggregatedYAML, ModeSplitByKind}

// DefaultAggregatedFilename is the file name of aggregatedYAML mode when none is given.
const DefaultAggregatedFilename = "aggregated.yaml"

// DefaultGroupID is the first five hex digits of md5("."): Kratix's short id for the default
// workload group (ShortGroupID(".")), the folder a default group's placement owns in
// nestedByMetadata mode. A request's other groups have their own (see groups.go).
const DefaultGroupID = "5058f"

// IndexDir is the folder, under a destination's root, of the files that record what each
// placement wrote in mode none. (The parts of aggregatedYAML files live under AggregatesDir.)
const IndexDir = ".kratix"

// CheckRelative rejects a path that would leave the folder it is relative to: an absolute path,
// one whose ".." segments climb above the folder (filepath.IsLocal decides), or one with a
// backslash. "", "." and "/" all mean the folder itself; "a/../b" stays inside and is "b" once
// joined.
func CheckRelative(p string) error {
	switch {
	case p == "" || p == "." || p == "/":
		return nil
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q starts with \"/\"; give it relative to the store (\"/\" alone means the root)", p)
	case strings.Contains(p, "\\"):
		return fmt.Errorf("path %q contains a backslash; use \"/\" to separate folders", p)
	case filepath.IsLocal(p):
		return nil
	case slices.Contains(strings.Split(p, "/"), ".."):
		return fmt.Errorf("path %q contains \"..\" that leads outside the store; paths must stay inside it", p)
	}
	// Windows refuses names of its own (NUL, COM1, a drive letter) anywhere in a local path.
	return fmt.Errorf("path %q is not a relative path on this system (it names a device or a drive); rename that folder", p)
}

// Root is a destination's folder in its store: the store's path joined with the destination's
// path, cleaned, with no leading slash. The store root is "".
func Root(storePath, destinationPath string) (string, error) {
	if err := CheckRelative(storePath); err != nil {
		return "", fmt.Errorf("state store %w", err)
	}
	if err := CheckRelative(destinationPath); err != nil {
		return "", fmt.Errorf("destination %w", err)
	}
	root := clean(path.Join(strings.TrimPrefix(storePath, "/"), strings.TrimPrefix(destinationPath, "/")))
	if InRegistry(storePath, root) {
		return "", fmt.Errorf("destination path %q is inside %s/, the folder the provider keeps for its records of "+
			"owners and published objects: no destination may have its folder there", destinationPath, RegistryDir)
	}
	return root, nil
}

// Join joins a root and a relative path into a store path.
func Join(root string, elem ...string) string {
	return clean(path.Join(append([]string{root}, elem...)...))
}

// Prefix is the listing prefix of a folder under root: it ends in "/", or is "" for the store
// root.
func Prefix(root string, elem ...string) string {
	p := Join(root, elem...)
	if p == "" {
		return ""
	}
	return p + "/"
}

func clean(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	return p
}
