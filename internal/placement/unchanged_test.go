package placement_test

import (
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// A promise's placement whose destination changed only its labels, weight or taints (or its
// store's name) has nothing to write: the plan has no Op for it and keeps its record. Anything
// that changes the files, the folder, the layout or what the store held at the refresh is written.
func TestPromiseUnchangedPlacementIsNotWritten(t *testing.T) {
	held := dev(layout.ModeNestedByMetadata)
	record := placement.Record{Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}
	with := func(edit func(*placement.Member)) placement.Member {
		m := dev(layout.ModeNestedByMetadata)
		edit(&m)
		return m
	}
	tests := []struct {
		name    string
		now     placement.Member
		deps    string
		record  placement.Record
		before  *placement.Member
		wantOps int
	}{
		{"nothing changed", held, depsYAML, record, &held, 0},
		{"labels", with(func(m *placement.Member) { m.Labels = map[string]string{"env": "dev", "zone": "east"} }), depsYAML, record, &held, 0},
		{"weight", with(func(m *placement.Member) { m.Weight = 3 }), depsYAML, record, &held, 0},
		{"NoSchedule taint", with(func(m *placement.Member) {
			m.Taints = []scheduling.Taint{{Key: "maintenance", Effect: scheduling.EffectNoSchedule}}
		}), depsYAML, record, &held, 0},
		{"store renamed", with(func(m *placement.Member) { m.Store = "renamed" }), depsYAML, record, &held, 0},
		{"dependencies changed", held, depsV2YAML, record, &held, 1},
		{"file edited in the store", held, depsYAML, placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
			Files: map[string]string{nestedDepsFile: md5hex("edited")}}, &held, 1},
		{"file removed from the store", held, depsYAML, placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
			Files: map[string]string{}}, &held, 1},
		{"stray file in the folder", held, depsYAML, placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
			Files: map[string]string{nestedDepsFile: depsMD5, nestedDepsDir + "stray.yaml": md5hex("stray")}}, &held, 1},
		{"mode changed", dev(layout.ModeSplitByKind), depsYAML, record, &held, 1},
		{"moved to another store", member("dev", locB(), storePath, devRoot, layout.ModeNestedByMetadata, map[string]string{"env": "dev"}), depsYAML, record, &held, 2},
		{"imported: destination as it was unknown", held, depsYAML, record, nil, 1},
		{"destination created again (another instance)", with(func(m *placement.Member) { m.Instance = "i-2" }), depsYAML, record, &held, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planPromise(t, placement.Promise{
				Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(tt.deps), Pool: []placement.Member{tt.now},
				Prior:       map[string]placement.Prior{"dev": {Record: tt.record, Member: tt.before}},
				Tolerations: []scheduling.Toleration{{Key: "maintenance", Operator: scheduling.OpExists}},
			})
			if len(p.Ops) != tt.wantOps {
				t.Errorf("got %d Ops, want %d: %+v", len(p.Ops), tt.wantOps, p.Ops)
			}
			if tt.wantOps == 0 {
				equal(t, "Records[dev].Files", p.Records["dev"].Files, map[string]string{nestedDepsFile: depsMD5})
				equal(t, "Scheduled", p.Scheduled, []string{"dev"})
				if o := p.Settle(nil); o.Records["dev"].Root != devRoot || o.Records["dev"].Location != locA().String() {
					t.Errorf("the outcome moves the record: %+v", o.Records["dev"])
				}
			}
		})
	}
}

// A destination drained (NoExecute) of a promise that keeps its files (on_unschedule = "keep")
// writes nothing there: the placement is only marked misscheduled.
func TestPromiseDrainKeepingFilesWritesNothing(t *testing.T) {
	held := dev(layout.ModeNestedByMetadata)
	drained := dev(layout.ModeNestedByMetadata)
	drained.Taints = []scheduling.Taint{{Key: "maintenance", Effect: scheduling.EffectNoExecute}}
	record := placement.Record{Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML), Pool: []placement.Member{drained},
		Prior: map[string]placement.Prior{"dev": {Record: record, Member: &held}},
	})
	if len(p.Ops) != 0 {
		t.Errorf("got %d Ops, want none: %+v", len(p.Ops), p.Ops)
	}
	equal(t, "Misscheduled", p.Misscheduled, []string{"dev"})
}

// A request on a destination whose labels, weight or taints (NoSchedule) changed is not written;
// one whose content changed is.
func TestRequestUnchangedPlacementIsNotWritten(t *testing.T) {
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	a := named("a", locA(), "dev")
	file := "kratix/a/resources/default/postgres/db/instance-configure/5058f/db.yaml"
	rec := placement.Record{Store: "store", Location: locA().String(), Root: "kratix/a", Files: map[string]string{file: md5hex(dbYAML)}}
	cordoned := named("a", locA(), "dev")
	cordoned.Weight = 5
	cordoned.Labels["zone"] = "east"
	cordoned.Taints = []scheduling.Taint{{Key: "maintenance", Effect: scheduling.EffectNoSchedule}}
	for _, tt := range []struct {
		name    string
		out     layout.Request
		wantOps int
	}{
		{"same content", out, 0},
		{"new content", pgRequest(map[string]string{"db.yaml": dbYAML + "# v2\n"}), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: tt.out, Pool: []placement.Member{cordoned},
				PriorDestination: "a", Prior: &placement.Prior{Record: rec, Member: &a}})
			if len(p.Ops) != tt.wantOps {
				t.Errorf("got %d Ops, want %d: %+v", len(p.Ops), tt.wantOps, p.Ops)
			}
			if p.Chosen == nil || p.Chosen.Name != "a" {
				t.Errorf("Chosen = %+v, want a kept", p.Chosen)
			}
		})
	}
}

// A destination updated in place writes its canaries only when something about them changes.
func TestUpdateCanaries(t *testing.T) {
	held := dev(layout.ModeNestedByMetadata)
	nsCanary, cmCanary := devRoot+"/dependencies/kratix-canary-namespace.yaml", devRoot+"/resources/kratix-canary-configmap.yaml"
	canaries := map[string]string{nsCanary: md5hex(canaryNamespace), cmCanary: md5hex(canaryConfigMap)}
	relabelled := dev(layout.ModeNestedByMetadata)
	relabelled.Labels = map[string]string{"env": "prod"}
	relabelled.Weight = 2
	relabelled.Taints = []scheduling.Taint{{Key: "maintenance", Effect: scheduling.EffectNoExecute}}
	tests := []struct {
		name     string
		before   *placement.Member
		recorded map[string]string
		now      placement.Member
		init     bool
		wantOps  int
	}{
		{"labels, weight, taints; canaries in place", &held, canaries, relabelled, true, 0},
		{"labels, weight, taints; no canaries, none wanted", &held, nil, relabelled, false, 0},
		{"a canary removed by hand", &held, map[string]string{nsCanary: md5hex(canaryNamespace)}, relabelled, true, 1},
		{"a canary present while none are wanted", &held, map[string]string{nsCanary: md5hex(canaryNamespace)}, relabelled, false, 1},
		{"init_workloads turned on", &held, map[string]string{}, held, true, 1},
		{"mode changed", &held, canaries, dev(layout.ModeNone), true, 1},
		{"no prior member (a create)", nil, canaries, held, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := placement.UpdateCanaries(tt.before, tt.recorded, tt.now, tt.init)
			if len(p.Ops) != tt.wantOps {
				t.Errorf("got %d Ops, want %d: %+v", len(p.Ops), tt.wantOps, p.Ops)
			}
		})
	}
}

// A move whose removal from the old place failed leaves the placement there; LeftBehind names
// the destination as it was, and with it as the prior member (while RecordedAt) the next plan
// takes the files from there.
func TestLeftBehind(t *testing.T) {
	was := dev(layout.ModeNestedByMetadata)
	moved := member("dev", locB(), storePath, devRoot, layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	oldRecord := placement.Record{Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}
	newRecord := placement.Record{Store: "store", Location: locB().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}
	prior := map[string]placement.Prior{"dev": {Record: oldRecord, Member: &was}}
	pool := []placement.Member{moved}

	equal(t, "LeftBehind after a failed removal", placement.LeftBehind(prior, map[string]placement.Record{"dev": oldRecord}, pool),
		map[string]placement.Member{"dev": was})
	equal(t, "LeftBehind after the move", placement.LeftBehind(prior, map[string]placement.Record{"dev": newRecord}, pool),
		map[string]placement.Member{})
	equal(t, "LeftBehind of an import", placement.LeftBehind(map[string]placement.Prior{"dev": {Record: oldRecord}},
		map[string]placement.Record{"dev": oldRecord}, pool), map[string]placement.Member{})
	equal(t, "LeftBehind of a destination out of the pool", placement.LeftBehind(prior, map[string]placement.Record{"dev": oldRecord}, nil),
		map[string]placement.Member{})

	// The next plan: state's pool says the destination is at B, the record that it is still at A.
	if !placement.RecordedAt(oldRecord, was) || placement.RecordedAt(oldRecord, moved) || placement.RecordedAt(newRecord, was) {
		t.Fatalf("RecordedAt: the old record is at A only, the new one at B only")
	}
	next := map[string]placement.Prior{"dev": {Record: oldRecord, Member: &was}}
	p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML), Pool: pool, Prior: next})
	sameSet(t, "Delete at A", opAt(t, p.Ops, locA()).Change.Delete, []string{nestedDepsDir, nestedDepsFile})
	equal(t, "Put at B", strPut(opAt(t, p.Ops, locB()).Change.Put), map[string]string{nestedDepsFile: depsYAML})
	equal(t, "Records[dev]", p.Records["dev"], newRecord)
}

// Make before break: a request that leaves a destination (replicas lowered) writes the ones it
// stays on, unchanged or not, so that the store confirms them before the files leave.
func TestRequestLeavingWritesWhatItKeeps(t *testing.T) {
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	a, b := named("a", locA(), "dev"), named("b", locB(), "dev")
	file := func(dest string) string {
		return "kratix/" + dest + "/resources/default/postgres/db/instance-configure/5058f/db.yaml"
	}
	rec := func(m placement.Member) placement.Record {
		return placement.Record{Store: "store", Location: m.Location.String(), Root: m.Target.Root, Files: map[string]string{file(m.Name): md5hex(dbYAML)}}
	}
	p := planRequest(t, placement.Request{Key: requestKey, Selector: envSelector("dev"), Output: out, Pool: []placement.Member{a, b}, Replicas: 1,
		PriorDestination: "a", Prior: &placement.Prior{Record: rec(a), Member: &a},
		OtherPriors: map[string]placement.Prior{"b": {Record: rec(b), Member: &b}}, PriorOrder: []string{"a", "b"}})
	if len(p.Leaving) != 1 {
		t.Fatalf("Leaving = %v, want one destination", p.Leaving)
	}
	if len(p.Ops) != 2 {
		t.Errorf("got %d Ops, want 2 (the destination kept written, the one left emptied): %+v", len(p.Ops), p.Ops)
	}
}
