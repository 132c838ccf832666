package placement

import (
	"regexp"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// CanaryWork names the destination's own placement in records and messages.
const CanaryWork = layout.CanaryWorkName

// PlanCanaries says what a destination keeps of its own: Kratix's two canary files when
// initWorkloads is true, none otherwise. The canaries are claimed either way, so that turning
// initWorkloads off removes them whether or not state recorded them (Kratix deletes them too).
func PlanCanaries(m Member, initWorkloads bool) Plan {
	f := layout.Files{Put: map[string][]byte{}}
	for p, c := range layout.Canaries(mode(m.Target), m.Target.Root) {
		f.Claims = append(f.Claims, p)
		if initWorkloads {
			f.Put[p] = c
		}
	}
	var o ops
	o.write(m, f, m.Name, nil, true)
	p := Plan{Records: map[string]Record{m.Name: record(&o, m, f)}, Ops: o.list(), Scheduled: []string{m.Name}, prior: map[string]Prior{}}
	return p
}

// Cleanup returns what destroying a destination with cleanup = "all" removes: what its
// placements and canaries own, found in listing (every file under the destination's folder) and
// in the index files read there (indexes, by path), confined to the folder; and the aggregate's
// parts. A file beside them (a hand-written kustomization.yaml, a README) stays.
func Cleanup(t layout.Target, listing []string, indexes map[string]layout.Index) Change {
	c := Change{Put: map[string][]byte{}}
	rootPrefix := layout.Prefix(t.Root)
	canaries := layout.Canaries(mode(t), t.Root)
	doomed := map[string]bool{}
	for _, p := range listing {
		if !strings.HasPrefix(p, rootPrefix) {
			continue
		}
		rel := strings.TrimPrefix(p, rootPrefix)
		if _, canary := canaries[p]; canary || ownedShape(mode(t), rel) {
			doomed[p] = true
		}
	}
	for idxPath, idx := range indexes {
		if !strings.HasPrefix(idxPath, layout.Prefix(t.Root, layout.IndexDir)) {
			continue
		}
		doomed[idxPath] = true
		for _, f := range layout.IndexedFiles(t.StorePath, idx) {
			if _, canary := canaries[f]; strings.HasPrefix(f, rootPrefix) && !canary {
				doomed[f] = true
			}
		}
	}
	if mode(t) == layout.ModeAggregatedYAML {
		agg := layout.AggregateOf(t)
		doomed[agg.File] = true
		c.Delete = append(c.Delete, agg.Dir)
	}
	c.Delete = append(c.Delete, sortedKeys(doomed)...)
	c.Delete = unique(c.Delete)
	return c
}

var (
	// A placement's folder in nestedByMetadata: dependencies/<promise>/[<pipeline>/]<id>/... and
	// resources/<namespace>/<promise>/<name>/<pipeline>/<id>/..., <id> five hex digits.
	nestedDependency = regexp.MustCompile(`^dependencies/[^/]+/([^/]+/)?[0-9a-f]{5}/.+`)
	nestedResource   = regexp.MustCompile(`^resources/[^/]+/[^/]+/[^/]+/[^/]+/[0-9a-f]{5}/.+`)
	// The 2023 layout's files: crds/00-<work>-crds.yaml and resources/01-<work>-resources.yaml.
	splitCRDs      = regexp.MustCompile(`^crds/00-[^/]+-crds\.yaml$`)
	splitResources = regexp.MustCompile(`^resources/01-[^/]+-resources\.yaml$`)
)

// ownedShape says whether a path under a destination's folder has the shape of a placement's
// file in that mode.
func ownedShape(m layout.Mode, rel string) bool {
	switch m {
	case layout.ModeNestedByMetadata:
		return nestedDependency.MatchString(rel) || nestedResource.MatchString(rel)
	case layout.ModeSplitByKind:
		return splitCRDs.MatchString(rel) || splitResources.MatchString(rel)
	}
	return false
}

// RequestsHeld lists, sorted, the resource requests whose files a destination's folder holds, as
// <promise>/<namespace>/<name> (RequestID), read from the paths of a listing of the folder. Only
// nestedByMetadata names a request in its paths (resources/<namespace>/<promise>/<name>/...);
// for the other modes known is false.
func RequestsHeld(t layout.Target, listing []string) (ids []string, known bool) {
	if mode(t) != layout.ModeNestedByMetadata {
		return nil, false
	}
	rootPrefix := layout.Prefix(t.Root)
	seen := map[string]bool{}
	for _, p := range listing {
		rel, ok := strings.CutPrefix(p, rootPrefix)
		if !ok || !nestedResource.MatchString(rel) {
			continue
		}
		parts := strings.SplitN(rel, "/", 5) // resources, namespace, promise, name, rest
		seen[RequestID(parts[2], parts[1], parts[3])] = true
	}
	return sortedKeys(seen), true
}
