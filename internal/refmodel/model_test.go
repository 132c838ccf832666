package refmodel

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
)

// ---------------------------------------------------------------------------------------------
// Unit tests of the model. They run in milliseconds and need no server.

// TestModelCorpusIsCanonical is a precondition on the corpus, not a test of the provider: the
// model takes the corpus literals as the exact bytes the provider writes, which holds only if
// they are already what manifest.Canonical makes of them.
func TestModelCorpusIsCanonical(t *testing.T) {
	check := func(what string, y modelYAML) {
		t.Helper()
		docs, err := manifest.Parse([]byte(y.literal))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(docs) != len(y.docs) {
			t.Fatalf("%s: %d documents, the corpus says %d", what, len(docs), len(y.docs))
		}
		if len(docs) > 0 {
			if got := string(manifest.Canonical(docs)); got != y.literal {
				t.Errorf("%s is not in canonical form:\n got %q\nwant %q", what, y.literal, got)
			}
		}
		for i, d := range docs {
			if y.docs[i].crd != (d.Kind == "CustomResourceDefinition") {
				t.Errorf("%s: document %d: crd flag %v for kind %s", what, i, y.docs[i].crd, d.Kind)
			}
		}
	}
	for i, y := range modelDepsCorpus {
		check(fmt.Sprintf("dependencies %d", i), y)
	}
	for _, r := range []string{"r0", "r1"} {
		for i := 0; i < modelRequestFilesCount; i++ {
			for name, y := range modelRequestFiles(r, i) {
				check(fmt.Sprintf("request %s files %d %s", r, i, name), y)
			}
		}
		for i := 0; i < modelRequestDocumentsCount; i++ {
			if y, ok := modelRequestDocuments(r, i); ok {
				check(fmt.Sprintf("request %s documents %d", r, i), y)
			}
		}
	}
	if docs, err := manifest.Parse([]byte(modelNoDocuments.literal)); err != nil || len(docs) != 0 {
		t.Errorf("%q should parse to no document: %v %v", modelNoDocuments.literal, docs, err)
	}
}

func TestModelSelectors(t *testing.T) {
	d := func(strict bool, labels map[string]string) *modelDest {
		return &modelDest{strict: strict, labels: labels}
	}
	tests := []struct {
		name string
		sel  map[string]string
		dest *modelDest
		want bool
	}{
		{"no selector, no labels", nil, d(false, nil), true},
		{"no selector, labels", nil, d(false, map[string]string{"env": "dev"}), true},
		{"no selector, strict with labels", nil, d(true, map[string]string{"env": "dev"}), false},
		{"no selector, strict without labels", nil, d(true, nil), true},
		{"match", map[string]string{"env": "dev"}, d(true, map[string]string{"env": "dev", "tier": "web"}), true},
		{"wrong value", map[string]string{"env": "dev"}, d(false, map[string]string{"env": "prod"}), false},
		{"missing key", map[string]string{"env": "dev", "tier": "web"}, d(false, map[string]string{"env": "dev"}), false},
	}
	for _, tt := range tests {
		if got := selects(tt.sel, tt.dest); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
	first := modelSelector{{"env": "dev"}, {"env": "prod", "tier": "web"}}.merged()
	if first["env"] != "dev" || first["tier"] != "web" {
		t.Errorf("merge: the first entry wins: %v", first)
	}
	c := combineSelectors(modelSelector{{"env": "dev"}}, modelSelector{{"env": "prod", "tier": "data"}})
	if c["env"] != "dev" || c["tier"] != "data" {
		t.Errorf("combine: the promise wins: %v", c)
	}
}

func TestModelLayout(t *testing.T) {
	deps := modelDepsCorpus[3] // a CRD and a Namespace
	nested := promiseFiles(modeNested, "c/d0", "aggregated.yaml", "p0", deps)
	if got := string(nested.files["c/d0/dependencies/p0/5058f/static/p0-dependencies.yaml"]); got != deps.literal || len(nested.files) != 1 {
		t.Errorf("nestedByMetadata: %v", nested.files)
	}
	if nested.folder != "c/d0/dependencies/p0/5058f/" {
		t.Errorf("nestedByMetadata folder %q", nested.folder)
	}
	none := promiseFiles(modeNone, "d0", "aggregated.yaml", "p0", deps)
	if string(none.files["d0/static/p0-dependencies.yaml"]) != deps.literal || !slices.Equal(none.index, []string{"d0/static/p0-dependencies.yaml"}) {
		t.Errorf("none: %v %v", none.files, none.index)
	}
	agg := promiseFiles(modeAgg, "d0", "all.yaml", "p0", deps)
	if agg.aggPath != "d0/all.yaml" || len(agg.docs) != 2 || len(agg.files) != 0 {
		t.Errorf("aggregatedYAML: %+v", agg)
	}
	split := promiseFiles(modeSplit, "d0", "aggregated.yaml", "p0", deps)
	if string(split.files["d0/crds/00-default-p0-default-crds.yaml"]) != deps.docs[0].text ||
		string(split.files["d0/resources/01-default-p0-default-resources.yaml"]) != deps.docs[1].text || len(split.files) != 2 {
		t.Errorf("splitByKind: %v", split.files)
	}
	for _, mode := range Modes {
		if pf := promiseFiles(mode, "d0", "aggregated.yaml", "p0", modelNoDocuments); !pf.empty() {
			t.Errorf("%s: a promise without documents writes %+v", mode, pf)
		}
		if c := canaryFiles(mode, "d0"); len(c.files) != 2 {
			t.Errorf("%s canaries: %v", mode, c.files)
		}
	}
	if c := canaryFiles(modeSplit, "d0"); string(c.files["d0/crds/kratix-crds.yaml"]) != modelCanaryNamespace ||
		string(c.files["d0/resources/kratix-resources.yaml"]) != modelCanaryConfigMap {
		t.Errorf("splitByKind canaries: %v", c.files)
	}

	w := &modelWorld{promises: []*modelPromise{{name: "p1"}}}
	r := &modelRequest{name: "r0", namespace: "team-a", files: 1, documents: 1}
	rn := w.requestFiles(modeNested, "d0", "aggregated.yaml", r)
	dir := "d0/resources/team-a/p1/r0/instance-configure/5058f/"
	if len(rn.files) != 3 || rn.files[dir+"r0-app.yaml"] == nil || rn.files[dir+"r0-net/service.yaml"] == nil || rn.files[dir+"r0.yaml"] == nil {
		t.Errorf("request nestedByMetadata: %v", modelKeys(rn.files))
	}
	rs := w.requestFiles(modeSplit, "d0", "aggregated.yaml", &modelRequest{name: "r0", namespace: "default", files: 2})
	if _, ok := rs.files["d0/crds/00-default-p1-default-default-r0-crds.yaml"]; !ok || len(rs.files) != 2 {
		t.Errorf("request splitByKind: %v", modelKeys(rs.files))
	}
}

// modelTestWorld: two destinations on store 0, one promise selecting env=dev, one request.
func modelTestWorld(mode0, cleanup0 string) *modelWorld {
	return &modelWorld{
		kind:   "bucket",
		stores: []*modelStore{{bucket: 0, secret: "s"}, {bucket: 1, secret: "s"}, {bucket: 0, secret: "s"}},
		dests: []*modelDest{
			{name: "d0", present: true, path: "d0", labels: map[string]string{"env": "dev"}, mode: mode0, agg: "aggregated.yaml", cleanup: cleanup0},
			{name: "d1", present: true, path: "x/d1", labels: map[string]string{"env": "prod"}, mode: modeNested, agg: "aggregated.yaml", cleanup: "none"},
		},
		promises: []*modelPromise{{name: "p0", present: true, selectors: modelSelector{{"env": "dev"}}, deps: 1}},
		requests: []*modelRequest{{name: "r0", namespace: "default", present: true, files: 0}},
	}
}

func mustExpect(t *testing.T, m *Model, loc modelLoc) folderExpect {
	t.Helper()
	fe, err := m.expect(loc)
	if err != nil {
		t.Fatal(err)
	}
	return fe
}

func TestModelMisscheduledKeepsFiles(t *testing.T) {
	w := modelTestWorld(modeNested, "none")
	m := newRefModel(w)
	if p := m.Settle(map[string]string{"r0": "d0"}); p != nil {
		t.Fatal(p)
	}
	depFile := "d0/dependencies/p0/5058f/static/p0-dependencies.yaml"
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); string(fe.certain[depFile]) != modelDepsCorpus[1].literal || len(fe.certain) != 4 {
		t.Fatalf("first apply: %v", modelKeys(fe.certain))
	}
	// d0 stops matching and d1 starts, then the dependencies change: d0 keeps the old bytes.
	w.dests[0].labels = map[string]string{"env": "prod"}
	w.dests[1].labels = map[string]string{"env": "dev"}
	m.Settle(map[string]string{"r0": "d0"})
	w.promises[0].deps = 2
	m.Settle(map[string]string{"r0": "d0"})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); string(fe.certain[depFile]) != modelDepsCorpus[1].literal {
		t.Errorf("misscheduled: %q", fe.certain[depFile])
	}
	if fe := mustExpect(t, m, modelLoc{0, "x/d1"}); string(fe.certain["x/d1/dependencies/p0/5058f/static/p0-dependencies.yaml"]) != modelDepsCorpus[2].literal {
		t.Errorf("the new match: %v", modelKeys(fe.certain))
	}
	// The request stays on d0 although it no longer matches anything in particular.
	if p := m.Settle(map[string]string{"r0": "d1"}); len(p) != 1 {
		t.Errorf("a request that moves while its destination stays is a problem: %v", p)
	}
	// Destroying the promise removes its files everywhere it wrote, misscheduled ones included.
	m.choice["r0"] = []string{"d0"}
	w.promises[0].present = false
	w.requests[0].present = false
	m.Settle(map[string]string{})
	for _, loc := range []modelLoc{{0, "d0"}, {0, "x/d1"}} {
		if fe := mustExpect(t, m, loc); len(fe.certain) != 2 || len(fe.maybe) != 0 {
			t.Errorf("%s after the promise is destroyed: %v %v", loc, modelKeys(fe.certain), modelKeys(fe.maybe))
		}
	}
}

func TestModelDestroyAndMove(t *testing.T) {
	for _, cleanup := range []string{"none", "all"} {
		w := modelTestWorld(modeNone, cleanup)
		w.dests[1].labels = map[string]string{"env": "dev"} // a second candidate for the request
		m := newRefModel(w)
		m.Settle(map[string]string{"r0": "d0"})
		// Destroyed: the request moves to d1; cleanup decides what stays in d0.
		w.dests[0].present = false
		if p := m.Settle(map[string]string{"r0": "d1"}); p != nil {
			t.Fatal(p)
		}
		fe := mustExpect(t, m, modelLoc{0, "d0"})
		want := map[string]int{"none": 4, "all": 0} // canaries, promise file, request file
		if len(fe.certain) != want[cleanup] || len(fe.maybe) != 0 {
			t.Errorf("cleanup %s, destroyed: %v", cleanup, modelKeys(fe.certain))
		}
		if cleanup == "none" && len(fe.indexes) != 2 {
			t.Errorf("cleanup none keeps the index files: %v", fe.indexes)
		}
		if fe := mustExpect(t, m, modelLoc{0, "x/d1"}); fe.certain["x/d1/resources/default/p0/r0/instance-configure/5058f/r0-app.yaml"] == nil {
			t.Errorf("the request moved to d1: %v", modelKeys(fe.certain))
		}
		// Recreated: the promise writes again; the request stays on d1.
		w.dests[0].present = true
		m.Settle(map[string]string{"r0": "d1"})
		fe = mustExpect(t, m, modelLoc{0, "d0"})
		if fe.certain["d0/static/p0-dependencies.yaml"] == nil || len(fe.maybe) != 0 {
			t.Errorf("cleanup %s, recreated: %v", cleanup, modelKeys(fe.certain))
		}
		// Moved to store 1: the old folder keeps the canaries (cleanup none), and the promise
		// takes its files along (destination page, "A real move"); the new one has everything.
		w.dests[0].store = 1
		m.Settle(map[string]string{"r0": "d1"})
		fe = mustExpect(t, m, modelLoc{0, "d0"})
		if cleanup == "all" && (len(fe.certain) != 0 || len(fe.maybe) != 0) {
			t.Errorf("cleanup all, moved: %v %v", modelKeys(fe.certain), modelKeys(fe.maybe))
		}
		if cleanup == "none" && (len(fe.certain) != 3 || fe.certain["d0/static/p0-dependencies.yaml"] != nil || len(fe.maybe) != 0) {
			// canaries and the request's orphan file from before the destroy
			t.Errorf("cleanup none, moved: certain %v maybe %v", modelKeys(fe.certain), modelKeys(fe.maybe))
		}
		if fe := mustExpect(t, m, modelLoc{1, "d0"}); fe.certain["d0/static/p0-dependencies.yaml"] == nil || len(fe.indexes) != 1 {
			t.Errorf("the new folder: %v %v", modelKeys(fe.certain), fe.indexes)
		}
	}
}

func TestModelAggregate(t *testing.T) {
	w := modelTestWorld(modeAgg, "none")
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	fe := mustExpect(t, m, modelLoc{0, "d0"})
	a := fe.aggs["d0/aggregated.yaml"]
	if a == nil || len(a.certain) != 2 || len(fe.certain) != 2 {
		t.Fatalf("aggregate: %+v %v", a, modelKeys(fe.certain))
	}
	dep, req := modelDepsCorpus[1].literal, modelRequestFiles("r0", 0)["r0-app.yaml"].literal
	actual := map[string][]byte{
		"d0/kratix-canary-namespace.yaml": []byte(modelCanaryNamespace),
		"d0/kratix-canary-configmap.yaml": []byte(modelCanaryConfigMap),
		"d0/aggregated.yaml":              []byte(req + "\n---\n" + dep),
	}
	if d := fe.compare(actual); d != nil {
		t.Errorf("any order is fine: %v", d)
	}
	actual["d0/.kratix/aggregated/p0.yaml"] = []byte(dep)
	actual["d0/aggregated.yaml"] = []byte(dep)
	if d := fe.compare(actual); len(d) != 2 || !strings.HasPrefix(d[0], "unexpected d0/.kratix/") || !strings.Contains(d[1], "missing documents") {
		t.Errorf("a contribution inside ROOT and a lost document: %q", d)
	}
	// A promise without documents contributes nothing; an empty aggregate must not exist.
	w.promises[0].deps = 0
	w.requests[0].present = false
	m.Settle(map[string]string{})
	fe = mustExpect(t, m, modelLoc{0, "d0"})
	if d := fe.compare(map[string][]byte{"d0/aggregated.yaml": nil}); len(d) != 3 {
		t.Errorf("an empty aggregate and missing canaries: %q", d)
	}
}

func TestModelCompare(t *testing.T) {
	fe := folderExpect{
		loc:     modelLoc{0, "d"},
		certain: map[string][]byte{"d/a": []byte("a"), "d/b": []byte("b")},
		maybe:   map[string][][]byte{"d/m": {[]byte("m")}},
		indexes: []indexExpect{{owner: "p:p0", files: []string{"d/static/x.yaml"}, certain: true}},
	}
	got := fe.compare(map[string][]byte{
		"d/a": []byte("a"), "d/b": []byte("B"), "d/m": []byte("m"), "d/stray": []byte("s"),
		"d/.kratix/kratix-platform-system-x.yaml": []byte("files:\n- d/static/x.yaml\n"),
	})
	if len(got) != 2 || !strings.HasPrefix(got[0], "different  d/b") || !strings.HasPrefix(got[1], "unexpected d/stray") {
		t.Errorf("%q", got)
	}
	got = fe.compare(map[string][]byte{"d/a": []byte("a"), "d/m": []byte("M"), "d/.kratix/y.yaml": []byte("files:\n- d/other\n")})
	if len(got) != 4 {
		t.Errorf("a maybe file with other bytes, a missing file, a wrong index and no right one: %q", got)
	}
}

func TestModelUnscheduleDelete(t *testing.T) {
	w := modelTestWorld(modeNested, "none")
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	depFile := "d0/dependencies/p0/5058f/static/p0-dependencies.yaml"
	// keep: d0 stops matching, its file stays (frozen).
	w.dests[0].labels = map[string]string{"env": "prod"}
	m.Settle(map[string]string{"r0": "d0"})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[depFile] == nil {
		t.Fatalf("keep: %v", modelKeys(fe.certain))
	}
	// Switching to delete removes the kept files: the placement is forgotten.
	w.promises[0].delete = true
	m.Settle(map[string]string{"r0": "d0"})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[depFile] != nil || len(fe.maybe) != 0 {
		t.Errorf("delete: %v %v", modelKeys(fe.certain), modelKeys(fe.maybe))
	}
	if m.placed["p0@d0"] != nil {
		t.Errorf("delete: the placement is still there: %+v", m.placed["p0@d0"])
	}
	// Matching again writes again; stopping again removes at once.
	w.dests[0].labels = map[string]string{"env": "dev"}
	m.Settle(map[string]string{"r0": "d0"})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[depFile] == nil {
		t.Errorf("scheduled again: %v", modelKeys(fe.certain))
	}
	w.dests[0].labels = nil
	m.Settle(map[string]string{"r0": "d0"})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[depFile] != nil {
		t.Errorf("stops matching with delete: %v", modelKeys(fe.certain))
	}
}

func TestModelInitWorkloads(t *testing.T) {
	for _, mode := range Modes {
		w := modelTestWorld(mode, "none")
		m := newRefModel(w)
		m.Settle(map[string]string{"r0": "d0"})
		canaries := canaryFiles(mode, "d0").files
		w.dests[0].noInit = true
		m.Settle(map[string]string{"r0": "d0"})
		fe := mustExpect(t, m, modelLoc{0, "d0"})
		for p := range canaries {
			if fe.certain[p] != nil || fe.maybe[p] != nil {
				t.Errorf("%s: init_workloads = false keeps %s", mode, p)
			}
		}
		w.dests[0].noInit = false
		m.Settle(map[string]string{"r0": "d0"})
		fe = mustExpect(t, m, modelLoc{0, "d0"})
		for p, b := range canaries {
			if !bytes.Equal(fe.certain[p], b) {
				t.Errorf("%s: init_workloads = true does not write %s back", mode, p)
			}
		}
	}
	// Canaries left behind by an earlier incarnation at the paths of the current one's are
	// claimed, and removed, by a destination with init_workloads = false.
	w := modelTestWorld(modeNone, "none")
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	w.dests[0].mode, w.dests[0].noInit = modeAgg, true // same canary paths as mode none
	m.Settle(map[string]string{"r0": "d0"})
	fe := mustExpect(t, m, modelLoc{0, "d0"})
	for p := range canaryFiles(modeAgg, "d0").files {
		if fe.certain[p] != nil || fe.maybe[p] != nil {
			t.Errorf("an orphan canary at %s stays although the destination claims the path", p)
		}
	}
}

func TestModelReplace(t *testing.T) {
	for _, cleanup := range []string{"none", "all"} {
		w := modelTestWorld(modeNone, cleanup)
		m := newRefModel(w)
		m.Settle(map[string]string{"r0": "d0"})
		// p0 becomes misscheduled on d0, with its file frozen there.
		w.dests[0].labels = map[string]string{"env": "prod"}
		m.Settle(map[string]string{"r0": "d0"})
		inc := m.applied["d0"].inc
		w.replaced = []string{"d:d0"}
		m.Settle(map[string]string{"r0": "d0"})
		if m.applied["d0"].inc == inc || len(w.replaced) != 0 {
			t.Fatalf("cleanup %s: -replace starts no new incarnation", cleanup)
		}
		fe := mustExpect(t, m, modelLoc{0, "d0"})
		dep := "d0/static/p0-dependencies.yaml"
		switch cleanup {
		case "none": // nothing removed: the misscheduled file stays
			if fe.certain[dep] == nil {
				t.Errorf("cleanup none: %v %v", modelKeys(fe.certain), modelKeys(fe.maybe))
			}
		case "all": // emptied, and the misscheduled promise does not write: it may be gone
			if fe.certain[dep] != nil || fe.maybe[dep] == nil {
				t.Errorf("cleanup all: %v %v", modelKeys(fe.certain), modelKeys(fe.maybe))
			}
		}
		// The request and the canaries are written again either way.
		if fe.certain["d0/r0-app.yaml"] == nil || fe.certain["d0/kratix-canary-namespace.yaml"] == nil {
			t.Errorf("cleanup %s: %v", cleanup, modelKeys(fe.certain))
		}
		// Destroying the promise then removes the frozen file too (cleanup none): it is still
		// the promise's, on the new incarnation.
		w.promises[0].present, w.requests[0].present = false, false
		m.Settle(map[string]string{})
		if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[dep] != nil || fe.maybe[dep] != nil {
			t.Errorf("cleanup %s: the promise's file outlives the promise: %v %v", cleanup, modelKeys(fe.certain), modelKeys(fe.maybe))
		}
	}
}

func TestModelStorePaths(t *testing.T) {
	w := modelTestWorld(modeNone, "none")
	w.stores[0].path = "team"
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	fe := mustExpect(t, m, modelLoc{0, "team/d0"})
	if fe.certain["team/d0/static/p0-dependencies.yaml"] == nil || fe.certain["team/d0/r0-app.yaml"] == nil {
		t.Fatalf("folder under the store path: %v", modelKeys(fe.certain))
	}
	var lists [][]string
	for _, idx := range fe.indexes {
		lists = append(lists, idx.files)
	}
	sort.Slice(lists, func(i, j int) bool { return lists[i][0] < lists[j][0] })
	if len(lists) != 2 || !slices.Equal(lists[0], []string{"d0/r0-app.yaml"}) || !slices.Equal(lists[1], []string{"d0/static/p0-dependencies.yaml"}) {
		t.Errorf("index files list paths relative to the store's path: %q", lists)
	}
	if !m.roots["team/d0"] || !m.roots["team/x/d1"] { // d1 is on store 0 too
		t.Errorf("roots: %v", m.roots)
	}
	// To store 2 (the same bucket) with the same store path: not a move.
	w.stores[2].path = "team"
	inc := m.applied["d0"].inc
	w.dests[0].store = 2
	m.Settle(map[string]string{"r0": "d0"})
	if m.applied["d0"].inc != inc {
		t.Errorf("another store resource for the same place is not a move")
	}
	// The same folder through another store path: a replacement (index files change base).
	w.stores[0].path = ""
	w.dests[0].store, w.dests[0].path = 0, "team/d0"
	m.Settle(map[string]string{"r0": "d0"})
	if m.applied["d0"].inc == inc || m.applied["d0"].loc != (modelLoc{0, "team/d0"}) {
		t.Errorf("same folder, other store path: %+v", m.applied["d0"])
	}
	fe = mustExpect(t, m, modelLoc{0, "team/d0"})
	certain := 0
	for _, idx := range fe.indexes {
		if idx.certain {
			certain++
			if !strings.HasPrefix(idx.files[0], "team/d0/") {
				t.Errorf("index relative to the root store path: %q", idx.files)
			}
		}
	}
	if certain != 2 {
		t.Errorf("indexes: %+v", fe.indexes)
	}
}

func TestModelRequestSubfolders(t *testing.T) {
	w := &modelWorld{promises: []*modelPromise{{name: "p1"}}}
	for _, r := range []string{"r0", "r1"} {
		none := w.requestFiles(modeNone, "d0", "aggregated.yaml", &modelRequest{name: r, namespace: "default", files: 3, documents: 2})
		want := []string{"d0/" + r + ".yaml", "d0/sub/deep/" + r + "-cfg.yaml", "d0/sub/" + r + "-x.yaml", "d0/sub/" + r + "/kratix-canary-namespace.yaml"}
		sort.Strings(want)
		if got := modelKeys(none.files); !slices.Equal(got, want) {
			t.Errorf("mode none: %q", got)
		}
		nested := w.requestFiles(modeNested, "d0", "aggregated.yaml", &modelRequest{name: r, namespace: "default", files: 3, documents: 1})
		if nested.files["d0/resources/default/p1/"+r+"/instance-configure/5058f/sub/deep/"+r+"-cfg.yaml"] == nil || len(nested.files) != 4 {
			t.Errorf("nestedByMetadata: %q", modelKeys(nested.files))
		}
		agg := w.requestFiles(modeAgg, "d0", "aggregated.yaml", &modelRequest{name: r, namespace: "default", files: 3, documents: 2})
		if len(agg.docs) != 6 {
			t.Errorf("aggregatedYAML: every document of every file: %q", agg.docs)
		}
	}
}

func TestModelOverlapOp(t *testing.T) {
	found := 0
	for seed := int64(1); seed <= 200; seed++ {
		rng := newModelRNG(seed)
		w := newModelWorld(rng, "bucket", Modes)
		m := newRefModel(w)
		m.Settle(map[string]string{})
		before := w.describe()
		op, ok := m.overlapOp(rng, presentDests(w), w.promises)
		if !ok {
			continue
		}
		found++
		if !modelFoldersOverlap(w) {
			t.Errorf("seed %d: %s: no overlap in %s", seed, op.Desc, w.describe())
		}
		op.Revert()
		if after := w.describe(); after != before {
			t.Errorf("seed %d: revert does not restore the world:\n%s\n%s", seed, before, after)
		}
	}
	if found < 100 {
		t.Errorf("only %d of 200 worlds gave an overlap", found)
	}
}

func TestModelPoolLeft(t *testing.T) {
	w := modelTestWorld(modeNested, "none")
	w.dests[1].labels = map[string]string{"env": "dev"} // d1 is a candidate too
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	dep := "d0/dependencies/p0/5058f/static/p0-dependencies.yaml"
	req := "d0/resources/default/p0/r0/instance-configure/5058f/r0-app.yaml"
	// d0 leaves p0's pool: p0 forgets it, r0 moves to d1, and their files stay on d0, unchanged.
	w.promises[0].left = map[string]bool{"d0": true}
	if p := m.Settle(map[string]string{"r0": "d1"}); p != nil {
		t.Fatal(p)
	}
	w.promises[0].deps = 2
	m.Settle(map[string]string{"r0": "d1"})
	fe := mustExpect(t, m, modelLoc{0, "d0"})
	if string(fe.certain[dep]) != modelDepsCorpus[1].literal || fe.certain[req] == nil {
		t.Fatalf("left the pool: %v", modelKeys(fe.certain))
	}
	// Destroying the promise and the request does not reach them.
	w.promises[0].present, w.requests[0].present = false, false
	m.Settle(map[string]string{})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[dep] == nil || fe.certain[req] == nil {
		t.Errorf("files on a destination out of the pool outlive their owners: %v", modelKeys(fe.certain))
	}
	if fe := mustExpect(t, m, modelLoc{0, "x/d1"}); len(fe.certain) != 2 {
		t.Errorf("d1: %v", modelKeys(fe.certain))
	}
	// Back in the pool, the recreated promise replaces what it left there.
	w.promises[0].present, w.promises[0].left = true, nil
	m.Settle(map[string]string{})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); string(fe.certain[dep]) != modelDepsCorpus[2].literal || fe.certain[req] == nil {
		t.Errorf("back in the pool: %v", modelKeys(fe.certain))
	}
}

func TestModelClaims(t *testing.T) {
	// splitByKind: an orphan's CRD file goes when the same placement writes again without CRDs.
	w := modelTestWorld(modeSplit, "none")
	w.promises[0].deps = 3 // a CRD and a Namespace
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	crds := "d0/crds/00-default-p0-default-crds.yaml"
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[crds] == nil {
		t.Fatalf("split: %v", modelKeys(fe.certain))
	}
	w.dests[0].present = false
	m.Settle(map[string]string{"r0": ""})
	w.promises[0].deps = 1
	m.Settle(map[string]string{"r0": ""})
	w.dests[0].present = true
	m.Settle(map[string]string{"r0": "d0"})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[crds] != nil || fe.maybe[crds] != nil {
		t.Errorf("a claimed file stays: %v %v", modelKeys(fe.certain), modelKeys(fe.maybe))
	}
	// Every mode: dependencies without documents still own their place.
	for _, mode := range Modes {
		w := modelTestWorld(mode, "none")
		m := newRefModel(w)
		m.Settle(map[string]string{"r0": "d0"})
		w.dests[0].present = false
		m.Settle(map[string]string{"r0": ""})
		w.promises[0].deps = 0
		w.dests[0].present = true
		m.Settle(map[string]string{"r0": "d0"})
		fe := mustExpect(t, m, modelLoc{0, "d0"})
		for p := range fe.certain {
			if strings.Contains(p, "p0-dependencies") || strings.HasSuffix(p, "-default-p0-default-crds.yaml") || strings.HasSuffix(p, "-default-p0-default-resources.yaml") {
				t.Errorf("%s: the orphan %s stays although p0 owns its place", mode, p)
			}
		}
		for p, a := range fe.aggs {
			if len(a.certain) != 1 || len(a.maybe) != 0 {
				t.Errorf("%s: aggregate %s: %+v", mode, p, a)
			}
		}
		for _, idx := range fe.indexes {
			if strings.Contains(idx.files[0], "p0") {
				t.Errorf("%s: the orphan index %v stays", mode, idx)
			}
		}
	}
}

func TestModelReplacePromiseAndRequest(t *testing.T) {
	w := modelTestWorld(modeNested, "none")
	w.dests[1].labels = map[string]string{"env": "dev"}
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	w.dests[0].labels = map[string]string{"env": "prod"} // p0 misscheduled on d0
	m.Settle(map[string]string{"r0": "d0"})
	dep := "d0/dependencies/p0/5058f/static/p0-dependencies.yaml"
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[dep] == nil {
		t.Fatalf("misscheduled: %v", modelKeys(fe.certain))
	}
	// -replace the promise: deleted (misscheduled files included), created on d1 only.
	w.replaced = []string{"p:p0"}
	m.Settle(map[string]string{"r0": "d0"})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[dep] != nil || fe.maybe[dep] != nil {
		t.Errorf("the replaced promise's misscheduled file stays: %v", modelKeys(fe.certain))
	}
	if fe := mustExpect(t, m, modelLoc{0, "x/d1"}); fe.certain["x/d1/dependencies/p0/5058f/static/p0-dependencies.yaml"] == nil {
		t.Errorf("the replaced promise writes again: %v", modelKeys(fe.certain))
	}
	// -replace the request: it may land on another candidate (d1) and leaves nothing on d0.
	w.replaced = []string{"r:r0"}
	if p := m.Settle(map[string]string{"r0": "d1"}); p != nil {
		t.Errorf("a replaced request chooses afresh: %v", p)
	}
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); len(fe.certain) != 2 {
		t.Errorf("d0 after the request moved: %v", modelKeys(fe.certain))
	}
	// ... but not on a destination that is not a candidate.
	w.replaced = []string{"r:r0"}
	if p := m.Settle(map[string]string{"r0": "d0"}); len(p) != 1 {
		t.Errorf("d0 is no candidate: %v", p)
	}
}

func TestModelEditedWithChange(t *testing.T) {
	w := modelTestWorld(modeNested, "none")
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	dep := "d0/dependencies/p0/5058f/static/p0-dependencies.yaml"
	req := "d0/resources/default/p0/r0/instance-configure/5058f/r0-app.yaml"
	tampered := []byte("# edited by hand\n")
	// Overwritten by hand while d0 stops matching p0: the misscheduled file keeps the hand's bytes;
	// the request's file, still written, is repaired.
	w.dests[0].labels = map[string]string{"env": "prod"}
	w.edited = []Hand{{Store: 0, Path: dep, Content: tampered}, {Store: 0, Path: req, Content: tampered}}
	m.Settle(map[string]string{"r0": "d0"})
	fe := mustExpect(t, m, modelLoc{0, "d0"})
	if !bytes.Equal(fe.certain[dep], tampered) || bytes.Equal(fe.certain[req], tampered) || fe.certain[req] == nil || w.edited != nil {
		t.Errorf("frozen %q, live %q", fe.certain[dep], fe.certain[req])
	}
	// Deleted by hand while d0 is destroyed with cleanup = "none": it stays gone.
	w.edited = []Hand{{Store: 0, Path: req}}
	w.dests[0].present = false
	m.Settle(map[string]string{"r0": ""})
	if fe := mustExpect(t, m, modelLoc{0, "d0"}); fe.certain[req] != nil || !bytes.Equal(fe.certain[dep], tampered) {
		t.Errorf("orphans: %v", modelKeys(fe.certain))
	}
}

func TestModelRootDestinations(t *testing.T) {
	w := modelTestWorld(modeNested, "none")
	w.dests[0].path = "."
	if got := w.root(w.dests[0]); got != "" {
		t.Errorf("store root of the bucket root: %q", got)
	}
	w.stores[0].path, w.dests[0].path = "team", "/"
	if got := w.root(w.dests[0]); got != "team" {
		t.Errorf("store root of store path team: %q", got)
	}
	if !under("", "a/b") || !under("team", "team/x") || under("team", "teams/x") || under("team", "team") {
		t.Errorf("under")
	}
	// d1 (x/d1 on store 0, now team/x/d1) is inside d0's folder.
	if !modelFoldersOverlap(w) {
		t.Errorf("team holds team/x/d1")
	}
	w.dests[1].store = 1
	if modelFoldersOverlap(w) {
		t.Errorf("other bucket")
	}
	m := newRefModel(w)
	m.Settle(map[string]string{"r0": "d0"})
	fe := mustExpect(t, m, modelLoc{0, "team"})
	if fe.certain["team/dependencies/p0/5058f/static/p0-dependencies.yaml"] == nil || fe.certain["team/dependencies/kratix-canary-namespace.yaml"] == nil {
		t.Errorf("a destination at its store's root: %v", modelKeys(fe.certain))
	}
	// Worlds draw one now and then, never overlapping.
	roots := 0
	for seed := int64(1); seed <= 100; seed++ {
		w := newModelWorld(newModelRNG(seed), "bucket", Modes)
		if modelFoldersOverlap(w) {
			t.Fatalf("seed %d: %s", seed, w.describe())
		}
		for _, d := range w.dests {
			if d.path == "." || d.path == "/" {
				roots++
			}
		}
	}
	if roots < 15 {
		t.Errorf("only %d of 100 worlds have a destination at a store's root", roots)
	}
}

// TestModelTargetDestroy: `terraform destroy -target` of a destination with cleanup = "none"
// destroys the promise and the request on it first, and their destroy removes their files there
// (an aggregate is rebuilt from the parts left and removed with the last one); the destination's
// own canaries stay. (Seed 9 of the default bucket run kept the aggregate, as if the promise and
// the request had only lost the destination.)
func TestModelTargetDestroy(t *testing.T) {
	canaries := map[string][]string{
		modeAgg:    {"d0/kratix-canary-configmap.yaml", "d0/kratix-canary-namespace.yaml"},
		modeNone:   {"d0/kratix-canary-configmap.yaml", "d0/kratix-canary-namespace.yaml"},
		modeNested: {"d0/dependencies/kratix-canary-namespace.yaml", "d0/resources/kratix-canary-configmap.yaml"},
	}
	for _, mode := range []string{modeAgg, modeNone, modeNested} {
		w := modelTestWorld(mode, "none")
		m := newRefModel(w)
		m.Settle(map[string]string{"r0": "d0"})
		w.dests[0].present, w.promises[0].present, w.requests[0].present = false, false, false
		if p := m.Settle(map[string]string{}); p != nil {
			t.Fatal(p)
		}
		fe := mustExpect(t, m, modelLoc{0, "d0"})
		if got := modelKeys(fe.certain); !slices.Equal(got, canaries[mode]) || len(fe.maybe) != 0 || len(fe.aggs) != 0 || len(fe.indexes) != 0 {
			t.Errorf("%s: the canaries alone stay; got certain %q, maybe %q, aggregates %v, indexes %v", mode, got, modelKeys(fe.maybe), fe.aggs, fe.indexes)
		}
		actual := map[string][]byte{}
		for p, b := range fe.certain {
			actual[p] = b
		}
		actual["d0/aggregated.yaml"] = []byte(modelDepsCorpus[1].literal)
		if d := fe.compare(actual); len(d) != 1 || !strings.HasPrefix(d[0], "unexpected d0/aggregated.yaml") {
			t.Errorf("%s: an aggregate left without parts: %q", mode, d)
		}
	}
}

// TestModelMoveTakesFilesAlong: a destination moved with cleanup = "none" leaves its canaries
// where it was, but the promise and the request on it take their files from there (destination
// page, "A real move"; finding 3 of issue 37 left a promise's there for good when the removal
// failed once).
func TestModelMoveTakesFilesAlong(t *testing.T) {
	for _, mode := range []string{modeAgg, modeNone, modeNested} {
		w := modelTestWorld(mode, "none")
		m := newRefModel(w)
		m.Settle(map[string]string{"r0": "d0"})
		w.dests[0].store = 1
		if p := m.Settle(map[string]string{"r0": "d0"}); p != nil {
			t.Fatal(p)
		}
		old := mustExpect(t, m, modelLoc{0, "d0"})
		if got := modelKeys(old.certain); len(got) != 2 || !strings.Contains(got[0], "canary") || !strings.Contains(got[1], "canary") ||
			len(old.maybe) != 0 || len(old.aggs) != 0 || len(old.indexes) != 0 {
			t.Errorf("%s: the old folder keeps the canaries alone; got certain %q, maybe %q, aggregates %v, indexes %v", mode, got, modelKeys(old.maybe), old.aggs, old.indexes)
		}
		now := mustExpect(t, m, modelLoc{1, "d0"})
		if mode == modeAgg {
			if a := now.aggs["d0/aggregated.yaml"]; a == nil || len(a.certain) != 2 {
				t.Errorf("%s: the new folder's aggregate holds both documents: %+v", mode, a)
			}
		} else if len(now.certain) != 4 {
			t.Errorf("%s: the new folder holds the canaries and both files: %q", mode, modelKeys(now.certain))
		}
	}
}
