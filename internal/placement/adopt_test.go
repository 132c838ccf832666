package placement_test

import (
	"reflect"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// An imported resource is found where its files are: a file in a folder it owns or a file it
// claims proves it is there; a file it would write but that any placement could have written
// does not, and neither does the shared aggregate.
func TestHolds(t *testing.T) {
	req := layout.Request{Promise: "postgres", Namespace: "default", Name: "db", Pipeline: "instance-configure",
		Files: map[string][]byte{"db.yaml": []byte("kind: DB\n")}, Others: []byte("kind: DB\n")}
	files := func(mode layout.Mode) layout.Files {
		f, err := layout.RequestFiles(dev(mode).Target, req)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const (
		noneIndex = "kratix/dev/.kratix/default-postgres_db_default_instance-configure.dev-5058f.yaml"
		aggPart   = "kratix/.kratix-aggregates/dev/aggregated.yaml/postgres_db_default_instance-configure.dev-5058f.part"
		splitRes  = "kratix/dev/resources/01-default-postgres-default-default-db-resources.yaml"
	)
	tests := []struct {
		name  string
		mode  layout.Mode
		found map[string]string
		want  bool
	}{
		{"nested: a file in its folder", layout.ModeNestedByMetadata, map[string]string{nestedReqDir + "db.yaml": "beef"}, true},
		{"nested: a stray file in its folder", layout.ModeNestedByMetadata, map[string]string{nestedReqDir + "other.yaml": "beef"}, true},
		{"nested: nothing", layout.ModeNestedByMetadata, map[string]string{}, false},
		{"nested: another request's folder", layout.ModeNestedByMetadata,
			map[string]string{"kratix/dev/resources/default/postgres/db2/instance-configure/5058f/db.yaml": "beef"}, false},
		{"none: its index file", layout.ModeNone, map[string]string{noneIndex: "beef", "kratix/dev/db.yaml": "beef"}, true},
		{"none: a file of its name, no index", layout.ModeNone, map[string]string{"kratix/dev/db.yaml": "beef"}, false},
		{"splitByKind: its resources file", layout.ModeSplitByKind, map[string]string{splitRes: "beef"}, true},
		{"aggregatedYAML: its part", layout.ModeAggregatedYAML, map[string]string{aggPart: "beef", aggFile: "part:beef"}, true},
		{"aggregatedYAML: the aggregate alone", layout.ModeAggregatedYAML, map[string]string{aggFile: placement.Stale}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := placement.Record{Root: devRoot, Files: tt.found}
			if got := placement.Holds(files(tt.mode), r); got != tt.want {
				t.Errorf("Holds = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestProbeClaimsTheAggregate(t *testing.T) {
	f, err := layout.DependencyFiles(dev(layout.ModeAggregatedYAML).Target, deps(depsYAML))
	if err != nil {
		t.Fatal(err)
	}
	r := placement.Probe(dev(layout.ModeAggregatedYAML), f)
	equal(t, "Files", r.Files, map[string]string{aggFile: placement.Stale})
	if r.Root != devRoot || r.Location != locA().String() || r.Store != "store" {
		t.Errorf("Probe = %+v, want the member's store, location and folder", r)
	}
	q := placement.Observe(f, r)
	got := placement.Refresh(r, q, placement.Observation{Found: map[string]string{aggDepsPart: depsMD5}, AggregateFresh: true})
	equal(t, "refreshed", got.Files, map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5})
	if n := placement.Probe(dev(""), layout.Files{}); len(n.Files) != 0 {
		t.Errorf("Probe of a nested folder claims %v", n.Files)
	}
}

func TestHolders(t *testing.T) {
	f := layout.Files{Prune: []string{"a/x/"}}
	g := layout.Files{Prune: []string{"b/x/"}}
	found := map[string]placement.Record{
		"b": {Files: map[string]string{"b/x/f": "1"}},
		"a": {Files: map[string]string{"a/x/f": "1"}},
		"c": {Files: map[string]string{}},
	}
	equal(t, "holders", placement.Holders(map[string]layout.Files{"a": f, "b": g, "c": f}, found), []string{"a", "b"})
	equal(t, "none", placement.Holders(map[string]layout.Files{"c": f}, found), []string(nil))
}

// An index file Kratix wrote proves its placement when every file it lists is there; when
// several do (Kratix's names can be shared), those listing exactly the placement's own files win,
// and several left are all returned for the caller to refuse.
func TestKratixIndexes(t *testing.T) {
	const (
		x7 = "k2/.kratix/default-db-a-b-default-instance-configure-x7k2p.k2-5058f.yaml"
		q3 = "k2/.kratix/default-db-a-b-default-instance-configure-q3v9z.k2-5058f.yaml"
	)
	found := map[string]string{"k2/ab.yaml": "1", "k2/b.yaml": "2", "k2/c.yaml": "3", x7: "4", q3: "5"}
	tests := []struct {
		name    string
		indexes map[string][]string
		own     []string
		want    []string
	}{
		{"none", map[string][]string{}, []string{"k2/ab.yaml"}, nil},
		{"one, its files there", map[string][]string{x7: {"k2/ab.yaml"}}, []string{"k2/ab.yaml"}, []string{x7}},
		{"one, listing other files that are there", map[string][]string{x7: {"k2/c.yaml"}}, []string{"k2/ab.yaml"}, []string{x7}},
		{"one, a file missing", map[string][]string{x7: {"k2/ab.yaml", "k2/gone.yaml"}}, []string{"k2/ab.yaml"}, nil},
		{"one, listing nothing", map[string][]string{x7: {}}, []string{"k2/ab.yaml"}, nil},
		{"two, one listing the placement's files", map[string][]string{x7: {"k2/b.yaml"}, q3: {"k2/ab.yaml"}}, []string{"k2/ab.yaml"}, []string{q3}},
		{"two, the same files in another order", map[string][]string{x7: {"k2/b.yaml"}, q3: {"k2/c.yaml", "k2/ab.yaml"}},
			[]string{"k2/ab.yaml", "k2/c.yaml"}, []string{q3}},
		{"two, neither exactly", map[string][]string{x7: {"k2/b.yaml"}, q3: {"k2/c.yaml"}}, []string{"k2/ab.yaml"}, []string{q3, x7}},
		{"two, both exactly", map[string][]string{x7: {"k2/ab.yaml"}, q3: {"k2/ab.yaml"}}, []string{"k2/ab.yaml"}, []string{q3, x7}},
		{"two, one with a file missing", map[string][]string{x7: {"k2/gone.yaml"}, q3: {"k2/c.yaml"}}, []string{"k2/ab.yaml"}, []string{q3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equal(t, "indexes", placement.KratixIndexes(tt.indexes, found, tt.own), tt.want)
		})
	}
}

// An aggregate Kratix wrote holds a placement when it holds each of its documents, however
// Kratix serialised them.
func TestAggregateHolds(t *testing.T) {
	const (
		ns   = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
		beta = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: beta\n"
		// The same objects, keys in another order, other indentation, quotes.
		nsKratix   = "kind: Namespace\napiVersion: v1\nmetadata:\n    name: \"p\"\n"
		betaKratix = "metadata:\n  name: 'beta'\nkind: ConfigMap\napiVersion: v1\n"
		gamma      = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gamma\n"
	)
	tests := []struct {
		name      string
		aggregate string
		contents  []string
		want      bool
	}{
		{"both documents", beta + "\n---\n" + ns, []string{ns}, true},
		{"reserialised", betaKratix + "\n---\n" + nsKratix, []string{ns}, true},
		{"a multi-document placement", betaKratix + "\n---\n" + nsKratix, []string{ns + "---\n" + beta}, true},
		{"two files", nsKratix + "\n---\n" + betaKratix, []string{beta, ns}, true},
		{"one document of two missing", ns, []string{ns + "---\n" + beta}, false},
		{"not there", beta + "\n---\n" + gamma, []string{ns}, false},
		{"another object of the same name", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n  labels:\n    a: b\n", []string{ns}, false},
		{"beside a chunk that is not YAML", "{{ not yaml\n---\n" + ns, []string{ns}, true},
		{"text", "hello\n---\n" + ns, []string{"hello\n"}, true},
		{"no document", ns, []string{""}, false},
		{"empty aggregate", "", []string{ns}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contents := make([][]byte, len(tt.contents))
			for i, c := range tt.contents {
				contents[i] = []byte(c)
			}
			if got := placement.AggregateHolds([]byte(tt.aggregate), contents); got != tt.want {
				t.Errorf("AggregateHolds = %v, want %v", got, tt.want)
			}
		})
	}
}

// An imported promise's destination holds the configured dependencies when every file they lay
// out is there with their content (MD5s spelled out by hand: "kind: A\n" and the index file).
func TestHoldsExactly(t *testing.T) {
	deps := layout.Dependencies{Promise: "p", All: []byte("kind: A\n")}
	f, err := layout.DependencyFiles(dev(layout.ModeNone).Target, deps)
	if err != nil {
		t.Fatal(err)
	}
	const (
		file  = "kratix/dev/static/p-dependencies.yaml"
		index = "kratix/dev/.kratix/kratix-platform-system-p-static-deps.dev-5058f.yaml"
		sumA  = "de72ff05fc6e8397a93b74c5d9d0976e" // md5("kind: A\n")
	)
	sumIndex := memo.MD5(f.Put[index])
	for _, tc := range []struct {
		name  string
		found map[string]string
		want  bool
	}{
		{"every file, same content", map[string]string{file: sumA, index: sumIndex}, true},
		{"with a stray file beside them", map[string]string{file: sumA, index: sumIndex, "kratix/dev/x.yaml": "beef"}, true},
		{"other content", map[string]string{file: "beef", index: sumIndex}, false},
		{"the index file missing (Kratix wrote it)", map[string]string{file: sumA}, false},
		{"nothing", map[string]string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := placement.HoldsExactly(f, placement.Record{Files: tc.found}); got != tc.want {
				t.Errorf("HoldsExactly = %v, want %v", got, tc.want)
			}
		})
	}
	if placement.HoldsExactly(layout.Files{}, placement.Record{Files: map[string]string{}}) {
		t.Error("a placement that writes nothing holds nothing to compare")
	}
}

func TestAggregateSource(t *testing.T) {
	agg := layout.Aggregate{File: "kratix/dev/aggregated.yaml", Dir: "kratix/.kratix-aggregates/dev/aggregated.yaml/"}
	for _, tc := range []struct {
		name   string
		parts  map[string]string
		source string
		read   bool
	}{
		{"no parts: the file Kratix wrote", nil, "kratix/dev/aggregated.yaml", true},
		{"a remainder among the parts: it", map[string]string{
			"kratix/.kratix-aggregates/dev/aggregated.yaml/kratix-remainder.part": "x",
			"kratix/.kratix-aggregates/dev/aggregated.yaml/a.dev-5058f.part":      "y",
		}, "kratix/.kratix-aggregates/dev/aggregated.yaml/kratix-remainder.part", true},
		{"parts without a remainder: nothing to read", map[string]string{
			"kratix/.kratix-aggregates/dev/aggregated.yaml/a.dev-5058f.part": "y",
		}, "", false},
	} {
		if source, read := placement.AggregateSource(agg, tc.parts); source != tc.source || read != tc.read {
			t.Errorf("%s: (%q, %v), want (%q, %v)", tc.name, source, read, tc.source, tc.read)
		}
	}
}

// AdoptKratixIndex: one index file proving the placement adopts it and the files it lists, with
// their sums as found, beside what the record had; two that prove it alike adopt nothing and name
// both; none adopts nothing.
func TestAdoptKratixIndex(t *testing.T) {
	rec := placement.Record{Store: "store", Location: "loc", Root: "kratix/dev", Files: map[string]string{"kratix/dev/kept.yaml": "k"}}
	files := layout.Files{Put: map[string][]byte{"kratix/dev/db.yaml": []byte("a"), "kratix/dev/.kratix/own.yaml": []byte("i")},
		Claims: []string{"kratix/dev/.kratix/own.yaml"}}
	idxA, idxB := "kratix/dev/.kratix/default-postgres_db.dev-abcde.yaml", "kratix/dev/.kratix/default-postgres_db.dev-fghij.yaml"
	found := map[string]string{"kratix/dev/db.yaml": "sum-db", idxA: "sum-a", idxB: "sum-b", "kratix/dev/other.yaml": "sum-o"}

	got, chosen := placement.AdoptKratixIndex(rec, files, map[string][]string{idxA: {"kratix/dev/db.yaml"}}, found)
	want := map[string]string{"kratix/dev/kept.yaml": "k", "kratix/dev/db.yaml": "sum-db", idxA: "sum-a"}
	if len(chosen) != 1 || chosen[0] != idxA || !reflect.DeepEqual(got.Files, want) {
		t.Errorf("one index: chosen %v, files %v; want [%s], %v", chosen, got.Files, idxA, want)
	}
	if len(rec.Files) != 1 {
		t.Errorf("the record given was changed: %v", rec.Files)
	}
	got, chosen = placement.AdoptKratixIndex(rec, files, map[string][]string{idxA: {"kratix/dev/db.yaml"}, idxB: {"kratix/dev/db.yaml"}}, found)
	if !reflect.DeepEqual(chosen, []string{idxA, idxB}) || !reflect.DeepEqual(got.Files, rec.Files) {
		t.Errorf("two alike: chosen %v, files %v; want both, the record unchanged", chosen, got.Files)
	}
	// Of two, the one listing exactly the files the placement writes wins.
	got, chosen = placement.AdoptKratixIndex(rec, files, map[string][]string{idxA: {"kratix/dev/db.yaml", "kratix/dev/other.yaml"}, idxB: {"kratix/dev/db.yaml"}}, found)
	if !reflect.DeepEqual(chosen, []string{idxB}) || got.Files[idxB] != "sum-b" || got.Files["kratix/dev/other.yaml"] != "" {
		t.Errorf("one exact: chosen %v, files %v; want [%s] without other.yaml", chosen, got.Files, idxB)
	}
	got, chosen = placement.AdoptKratixIndex(rec, files, map[string][]string{idxA: {"kratix/dev/missing.yaml"}}, found)
	if len(chosen) != 0 || !reflect.DeepEqual(got.Files, rec.Files) {
		t.Errorf("a file listed is missing: chosen %v, files %v; want none, the record unchanged", chosen, got.Files)
	}
}

// After a request's import, the destination named in the import id is adopted whatever its folder
// holds; without one, every destination holding the request, up to its replicas, and more holders
// are refused.
func TestAdoptRequest(t *testing.T) {
	dev := placement.Record{Store: "minio", Location: "s3://minio:9000/kratix", Root: "dev", Files: map[string]string{"dev/db.yaml": "m1"}}
	prod := placement.Record{Store: "minio", Location: "s3://minio:9000/kratix", Root: "prod", Files: map[string]string{"prod/db.yaml": "m1"}}
	found := map[string]placement.Record{"dev": dev, "prod": prod}
	tests := []struct {
		name     string
		named    string
		replicas int
		holders  []string
		want     map[string]placement.Record
		several  bool
	}{
		{name: "named holder", named: "dev", replicas: 1, holders: []string{"dev", "prod"},
			want: map[string]placement.Record{"dev": dev}},
		{name: "named, holding nothing", named: "qa", replicas: 1, holders: []string{"dev"},
			want: map[string]placement.Record{"qa": {}}},
		{name: "one holder", replicas: 1, holders: []string{"prod"},
			want: map[string]placement.Record{"prod": prod}},
		{name: "no holder", replicas: 1, holders: nil,
			want: map[string]placement.Record{}},
		{name: "two holders, one replica", replicas: 1, holders: []string{"dev", "prod"}, several: true},
		{name: "two holders, replicas unset", replicas: 0, holders: []string{"dev", "prod"}, several: true},
		{name: "two holders, two replicas", replicas: 2, holders: []string{"dev", "prod"},
			want: map[string]placement.Record{"dev": dev, "prod": prod}},
	}
	for _, tt := range tests {
		got, several := placement.AdoptRequest(tt.named, tt.replicas, found, tt.holders)
		if several != tt.several || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: AdoptRequest = %v, several %v; want %v, several %v", tt.name, got, several, tt.want, tt.several)
		}
	}
}
