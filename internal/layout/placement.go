package layout

import (
	"fmt"
	"path"
	"slices"
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
	// Kept lists the store paths the promise holds already, on any destination (see keptIndex).
	Kept []string
}

// Files is what one placement keeps in a store.
type Files struct {
	// Put maps store paths to content: every file this placement writes, index files included.
	Put map[string][]byte
	// Prune lists the folders the placement owns outright; files in them that are not in Put
	// are stale.
	Prune []string
	// Claims lists single files the placement owns whether or not it writes them now (the two
	// splitByKind files, an index file, a contribution): one not in Put is stale.
	Claims []string
	// Aggregate, when set, is the aggregatedYAML file rebuilt from every contribution.
	Aggregate *Aggregate
}

// Aggregate is an aggregatedYAML file: File holds the contents of every file under Dir, in name
// order, joined with "\n---\n", and disappears when Dir is empty.
type Aggregate struct {
	File, Dir string
}

// ContributionExt is the extension of the files that hold each placement's part of an
// aggregatedYAML file. It is not a manifest extension, so that no GitOps agent applies them even
// where they sit under a folder it reads (Flux's generated kustomization and Argo CD's directory
// source take *.yaml, *.yml and *.json only).
const ContributionExt = ".part"

// PlacementName is a deterministic name for the placement of a Work's default workload group, in
// the shape of Kratix's WorkPlacement names (<work>.<destination>-<group id>) but without Kratix's
// random suffix, so that every plan names the same files.
func PlacementName(work, destination string) string {
	return GroupPlacementName(work, destination, DefaultGroupDir)
}

// GroupPlacementName is PlacementName for the workload group of folder group: its name ends in
// that group's short id, as Kratix names a WorkPlacement of the group (see ShortGroupID).
func GroupPlacementName(work, destination, group string) string {
	return fmt.Sprintf("%s.%s-%s", work, destination, ShortGroupID(group))
}

// DependenciesWork names the Work of a promise's static dependencies.
func DependenciesWork(promise string) string { return promise + "-static-deps" }

// DependencyFiles lays out a promise's static dependencies in a destination. Dependencies with
// no document (All empty) put nothing, and claim what they would have written, so that an
// earlier file goes: Kratix creates no Work for them.
func DependencyFiles(t Target, deps Dependencies) (Files, error) {
	p := deps.Promise
	file := fmt.Sprintf("static/%s-dependencies.yaml", p)
	placement := PlacementName(DependenciesWork(p), t.Destination)
	empty := len(deps.All) == 0
	switch t.Mode {
	case ModeNestedByMetadata, "":
		dir := Join(t.Root, "dependencies", p, DefaultGroupID)
		put := map[string][]byte{}
		if !empty {
			put[Join(dir, file)] = deps.All
		}
		return Files{Put: put, Prune: []string{dir + "/"}}, nil
	case ModeNone:
		written := Join(t.Root, file)
		index, err := indexFile(t, PromiseNamespace, placement, []string{written})
		if err != nil {
			return Files{}, err
		}
		if kept := keptIndex(KratixDependencyIndex(t, p), deps.Kept); kept != "" {
			index.path = kept
		}
		f := Files{Put: map[string][]byte{}, Claims: []string{written, index.path}}
		if !empty {
			f.Put[written], f.Put[index.path] = deps.All, index.content
		}
		return f, nil
	case ModeAggregatedYAML:
		return contribution(t, placement, deps.All), nil
	case ModeSplitByKind:
		return splitFiles(t, fmt.Sprintf("default-%s-default", p), deps.CRDs, deps.Others), nil
	}
	return Files{}, fmt.Errorf("unknown filepath mode %q", t.Mode)
}

// DependencyDocuments lists the files in which DependencyFiles puts the dependencies' documents
// in t (not index files), in the order their documents join (the CRDs file before the other in
// splitByKind), so that what a destination holds can be read back from them.
func DependencyDocuments(t Target, promise string) ([]string, error) {
	marks := Dependencies{Promise: promise, All: []byte("all"), CRDs: []byte("crds"), Others: []byte("others")}
	f, err := DependencyFiles(t, marks)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, mark := range [][]byte{marks.All, marks.CRDs, marks.Others} {
		for p, content := range f.Put {
			if string(content) == string(mark) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// contribution is a placement's part of an aggregatedYAML file: kept apart from the destination's
// folder, so that the folder holds exactly the aggregate and the canaries, as Kratix writes it.
func contribution(t Target, placement string, content []byte) Files {
	agg := AggregateOf(t)
	part := Join(agg.Dir, placement+ContributionExt)
	f := Files{Put: map[string][]byte{}, Claims: []string{part}, Aggregate: &agg}
	if len(content) > 0 {
		f.Put[part] = content
	}
	return f
}

// splitFiles lays out documents in the 2023 layout: CRDs first, then everything else; a file
// with no document is not written.
func splitFiles(t Target, work string, crds, others []byte) Files {
	crdFile := Join(t.Root, "crds", "00-"+work+"-crds.yaml")
	otherFile := Join(t.Root, "resources", "01-"+work+"-resources.yaml")
	f := Files{Put: map[string][]byte{}, Claims: []string{crdFile, otherFile}}
	if len(crds) > 0 {
		f.Put[crdFile] = crds
	}
	if len(others) > 0 {
		f.Put[otherFile] = others
	}
	return f
}

// AggregatesDir is the folder, under a store's path, that holds the parts of every aggregatedYAML
// file of that store.
const AggregatesDir = ".kratix-aggregates"

// AggregateOf is where the aggregatedYAML file of a destination and its parts live. The file is
// in the destination's folder; each placement keeps its part under the store's path, in a folder
// named after the destination's folder and the file, so that any writer (another resource,
// another workspace) can rebuild the whole file without knowing the others, and a renamed file
// starts from its own parts.
func AggregateOf(t Target) Aggregate {
	name := t.AggregatedFilename
	if name == "" {
		name = DefaultAggregatedFilename
	}
	base := clean(strings.TrimPrefix(t.StorePath, "/"))
	rel := t.Root
	if base != "" {
		rel = strings.TrimPrefix(strings.TrimPrefix(t.Root, base), "/")
	}
	folder := strings.ReplaceAll(rel, "/", "%2F")
	if folder == "" {
		folder = "%2E"
	}
	return Aggregate{File: Join(t.Root, name), Dir: Prefix(base, AggregatesDir, folder, strings.ReplaceAll(name, "/", "%2F"))}
}

type generated struct {
	path    string
	content []byte
}

// indexFile records, as Kratix does in mode none, the files a placement wrote, relative to the
// store's path, so that stale files can be found and removed. They are listed in Kratix's order
// (see sortKratixPaths), so that an index file Kratix wrote for the same files is the same bytes
// and an adoption leaves it as it is; the YAML is the same too (Kratix marshals its
// StateFile{Files []string `json:"files"`} with gopkg.in/yaml.v2, which sigs.k8s.io/yaml uses
// underneath).
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
	sortKratixPaths(rel)
	content, err := yaml.Marshal(Index{Files: rel})
	if err != nil {
		return generated{}, err
	}
	return generated{path: Join(t.Root, IndexDir, fmt.Sprintf("%s-%s.yaml", namespace, placement)), content: content}, nil
}

// sortKratixPaths puts paths in the order Kratix lists a WorkPlacement's files in its index file:
// the order of the Work's workloads, which the work creator collects by walking the pipeline's
// output folder depth first, each folder's entries sorted by name (os.ReadDir), a folder's files
// listed where the folder comes (work-creator/lib/work_creator.go, getWorkloadsFromDir); the
// WorkPlacement keeps that order (internal/controller/scheduler.go) and so does its index file
// (internal/controller/workplacement_controller.go, generateKratixStateFile). That is paths
// compared folder by folder, each name by its bytes: "app/deploy.yaml" comes before "app.yaml"
// (the folder "app" sorts before the file "app.yaml"), where comparing whole paths puts "app.yaml"
// first ("." sorts before "/"). A path that is a folder of another cannot be a file as well, so
// ties between a name and a longer path do not arise among files; the shorter goes first.
func sortKratixPaths(paths []string) {
	slices.SortFunc(paths, func(a, b string) int {
		as, bs := strings.Split(a, "/"), strings.Split(b, "/")
		for i := 0; i < len(as) && i < len(bs); i++ {
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
		}
		return len(as) - len(bs)
	})
}

// DefaultPipeline is the pipeline a resource request's files are filed under when none is given.
const DefaultPipeline = "instance-configure"

// Request is a resource request's output, or one workload group of it: files by path relative to
// the pipeline's output folder, as a Kratix pipeline leaves them in /kratix/output.
type Request struct {
	Promise, Namespace, Name, Pipeline string
	// Group is the folder of the workload group these files are, cleaned (see CleanGroupDir and
	// SplitGroups); "" or DefaultGroupDir for the default group. A group's files keep the folder
	// in their paths ("db/app.yaml"), and are placed apart from the request's other groups.
	Group string
	Files map[string][]byte
	// CRDs and Others are the documents of Files split for splitByKind, already serialised.
	CRDs, Others []byte
	// Kept lists the store paths the request holds already (see keptIndex).
	Kept []string
}

// keptIndex is the index file a placement of mode none keeps: among the store paths it holds
// already (kept), the one that k matches, that is the index file Kratix wrote for it in this
// folder and that an import adopted; "" when there is none, and the provider's own name is used.
// Kratix's index lists the files the placement writes, as the provider's would: writing a second
// one beside it would add a file that says the same thing (and leave two owners of one list).
func keptIndex(k KratixIndex, kept []string) string {
	var found []string
	for _, p := range kept {
		if k.Match(p) {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found)
	return found[0]
}

// RequestWork names a request's Work in the order Kratix does (promise, name, namespace,
// pipeline), joined with "_" rather than Kratix's "-": Kubernetes names never hold "_", so two
// requests can never share a name (request "a-b" of promise "db" and request "b" of promise
// "db-a" would both be "db-a-b-..." with "-"), and their index files and aggregate parts stay
// apart.
func RequestWork(r Request) string {
	return fmt.Sprintf("%s_%s_%s_%s", r.Promise, r.Name, r.Namespace, r.Pipeline)
}

// RequestFiles lays out a resource request's files, those of its workload group r.Group, in a
// destination, as Kratix lays out the WorkPlacement of that group: in nestedByMetadata under a
// folder named after the group's short id; in none at their paths under the root, with an index
// file named after the placement (which ends in the short id); in aggregatedYAML as the part of
// that placement. splitByKind predates groups: a group other than the default one names its two
// files after the Work and its short id.
func RequestFiles(t Target, r Request) (Files, error) {
	if err := checkRequestGroup(r); err != nil {
		return Files{}, err
	}
	short := ShortGroupID(r.Group)
	placement := GroupPlacementName(RequestWork(r), t.Destination, r.Group)
	switch t.Mode {
	case ModeNestedByMetadata, "":
		dir := Join(t.Root, "resources", r.Namespace, r.Promise, r.Name, r.Pipeline, short)
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
		if kept := keptIndex(KratixRequestIndex(t, r), r.Kept); kept != "" {
			index.path = kept
		}
		f := Files{Put: put, Claims: []string{index.path}}
		if len(put) > 0 {
			put[index.path] = index.content
		}
		return f, nil
	case ModeAggregatedYAML:
		names := sortedFileNames(r.Files)
		parts := make([]string, 0, len(names))
		for _, n := range names {
			parts = append(parts, string(r.Files[n]))
		}
		return contribution(t, placement, []byte(strings.Join(parts, "\n---\n"))), nil
	case ModeSplitByKind:
		// Kratix then named these files after the Work's namespace and name.
		work := fmt.Sprintf("%s-%s-default-%s-%s", r.Namespace, r.Promise, r.Namespace, r.Name)
		if !IsDefaultGroup(r.Group) {
			work += "-" + short
		}
		return splitFiles(t, work, r.CRDs, r.Others), nil
	}
	return Files{}, fmt.Errorf("unknown filepath mode %q", t.Mode)
}

func sortedFileNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// JoinAggregate builds an aggregatedYAML file from its parts by path: ordered by file name
// without the extension (the placement name), joined with "\n---\n", with nothing before or
// after, as Kratix joins its WorkPlacements.
func JoinAggregate(parts map[string][]byte) []byte {
	names := make([]string, 0, len(parts))
	for n := range parts {
		names = append(names, n)
	}
	stem := func(n string) string { return strings.TrimSuffix(n, path.Ext(n)) }
	sort.Slice(names, func(i, j int) bool { return stem(names[i]) < stem(names[j]) })
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString("\n---\n")
		}
		b.Write(parts[n])
	}
	return []byte(b.String())
}
