package refmodel

import (
	"slices"
	"strings"
	"testing"
)

// The group files' bytes, written out here apart from the corpus.
const (
	modelTestDBFile   = "apiVersion: v1\nkind: Service\nmetadata:\n  name: r0-db\nspec:\n  ports:\n  - port: 5432\n    protocol: TCP\n"
	modelTestSeedFile = "apiVersion: v1\ndata:\n  rows: ten\nkind: ConfigMap\nmetadata:\n  name: r0-seed\n  namespace: default\n"
)

// TestModelGroupsLayout: where a group's files go in each mode, worked out by hand. The short id
// of "db" is the first five hex digits of `printf db | md5sum` (d77d5e503ad1439f585ac494268b351b),
// that of "web" of `printf web | md5sum` (2567a5ec9705eb7ac2c984033e06189d).
func TestModelGroupsLayout(t *testing.T) {
	w := modelTestWorld(modeNested, "none")
	r := w.requests[0]
	r.files, r.groups = modelRequestGroupFiles, map[string]modelSelector{"db": nil}

	nested := w.groupFiles(modeNested, "d0", "aggregated.yaml", r, "db")
	want := map[string]string{
		"d0/resources/default/p0/r0/instance-configure/d77d5/db/r0-db.yaml":        modelTestDBFile,
		"d0/resources/default/p0/r0/instance-configure/d77d5/db/init/r0-seed.yaml": modelTestSeedFile,
	}
	if len(nested.files) != len(want) || nested.folder != "d0/resources/default/p0/r0/instance-configure/d77d5/" {
		t.Errorf("nestedByMetadata, group db: folder %q, files %q", nested.folder, modelKeys(nested.files))
	}
	for p, b := range want {
		if string(nested.files[p]) != b {
			t.Errorf("nestedByMetadata, group db: %s holds %q, want %q", p, nested.files[p], b)
		}
	}
	// The rest (web/) is the default group, under 5058f/, keeping its path.
	def := w.requestFiles(modeNested, "d0", "aggregated.yaml", r)
	if got := modelKeys(def.files); !slices.Equal(got, []string{"d0/resources/default/p0/r0/instance-configure/5058f/web/r0-web.yaml"}) {
		t.Errorf("nestedByMetadata, default group: %q", got)
	}

	none := w.groupFiles(modeNone, "d0", "aggregated.yaml", r, "db")
	if got := modelKeys(none.files); !slices.Equal(got, []string{"d0/db/init/r0-seed.yaml", "d0/db/r0-db.yaml"}) || !slices.Equal(sorted(none.index), got) {
		t.Errorf("none, group db: files %q, index %q; want both d0/db/init/r0-seed.yaml and d0/db/r0-db.yaml", got, none.index)
	}

	split := w.groupFiles(modeSplit, "d0", "aggregated.yaml", r, "db")
	if got := modelKeys(split.files); !slices.Equal(got, []string{"d0/resources/01-default-p0-default-default-r0-d77d5-resources.yaml"}) {
		t.Errorf("splitByKind, group db: %q", got)
	}
	r.groups["web"] = nil
	web := w.groupFiles(modeSplit, "d0", "aggregated.yaml", r, "web")
	if got := modelKeys(web.files); !slices.Equal(got, []string{"d0/crds/00-default-p0-default-default-r0-2567a-crds.yaml", "d0/resources/01-default-p0-default-default-r0-2567a-resources.yaml"}) {
		t.Errorf("splitByKind, group web: %q", got)
	}
	if w.hasDefaultGroup(r) {
		t.Errorf("db and web grouped, no documents: no file is left for the default group")
	}
	r.documents = 1
	if got := modelKeys(w.groupOutput(r, "")); !slices.Equal(got, []string{"r0.yaml"}) {
		t.Errorf("with documents, the default group holds %q, want r0.yaml", got)
	}

	cfg := w.render(&Stores{Kind: "bucket", Names: [2]string{"a", "b"}, Address: func(int, int) string { return "http://h" }})
	for _, s := range []string{
		`"db" = { destination_selectors = [] }`,
		`"r0#db" = compact([kratix_resource_request.r0.group_placements["db"].destination])`,
	} {
		if !strings.Contains(cfg, s) {
			t.Errorf("the configuration lacks %s:\n%s", s, cfg)
		}
	}
}

// TestModelGroupsPlacement: a group goes where its own selectors say (not the promise's), ranked
// on "<request key>#<folder>", stays when its selectors change, moves when drained, and its files
// go back to the default group when it is dropped. The world is modelZoneWorld's (p0 selects
// env=dev: d1, d2, d3). The rendezvous order for "default/p0/r0#db", worked out apart from the
// model (first 8 bytes of SHA-256 of "default/p0/r0#db\x00<name>"):
//
//	d2 0xf1ae124ef3523206 > d1 0x7b7254933b719e1f > d3 0x74f2c598434e499a > d0 0x135d40c4721f6c6c
//
// For the request's own key the order is d2 > d3 > d1 > d0 (TestModelReplicasOrder): between d1
// and d3 the two keys disagree.
func TestModelGroupsPlacement(t *testing.T) {
	w, m := modelZoneWorld()
	r := w.requests[0]
	r.files, r.groups = modelRequestGroupFiles, map[string]modelSelector{"db": {{"env": "prod"}}}
	dbFile := func(d, short string) string {
		return d + "/resources/default/p0/r0/instance-configure/" + short + "/db/r0-db.yaml"
	}
	holds := func(d, short string) bool {
		b, ok := mustExpect(t, m, modelLoc{0, d}).certain[dbFile(d, short)]
		if ok && string(b) != modelTestDBFile {
			t.Errorf("%s holds %q", dbFile(d, short), b)
		}
		return ok
	}

	// d0 (env=prod) is the only destination the group's selector selects; the promise's env=dev
	// is not added. The default group (web/) goes to d2, the request's first.
	wrong := newRefModel(w.clone())
	if p := wrong.SettleAll(map[string][]string{"r0": {"d2"}, "r0#db": {"d1"}}); len(p) != 1 || !strings.Contains(p[0], `group db`) {
		t.Errorf("group db on d1 instead of d0: %q", p)
	}
	if p := m.SettleAll(map[string][]string{"r0": {"d2"}, "r0#db": {"d0"}}); p != nil {
		t.Fatal(p)
	}
	if !holds("d0", "d77d5") || holds("d2", "d77d5") || holds("d2", "5058f") {
		t.Errorf("group db on d0: d0 holds it %v, d2 holds it %v (or in 5058f/ %v)", holds("d0", "d77d5"), holds("d2", "d77d5"), holds("d2", "5058f"))
	}
	if _, ok := mustExpect(t, m, modelLoc{0, "d2"}).certain["d2/resources/default/p0/r0/instance-configure/5058f/web/r0-web.yaml"]; !ok {
		t.Errorf("the default group's web/r0-web.yaml is not on d2")
	}

	// Other selectors that no longer select d0: sticky, nothing moves.
	r.groups["db"] = modelSelector{{"env": "dev"}}
	if got := w.placeGroup(r, "db", []string{"d0"}).set; !slices.Equal(got, []string{"d0"}) {
		t.Errorf("selectors changed: the group moved to %v", got)
	}
	if p := m.SettleAll(map[string][]string{"r0": {"d2"}, "r0#db": {"d0"}}); p != nil {
		t.Fatal(p)
	}
	// Drained off d0, with d2 cordoned (NoSchedule: the default group stays there, nothing new
	// goes there): d1 by the group's key, where the request's key would take d3.
	w.dest("d0").taints = []modelTaint{{key: "maintenance", effect: effNoExecute}}
	w.dest("d2").taints = []modelTaint{{key: "maintenance", effect: effNoSchedule}}
	if p := m.SettleAll(map[string][]string{"r0": {"d2"}, "r0#db": {"d1"}}); p != nil {
		t.Fatal(p)
	}
	if !slices.Equal(m.DrainedMoves(), []string{"r0#db d0->d1"}) {
		t.Errorf("drained moves %q, want r0#db d0->d1", m.DrainedMoves())
	}
	if holds("d0", "d77d5") || !holds("d1", "d77d5") {
		t.Errorf("drained to d1: d0 holds the group %v, d1 %v", holds("d0", "d77d5"), holds("d1", "d77d5"))
	}

	// Dropped: its files join the default group on d2, under 5058f/.
	r.groups = nil
	if p := m.SettleAll(map[string][]string{"r0": {"d2"}}); p != nil {
		t.Fatal(p)
	}
	if holds("d1", "d77d5") || !holds("d2", "5058f") {
		t.Errorf("group dropped: d1 keeps it %v, d2 holds it in 5058f/ %v", holds("d1", "d77d5"), holds("d2", "5058f"))
	}

	// Both folders grouped: nothing is left for the default group, which leaves d2.
	r.groups = map[string]modelSelector{"db": {{"env": "dev"}}, "web": {{"zone": "b"}}}
	if p := m.SettleAll(map[string][]string{"r0": {"d2"}, "r0#db": {"d1"}, "r0#web": {"d1"}}); len(p) != 1 || !strings.Contains(p[0], "no file is left for the default group") {
		t.Errorf("a default placement with no file left for it: %q", p)
	}
	m.choice["r0"] = []string{"d2"}
	if p := m.SettleAll(map[string][]string{"r0": nil, "r0#db": {"d1"}, "r0#web": {"d1"}}); p != nil {
		t.Fatal(p)
	}
	for _, p := range modelKeys(mustExpect(t, m, modelLoc{0, "d2"}).certain) {
		if strings.Contains(p, "/r0/") {
			t.Errorf("no default group: d2 still holds %s", p)
		}
	}
}
