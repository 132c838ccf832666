package refmodel

// The reference model of TestAccModel_*: for a configuration (a modelWorld) and the history of
// applies that led to it, what every destination folder must hold, file by file and byte by byte.
//
// It is written from the documented scheduling and layout rules and deliberately shares no code with the engine
// (internal/layout, internal/scheduling, the resources): it states what each folder must contain,
// not how a writer gets there. Where the documented behaviour leaves a choice to the provider (index file names,
// the order of the aggregate, whether files left behind by a destination that moved away are
// pruned), the model says "maybe" instead of guessing; every such place is commented.

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// ---------------------------------------------------------------------------------------------
// Corpus: the YAML the generated configurations use. Every document is written here ALREADY in
// the canonical YAML form (keys sorted, two-space indentation, documents joined with
// "---\n"), so that the bytes the store must hold are the literal itself and the model needs no
// YAML serialiser of its own. TestModelCorpusIsCanonical checks that precondition against
// manifest.Canonical; it is a check of the corpus, not of the model.

// modelDoc is one Kubernetes document in canonical form.
type modelDoc struct {
	text string
	crd  bool // a CustomResourceDefinition: splitByKind files it under crds/
}

// modelYAML is a multi-document YAML value as the configuration gives it.
type modelYAML struct {
	literal string     // the value in the configuration, byte for byte
	docs    []modelDoc // its documents; literal is their "---\n" join unless there are none
}

func yamlOf(docs ...modelDoc) modelYAML {
	return modelYAML{literal: joinDocs(docs), docs: docs}
}

func joinDocs(docs []modelDoc) string {
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.text
	}
	return strings.Join(texts, "---\n")
}

// modelNoDocuments is dependencies that hold no document: a promise with it writes nothing.
var modelNoDocuments = modelYAML{literal: "# none yet\n"}

func nsDoc(name string) modelDoc {
	return modelDoc{text: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n"}
}

func cmDoc(name, key, value string) modelDoc {
	return modelDoc{text: "apiVersion: v1\ndata:\n  " + key + ": " + value + "\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: default\n"}
}

func svcDoc(name string, port int) modelDoc {
	return modelDoc{text: fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\nspec:\n  ports:\n  - port: %d\n    protocol: TCP\n", name, port)}
}

func crdDoc(plural, kind string) modelDoc {
	return modelDoc{crd: true, text: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + plural +
		".example.com\nspec:\n  group: example.com\n  names:\n    kind: " + kind + "\n    plural: " + plural +
		"\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"}
}

// modelDepsCorpus are the dependencies a promise can have. Entry 0 holds no document.
var modelDepsCorpus = []modelYAML{
	modelNoDocuments,
	yamlOf(nsDoc("team-a")),
	yamlOf(nsDoc("team-a"), cmDoc("settings", "mode", "fast")),
	yamlOf(crdDoc("widgets", "Widget"), nsDoc("widgets-system")),
	yamlOf(crdDoc("widgets", "Widget")),
	yamlOf(cmDoc("settings", "mode", "safe"), svcDoc("frontend", 80)),
}

// modelRequestFiles are a request's `files`, by the request's name (file names start with it so
// that two requests on one destination in mode none never name the same file).
func modelRequestFiles(req string, i int) map[string]modelYAML {
	switch i {
	case 0:
		return map[string]modelYAML{req + "-app.yaml": yamlOf(cmDoc(req+"-app", "size", "small"))}
	case 1:
		return map[string]modelYAML{
			req + "-app.yaml":         yamlOf(cmDoc(req+"-app", "size", "large")),
			req + "-net/service.yaml": yamlOf(svcDoc(req+"-svc", 8080)),
		}
	case 2:
		return map[string]modelYAML{req + "-kinds.yaml": yamlOf(crdDoc("gadgets", "Gadget"), cmDoc(req+"-gadget", "size", "medium"))}
	case 3:
		// Sub-folders shared by every request: in mode none two requests on one destination
		// both write under ROOT/sub/, and neither may prune the other's files. The last file
		// only ends like a canary's path: it is the request's like any other (ownership reserves
		// the canaries' own paths, not their names in sub-folders).
		return map[string]modelYAML{
			"sub/" + req + "-x.yaml":                       yamlOf(cmDoc(req+"-x", "size", "tiny")),
			"sub/deep/" + req + "-cfg.yaml":                yamlOf(svcDoc(req+"-cfg", 9090), cmDoc(req+"-cfg", "level", "deep")),
			"sub/" + req + "/kratix-canary-namespace.yaml": yamlOf(cmDoc(req+"-look", "like", "canary")),
		}
	case modelRequestGroupFiles:
		// Only files in folders, for workload groups (groups.go): with both folders grouped and
		// no documents, no file is left for the default group.
		return map[string]modelYAML{
			"db/" + req + "-db.yaml":        yamlOf(svcDoc(req+"-db", 5432)),
			"db/init/" + req + "-seed.yaml": yamlOf(cmDoc(req+"-seed", "rows", "ten")),
			"web/" + req + "-web.yaml":      yamlOf(cmDoc(req+"-web", "size", "small"), crdDoc("pages", "Page")),
		}
	case modelRequestCollides:
		// One name for every request ("collide" only): two requests on one destination in mode
		// none write the same file, which the plan must refuse.
		return map[string]modelYAML{"shared-settings.yaml": yamlOf(cmDoc(req+"-shared", "owner", req))}
	}
	return nil // modelRequestNoFiles
}

const (
	modelRequestNoFiles    = 4
	modelRequestFilesCount = 5
	// modelRequestCollides is never drawn at random: see "collide".
	modelRequestCollides = 5
	// modelRequestGroupFiles is drawn with workload groups only (drawGroups, "groups").
	modelRequestGroupFiles = 6
)

// modelRequestDocuments are a request's `documents` (index 0: not set).
func modelRequestDocuments(req string, i int) (modelYAML, bool) {
	switch i {
	case 1:
		return yamlOf(nsDoc(req + "-ns")), true
	case 2:
		return yamlOf(cmDoc(req+"-doc", "owner", "platform"), nsDoc(req+"-ns")), true
	}
	return modelYAML{}, false
}

const modelRequestDocumentsCount = 3

// The canary files Kratix writes with init_workloads, exact bytes.
const (
	modelCanaryNamespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\nspec: {}\nstatus: {}\n"
	modelCanaryConfigMap = "apiVersion: v1\ndata:\n  canary: this confirms your infrastructure is reading from Kratix state stores\nkind: ConfigMap\nmetadata:\n  name: kratix-info\n  namespace: kratix-worker-system\n"
)

// ---------------------------------------------------------------------------------------------
// The configuration.

const (
	modeNested = "nestedByMetadata"
	modeNone   = "none"
	modeAgg    = "aggregatedYAML"
	modeSplit  = "splitByKind"
)

// Modes are the filepath modes a destination may have, as KRATIX_MODEL_MODES names them.
var Modes = []string{modeNested, modeNone, modeAgg, modeSplit}

// modelWorld is one configuration: three store resources, a few destinations, two promises and
// one or two resource requests. Absent objects are destroyed (and recreated a step later).
type modelWorld struct {
	kind     string   // "bucket" or "git-http"
	modes    []string // the filepath modes destinations may have
	stores   []*modelStore
	dests    []*modelDest
	promises []*modelPromise
	requests []*modelRequest
	pending  []string // objects destroyed by the last step, recreated by the next ("d:d1", "p:p0", "r:r1")
	imports  []string // import blocks of the next apply ("<address>=<id>"); the runner clears them
	replaced []string // objects the next apply replaces with -replace ("d:d0", "p:p1", "r:r0"; settle consumes it)
	// reimported are promises the next apply imports after `terraform state rm` ("p:pg"; settle
	// consumes it): a rollout is read back from the stores (replacedRollout).
	reimported []string
	// edited are files edited by hand before the next apply together with a change of the
	// configuration (settle consumes it): a file the apply no longer writes keeps the hand's bytes.
	edited []Hand
	// adopted are requests the next apply imports (settle consumes it): they may list their
	// destinations in another order.
	adopted map[string]bool
	// Lifecycle (lifecycle.go), for this step only (nextOp clears them): objects rendered with
	// create_before_destroy, the address the failing resource of an interrupted apply depends
	// on, and whether w.pending were destroyed by `terraform destroy -target` (the configuration
	// still holds them for that command).
	cbd       []string
	interrupt string
	targeted  bool
	// aimGate: the operation being drawn aims at the gated promise (nextOp sets it around one
	// draw of "replace", "cbdgate" or "reimport").
	aimGate bool
}

// modelStore is one kratix_state_store resource. Stores 0 and 1 name two different buckets (or
// repositories); store 2 is a second resource for bucket 0, under another resource name and
// possibly another spelling: a destination that moves between stores 0 and 2 without changing
// its folder has not moved (ownership: files follow their owner, not their folder).
type modelStore struct {
	bucket   int    // the bucket or repository it names: 0 or 1 (a modelLoc's store)
	path     string // its path, cleaned: "" (the root) or "team"
	spelling int    // how path is written (modelStorePathSpellings): cosmetic
	secret   string // "s" or "t": two provider secrets with the same credentials
	variant  int    // bucket: spelling of the endpoint's host; git: spelling of the URL
	author   bool   // git: set an explicit author
}

// modelStorePathSpellings are the ways of writing a store's path, by cleaned path; "" leaves the
// attribute unset.
var modelStorePathSpellings = map[string][]string{"": {"", ".", "/"}, "team": {"team", "team/", "./team"}}

// modelStorePaths are the cleaned store paths a store resource may have.
var modelStorePaths = []string{"", "team"}

type modelDest struct {
	name    string
	present bool
	store   int    // index in modelWorld.stores
	path    string // "." or "/" for the store's root; never equal to or nested in another destination's folder
	labels  map[string]string
	strict  bool
	mode    string
	agg     string // aggregated_filename
	cleanup string // "all" or "none"
	noInit  bool   // init_workloads = false
	taints  []modelTaint
	weight  int // 0: unset (counts as 1)
}

// root is the destination's folder: the store's path joined with the destination's path ("" is
// the bucket's root).
func (w *modelWorld) root(d *modelDest) string {
	return strings.Trim(path.Join("/", w.stores[d.store].path, d.path), "/")
}

// under: p is a file in folder root ("" holds everything).
func under(root, p string) bool { return root == "" || strings.HasPrefix(p, root+"/") }

// inFolder joins a folder and a relative path ("" is the bucket's root).
func inFolder(root, rel string) string { return strings.TrimPrefix(path.Join(root, rel), "/") }

// loc is where the destination's folder is: its store's bucket and its root.
func (w *modelWorld) loc(d *modelDest) modelLoc {
	return modelLoc{w.stores[d.store].bucket, w.root(d)}
}

type modelSelector []map[string]string // destination_selectors: match_labels of each entry

type modelPromise struct {
	name      string
	present   bool
	selectors modelSelector
	deps      int             // index in modelDepsCorpus
	delete    bool            // on_unschedule = "delete"
	left      map[string]bool // destinations left out of its pool (`destinations`), present or not
	rollout   *modelRollout   // nil: none
	guard     *modelGuard     // nil: none (guard.go)
	// tolerations of its dependencies (taints.go)
	tolerations []modelToleration
}

// inPool: d is a present destination of p's pool.
func (p *modelPromise) inPool(d *modelDest) bool { return d != nil && d.present && !p.left[d.name] }

type modelRequest struct {
	// name is the resource's name in the configuration and the model's key for the request;
	// kname, when set, is the request's name in Kratix instead ("collide" gives two requests of
	// different promises, or namespaces, one name).
	name, kname, namespace, pipeline string
	present                          bool
	promise                          int
	selectors                        modelSelector
	files                            int // modelRequestFiles index
	// groups are its workload groups: folder -> the group's destination_selectors (groups.go)
	groups      map[string]modelSelector
	documents   int // modelRequestDocuments index
	tolerations []modelToleration
	replicas    int  // 0: null (one)
	spread      bool // spread = { topology_key = "zone" } (replicas.go)
}

// kratixName is the request's `name` attribute: what its files and folders are named after.
func (r *modelRequest) kratixName() string {
	if r.kname != "" {
		return r.kname
	}
	return r.name
}

func (w *modelWorld) dest(name string) *modelDest {
	for _, d := range w.dests {
		if d.name == name {
			return d
		}
	}
	return nil
}

func (w *modelWorld) promise(name string) *modelPromise {
	for _, p := range w.promises {
		if p.name == name {
			return p
		}
	}
	return nil
}

func (w *modelWorld) request(name string) *modelRequest {
	for _, r := range w.requests {
		if r.name == name {
			return r
		}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// Scheduling, Kratix's rule for combining selectors: match_labels of the entries merge (first entry wins on a key), a
// request's selectors are added to its promise's (the promise wins), and no selector at all
// selects every destination except strict ones that carry labels.

func (s modelSelector) merged() map[string]string {
	out := map[string]string{}
	for _, entry := range s {
		for k, v := range entry {
			if _, seen := out[k]; !seen {
				out[k] = v
			}
		}
	}
	return out
}

func combineSelectors(promise, request modelSelector) map[string]string {
	out := request.merged()
	for k, v := range promise.merged() {
		out[k] = v
	}
	return out
}

func selects(sel map[string]string, d *modelDest) bool {
	if len(sel) == 0 {
		return !d.strict || len(d.labels) == 0
	}
	for k, v := range sel {
		if got, ok := d.labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// candidates are the destinations of its promise's pool a request may be placed on, sorted.
func (w *modelWorld) candidates(r *modelRequest) []string {
	p := w.promises[r.promise]
	sel := combineSelectors(p.selectors, r.selectors)
	var out []string
	for _, d := range w.dests {
		if p.inPool(d) && selects(sel, d) {
			out = append(out, d.name)
		}
	}
	return out
}

// ---------------------------------------------------------------------------------------------
// Layout, Kratix's folder layout: what one placement puts in one destination folder.

const modelGroup = "5058f" // md5(".")[:5], Kratix's default workload group

// placementFiles is what one owner (a destination's canaries, a promise, a request) puts in one
// folder.
type placementFiles struct {
	files   map[string][]byte // plain files by store path
	folder  string            // nestedByMetadata: the folder the placement owns ("dir/"), else ""
	aggPath string            // aggregatedYAML: the aggregate file it contributes to
	docs    []string          // aggregatedYAML: its documents (canonical text)
	index   []string          // mode none: the paths its .kratix/ index lists, relative to the store's path; nil: no index
	// claims are single files the placement owns whether or not it writes them now (mode none's
	// file of a promise, splitByKind's two files): when it writes, what it does not write there
	// goes. (A placement also owns its folder, its aggregate contribution and its index.)
	claims []string
}

func (pf placementFiles) empty() bool {
	return len(pf.files) == 0 && len(pf.docs) == 0 && pf.index == nil
}

func canaryFiles(mode, root string) placementFiles {
	var ns, cm string
	switch mode {
	case modeNested:
		ns, cm = "dependencies/kratix-canary-namespace.yaml", "resources/kratix-canary-configmap.yaml"
	case modeNone, modeAgg:
		ns, cm = "kratix-canary-namespace.yaml", "kratix-canary-configmap.yaml"
	case modeSplit:
		ns, cm = "crds/kratix-crds.yaml", "resources/kratix-resources.yaml"
	}
	return placementFiles{files: map[string][]byte{
		path.Join(root, ns): []byte(modelCanaryNamespace),
		path.Join(root, cm): []byte(modelCanaryConfigMap),
	}}
}

func splitCRDs(docs []modelDoc) (crds, others []modelDoc) {
	for _, d := range docs {
		if d.crd {
			crds = append(crds, d)
		} else {
			others = append(others, d)
		}
	}
	return crds, others
}

func docTexts(docs []modelDoc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.text
	}
	return out
}

// promiseFiles: nestedByMetadata and the flat modes for a promise's dependencies. No document, no file (and no
// index, and no contribution to the aggregate).
func promiseFiles(mode, root, agg, promise string, deps modelYAML) placementFiles {
	file := "static/" + promise + "-dependencies.yaml"
	if len(deps.docs) == 0 {
		// Nothing is written, but the placement still owns its place: what an earlier write of
		// the same placement left there goes (Kratix creates no Work for it).
		switch mode {
		case modeNested:
			return placementFiles{folder: path.Join(root, "dependencies", promise, modelGroup) + "/"}
		case modeNone:
			return placementFiles{claims: []string{path.Join(root, file)}}
		case modeAgg:
			return placementFiles{aggPath: path.Join(root, agg)}
		case modeSplit:
			return splitFiles(root, "default-"+promise+"-default", nil)
		}
	}
	all := []byte(joinDocs(deps.docs))
	switch mode {
	case modeNested:
		folder := path.Join(root, "dependencies", promise, modelGroup) + "/"
		return placementFiles{folder: folder, files: map[string][]byte{folder + file: all}}
	case modeNone:
		p := path.Join(root, file)
		return placementFiles{files: map[string][]byte{p: all}, index: []string{p}, claims: []string{p}}
	case modeAgg:
		return placementFiles{aggPath: path.Join(root, agg), docs: docTexts(deps.docs)}
	case modeSplit:
		return splitFiles(root, "default-"+promise+"-default", deps.docs)
	}
	panic("unknown mode " + mode)
}

func splitFiles(root, work string, docs []modelDoc) placementFiles {
	crds, others := splitCRDs(docs)
	crdFile, otherFile := path.Join(root, "crds", "00-"+work+"-crds.yaml"), path.Join(root, "resources", "01-"+work+"-resources.yaml")
	files := map[string][]byte{}
	if len(crds) > 0 {
		files[crdFile] = []byte(joinDocs(crds))
	}
	if len(others) > 0 {
		files[otherFile] = []byte(joinDocs(others))
	}
	return placementFiles{files: files, claims: []string{crdFile, otherFile}}
}

// requestOutput is a request's output as a pipeline would leave it: `files`, plus `documents`
// as <name>.yaml.
func (w *modelWorld) requestOutput(r *modelRequest) map[string]modelYAML {
	out := map[string]modelYAML{}
	for name, y := range modelRequestFiles(r.kratixName(), r.files) {
		out[name] = y
	}
	if docs, ok := modelRequestDocuments(r.kratixName(), r.documents); ok {
		out[r.kratixName()+".yaml"] = docs
	}
	return out
}

// requestFiles: nestedByMetadata and the flat modes for a resource request's default group.
func (w *modelWorld) requestFiles(mode, root, agg string, r *modelRequest) placementFiles {
	return w.groupFiles(mode, root, agg, r, "")
}

// groupFiles: nestedByMetadata and the flat modes for the workload group of folder ("" for the
// default group) of a resource request (groups.go): its files keep their paths, under the
// group's short id in nestedByMetadata, and splitByKind's file names end in it.
func (w *modelWorld) groupFiles(mode, root, agg string, r *modelRequest, folder string) placementFiles {
	promise := w.promises[r.promise].name
	pipeline := r.pipeline
	if pipeline == "" {
		pipeline = "instance-configure"
	}
	out := w.groupOutput(r, folder)
	short, work := modelGroup, r.namespace+"-"+promise+"-default-"+r.namespace+"-"+r.kratixName()
	if folder != "" {
		short = groupShort(folder)
		work += "-" + short
	}
	names := make([]string, 0, len(out))
	for n := range out {
		names = append(names, n)
	}
	sort.Strings(names)
	switch mode {
	case modeNested:
		dir := path.Join(root, "resources", r.namespace, promise, r.kratixName(), pipeline, short) + "/"
		files := map[string][]byte{}
		for _, n := range names {
			files[dir+n] = []byte(out[n].literal)
		}
		return placementFiles{folder: dir, files: files}
	case modeNone:
		files := map[string][]byte{}
		var index []string
		for _, n := range names {
			p := path.Join(root, n)
			files[p] = []byte(out[n].literal)
			index = append(index, p)
		}
		return placementFiles{files: files, index: index}
	case modeAgg:
		var docs []string
		for _, n := range names {
			docs = append(docs, docTexts(out[n].docs)...)
		}
		return placementFiles{aggPath: path.Join(root, agg), docs: docs}
	case modeSplit:
		// The documents of every file, files in name order. (That order is a choice the docs
		// do not spell out; the corpus files are canonical, so re-serialising changes nothing.)
		var docs []modelDoc
		for _, n := range names {
			docs = append(docs, out[n].docs...)
		}
		return splitFiles(root, work, docs)
	}
	panic("unknown mode " + mode)
}

// ---------------------------------------------------------------------------------------------
// History. What a folder holds depends on more than the current configuration: misscheduled
// destinations keep old files, destroyed destinations with cleanup = "none" leave files behind,
// a request keeps its first destination. The model keeps a ledger of entries per folder, each
// one owner's files there with a status, and settles it after every apply.

type modelLoc struct {
	store int
	root  string
}

func (l modelLoc) String() string { return fmt.Sprintf("store %d:%s", l.store, l.root) }

type entryStatus int

const (
	// stLive: written by the current configuration; must be there, byte for byte.
	stLive entryStatus = iota
	// stFrozen: a promise's files on a destination that no longer matches (on_unschedule = "keep"): must
	// stay as they were, not updated.
	stFrozen
	// stOrphan: left behind by a destination destroyed with cleanup = "none" (or canaries left
	// by one replaced with cleanup = "none"): nobody owns them any more; they must stay.
	stOrphan
	// stMaybe: the documented behaviour allows them to be there (with exactly these bytes) or gone. Used where
	// a writer may legitimately prune files it no longer owns or leave them; see settle.
	stMaybe
)

func (s entryStatus) String() string {
	return [...]string{"live", "frozen", "orphan", "maybe"}[s]
}

type ledgerEntry struct {
	owner string // "canary", "p:<promise>", "r:<request>"
	dest  string // the destination whose folder this is
	inc   int    // the destination's incarnation that produced the entry
	mode  string
	placementFiles
	status entryStatus
}

// destApplied is a destination as the last apply left it. An incarnation is one life of the
// destination resource: a replacement (other store location or store path, filepath_mode or
// aggregated_filename, or `terraform apply -replace`) or a recreation starts a new one.
type destApplied struct {
	present   bool
	inc       int
	loc       modelLoc
	storePath string // the store's path, cleaned: index files list paths relative to it
	mode      string
	agg       string
	noInit    bool
}

// sameTarget: the two lay out files in the same place the same way, so that a replacement from
// one to the other is a re-creation in place (`terraform apply -replace`).
func (a destApplied) sameTarget(b destApplied) bool {
	return a.loc == b.loc && a.storePath == b.storePath && a.mode == b.mode && a.agg == b.agg
}

type promisePlacement struct {
	scheduled bool // false: misscheduled, files kept and not updated
	lastDeps  int  // the dependencies it holds: last written while it was scheduled
	// rev is the dependencies the promise records the placement holds (`revisions`), -1 when it
	// records none (applied without `rollout`: then it holds the promise's dependencies as
	// state has them); loc is where its record says it is.
	rev int
	loc modelLoc
	// unsure: waiting in a rollout, not written since its destination was replaced: it may hold
	// its files in the new layout, or not (see settle).
	unsure bool
}

// Model is the model: the configuration and the history of applies.
type Model struct {
	w       *modelWorld
	applied map[string]destApplied       // by destination name
	incs    map[string]int               // last incarnation number handed out, by destination
	placed  map[string]*promisePlacement // "p0@d1": the promise's placement on a pool member
	choice  map[string][]string          // request -> the destinations it is on, in the state's order
	ledger  map[modelLoc][]*ledgerEntry
	beside  map[modelLoc]map[string][]byte // files added by hand beside the owned folders
	roots   map[string]bool                // every folder a destination ever had, in either bucket
	// rollouts and deps are, per promise present at the last apply, where its rollout stands
	// and the dependencies it was applied with (rollout.go).
	rollouts map[string]*rolloutProgress
	deps     map[string]int
	rng      *rand.Rand // draws the operations and faults (New); nil in unit tests that draw their own
	// now is the clock's time, records the HealthRecords of the observe store by destination,
	// and verdicts what the gates did in the last apply, by promise (gate.go).
	now      time.Time
	records  map[string]modelRecord
	verdicts map[string]gateVerdict
	// left are the destinations of the pool the last Settle saw a request leave: drained or past
	// its replicas.
	left []leftMove
}

// leftMove is a destination of the pool a request left: drained (to the destination that
// replaced it, if any) or past its replicas.
type leftMove struct {
	request string
	leftDest
}

func newRefModel(w *modelWorld) *Model {
	return &Model{
		w: w, applied: map[string]destApplied{}, incs: map[string]int{}, placed: map[string]*promisePlacement{},
		choice: map[string][]string{}, ledger: map[modelLoc][]*ledgerEntry{}, beside: map[modelLoc]map[string][]byte{},
		roots: map[string]bool{}, rollouts: map[string]*rolloutProgress{}, deps: map[string]int{},
		now: modelEpoch, records: map[string]modelRecord{}, verdicts: map[string]gateVerdict{},
	}
}

func ownerKind(owner string) (kind, name string) {
	if owner == "canary" {
		return "canary", ""
	}
	return owner[:1], owner[2:]
}

// relIndex makes the paths an index lists relative to the store's path (the flat modes: index files
// list store-relative paths).
func relIndex(pf placementFiles, storePath string) placementFiles {
	if pf.index == nil || storePath == "" {
		return pf
	}
	rel := make([]string, len(pf.index))
	for i, p := range pf.index {
		rel[i] = strings.TrimPrefix(p, storePath+"/")
	}
	pf.index = rel
	return pf
}

// Settle is SettleAll for requests of one destination each: choices are the destination the
// provider chose for each present request ("" for none).
func (m *Model) Settle(choices map[string]string) []string {
	placed := map[string][]string{}
	for r, d := range choices {
		placed[r] = nil
		if d != "" {
			placed[r] = []string{d}
		}
	}
	return m.SettleAll(placed)
}

// SettleAll updates the model after an apply of the current configuration. placed are the
// destinations the provider placed each present request on, in the order of its state's
// `destinations` (empty for none). The model checks each list against its own computation
// (replicas.go, with the ranking of taints.go): the destinations the request was on while they
// stay in the pool and do not drain it, up to its replicas, then the best new ones. It returns
// what differs.
func (m *Model) SettleAll(placed map[string][]string) []string {
	w := m.w
	var problems []string
	m.verdicts = map[string]gateVerdict{}

	// Incarnations.
	forced := map[string]bool{} // "d:d0", "p:p1", "r:r0": replaced by this apply (-replace)
	for _, name := range w.replaced {
		forced[name] = true
	}
	w.replaced = nil
	readBack := map[string]bool{} // "p:pg": imported by this apply (state rm, then import)
	for _, name := range w.reimported {
		readBack[name] = true
	}
	w.reimported = nil
	cur := map[string]destApplied{}
	for _, d := range w.dests {
		prev := m.applied[d.name]
		if !d.present {
			cur[d.name] = destApplied{inc: prev.inc}
			continue
		}
		a := destApplied{present: true, inc: prev.inc, loc: w.loc(d), storePath: w.stores[d.store].path, mode: d.mode, agg: d.agg, noInit: d.noInit}
		if !prev.present || !prev.sameTarget(a) || forced["d:"+d.name] {
			m.incs[d.name]++
			a.inc = m.incs[d.name]
		}
		cur[d.name] = a
		m.roots[a.loc.root] = true
	}
	replaced := func(d string) bool {
		return cur[d].present && (!m.applied[d].present || m.applied[d].inc != cur[d].inc)
	}
	// recreatedInPlace: replaced where it was, laid out the same way, and nothing removed.
	recreatedInPlace := func(d *modelDest, a destApplied) bool {
		return m.applied[d.name].present && m.applied[d.name].sameTarget(a) && d.cleanup != "all"
	}

	// Promise placements (every match is scheduled; on_unschedule): every match is scheduled; a destination written
	// earlier that stops matching is misscheduled, or forgotten with on_unschedule = "delete"
	// (its files go); a destination that leaves the pool, or a destroyed promise, is forgotten.
	// What each scheduled destination gets is the rollout's business (stageRollout).
	for _, p := range w.promises {
		_, existed := m.deps[p.name]
		// A promise with a rollout replaced (-replace) or imported while its folders hold it
		// mid-rollout, or rolled back, goes on where the stores say it stands (replacedRollout).
		replacedMidway, prior := m.replacedRollout(p, forced["p:"+p.name] || readBack["p:"+p.name])
		existed = existed && (!forced["p:"+p.name] || replacedMidway)
		hadPlacements := false
		for _, d := range w.dests {
			hadPlacements = hadPlacements || m.placed[p.name+"@"+d.name] != nil
		}
		var holders []rolloutHolder
		for _, d := range w.dests {
			key := p.name + "@" + d.name
			if forced["p:"+p.name] && !replacedMidway {
				delete(m.placed, key) // destroyed and created again: it holds nothing before the create
			}
			switch {
			case !p.present || !p.inPool(d):
				delete(m.placed, key)
			case selects(p.selectors.merged(), d) && promiseKeeps(p, d, m.placed[key] != nil):
				// (Not on a destination whose taint the promise does not tolerate: NoExecute
				// unschedules it, as a mismatch does; NoSchedule keeps it only where it was.)
				// Held: recorded in the folder the destination has now (a new filepath_mode or
				// aggregate name is not a move). Otherwise it joins, or moved.
				h := rolloutHolder{dest: d}
				if pl := m.placed[key]; pl != nil && pl.loc == cur[d.name].loc {
					h.held, h.heldRev = true, pl.rev
					if pl.rev < 0 {
						h.heldRev = m.deps[p.name]
					}
				}
				holders = append(holders, h)
			case m.placed[key] != nil && p.delete:
				delete(m.placed, key)
			case m.placed[key] != nil:
				m.placed[key].scheduled = false
			}
		}
		if !p.present {
			delete(m.rollouts, p.name)
			delete(m.deps, p.name)
			continue
		}
		give, prog := m.stageRollout(p, prior, holders, existed && hadPlacements)
		for _, h := range holders {
			key := p.name + "@" + h.dest.name
			g := give[h.dest.name]
			pl := &promisePlacement{scheduled: true, lastDeps: g, rev: g, loc: cur[h.dest.name].loc}
			if prior != nil && g != p.deps && g != prior.completed {
				// Waiting with what it holds, neither the configured dependencies nor those that
				// last completed: nothing is written to it. On a destination replaced in this
				// apply (another filepath_mode or aggregate name, or -replace) that is not clear:
				// the files may be in the new layout or not, until its wave writes them.
				old := m.placed[key]
				pl.lastDeps = old.lastDeps
				pl.unsure = old.unsure || replaced(h.dest.name) && !recreatedInPlace(h.dest, cur[h.dest.name])
			}
			m.placed[key] = pl
		}
		if p.rollout == nil {
			for _, d := range w.dests {
				if pl := m.placed[p.name+"@"+d.name]; pl != nil {
					pl.rev = -1 // no `revisions` without a rollout
				}
			}
		}
		m.rollouts[p.name], m.deps[p.name] = prog, p.deps
	}

	// Requests: where placeRequest puts them (replicas.go), which the model computes itself.
	before := maps.Clone(m.choice)
	m.left = nil
	for _, r := range w.requests {
		for key := range before {
			if req, folder := splitGroupKey(key); req == r.name && folder != "" {
				if _, ok := r.groups[folder]; !ok || !r.present || forced["r:"+r.name] {
					delete(m.choice, key) // a group dropped from the configuration, or its request gone
				}
			}
		}
		if !r.present || forced["r:"+r.name] {
			delete(m.choice, r.name) // destroyed (and, with -replace, created again: chosen afresh)
		}
		if !r.present {
			continue
		}
		got, listed := placed[r.name]
		if !listed {
			problems = append(problems, fmt.Sprintf("request %s: the state has no destination for it", r.name))
		}
		prior := m.choice[r.name]
		pl := w.placeRequest(r, prior)
		if !w.hasDefaultGroup(r) {
			// Every file is in a workload group: no default placement, and the destinations
			// it was on lose its files.
			pl = requestPlacement{why: "no file is left for the default group"}
		}
		want := pl.set
		if w.adopted[r.name] && sameMembers(got, want) {
			want = got // adopted by an import: the order it finds them in is its own
		}
		if !slices.Equal(got, want) {
			problems = append(problems, fmt.Sprintf("request %s (key %q): placed on %q, want %q; %s", r.name, w.rendezvousKey(r), got, want, pl.why))
		}
		for _, l := range pl.left {
			if !slices.Contains(got, l.from) {
				m.left = append(m.left, leftMove{request: r.name, leftDest: l})
			}
		}
		m.choice[r.name] = slices.Clone(got)
		problems = append(problems, m.settleGroups(r, placed)...)
	}
	w.adopted = nil

	// The entries already in the ledger.
	old := m.ledger
	m.ledger = map[modelLoc][]*ledgerEntry{}
	add := func(loc modelLoc, e *ledgerEntry) { m.ledger[loc] = append(m.ledger[loc], e) }
	for loc, entries := range old {
		for _, e := range entries {
			prev, now := m.applied[e.dest], cur[e.dest]
			d := w.dest(e.dest)
			if now.present && prev.present && prev.inc == e.inc && now.inc != e.inc && d.cleanup != "all" && prev.sameTarget(now) {
				// Re-created in place (-replace) with cleanup = "none": the destroy removed nothing,
				// and the new incarnation is where the old one was, laid out the same way. Its
				// promises and requests carry on as if nothing happened.
				e.inc = now.inc
			}
			if now.present && now.inc == e.inc {
				// The destination is still this incarnation.
				kind, name := ownerKind(e.owner)
				switch kind {
				case "canary":
					continue // rewritten below, or removed (init_workloads = false)
				case "p":
					p, pl := w.promise(name), m.placed[name+"@"+e.dest]
					switch {
					case e.status == stOrphan:
						// Left by a placement the promise forgot: nobody's (see below).
					case p != nil && p.left[e.dest]:
						// The destination left the promise's pool: the promise forgets it, and its
						// files are the destination's cleanup's business (on_unschedule). They stay, also
						// when the promise is destroyed later.
						if e.status != stMaybe {
							e.status = stOrphan
						}
					case p == nil || !p.present || forced["p:"+name]:
						continue // deleting a promise removes its files, misscheduled ones included
					case pl == nil:
						continue // on_unschedule = "delete" removes them
					case pl.scheduled:
						continue // rewritten below
					case e.status == stLive:
						e.status = stFrozen
					}
				case "r":
					reqName, folder := splitGroupKey(name)
					r := w.request(reqName)
					grouped := false
					if r != nil {
						_, grouped = r.groups[folder]
					}
					switch {
					case e.status == stOrphan:
					case forced["r:"+reqName] && slices.Contains(before[name], e.dest):
						continue // deleted with the request (and written again if it chose this destination again)
					case r != nil && r.present && slices.Contains(m.choice[name], e.dest):
						continue // rewritten below
					case folder != "" && r != nil && r.present && !grouped && !w.promises[r.promise].inPool(d):
						// A group dropped from the configuration while its destination left the
						// pool: whether the drop removes its files there is not documented.
						e.status = stMaybe
					case r != nil && r.present && !w.promises[r.promise].inPool(d):
						// The request moved away from a destination that left its promise's pool:
						// the files it left there are that destination's cleanup's business
						// (a request stays where it is), and stay also when the request is destroyed later.
						if e.status != stMaybe {
							e.status = stOrphan
						}
					default:
						continue // deleted with the request (or moved, which settle reports)
					}
				}
				add(loc, e)
				continue
			}
			if prev.present && prev.inc == e.inc {
				// This apply destroyed, moved or replaced the destination.
				switch {
				case !now.present && destroyedOwner(w, e):
					// Destroyed with it (`terraform destroy -target` of the destination destroys
					// the promises and requests that depend on it first): their destroy removes
					// their files, whatever the destination's cleanup; an aggregate is rebuilt
					// from the parts left, and removed with the last one.
					continue
				case d.cleanup == "all":
					continue // cleanup = "all" removes what its placements and canaries own
				case !now.present:
					// Destroyed with cleanup = "none": every file stays, and the promises
					// and requests forget the destination.
					if e.status != stMaybe {
						e.status = stOrphan
					}
				case e.owner == "canary":
					e.status = stOrphan // nobody but the old destination owned them
				case takenAlong(w, m, e, forced):
					// A real move: the promise or request that wrote them takes its files from
					// where the destination was and writes them where it is (destination page,
					// "A real move"). When the old store is down the apply fails with "Move Not
					// Finished" and the next apply removes them: either way they are gone once
					// the step is settled.
					continue
				default:
					// Replaced (moved, new mode or aggregate name) with cleanup = "none": the old
					// destination leaves its files, but the promise or request that wrote them
					// (misscheduled, waiting in a rollout, a workload group) still has a placement
					// on this destination and may prune what no longer belongs to it. The docs do
					// not say which wins, so they may stay or go.
					e.status = stMaybe
				}
				add(loc, e)
				continue
			}
			add(loc, e) // an older incarnation's leftovers: nobody writes there
		}
	}

	// What the current configuration writes.
	for _, d := range w.dests {
		if !d.present {
			continue
		}
		a := cur[d.name]
		root := a.loc.root
		if !d.noInit {
			add(a.loc, &ledgerEntry{owner: "canary", dest: d.name, inc: a.inc, mode: d.mode, placementFiles: canaryFiles(d.mode, root)})
		}
		for _, p := range w.promises {
			pl := m.placed[p.name+"@"+d.name]
			switch {
			case !p.present || pl == nil || !p.inPool(d):
			case pl.scheduled:
				add(a.loc, &ledgerEntry{owner: "p:" + p.name, dest: d.name, inc: a.inc, mode: d.mode, status: map[bool]entryStatus{true: stMaybe}[pl.unsure],
					placementFiles: relIndex(promiseFiles(d.mode, root, d.agg, p.name, modelDepsCorpus[pl.lastDeps]), a.storePath)})
			case replaced(d.name) && !recreatedInPlace(d, a):
				// Misscheduled on a destination that was just replaced: "no updates" could mean
				// nothing is written to the new folder, or that the kept files are kept there
				// too. Either is allowed, with the bytes last written or the current ones. (A
				// re-creation in place with cleanup = "none" kept the files: they stay frozen.)
				for _, deps := range []int{pl.lastDeps, p.deps} {
					add(a.loc, &ledgerEntry{owner: "p:" + p.name, dest: d.name, inc: a.inc, mode: d.mode, status: stMaybe,
						placementFiles: relIndex(promiseFiles(d.mode, root, d.agg, p.name, modelDepsCorpus[deps]), a.storePath)})
				}
			}
		}
		for _, r := range w.requests {
			if r.present && slices.Contains(m.choice[r.name], d.name) {
				add(a.loc, &ledgerEntry{owner: "r:" + r.name, dest: d.name, inc: a.inc, mode: d.mode,
					placementFiles: relIndex(w.requestFiles(d.mode, root, d.agg, r), a.storePath)})
			}
			for _, f := range modelKeys(r.groups) {
				if r.present && slices.Contains(m.choice[groupKey(r, f)], d.name) {
					add(a.loc, &ledgerEntry{owner: "r:" + groupKey(r, f), dest: d.name, inc: a.inc, mode: d.mode,
						placementFiles: relIndex(w.groupFiles(d.mode, root, d.agg, r, f), a.storePath)})
				}
			}
		}
	}

	// init_workloads = false: the destination claims its canary paths and removes whatever is
	// there, whether or not it recorded them (canary files; Kratix deletes them too).
	noCanaries := map[modelLoc]map[string]bool{}
	for _, d := range w.dests {
		if d.present && d.noInit {
			a := cur[d.name]
			noCanaries[a.loc] = map[string]bool{}
			for p := range canaryFiles(d.mode, a.loc.root).files {
				noCanaries[a.loc][p] = true
			}
		}
	}

	// Live writes over what older entries left in the same folder.
	for loc, entries := range m.ledger {
		lives := map[string]*ledgerEntry{}
		liveAgg := map[string]bool{}
		for _, e := range entries {
			if e.status == stLive {
				lives[e.owner] = e
				if e.mode == modeAgg {
					liveAgg[path.Join(loc.root, w.dest(e.dest).agg)] = true
				}
			}
		}
		var kept []*ledgerEntry
		for _, e := range entries {
			if e.status != stLive {
				if gone := noCanaries[loc]; gone != nil {
					for p := range e.files {
						if gone[p] {
							e.files = maps2(e.files)
							delete(e.files, p)
						}
					}
				}
				if n := lives[e.owner]; n != nil {
					e.files = maps2(e.files)
					for p := range e.files {
						// nestedByMetadata: a placement's write replaces its folder's content; the single
						// files it owns are written or removed.
						if _, rewritten := n.files[p]; rewritten || n.folder != "" && strings.HasPrefix(p, n.folder) || slices.Contains(n.claims, p) {
							delete(e.files, p)
						}
					}
					if n.aggPath != "" && e.aggPath == n.aggPath {
						e.docs = nil // one contribution per placement: the new one replaces it
					}
					if n.mode == modeNone && e.index != nil {
						// The new index file has the same name and replaces the old one. The files
						// only the old one listed may be pruned through it, or not.
						e.index = nil
						if len(e.files) > 0 && e.status != stMaybe {
							kept = append(kept, &ledgerEntry{owner: e.owner, dest: e.dest, inc: e.inc, mode: e.mode, status: stMaybe,
								placementFiles: placementFiles{files: e.files}})
							e.files = nil
						}
					}
				}
				if e.status == stOrphan && len(e.docs) > 0 && liveAgg[e.aggPath] {
					// The aggregate is rebuilt from the contributions the provider keeps; whether
					// an orphan's contribution is still among them is the provider's business.
					kept = append(kept, &ledgerEntry{owner: e.owner, dest: e.dest, inc: e.inc, mode: e.mode, status: stMaybe,
						placementFiles: placementFiles{aggPath: e.aggPath, docs: e.docs}})
					e.docs = nil
				}
			}
			if !e.empty() {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			delete(m.ledger, loc)
		} else {
			m.ledger[loc] = kept
		}
	}
	// Hand edits made before this apply: a file some live placement writes is repaired; any other
	// (frozen, orphaned, maybe) is not updated any more and keeps what the hand left, or stays
	// gone.
	for _, h := range w.edited {
		for loc, entries := range m.ledger {
			if loc.store != h.Store || !under(loc.root, h.Path) {
				continue
			}
			live := slices.ContainsFunc(entries, func(e *ledgerEntry) bool {
				_, ok := e.files[h.Path]
				return ok && e.status == stLive
			})
			for _, e := range entries {
				if _, ok := e.files[h.Path]; ok && !live {
					e.files = maps2(e.files)
					if h.Content == nil {
						delete(e.files, h.Path)
					} else {
						e.files[h.Path] = h.Content
					}
				}
			}
		}
	}
	w.edited = nil
	m.applied = cur
	return problems
}

// takenAlong: e is a promise's or request's placement, written where its destination was before
// a move, that the promise or request takes along: a promise without a rollout still scheduled
// on the destination, or a request's default group still on it, neither replaced. (What a
// misscheduled placement, a rollout's waiting one or a workload group leaves behind is not
// documented: those stay or go.)
func takenAlong(w *modelWorld, m *Model, e *ledgerEntry, forced map[string]bool) bool {
	if e.status != stLive {
		return false
	}
	kind, name := ownerKind(e.owner)
	switch kind {
	case "p":
		p, pl := w.promise(name), m.placed[name+"@"+e.dest]
		return p != nil && p.present && p.rollout == nil && !forced["p:"+name] && p.inPool(w.dest(e.dest)) && pl != nil && pl.scheduled
	case "r":
		req, folder := splitGroupKey(name)
		r := w.request(req)
		return folder == "" && r != nil && r.present && !forced["r:"+req] && slices.Contains(m.choice[name], e.dest)
	}
	return false
}

// destroyedOwner: e is the placement of a promise or request that is not in the configuration
// any more and still records it (live, or misscheduled: a destroy removes those too). An orphan
// is nobody's, and a maybe may stay or go, so neither is one.
func destroyedOwner(w *modelWorld, e *ledgerEntry) bool {
	if e.status != stLive && e.status != stFrozen {
		return false
	}
	kind, name := ownerKind(e.owner)
	switch kind {
	case "p":
		p := w.promise(name)
		return p == nil || !p.present
	case "r":
		req, _ := splitGroupKey(name)
		r := w.request(req)
		return r == nil || !r.present
	}
	return false
}

// sameMembers: a and b hold the same names, in any order.
func sameMembers(a, b []string) bool {
	return len(a) == len(b) && slices.Equal(sorted(a), sorted(b))
}

func maps2(in map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// ---------------------------------------------------------------------------------------------
// Expectations and comparison.

// folderExpect is what one destination folder must hold.
type folderExpect struct {
	loc     modelLoc
	certain map[string][]byte   // must be there with these bytes
	maybe   map[string][][]byte // may be there, with one of these contents
	aggs    map[string]*aggExpect
	indexes []indexExpect
}

type aggExpect struct {
	certain, maybe []string // documents
	// owners are the placements with a part in the aggregate: each part file is named after
	// its placement (a request's workload group has its own), so a change of hands renames one.
	owners []string
}

type indexExpect struct {
	owner   string
	files   []string // sorted
	certain bool
}

// expect is what folder loc must hold now. Nothing else may be in it.
func (m *Model) expect(loc modelLoc) (folderExpect, error) {
	fe := folderExpect{loc: loc, certain: map[string][]byte{}, maybe: map[string][][]byte{}, aggs: map[string]*aggExpect{}}
	for p, b := range m.beside[loc] {
		fe.certain[p] = b
	}
	for _, e := range m.ledger[loc] {
		certain := e.status != stMaybe
		for p, b := range e.files {
			if !certain {
				fe.maybe[p] = append(fe.maybe[p], b)
				continue
			}
			if have, ok := fe.certain[p]; ok && !bytes.Equal(have, b) {
				return fe, fmt.Errorf("model error: %s is claimed with two contents (%s)", p, e.owner)
			}
			fe.certain[p] = b
		}
		if e.aggPath != "" && len(e.docs) > 0 {
			a := fe.aggs[e.aggPath]
			if a == nil {
				a = &aggExpect{}
				fe.aggs[e.aggPath] = a
			}
			if certain {
				a.certain = append(a.certain, e.docs...)
			} else {
				a.maybe = append(a.maybe, e.docs...)
			}
			a.owners = append(a.owners, e.owner)
		}
		if e.index != nil {
			files := slices.Clone(e.index)
			sort.Strings(files)
			fe.indexes = append(fe.indexes, indexExpect{owner: e.owner, files: files, certain: certain})
		}
	}
	return fe, nil
}

// Digest is everything the model expects of every folder it knows, so that two moments can be
// compared: when an apply leaves it unchanged (and re-creates nothing), the apply must write
// nothing at all.
func (m *Model) Digest() string {
	var b strings.Builder
	for _, root := range modelKeys(m.roots) {
		for store := range 2 {
			fe, err := m.expect(modelLoc{store, root})
			if err != nil {
				return err.Error()
			}
			fmt.Fprintf(&b, "%d:%s\n", store, root)
			for _, p := range modelKeys(fe.certain) {
				fmt.Fprintf(&b, "  %s %q\n", p, fe.certain[p])
			}
			for _, p := range modelKeys(fe.maybe) {
				fmt.Fprintf(&b, "  maybe %s %q\n", p, fe.maybe[p])
			}
			for _, p := range modelKeys(fe.aggs) {
				fmt.Fprintf(&b, "  aggregate %s %q %q parts of %q\n", p, sorted(fe.aggs[p].certain), sorted(fe.aggs[p].maybe), sorted(fe.aggs[p].owners))
			}
			var idx []string
			for _, i := range fe.indexes {
				// The owner too: an index file is named after its placement (a request's workload
				// group has its own), so a placement that changes hands renames it.
				idx = append(idx, fmt.Sprintf("%v %s %q", i.certain, i.owner, i.files))
			}
			fmt.Fprintf(&b, "  indexes %q\n", sorted(idx))
		}
	}
	return b.String()
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// compare checks the files found under the folder (store path -> content) against the
// expectation and describes every difference.
func (fe folderExpect) compare(actual map[string][]byte) []string {
	var diffs []string
	indexDir := inFolder(fe.loc.root, ".kratix") + "/"
	var indexFiles []string
	for _, p := range modelKeys(actual) {
		got := actual[p]
		if want, ok := fe.certain[p]; ok {
			if !bytes.Equal(want, got) {
				diffs = append(diffs, fmt.Sprintf("different  %s\n    want %q\n    got  %q", p, want, got))
			}
			continue
		}
		if a, ok := fe.aggs[p]; ok {
			if d := a.check(got); d != "" {
				diffs = append(diffs, fmt.Sprintf("different  %s (aggregate; compared as documents, in any order)\n%s", p, d))
			}
			continue
		}
		if strings.HasPrefix(p, indexDir) && len(fe.indexes) > 0 {
			indexFiles = append(indexFiles, p)
			continue
		}
		if allowed, ok := fe.maybe[p]; ok {
			if !slices.ContainsFunc(allowed, func(b []byte) bool { return bytes.Equal(b, got) }) {
				diffs = append(diffs, fmt.Sprintf("different  %s (may be absent, but not with these bytes)\n    allowed %q\n    got     %q", p, allowed, got))
			}
			continue
		}
		diffs = append(diffs, fmt.Sprintf("unexpected %s\n    got %q", p, got))
	}
	for _, p := range modelKeys(fe.certain) {
		if _, ok := actual[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing    %s\n    want %q", p, fe.certain[p]))
		}
	}
	for _, p := range modelKeys(fe.aggs) {
		if _, ok := actual[p]; !ok && len(fe.aggs[p].certain) > 0 {
			diffs = append(diffs, fmt.Sprintf("missing    %s (aggregate)\n    want documents %q", p, fe.aggs[p].certain))
		}
	}
	return append(diffs, fe.compareIndexes(actual, indexFiles)...)
}

// compareIndexes: the names of mode none's index files (ROOT/.kratix/<namespace>-<placement>.yaml)
// are the provider's choice, so they are compared only by the files they list: every placement
// that wrote files has exactly one index listing exactly them, and there is no other index.
func (fe folderExpect) compareIndexes(actual map[string][]byte, indexFiles []string) []string {
	var diffs []string
	used := make([]bool, len(fe.indexes))
	for _, p := range indexFiles {
		var idx struct {
			Files []string `json:"files"`
		}
		if err := yaml.Unmarshal(actual[p], &idx); err != nil {
			diffs = append(diffs, fmt.Sprintf("unexpected %s: not an index file (%v)\n    got %q", p, err, actual[p]))
			continue
		}
		listed := make([]string, len(idx.Files))
		for i, f := range idx.Files {
			listed[i] = path.Clean(f) // relative to the store's path, as the model keeps them
		}
		sort.Strings(listed)
		match := -1
		for _, certain := range []bool{true, false} {
			for i, want := range fe.indexes {
				if match < 0 && !used[i] && want.certain == certain && slices.Equal(want.files, listed) {
					match = i
				}
			}
		}
		if match < 0 {
			diffs = append(diffs, fmt.Sprintf("unexpected %s: index listing %q, which no placement wrote", p, listed))
			continue
		}
		used[match] = true
	}
	for i, want := range fe.indexes {
		if want.certain && !used[i] {
			diffs = append(diffs, fmt.Sprintf("missing    an index file under %s/.kratix/ listing %q (%s)", fe.loc.root, want.files, want.owner))
		}
	}
	return diffs
}

// splitAggregate cuts an aggregate (or a contribution) into documents. Documents end in "\n" and
// are joined with "---\n" inside a placement and with "\n---\n" between placements, so the cut is
// at "\n---\n" and each piece loses its trailing newlines.
func splitAggregate(s string) []string {
	parts := strings.Split(s, "\n---\n")
	for i, p := range parts {
		parts[i] = strings.TrimRight(p, "\n")
	}
	return parts
}

// check compares an aggregate with the documents it must hold. Its order is not something the
// provider promises: a rebuild joins the parts by placement name (the provider's choice), and a
// file that already holds the join's pieces in another order is left as it is (as Kratix orders
// them, by WorkPlacement names, which differ from the provider's part names anyway; see
// layout.SameAggregate). So it is compared as a multiset of documents: every certain document,
// and otherwise only documents that may be there.
func (a *aggExpect) check(got []byte) string {
	have := map[string]int{}
	for _, d := range splitAggregate(string(got)) {
		have[d]++
	}
	var missing []string
	for _, d := range a.certain {
		for _, piece := range splitAggregate(d) {
			if have[piece] == 0 {
				missing = append(missing, piece)
				continue
			}
			have[piece]--
		}
	}
	for _, d := range a.maybe {
		for _, piece := range splitAggregate(d) {
			if have[piece] > 0 {
				have[piece]--
			}
		}
	}
	var extra []string
	for _, d := range modelKeys(have) {
		for i := 0; i < have[d]; i++ {
			extra = append(extra, d)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf("    missing documents %q\n    extra documents   %q\n    want %q (plus any of %q)\n    got  %q", missing, extra, a.certain, a.maybe, got)
}

func modelKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
