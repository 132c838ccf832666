package placement_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// A promise applied for the first time to nestedByMetadata destinations: one Op per store
// location, the exact nestedByMetadata path, the owned folder pruned, hashes recorded, and the files it
// takes over listed as Fresh.
func TestPromiseFirstApplyNestedByMetadata(t *testing.T) {
	other := member("other", locA(), storePath, "kratix/other", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	far := member("far", locB(), storePath, "kratix/far", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
		Pool: []placement.Member{dev(""), other, far},
	})

	if len(p.Ops) != 2 {
		t.Fatalf("got %d Ops, want one per store location (2): %+v", len(p.Ops), p.Ops)
	}
	a := opAt(t, p.Ops, locA())
	equal(t, "Put at A", strPut(a.Change.Put), map[string]string{
		nestedDepsFile: depsYAML,
		"kratix/other/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": depsYAML,
	})
	sameSet(t, "Prune at A", a.Change.Prune, []string{nestedDepsDir, "kratix/other/dependencies/jenkins/5058f/"})
	sameSet(t, "Delete at A", a.Change.Delete, nil)
	sameSet(t, "Destinations at A", a.Destinations, []string{"dev", "other"})
	equal(t, "Fresh at A", a.Fresh, map[string]string{
		nestedDepsFile: depsMD5,
		"kratix/other/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": depsMD5,
	})
	if a.Member.Location != locA() {
		t.Errorf("Op at A carries member at %s", a.Member.Location)
	}

	b := opAt(t, p.Ops, locB())
	equal(t, "Put at B", strPut(b.Change.Put), map[string]string{
		"kratix/far/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": depsYAML,
	})
	sameSet(t, "Prune at B", b.Change.Prune, []string{"kratix/far/dependencies/jenkins/5058f/"})

	equal(t, "Records[dev]", p.Records["dev"], placement.Record{
		Store: "store", Location: locA().String(), Root: devRoot,
		Files: map[string]string{nestedDepsFile: depsMD5},
	})
	sameSet(t, "Scheduled", p.Scheduled, []string{"dev", "far", "other"})
	sameSet(t, "Misscheduled", p.Misscheduled, nil)
}

// No destination matches: a warning with Kratix's wording, nothing written.
func TestPromiseNoMatchWarnsAndWritesNothing(t *testing.T) {
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("prod"), Dependencies: deps(depsYAML),
		Pool: []placement.Member{dev("")},
	})
	if len(p.Ops) != 0 || len(p.Records) != 0 {
		t.Errorf("no match wrote something: ops %+v records %+v", p.Ops, p.Records)
	}
	if len(p.Warnings) == 0 || !strings.Contains(p.Warnings[0], "no destinations can be selected for scheduling") {
		t.Errorf("warnings = %q, want Kratix's \"no destinations can be selected for scheduling\"", p.Warnings)
	}
}

// A destination moved to another store: its files are taken from the old location and written
// at the new one, and Settle keeps the old record until both are done.
func TestPromiseDestinationMovedStore(t *testing.T) {
	before := dev("")
	now := member("dev", locB(), storePath, devRoot, layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	priorRecord := placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
		Files: map[string]string{nestedDepsFile: depsMD5}}
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
		Pool:  []placement.Member{now},
		Prior: map[string]placement.Prior{"dev": {Record: priorRecord, Member: &before}},
	})
	if len(p.Ops) != 2 {
		t.Fatalf("got %d Ops, want 2 (delete at A, put at B): %+v", len(p.Ops), p.Ops)
	}
	a := opAt(t, p.Ops, locA())
	if !contains(a.Change.Delete, nestedDepsDir) {
		t.Errorf("Op at A deletes %q, want the owned folder %q", a.Change.Delete, nestedDepsDir)
	}
	if len(a.Change.Put) != 0 {
		t.Errorf("Op at A puts %v, want nothing", strPut(a.Change.Put))
	}
	b := opAt(t, p.Ops, locB())
	equal(t, "Put at B", strPut(b.Change.Put), map[string]string{nestedDepsFile: depsYAML})
	sameSet(t, "Prune at B", b.Change.Prune, []string{nestedDepsDir})
	for _, d := range b.Change.Delete {
		t.Errorf("Op at B deletes %q; nothing was recorded there", d)
	}

	newRecord := placement.Record{Store: "store", Location: locB().String(), Root: devRoot,
		Files: map[string]string{nestedDepsFile: depsMD5}}

	t.Run("old location failed", func(t *testing.T) {
		out := p.Settle(map[string]bool{locA().String(): true})
		equal(t, "Records[dev]", out.Records["dev"], priorRecord)
		if contains(out.Scheduled, "dev") {
			t.Errorf("Scheduled = %q lists dev although its move is unfinished", out.Scheduled)
		}
	})
	t.Run("new location failed", func(t *testing.T) {
		out := p.Settle(map[string]bool{locB().String(): true})
		equal(t, "Records[dev]", out.Records["dev"], priorRecord)
		if contains(out.Scheduled, "dev") {
			t.Errorf("Scheduled = %q lists dev although its move is unfinished", out.Scheduled)
		}
	})
	t.Run("nothing failed", func(t *testing.T) {
		out := p.Settle(nil)
		equal(t, "Records[dev]", out.Records["dev"], newRecord)
		sameSet(t, "Scheduled", out.Scheduled, []string{"dev"})
	})
}

// Taking over: when a folder the provider is about to own already holds different content
// (written by Kratix or another workspace), the plan or apply warns before taking it over. A
// destination that moved to another store makes the promise take over a folder at the new
// location that it never held, so the files there must be listed as Fresh, as on a first apply.
func TestPromiseMovedStoreListsTakenOverFilesAsFresh(t *testing.T) {
	before := dev("")
	now := member("dev", locB(), storePath, devRoot, layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
		Pool: []placement.Member{now},
		Prior: map[string]placement.Prior{"dev": {Member: &before, Record: placement.Record{
			Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}}},
	})
	b := opAt(t, p.Ops, locB())
	if want := map[string]string{nestedDepsFile: depsMD5}; !equalMaps(b.Fresh, want) {
		t.Errorf("taking over (warn before taking over a folder): Fresh at the new location = %v, want %v: "+
			"a placement that moved to a store it never wrote to must not take over whatever is there without "+
			"the warning a first apply would give.", b.Fresh, want)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A cosmetic edit (the store resource renamed, labels changed, new content; same location, root
// and mode) is one Op that deletes nothing but unwritten claims, and planning again from the
// records it leaves gives the same Change: the plan is idempotent.
func TestPromiseCosmeticEditIsOneOpAndIdempotent(t *testing.T) {
	tests := []struct {
		mode       layout.Mode
		wantPut    map[string]string
		wantDelete []string
		wantFiles  map[string]string
	}{
		{layout.ModeNestedByMetadata,
			map[string]string{nestedDepsFile: depsV2YAML}, nil,
			map[string]string{nestedDepsFile: depsV2MD5}},
		{layout.ModeNone,
			map[string]string{noneDepsFile: depsV2YAML, noneDepsIndex: noneDepsIndexV1}, nil,
			map[string]string{noneDepsFile: depsV2MD5, noneDepsIndex: "14672a1e92dd2b399a2e400fd5909568"}},
		{layout.ModeAggregatedYAML,
			map[string]string{aggDepsPart: depsV2YAML}, nil,
			map[string]string{aggDepsPart: depsV2MD5, aggFile: "part:" + depsV2MD5}},
		// A Namespace is no CRD: the claimed crds file is not written, so it is deleted.
		{layout.ModeSplitByKind,
			map[string]string{splitOthers: depsV2YAML}, []string{splitCRDs},
			map[string]string{splitOthers: depsV2MD5}},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			before := dev(tt.mode)
			before.Store = "old-store-name"
			before.Labels = map[string]string{"env": "dev", "team": "a"}
			now := dev(tt.mode)
			now.Store = "new-store-name"
			first := planPromise(t, placement.Promise{
				Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML), Pool: []placement.Member{before},
			})
			in := placement.Promise{
				Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsV2YAML), Pool: []placement.Member{now},
				Prior: map[string]placement.Prior{"dev": {Record: first.Settle(nil).Records["dev"], Member: &before}},
			}
			p := planPromise(t, in)
			if len(p.Ops) != 1 {
				t.Fatalf("got %d Ops, want 1: %+v", len(p.Ops), p.Ops)
			}
			op := p.Ops[0]
			equal(t, "Put", strPut(op.Change.Put), tt.wantPut)
			sameSet(t, "Delete", op.Change.Delete, tt.wantDelete)
			if len(op.Fresh) != 0 {
				t.Errorf("Fresh = %v on a placement held before", op.Fresh)
			}
			equal(t, "Records[dev].Files", p.Records["dev"].Files, tt.wantFiles)
			if got := p.Records["dev"].Store; got != "new-store-name" {
				t.Errorf("Records[dev].Store = %q, want the new name", got)
			}

			// Again, from what the apply recorded: the store holds it all, so nothing is written.
			in.Prior = map[string]placement.Prior{"dev": {Record: p.Settle(nil).Records["dev"], Member: &now}}
			again := planPromise(t, in)
			if len(again.Ops) != 0 {
				t.Fatalf("second plan: got %d Ops, want none: %+v", len(again.Ops), again.Ops)
			}
			equal(t, "second plan's Records", again.Records, p.Records)
		})
	}
}

// Changing the filepath mode on the same folder is one Op: the old layout's files go, the new
// layout's files (and the .kratix/ index file of mode none) are put.
func TestPromiseModeChangeSameFolder(t *testing.T) {
	t.Run("nestedByMetadata to none", func(t *testing.T) {
		before := dev(layout.ModeNestedByMetadata)
		p := planPromise(t, placement.Promise{
			Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
			Pool: []placement.Member{dev(layout.ModeNone)},
			Prior: map[string]placement.Prior{"dev": {Member: &before, Record: placement.Record{
				Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}}},
		})
		if len(p.Ops) != 1 {
			t.Fatalf("got %d Ops, want 1", len(p.Ops))
		}
		op := p.Ops[0]
		if !contains(op.Change.Delete, nestedDepsDir) {
			t.Errorf("Delete = %q, want the old owned folder %q", op.Change.Delete, nestedDepsDir)
		}
		equal(t, "Put", strPut(op.Change.Put), map[string]string{noneDepsFile: depsYAML, noneDepsIndex: noneDepsIndexV1})
		// Files the placement never held in this layout: the writer warns if they hold other content.
		equal(t, "Fresh", op.Fresh, map[string]string{noneDepsFile: depsMD5, noneDepsIndex: "14672a1e92dd2b399a2e400fd5909568"})
		for _, d := range op.Change.Delete {
			if d != nestedDepsDir && d != nestedDepsFile {
				t.Errorf("Delete has %q, which the nestedByMetadata placement did not own", d)
			}
		}
	})
	t.Run("none to nestedByMetadata", func(t *testing.T) {
		before := dev(layout.ModeNone)
		p := planPromise(t, placement.Promise{
			Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
			Pool: []placement.Member{dev(layout.ModeNestedByMetadata)},
			Prior: map[string]placement.Prior{"dev": {Member: &before, Record: placement.Record{
				Store: "store", Location: locA().String(), Root: devRoot,
				Files: map[string]string{noneDepsFile: depsMD5, noneDepsIndex: "14672a1e92dd2b399a2e400fd5909568"}}}},
		})
		if len(p.Ops) != 1 {
			t.Fatalf("got %d Ops, want 1", len(p.Ops))
		}
		op := p.Ops[0]
		sameSet(t, "Delete", op.Change.Delete, []string{noneDepsFile, noneDepsIndex})
		equal(t, "Put", strPut(op.Change.Put), map[string]string{nestedDepsFile: depsYAML})
		sameSet(t, "Prune", op.Change.Prune, []string{nestedDepsDir})
	})
}

// nestedByMetadata: a promise whose dependencies hold no document writes nothing and removes what it
// wrote before, in every mode.
func TestPromiseWithoutDocumentsRemovesWhatItWrote(t *testing.T) {
	tests := []struct {
		mode       layout.Mode
		recorded   map[string]string
		wantDelete []string
		wantPrune  []string
		wantAggs   []layout.Aggregate
	}{
		{layout.ModeNestedByMetadata, map[string]string{nestedDepsFile: depsMD5},
			nil, []string{nestedDepsDir}, nil},
		{layout.ModeNone, map[string]string{noneDepsFile: depsMD5, noneDepsIndex: "14672a1e92dd2b399a2e400fd5909568"},
			[]string{noneDepsFile, noneDepsIndex}, nil, nil},
		{layout.ModeAggregatedYAML, map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5},
			[]string{aggDepsPart}, nil, []layout.Aggregate{{File: aggFile, Dir: aggPartsDir}}},
		{layout.ModeSplitByKind, map[string]string{splitOthers: depsMD5},
			[]string{splitCRDs, splitOthers}, nil, nil},
	}
	for _, tt := range tests {
		for _, held := range []bool{true, false} {
			name := string(tt.mode) + "/first apply"
			if held {
				name = string(tt.mode) + "/after a write"
			}
			t.Run(name, func(t *testing.T) {
				m := dev(tt.mode)
				in := placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(""), Pool: []placement.Member{m}}
				if held {
					in.Prior = map[string]placement.Prior{"dev": {Member: &m, Record: placement.Record{
						Store: "store", Location: locA().String(), Root: devRoot, Files: tt.recorded}}}
				}
				p := planPromise(t, in)
				if len(p.Ops) != 1 {
					t.Fatalf("got %d Ops, want 1", len(p.Ops))
				}
				op := p.Ops[0]
				if len(op.Change.Put) != 0 {
					t.Errorf("Put = %v, want nothing", strPut(op.Change.Put))
				}
				// A recorded file under a pruned folder may be listed too; it goes either way.
				var deleted []string
				for _, d := range op.Change.Delete {
					if !coveredByAny(tt.wantPrune, d) {
						deleted = append(deleted, d)
					}
				}
				sameSet(t, "Delete (outside pruned folders)", deleted, tt.wantDelete)
				sameSet(t, "Prune", op.Change.Prune, tt.wantPrune)
				if !equalAggs(op.Change.Aggregates, tt.wantAggs) {
					t.Errorf("Aggregates = %+v, want %+v", op.Change.Aggregates, tt.wantAggs)
				}
				if !emptyish(p.Records["dev"].Files) {
					t.Errorf("Records[dev].Files = %v, want none", p.Records["dev"].Files)
				}
			})
		}
	}
}

func coveredByAny(folders []string, p string) bool {
	for _, f := range folders {
		if covers(f, p) {
			return true
		}
	}
	return false
}

func equalAggs(a, b []layout.Aggregate) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// aggregatedYAML: the part lives outside the destination's folder, in a folder named
// after the destination's folder relative to the store path ("/" as %2F, "%2E" for the store
// path itself) and the file name.
func TestPromiseAggregatedPartLocation(t *testing.T) {
	tests := []struct {
		name, sp, root, filename string
		wantPart, wantFile       string
	}{
		{"default filename", "kratix", "kratix/dev", "",
			"kratix/.kratix-aggregates/dev/aggregated.yaml/jenkins-static-deps.dev-5058f.part", "kratix/dev/aggregated.yaml"},
		{"nested folder", "kratix", "kratix/clusters/dev", "all.yaml",
			"kratix/.kratix-aggregates/clusters%2Fdev/all.yaml/jenkins-static-deps.dev-5058f.part", "kratix/clusters/dev/all.yaml"},
		{"destination at the store path", "kratix", "kratix", "",
			"kratix/.kratix-aggregates/%2E/aggregated.yaml/jenkins-static-deps.dev-5058f.part", "kratix/aggregated.yaml"},
		{"store root", "", "", "",
			".kratix-aggregates/%2E/aggregated.yaml/jenkins-static-deps.dev-5058f.part", "aggregated.yaml"},
		{"store root, destination path", "", "dev", "",
			".kratix-aggregates/dev/aggregated.yaml/jenkins-static-deps.dev-5058f.part", "dev/aggregated.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := withAggName(member("dev", locA(), tt.sp, tt.root, layout.ModeAggregatedYAML, nil), tt.filename)
			p := planPromise(t, placement.Promise{Name: "jenkins", Dependencies: deps(depsYAML), Pool: []placement.Member{m}})
			if len(p.Ops) != 1 {
				t.Fatalf("got %d Ops, want 1", len(p.Ops))
			}
			op := p.Ops[0]
			equal(t, "Put", strPut(op.Change.Put), map[string]string{tt.wantPart: depsYAML})
			if tt.root != "" && strings.HasPrefix(tt.wantPart, tt.root+"/") && tt.root != tt.sp {
				t.Errorf("part %q is inside the destination's folder", tt.wantPart)
			}
			if len(op.Change.Aggregates) != 1 || op.Change.Aggregates[0].File != tt.wantFile {
				t.Errorf("Aggregates = %+v, want the file %q rebuilt", op.Change.Aggregates, tt.wantFile)
			}
			equal(t, "Records[dev].Files", p.Records["dev"].Files, map[string]string{
				tt.wantPart: depsMD5,
				tt.wantFile: "part:" + depsMD5,
			})
		})
	}
}

// Renaming aggregated_filename moves the part: the old part goes, the OLD aggregate is rebuilt
// (and so disappears with its last part), the new one is built.
func TestPromiseAggregatedFilenameRenamed(t *testing.T) {
	before := dev(layout.ModeAggregatedYAML)
	now := withAggName(dev(layout.ModeAggregatedYAML), "all.yaml")
	newPart := "kratix/.kratix-aggregates/dev/all.yaml/jenkins-static-deps.dev-5058f.part"
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML), Pool: []placement.Member{now},
		Prior: map[string]placement.Prior{"dev": {Member: &before, Record: placement.Record{
			Store: "store", Location: locA().String(), Root: devRoot,
			Files: map[string]string{aggDepsPart: depsMD5, aggFile: "part:" + depsMD5}}}},
	})
	if len(p.Ops) != 1 {
		t.Fatalf("got %d Ops, want 1", len(p.Ops))
	}
	op := p.Ops[0]
	sameSet(t, "Delete", op.Change.Delete, []string{aggDepsPart})
	equal(t, "Put", strPut(op.Change.Put), map[string]string{newPart: depsYAML})
	old := layout.Aggregate{File: aggFile, Dir: aggPartsDir}
	renamed := layout.Aggregate{File: "kratix/dev/all.yaml", Dir: "kratix/.kratix-aggregates/dev/all.yaml/"}
	var sawOld, sawNew bool
	for _, a := range op.Change.Aggregates {
		sawOld = sawOld || a == old
		sawNew = sawNew || a == renamed
	}
	if !sawOld || !sawNew || len(op.Change.Aggregates) != 2 {
		t.Errorf("Aggregates = %+v, want the old %+v and the new %+v", op.Change.Aggregates, old, renamed)
	}
	equal(t, "Records[dev].Files", p.Records["dev"].Files, map[string]string{
		newPart: depsMD5, "kratix/dev/all.yaml": "part:" + depsMD5,
	})
}

// Unscheduling: a destination that stops matching keeps its files (misscheduled, no Op) unless
// on_unschedule = "delete"; one that left the pool is forgotten.
func TestPromiseUnscheduledDestinations(t *testing.T) {
	m := dev("")
	prior := placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
		Files: map[string]string{nestedDepsFile: depsMD5}}
	priors := map[string]placement.Prior{"dev": {Record: prior, Member: &m}}

	t.Run("stops matching: misscheduled", func(t *testing.T) {
		p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("prod"), Dependencies: deps(depsV2YAML),
			Pool: []placement.Member{m}, Prior: priors})
		if len(p.Ops) != 0 {
			t.Errorf("Ops = %+v, want none: a misscheduled destination is not updated", p.Ops)
		}
		want := prior
		want.Misscheduled = true
		equal(t, "Records[dev]", p.Records["dev"], want)
		sameSet(t, "Misscheduled", p.Misscheduled, []string{"dev"})
		sameSet(t, "Scheduled", p.Scheduled, nil)
		if !anyContains(p.Warnings, `"dev" no longer matches`) {
			t.Errorf("Warnings = %q, want one saying dev no longer matches", p.Warnings)
		}
		out := p.Settle(nil)
		sameSet(t, "Settle Misscheduled", out.Misscheduled, []string{"dev"})
		equal(t, "Settle Records[dev]", out.Records["dev"], want)
	})
	t.Run("stops matching: on_unschedule delete", func(t *testing.T) {
		p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("prod"), Dependencies: deps(depsYAML),
			Pool: []placement.Member{m}, Prior: priors, DeleteUnscheduled: true})
		if len(p.Ops) != 1 {
			t.Fatalf("got %d Ops, want 1", len(p.Ops))
		}
		op := p.Ops[0]
		if !contains(op.Change.Delete, nestedDepsDir) {
			t.Errorf("Delete = %q, want the owned folder %q", op.Change.Delete, nestedDepsDir)
		}
		if len(op.Change.Put) != 0 {
			t.Errorf("Put = %v, want nothing", strPut(op.Change.Put))
		}
		if _, ok := p.Records["dev"]; ok {
			t.Errorf("Records[dev] = %+v, want none", p.Records["dev"])
		}
		if _, ok := p.Settle(nil).Records["dev"]; ok {
			t.Errorf("Settle(nil) still records dev")
		}
		if got := p.Settle(map[string]bool{locA().String(): true}).Records["dev"]; !equalMaps(got.Files, prior.Files) {
			t.Errorf("Settle with the delete failed: Records[dev] = %+v, want the prior record kept", got)
		}
	})
	t.Run("left the pool: forgotten", func(t *testing.T) {
		for _, del := range []bool{false, true} {
			p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
				Pool: nil, Prior: priors, DeleteUnscheduled: del})
			if len(p.Ops) != 0 {
				t.Errorf("DeleteUnscheduled=%v: Ops = %+v, want none (the files are the destination's cleanup's business)", del, p.Ops)
			}
			if len(p.Records) != 0 {
				t.Errorf("DeleteUnscheduled=%v: Records = %+v, want none", del, p.Records)
			}
			if out := p.Settle(nil); len(out.Records) != 0 {
				t.Errorf("DeleteUnscheduled=%v: Settle records %+v", del, out.Records)
			}
		}
	})
	t.Run("matches again: scheduled again", func(t *testing.T) {
		mis := priors["dev"]
		mis.Record.Misscheduled = true
		p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsV2YAML),
			Pool: []placement.Member{m}, Prior: map[string]placement.Prior{"dev": mis}})
		if len(p.Ops) != 1 || strPut(p.Ops[0].Change.Put)[nestedDepsFile] != depsV2YAML {
			t.Fatalf("Ops = %+v, want the new content put", p.Ops)
		}
		if p.Records["dev"].Misscheduled {
			t.Errorf("Records[dev] is still misscheduled")
		}
		sameSet(t, "Scheduled", p.Scheduled, []string{"dev"})
	})
}

// Unscheduling with on_unschedule = "delete" for a placement recorded without the destination as it
// was then (after an import): when the record says it is where the destination is now, the
// files are removed there; otherwise they cannot be reached and the record is kept, so that they
// are not lost track of.
func TestPromiseDeleteUnscheduledAfterImport(t *testing.T) {
	m := dev("")
	t.Run("record where the destination is", func(t *testing.T) {
		prior := placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
			Files: map[string]string{nestedDepsFile: depsMD5}}
		p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("prod"), Dependencies: deps(depsYAML),
			Pool: []placement.Member{m}, Prior: map[string]placement.Prior{"dev": {Record: prior}}, DeleteUnscheduled: true})
		if len(p.Ops) != 1 || !contains(p.Ops[0].Change.Delete, nestedDepsDir) {
			t.Fatalf("unscheduling (on_unschedule = \"delete\" removes the files): Ops = %+v, want one deleting %q", p.Ops, nestedDepsDir)
		}
		if _, ok := p.Records["dev"]; ok {
			t.Errorf("Records[dev] = %+v, want none once the files are removed", p.Records["dev"])
		}
	})
	t.Run("record elsewhere", func(t *testing.T) {
		prior := placement.Record{Store: "store", Location: locB().String(), Root: devRoot,
			Files: map[string]string{nestedDepsFile: depsMD5}}
		p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("prod"), Dependencies: deps(depsYAML),
			Pool: []placement.Member{m}, Prior: map[string]placement.Prior{"dev": {Record: prior}}, DeleteUnscheduled: true})
		if len(p.Ops) != 0 {
			t.Errorf("Ops = %+v, want none: nothing says how to reach %s", p.Ops, locB())
		}
		equal(t, "Records[dev]", p.Records["dev"], prior)
	})
}

// RemovePromise takes every placement away, misscheduled ones too: the owned folder whole.
func TestRemovePromise(t *testing.T) {
	m := dev("")
	far := member("far", locB(), storePath, "kratix/far", layout.ModeNone, nil)
	farIndex := "kratix/far/.kratix/kratix-platform-system-jenkins-static-deps.far-5058f.yaml"
	p, err := placement.RemovePromise(deps(depsYAML), map[string]placement.Prior{
		"dev": {Member: &m, Record: placement.Record{Location: locA().String(), Root: devRoot, Misscheduled: true,
			Files: map[string]string{nestedDepsFile: depsMD5}}},
		"far": {Member: &far, Record: placement.Record{Location: locB().String(), Root: "kratix/far",
			Files: map[string]string{"kratix/far/static/jenkins-dependencies.yaml": depsMD5, farIndex: "x"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Ops) != 2 {
		t.Fatalf("got %d Ops, want 2", len(p.Ops))
	}
	a := opAt(t, p.Ops, locA())
	if !contains(a.Change.Delete, nestedDepsDir) {
		t.Errorf("Delete at A = %q, want the misscheduled placement's folder %q", a.Change.Delete, nestedDepsDir)
	}
	b := opAt(t, p.Ops, locB())
	sameSet(t, "Delete at B", b.Change.Delete, []string{"kratix/far/static/jenkins-dependencies.yaml", farIndex})
	for _, op := range p.Ops {
		if len(op.Change.Put) != 0 {
			t.Errorf("removal puts %v", strPut(op.Change.Put))
		}
	}
	if out := p.Settle(nil); len(out.Records) != 0 {
		t.Errorf("Settle(nil) = %+v, want no records", out.Records)
	}
	out := p.Settle(map[string]bool{locB().String(): true})
	if _, ok := out.Records["far"]; !ok || len(out.Records) != 1 {
		t.Errorf("Settle with B failed = %+v, want far's record kept and dev's gone", out.Records)
	}
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Dry-run destinations: a destination labelled kratix.io/dry-run=true gets no placement, even when the
// selectors match it.
func TestDryRunDestinationGetsNothing(t *testing.T) {
	dry := dev("")
	dry.Labels = map[string]string{"env": "dev", "kratix.io/dry-run": "true"}
	p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
		Pool: []placement.Member{dry}})
	if len(p.Ops) != 0 || len(p.Scheduled) != 0 {
		t.Errorf("promise on a dry-run destination: Ops %+v Scheduled %q, want nothing", p.Ops, p.Scheduled)
	}
	r := planRequest(t, placement.Request{Output: pgRequest(map[string]string{"db.yaml": dbYAML}), Pool: []placement.Member{dry}})
	if r.Chosen != nil || len(r.Ops) != 0 {
		t.Errorf("request on a dry-run destination: Chosen %+v Ops %+v, want nothing", r.Chosen, r.Ops)
	}
}

// A rollout stages a change: a destination waiting for its wave keeps exactly what it holds (no
// write at all), a new one gets the revision that last completed, the others get the new one.
func TestPromiseStagedDestinations(t *testing.T) {
	other := member("other", locA(), storePath, "kratix/other", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	joiner := member("joiner", locB(), storePath, "kratix/joiner", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	otherFile := "kratix/other/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml"
	held := placement.Record{Store: "store", Location: locA().String(), Root: "kratix/other", Files: map[string]string{otherFile: depsMD5}}
	old := deps(depsYAML)
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsV2YAML),
		Pool: []placement.Member{dev(""), other, joiner},
		Prior: map[string]placement.Prior{
			"dev":   {Record: placement.Record{Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}, Member: ptr(dev(""))},
			"other": {Record: held, Member: &other},
		},
		Staged: map[string]*layout.Dependencies{"other": nil, "joiner": &old},
	})
	a := opAt(t, p.Ops, locA())
	equal(t, "Put at A", strPut(a.Change.Put), map[string]string{nestedDepsFile: depsV2YAML})
	sameSet(t, "Destinations at A", a.Destinations, []string{"dev"})
	b := opAt(t, p.Ops, locB())
	equal(t, "Put at B", strPut(b.Change.Put), map[string]string{
		"kratix/joiner/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": depsYAML,
	})
	equal(t, "Records[other]", p.Records["other"], held)
	equal(t, "Records[dev]", p.Records["dev"].Files, map[string]string{nestedDepsFile: depsV2MD5})
	sameSet(t, "Scheduled", p.Scheduled, []string{"dev", "joiner", "other"})
}

func ptr[T any](v T) *T { return &v }

// TestSchedulePromiseThenPlace: a caller that schedules first (to stage a rollout over the
// destinations selected) and then places gets the plan PlanPromise makes, warnings included,
// and Selected names the plan's Scheduled.
func TestSchedulePromiseThenPlace(t *testing.T) {
	other := member("other", locA(), storePath, "kratix/other", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	joiner := member("joiner", locB(), storePath, "kratix/joiner", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	gone := member("gone", locB(), storePath, "kratix/gone", layout.ModeNestedByMetadata, map[string]string{"env": "prod"})
	held := placement.Record{Store: "store", Location: locA().String(), Root: "kratix/other",
		Files: map[string]string{"kratix/other/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": depsMD5}}
	goneRec := placement.Record{Store: "store", Location: locB().String(), Root: "kratix/gone",
		Files: map[string]string{"kratix/gone/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": depsMD5}}
	old := deps(depsYAML)
	in := placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsV2YAML),
		Pool: []placement.Member{gone, joiner, dev(""), other},
		Prior: map[string]placement.Prior{
			"other": {Record: held, Member: &other},
			"gone":  {Record: goneRec, Member: &gone},
		},
		Staged: map[string]*layout.Dependencies{"other": nil, "joiner": &old},
	}
	decisions := placement.SchedulePromise(in)
	sameSet(t, "Selected", placement.Selected(decisions), []string{"dev", "joiner", "other"})
	if got := placement.Selected(decisions); !reflect.DeepEqual(got, []string{"dev", "joiner", "other"}) {
		t.Errorf("Selected = %v, want sorted [dev joiner other]", got)
	}
	placed, err := placement.PlacePromise(in, decisions)
	if err != nil {
		t.Fatal(err)
	}
	whole := planPromise(t, in)
	if !reflect.DeepEqual(placed, whole) {
		t.Errorf("PlacePromise(SchedulePromise) =\n%+v\nPlanPromise =\n%+v", placed, whole)
	}
	sameSet(t, "Scheduled", placed.Scheduled, []string{"dev", "joiner", "other"})
	sameSet(t, "Misscheduled", placed.Misscheduled, []string{"gone"})
	if len(placed.Warnings) != 1 || !strings.Contains(placed.Warnings[0], `Destination "gone" no longer matches promise "jenkins"`) {
		t.Errorf("Warnings = %q, want the one about gone", placed.Warnings)
	}
}

// A selector on a label key no destination has, likely a typo: the warning names the key and
// the closest key the pool has; a key with nothing close is named alone.
func TestPromiseNoMatchNamesUnknownKeys(t *testing.T) {
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: scheduling.Selector{MatchLabels: map[string]string{"evn": "dev", "region": "eu"}},
		Dependencies: deps(depsYAML), Pool: []placement.Member{dev("")},
	})
	if len(p.Warnings) == 0 {
		t.Fatal("no warning")
	}
	for _, want := range []string{
		`No destination in the pool has the label key "evn"; did you mean "env"?`,
		`No destination in the pool has the label key "region".`,
	} {
		if !strings.Contains(p.Warnings[0], want) {
			t.Errorf("warning lacks %q:\n%s", want, p.Warnings[0])
		}
	}
}

// Taints on a promise's destinations: NoSchedule keeps a destination that held the promise and
// adds none that did not; NoExecute unschedules it (misscheduled with on_unschedule = "keep",
// removed with "delete"), unless tolerated; PreferNoSchedule changes nothing for a promise.
func TestPromiseTaints(t *testing.T) {
	taint := func(m placement.Member, effect string) placement.Member {
		m.Taints = []scheduling.Taint{{Key: "maintenance", Effect: effect}}
		return m
	}
	held := func(m placement.Member) map[string]placement.Prior {
		return map[string]placement.Prior{m.Name: {Member: &m, Record: placement.Record{Store: "store", Location: m.Location.String(),
			Root: m.Target.Root, Files: map[string]string{nestedDepsFile: depsMD5}}}}
	}
	d := dev("")
	for _, tc := range []struct {
		name              string
		effect            string
		placedBefore      bool
		tolerate          bool
		deleteUnscheduled bool
		scheduled, missch []string
		deletes           bool
	}{
		{name: "NoSchedule, new: not added", effect: scheduling.EffectNoSchedule},
		{name: "NoSchedule, held: stays", effect: scheduling.EffectNoSchedule, placedBefore: true, scheduled: []string{"dev"}},
		{name: "NoExecute, held, keep: misscheduled", effect: scheduling.EffectNoExecute, placedBefore: true, missch: []string{"dev"}},
		{name: "NoExecute, held, delete: removed", effect: scheduling.EffectNoExecute, placedBefore: true, deleteUnscheduled: true, deletes: true},
		{name: "NoExecute tolerated: stays", effect: scheduling.EffectNoExecute, placedBefore: true, tolerate: true, scheduled: []string{"dev"}},
		{name: "PreferNoSchedule, new: added", effect: scheduling.EffectPreferNoSchedule, scheduled: []string{"dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
				Pool: []placement.Member{taint(d, tc.effect)}, DeleteUnscheduled: tc.deleteUnscheduled}
			if tc.placedBefore {
				in.Prior = held(d)
			}
			if tc.tolerate {
				in.Tolerations = []scheduling.Toleration{{Key: "maintenance", Operator: scheduling.TolerationOpExists}}
			}
			p := planPromise(t, in)
			sameSet(t, "Scheduled", p.Scheduled, tc.scheduled)
			sameSet(t, "Misscheduled", p.Misscheduled, tc.missch)
			deletes := false
			for _, op := range p.Ops {
				deletes = deletes || len(op.Change.Delete) > 0 || (len(op.Change.Put) == 0 && len(op.Change.Prune) > 0)
			}
			if deletes != tc.deletes {
				t.Errorf("Ops %+v delete: %v, want %v", p.Ops, deletes, tc.deletes)
			}
		})
	}
}
