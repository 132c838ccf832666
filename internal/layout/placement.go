package layout

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// PromiseNamespace is the namespace Kratix gives the Works of promises, used in index file names.
const PromiseNamespace = "kratix-platform-system"

// Target is where one placement goes: a destination's folder and layout.
type Target struct {
	Destination        string
	Mode               Mode
	StorePath          string // the store's path, which index files are relative to
	Root               string // the destination's folder: Root(StorePath, destination path)
	AggregatedFilename string
}

// Dependencies is a promise's static dependencies, already serialised.
type Dependencies struct {
	Promise string
	All     []byte // every document
	CRDs    []byte // the CustomResourceDefinitions only (splitByKind); nil when none
	Others  []byte // every other document (splitByKind); nil when none
}

// Files is what one placement keeps in a store.
type Files struct {
	// Put maps store paths to content: every file this placement owns, index files included.
	Put map[string][]byte
	// Prune lists the folders the placement owns outright; files in them that are not in Put
	// are stale.
	Prune []string
	// Aggregate, when set, is the aggregatedYAML file rebuilt from every contribution.
	Aggregate *Aggregate
}

// Aggregate is an aggregatedYAML file: File holds the contents of every file under Dir, in name
// order, joined with "\n---\n", and disappears when Dir is empty.
type Aggregate struct {
	File, Dir string
}

// PlacementName is a deterministic name for a placement, in the shape of Kratix's WorkPlacement
// names (<work>.<destination>-<group id>) but without Kratix's random suffix, so that every plan
// names the same files.
func PlacementName(work, destination string) string {
	return fmt.Sprintf("%s.%s-%s", work, destination, DefaultGroupID)
}

// DependenciesWork names the Work of a promise's static dependencies.
func DependenciesWork(promise string) string { return promise + "-static-deps" }

// DependencyFiles lays out a promise's static dependencies in a destination.
func DependencyFiles(t Target, deps Dependencies) (Files, error) {
	p := deps.Promise
	file := fmt.Sprintf("static/%s-dependencies.yaml", p)
	placement := PlacementName(DependenciesWork(p), t.Destination)
	switch t.Mode {
	case ModeNestedByMetadata, "":
		dir := Join(t.Root, "dependencies", p, DefaultGroupID)
		return Files{
			Put:   map[string][]byte{Join(dir, file): deps.All},
			Prune: []string{dir + "/"},
		}, nil
	case ModeNone:
		written := Join(t.Root, file)
		index, err := indexFile(t, PromiseNamespace, placement, []string{written})
		if err != nil {
			return Files{}, err
		}
		return Files{Put: map[string][]byte{written: deps.All, index.path: index.content}}, nil
	case ModeAggregatedYAML:
		agg := AggregateOf(t)
		return Files{
			Put:       map[string][]byte{Join(agg.Dir, placement+".yaml"): deps.All},
			Aggregate: &agg,
		}, nil
	case ModeSplitByKind:
		work := fmt.Sprintf("default-%s-default", p)
		put := map[string][]byte{}
		if len(deps.CRDs) > 0 {
			put[Join(t.Root, "crds", "00-"+work+"-crds.yaml")] = deps.CRDs
		}
		if len(deps.Others) > 0 {
			put[Join(t.Root, "resources", "01-"+work+"-resources.yaml")] = deps.Others
		}
		return Files{Put: put}, nil
	}
	return Files{}, fmt.Errorf("unknown filepath mode %q", t.Mode)
}

// AggregateOf is where the aggregatedYAML file of a destination and its contributions live. Each
// placement keeps its own contribution under .kratix/ so that any writer can rebuild the whole
// file without knowing the others.
func AggregateOf(t Target) Aggregate {
	name := t.AggregatedFilename
	if name == "" {
		name = DefaultAggregatedFilename
	}
	return Aggregate{File: Join(t.Root, name), Dir: Prefix(t.Root, IndexDir, "aggregated")}
}

type generated struct {
	path    string
	content []byte
}

// indexFile records, as Kratix does in mode none, the files a placement wrote, relative to the
// store's path, so that stale files can be found and removed.
func indexFile(t Target, namespace, placement string, written []string) (generated, error) {
	base := clean(strings.TrimPrefix(t.StorePath, "/"))
	rel := make([]string, 0, len(written))
	for _, w := range written {
		r := w
		if base != "" {
			r = strings.TrimPrefix(w, base+"/")
		}
		rel = append(rel, r)
	}
	sort.Strings(rel)
	content, err := yaml.Marshal(Index{Files: rel})
	if err != nil {
		return generated{}, err
	}
	return generated{path: Join(t.Root, IndexDir, fmt.Sprintf("%s-%s.yaml", namespace, placement)), content: content}, nil
}

// DefaultPipeline is the pipeline a resource request's files are filed under when none is given.
const DefaultPipeline = "instance-configure"

// Request is a resource request's output: files by path relative to the pipeline's output
// folder, as a Kratix pipeline leaves them in /kratix/output.
type Request struct {
	Promise, Namespace, Name, Pipeline string
	Files                              map[string][]byte
	// CRDs and Others are the documents of Files split for splitByKind, already serialised.
	CRDs, Others []byte
}

// RequestWork names a request's Work as Kratix does: <promise>-<name>-<namespace>-<pipeline>.
func RequestWork(r Request) string {
	return fmt.Sprintf("%s-%s-%s-%s", r.Promise, r.Name, r.Namespace, r.Pipeline)
}

// RequestFiles lays out a resource request's files in a destination.
func RequestFiles(t Target, r Request) (Files, error) {
	placement := PlacementName(RequestWork(r), t.Destination)
	switch t.Mode {
	case ModeNestedByMetadata, "":
		dir := Join(t.Root, "resources", r.Namespace, r.Promise, r.Name, r.Pipeline, DefaultGroupID)
		put := map[string][]byte{}
		for rel, c := range r.Files {
			put[Join(dir, rel)] = c
		}
		return Files{Put: put, Prune: []string{dir + "/"}}, nil
	case ModeNone:
		put := map[string][]byte{}
		var written []string
		for rel, c := range r.Files {
			p := Join(t.Root, rel)
			put[p] = c
			written = append(written, p)
		}
		index, err := indexFile(t, r.Namespace, placement, written)
		if err != nil {
			return Files{}, err
		}
		put[index.path] = index.content
		return Files{Put: put}, nil
	case ModeAggregatedYAML:
		agg := AggregateOf(t)
		names := make([]string, 0, len(r.Files))
		for rel := range r.Files {
			names = append(names, rel)
		}
		sort.Strings(names)
		parts := make([]string, 0, len(names))
		for _, n := range names {
			parts = append(parts, string(r.Files[n]))
		}
		return Files{
			Put:       map[string][]byte{Join(agg.Dir, placement+".yaml"): []byte(strings.Join(parts, "\n---\n"))},
			Aggregate: &agg,
		}, nil
	case ModeSplitByKind:
		// Kratix then named these files after the Work's namespace and name.
		work := fmt.Sprintf("%s-%s-default-%s-%s", r.Namespace, r.Promise, r.Namespace, r.Name)
		put := map[string][]byte{}
		if len(r.CRDs) > 0 {
			put[Join(t.Root, "crds", "00-"+work+"-crds.yaml")] = r.CRDs
		}
		if len(r.Others) > 0 {
			put[Join(t.Root, "resources", "01-"+work+"-resources.yaml")] = r.Others
		}
		return Files{Put: put}, nil
	}
	return Files{}, fmt.Errorf("unknown filepath mode %q", t.Mode)
}
