package health

import "strings"

// DestinationOf returns the destination whose records a file holds: the first folder below root
// in path. root may be "" (the store's top), and may end in "/". It returns false for a path
// outside root, a file directly in root, an empty, "." or ".." folder name, and a file whose name
// does not end in ".yaml" or ".yml".
func DestinationOf(root, path string) (string, bool) {
	if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
		return "", false
	}
	root = strings.Trim(root, "/")
	if root != "" {
		rest, ok := strings.CutPrefix(path, root+"/")
		if !ok {
			return "", false
		}
		path = rest
	}
	destination, _, ok := strings.Cut(path, "/")
	if !ok || destination == "" || destination == "." || destination == ".." {
		return "", false
	}
	return destination, true
}
