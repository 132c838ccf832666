package health

import (
	"sort"
	"strings"

	yaml3 "go.yaml.in/yaml/v3"
)

// revisionKey is the field of a Flux Kustomization's status that names what it applied last.
const revisionKey = "lastAppliedRevision"

// revisionOfDetails finds the revision Flux applied in a record's data.details.
//
// The rule: a lastAppliedRevision at the top of details wins. Without one, details may nest what
// Flux reported one level down (details.flux, details.kustomization, details.status...): every
// lastAppliedRevision found there counts, and the revision is theirs only when they all name the
// same commit. A health agent that reports two Kustomizations at different commits tells us
// nothing we can compare, so the revision is then unknown (""). Deeper levels are not searched.
func revisionOfDetails(details *yaml3.Node) string {
	if details == nil || details.Kind != yaml3.MappingNode {
		return ""
	}
	if v := lookup(details, revisionKey); v != nil {
		return RevisionOf(scalarValue(v))
	}
	var found []string
	for i := 0; i+1 < len(details.Content); i += 2 {
		if v := lookup(resolve(details.Content[i+1]), revisionKey); v != nil {
			found = append(found, RevisionOf(scalarValue(v)))
		}
	}
	sort.Strings(found)
	if len(found) == 0 || found[0] != found[len(found)-1] {
		return ""
	}
	return found[0]
}

// RevisionOf reads the git commit out of a Flux revision string, in lower case. It knows the
// forms Flux writes for git sources:
//
//	main@sha1:<40 hex>   Flux 2.0 and later (also any ref before the "@", or none: "sha1:<40 hex>")
//	main/<40 hex>        Flux before 2.0 (the ref may itself hold slashes)
//	<40 hex>             a bare commit
//
// Anything else (a SHA-256 repository, an OCI digest, a bucket's checksum, text) gives "".
func RevisionOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "@"); i >= 0 {
		s = s[i+1:]
		if !strings.HasPrefix(s, "sha1:") {
			return ""
		}
	}
	if rest, ok := strings.CutPrefix(s, "sha1:"); ok {
		s = rest
	} else if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	if !isSHA1(s) {
		return ""
	}
	return strings.ToLower(s)
}

func isSHA1(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
