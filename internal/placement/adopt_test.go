package placement_test

import (
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
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
