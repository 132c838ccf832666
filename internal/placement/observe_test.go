package placement_test

import (
	"slices"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// Drift: state records what was written so that Read detects drift. Refresh turns what the
// store holds into the record the next plan compares with.
func TestObserveAndRefreshNestedByMetadata(t *testing.T) {
	f, err := layout.DependencyFiles(dev("").Target, deps(depsYAML))
	if err != nil {
		t.Fatal(err)
	}
	rec := placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
		Files: map[string]string{nestedDepsFile: depsMD5}}
	q := placement.Observe(f, rec)
	sameSet(t, "Prefixes", q.Prefixes, []string{nestedDepsDir})
	sameSet(t, "Files (all under the listed folder)", q.Files, nil)
	if q.Aggregate != nil {
		t.Errorf("Aggregate = %+v, want none", q.Aggregate)
	}

	stray := nestedDepsDir + "stray.yaml"
	tests := []struct {
		name  string
		found map[string]string
		want  map[string]string
	}{
		{"unchanged", map[string]string{nestedDepsFile: depsMD5}, map[string]string{nestedDepsFile: depsMD5}},
		{"stray file appears", map[string]string{nestedDepsFile: depsMD5, stray: "0123"},
			map[string]string{nestedDepsFile: depsMD5, stray: "0123"}},
		{"deleted file disappears", map[string]string{}, map[string]string{}},
		{"edited file gets its new hash", map[string]string{nestedDepsFile: depsV2MD5}, map[string]string{nestedDepsFile: depsV2MD5}},
		{"file beside the folder is not ours", map[string]string{nestedDepsFile: depsMD5, "kratix/dev/README.md": "beef"},
			map[string]string{nestedDepsFile: depsMD5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := placement.Refresh(rec, q, placement.Observation{Found: tt.found})
			equal(t, "Files", got.Files, tt.want)
			if got.Location != rec.Location || got.Root != rec.Root || got.Store != rec.Store {
				t.Errorf("Refresh changed where the record is: %+v", got)
			}
		})
	}
	// The refreshed record must not share its map with the record it came from.
	got := placement.Refresh(rec, q, placement.Observation{Found: map[string]string{}})
	if len(rec.Files) != 1 || len(got.Files) != 0 {
		t.Errorf("Refresh modified the prior record: %v", rec.Files)
	}
}

func TestObserveAndRefreshNone(t *testing.T) {
	m := dev(layout.ModeNone)
	f, err := layout.DependencyFiles(m.Target, deps(depsYAML))
	if err != nil {
		t.Fatal(err)
	}
	old := "kratix/dev/old.yaml" // recorded from an earlier write
	rec := placement.Record{Files: map[string]string{noneDepsFile: depsMD5, noneDepsIndex: "idx", old: "o"}}
	q := placement.Observe(f, rec)
	sameSet(t, "Prefixes", q.Prefixes, nil)
	sameSet(t, "Files", q.Files, []string{noneDepsFile, noneDepsIndex, old})
	got := placement.Refresh(rec, q, placement.Observation{Found: map[string]string{noneDepsFile: depsV2MD5, noneDepsIndex: "idx"}})
	equal(t, "Files", got.Files, map[string]string{noneDepsFile: depsV2MD5, noneDepsIndex: "idx"})
}

// An aggregate's own hash depends on other writers: it is recorded as "part:<md5 of the part>"
// when it holds exactly its parts, "stale" when it does not or when the part is gone.
func TestObserveAndRefreshAggregatedYAML(t *testing.T) {
	f, err := layout.DependencyFiles(dev(layout.ModeAggregatedYAML).Target, deps(depsYAML))
	if err != nil {
		t.Fatal(err)
	}
	rec := placement.Record{Files: map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5}}
	q := placement.Observe(f, rec)
	sameSet(t, "Files", q.Files, []string{aggDepsPart})
	if q.Aggregate == nil || q.Aggregate.File != aggFile || q.Aggregate.Dir != aggPartsDir {
		t.Fatalf("Aggregate = %+v, want %s from %s", q.Aggregate, aggFile, aggPartsDir)
	}
	tests := []struct {
		name string
		obs  placement.Observation
		want map[string]string
	}{
		{"fresh", placement.Observation{Found: map[string]string{aggDepsPart: depsMD5}, AggregateFresh: true},
			map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5}},
		{"aggregate not fresh", placement.Observation{Found: map[string]string{aggDepsPart: depsMD5}, AggregateFresh: false},
			map[string]string{aggDepsPart: depsMD5, aggFile: "stale"}},
		// The aggregate may well hold the join of the parts that remain: without this placement's
		// part it is stale all the same.
		{"part deleted", placement.Observation{Found: map[string]string{}, AggregateFresh: true},
			map[string]string{aggFile: "stale"}},
		{"part edited", placement.Observation{Found: map[string]string{aggDepsPart: depsV2MD5}, AggregateFresh: true},
			map[string]string{aggDepsPart: depsV2MD5, aggFile: "part:" + depsV2MD5}},
		{"another placement's part is not ours", placement.Observation{Found: map[string]string{
			aggDepsPart: depsMD5, aggPartsDir + "redis-static-deps.dev-5058f.part": "beef"}, AggregateFresh: true},
			map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := placement.Refresh(rec, q, tt.obs)
			equal(t, "Files", got.Files, tt.want)
		})
	}

	// A refreshed stale record makes the next plan differ from it, so the apply repairs it.
	m := dev(layout.ModeAggregatedYAML)
	stale := placement.Refresh(rec, q, placement.Observation{Found: map[string]string{aggDepsPart: depsMD5}})
	p := planPromise(t, placement.Promise{Name: "jenkins", Dependencies: deps(depsYAML), Pool: []placement.Member{m},
		Prior: map[string]placement.Prior{"dev": {Record: stale, Member: &m}}})
	if p.Records["dev"].Files[aggFile] != "part:"+depsMD5 {
		t.Errorf("plan after a stale refresh records %q for the aggregate, want part:%s", p.Records["dev"].Files[aggFile], depsMD5)
	}
	if len(p.Ops) != 1 || len(p.Ops[0].Change.Aggregates) != 1 {
		t.Errorf("plan after a stale refresh: Ops %+v, want the aggregate rebuilt", p.Ops)
	}
}

// A placement kept as it was (misscheduled) on a destination whose layout has since changed from
// aggregatedYAML to none: its record holds the aggregate as a share, and the new layout looks the
// file up as a plain one. It stays a share (so that no owner claims the shared file); a share
// whose file is gone goes.
func TestRefreshKeepsAShareAfterTheLayoutChanged(t *testing.T) {
	f, err := layout.DependencyFiles(dev(layout.ModeNone).Target, deps(depsYAML))
	if err != nil {
		t.Fatal(err)
	}
	rec := placement.Record{Files: map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5}}
	q := placement.Observe(f, rec)
	if !slices.Contains(q.Files, aggFile) || q.Aggregate != nil {
		t.Fatalf("Query %+v: the none layout should look %s up as a plain file", q, aggFile)
	}
	got := placement.Refresh(rec, q, placement.Observation{Found: map[string]string{aggDepsPart: depsMD5, aggFile: "0123"}})
	equal(t, "Files", got.Files, map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5})
	got = placement.Refresh(rec, q, placement.Observation{Found: map[string]string{aggDepsPart: depsMD5}})
	equal(t, "Files", got.Files, map[string]string{aggDepsPart: depsMD5})
}
