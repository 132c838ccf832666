package acctest

import "strings"

// Registry is the folder, under a store's path, where the provider keeps its registration and
// owner records (issue 39). Spelled here, not taken from the provider's code: see the package doc.
const Registry = ".kratix-registry/"

// IsRecord reports whether the store path p lies in a registry folder, at any depth (a store
// path puts it under a folder).
func IsRecord(p string) bool {
	return strings.HasPrefix(p, Registry) || strings.Contains(p, "/"+Registry)
}

// GitOpsOnly is the one filter of the registry out of what tests compare as a store's GitOps
// layout: the listings of Files, the writes of a journal (a bucket's "PUT <key>" and "DELETE
// <key>", a repository's commit subjects, which name the record when a commit writes only a
// record: "Update from: <path>") and the model test's snapshots: an entry whose last word is a
// record's path goes. Records are checked on their own, by path (FileHolds, FileMatches,
// FileMissing and the tests of registration).
func GitOpsOnly(entries []string) []string {
	out := entries[:0:0]
	for _, e := range entries {
		if f := strings.Fields(e); len(f) > 0 && IsRecord(f[len(f)-1]) {
			continue
		}
		out = append(out, e)
	}
	return out
}
