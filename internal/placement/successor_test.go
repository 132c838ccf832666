package placement_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// A replacement deletes the old object before it creates the new one. Whatever the new one
// writes again at the same location must not be deleted in between: a GitOps agent reconciling
// with pruning would take it off the cluster.
func TestSpareKeepsWhatTheSuccessorWrites(t *testing.T) {
	m := dev("")
	far := member("far", locB(), storePath, "kratix/far", layout.ModeNone, nil)
	farFile := "kratix/far/static/jenkins-dependencies.yaml"
	farIndex := "kratix/far/.kratix/kratix-platform-system-jenkins-static-deps.far-5058f.yaml"
	// dev's folder also holds a file the successor no longer writes (an older layout).
	oldFile := "kratix/dev/dependencies/jenkins/5058f/static/old.yaml"
	prior := map[string]placement.Prior{
		"dev": {Member: &m, Record: placement.Record{Location: locA().String(), Root: devRoot,
			Files: map[string]string{nestedDepsFile: depsMD5, oldFile: depsMD5}}},
		"far": {Member: &far, Record: placement.Record{Location: locB().String(), Root: "kratix/far",
			Files: map[string]string{farFile: depsMD5, farIndex: "x"}}},
	}
	removal, err := placement.RemovePromise(deps(depsYAML), prior)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name      string
		successor placement.Successor
		// want is the Delete list per location; a location missing here has no Op left.
		want map[placement.Location][]string
	}{
		{
			name:      "no successor: the removal is untouched",
			successor: nil,
			want: map[placement.Location][]string{
				locA(): {nestedDepsDir, nestedDepsFile, oldFile},
				locB(): {farFile, farIndex},
			},
		},
		{
			name: "the successor writes everything again: nothing is deleted anywhere",
			successor: placement.Successor{
				locA().String(): {nestedDepsFile, oldFile},
				locB().String(): {farIndex, farFile},
			},
			want: map[placement.Location][]string{},
		},
		{
			name: "a folder removed whole is narrowed to the recorded files the successor does not write",
			successor: placement.Successor{
				locA().String(): {nestedDepsFile},
			},
			want: map[placement.Location][]string{
				locA(): {oldFile},
				locB(): {farFile, farIndex},
			},
		},
		{
			name: "the same paths at another location spare nothing",
			successor: placement.Successor{
				locB().String(): {nestedDepsFile, oldFile},
			},
			want: map[placement.Location][]string{
				locA(): {nestedDepsDir, nestedDepsFile, oldFile},
				locB(): {farFile, farIndex},
			},
		},
		{
			name: "a loose file the successor keeps stays, its index goes",
			successor: placement.Successor{
				locB().String(): {farFile},
			},
			want: map[placement.Location][]string{
				locA(): {nestedDepsDir, nestedDepsFile, oldFile},
				locB(): {farIndex},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := removal.Spare(tc.successor)
			got := map[placement.Location][]string{}
			for _, op := range p.Ops {
				got[op.Location] = op.Change.Delete
			}
			if len(got) != len(tc.want) {
				t.Fatalf("ops at %v, want at %v", keysOf(got), keysOf(tc.want))
			}
			for loc, want := range tc.want {
				sameSet(t, "Delete at "+loc.String(), got[loc], want)
			}
		})
	}
	// Spare returns a new plan: the removal itself is unchanged.
	sameSet(t, "removal's Delete at A", opAt(t, removal.Ops, locA()).Change.Delete, []string{nestedDepsDir, nestedDepsFile, oldFile})
}

// An aggregated placement's replacement writes its part again: the part is not deleted and the
// shared file is not rebuilt in between (it would lose the part for a moment).
func TestSpareAggregatePart(t *testing.T) {
	m := dev(layout.ModeAggregatedYAML)
	removal, err := placement.RemovePromise(deps(depsYAML), map[string]placement.Prior{
		"dev": {Member: &m, Record: placement.Record{Location: locA().String(), Root: devRoot,
			Files: map[string]string{aggFile: placement.AggregateMark + depsMD5}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := opAt(t, removal.Ops, locA())
	if !contains(a.Change.Delete, aggDepsPart) || len(a.Change.Aggregates) != 1 {
		t.Fatalf("the removal should delete the part and rebuild %s: %+v", aggFile, a.Change)
	}
	p := removal.Spare(placement.Successor{locA().String(): {aggDepsPart, aggFile}})
	if len(p.Ops) != 0 {
		t.Errorf("ops left after sparing the part and the aggregate: %+v", p.Ops)
	}
}

// SuccessorOf lists what a plan's operations put and the aggregates they rebuild, per location.
func TestSuccessorOf(t *testing.T) {
	far := member("far", locB(), storePath, "kratix/far", layout.ModeAggregatedYAML, map[string]string{"env": "dev"})
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
		Pool: []placement.Member{dev(""), far},
	})
	s := placement.SuccessorOf(p.Ops)
	sameSet(t, "at A", s[locA().String()], []string{nestedDepsFile})
	sameSet(t, "at B", s[locB().String()], []string{
		"kratix/.kratix-aggregates/far/aggregated.yaml/jenkins-static-deps.far-5058f.part",
		"kratix/far/aggregated.yaml",
	})
}

func keysOf[V any](m map[placement.Location]V) []string {
	var out []string
	for k := range m {
		out = append(out, k.String())
	}
	return out
}

// A destination replaced in its folder with another layout is cleaned up, but the canaries its
// successor writes again at the same paths stay.
func TestSpareFilesKeepsTheSuccessorsCanaries(t *testing.T) {
	before := withAggName(dev(layout.ModeAggregatedYAML), "all.yaml")
	after := withAggName(dev(layout.ModeAggregatedYAML), "fleet.yaml")
	s := placement.SuccessorOf(placement.PlanCanaries(after, true).Ops)
	canaries := s[locA().String()]
	if len(canaries) == 0 {
		t.Fatalf("the successor writes no canary: %v", s)
	}
	cleanup := placement.Change{Delete: append([]string{"kratix/dev/all.yaml", aggPartsDir}, canaries...)}
	got := s.SpareFiles(before.Location, cleanup, nil)
	sameSet(t, "Delete", got.Delete, []string{"kratix/dev/all.yaml", aggPartsDir})
	if other := s.SpareFiles(locB(), cleanup, nil); len(other.Delete) != len(cleanup.Delete) {
		t.Errorf("paths at %s spare a cleanup at %s: %q", locA(), locB(), other.Delete)
	}
}

// A destination's cleanup after promises and requests wrote into the same folder earlier in the
// apply (its successor's, under create_before_destroy) keeps what they wrote: a file, and a part
// inside a folder the cleanup removes whole, which is narrowed to the other listed files.
func TestSpareFilesKeepsWhatOthersWroteInTheApply(t *testing.T) {
	loc := locA()
	part := aggPartsDir + "p-static-deps.dev-5058f.part"
	oldPart := aggPartsDir + "gone-static-deps.dev-5058f.part"
	cleanup := placement.Change{Delete: []string{
		"kratix/dev/dependencies/p/5058f/static/p-dependencies.yaml",
		"kratix/dev/dependencies/q/5058f/static/q-dependencies.yaml",
		aggPartsDir,
	}}
	listed := []string{
		"kratix/dev/dependencies/p/5058f/static/p-dependencies.yaml",
		"kratix/dev/dependencies/q/5058f/static/q-dependencies.yaml",
		oldPart, part,
	}
	s := placement.Successor{loc.String(): {"kratix/dev/dependencies/p/5058f/static/p-dependencies.yaml", part}}
	got := s.SpareFiles(loc, cleanup, listed)
	sameSet(t, "Delete", got.Delete, []string{"kratix/dev/dependencies/q/5058f/static/q-dependencies.yaml", oldPart})
}

// A removal whose part of an aggregate is still deleted rebuilds the aggregate, even though
// someone wrote the aggregate earlier in the same apply (another promise's part, rebuilt before
// this removal): without the rebuild the shared file would keep the removed part's documents.
func TestSpareRebuildsAnAggregateWhosePartGoes(t *testing.T) {
	m := dev(layout.ModeAggregatedYAML)
	removal, err := placement.RemovePromise(deps(depsYAML), map[string]placement.Prior{
		"dev": {Member: &m, Record: placement.Record{Location: locA().String(), Root: devRoot,
			Files: map[string]string{aggFile: placement.AggregateMark + depsMD5}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := removal.Spare(placement.Successor{locA().String(): {aggFile}})
	a := opAt(t, p.Ops, locA())
	if !contains(a.Change.Delete, aggDepsPart) {
		t.Errorf("the part is no longer deleted: %+v", a.Change)
	}
	if len(a.Change.Aggregates) != 1 || a.Change.Aggregates[0].File != aggFile {
		t.Errorf("aggregates rebuilt %+v, want %s", a.Change.Aggregates, aggFile)
	}
}

// With merges two lists path by path, sorted, without repeats.
func TestSuccessorWith(t *testing.T) {
	a := placement.Successor{"x": {"b", "a"}, "y": {"c"}}
	b := placement.Successor{"x": {"a", "d"}, "z": {"e"}}
	got := a.With(b)
	want := placement.Successor{"x": {"a", "b", "d"}, "y": {"c"}, "z": {"e"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := placement.Successor(nil).With(b); !reflect.DeepEqual(got, b) {
		t.Errorf("nil with b: %v", got)
	}
}

// TestSuccessorHolding: a new object's successor list holds what its operations write and every
// file its records hold without a write (a waiting destination, a placement the store already
// holds as recorded): the delete of the object it replaces must leave both.
func TestSuccessorHolding(t *testing.T) {
	repo := placement.Location{Kind: "git", Endpoint: "https://git.example/r", Branch: "main"}
	records := map[string]placement.Record{
		"dev-1":    {Location: "s3://b", Files: map[string]string{"dev-1/dependencies/p/5058f/static/p-dependencies.yaml": "m1"}},
		"dev-2":    {Location: "s3://b", Files: map[string]string{"dev-2/aggregated.yaml": "part:m2", "dev-2/a.yaml": "m3"}},
		"canary-1": {Location: repo.String(), Files: map[string]string{"canary-1/x.yaml": "m4"}},
	}
	// canary-1 is written again (x.yaml, and a new y.yaml); dev-1 and dev-2 are kept as recorded.
	ops := []placement.Op{{Location: repo, Change: placement.Change{Put: map[string][]byte{"canary-1/x.yaml": nil, "canary-1/y.yaml": nil}}}}
	got := placement.SuccessorHolding(ops, records)
	want := placement.Successor{
		"s3://b":      {"dev-1/dependencies/p/5058f/static/p-dependencies.yaml", "dev-2/a.yaml", "dev-2/aggregated.yaml"},
		repo.String(): {"canary-1/x.yaml", "canary-1/y.yaml"},
	}
	for loc, paths := range got {
		sort.Strings(paths)
		got[loc] = paths
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SuccessorHolding = %v, want %v", got, want)
	}
	if got := placement.SuccessorHolding(nil, nil); len(got) != 0 {
		t.Errorf("nothing held: %v", got)
	}
}
