package placement_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

const (
	dbYAML       = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n"
	nestedReqDB  = "kratix/dev/resources/default/postgres/db/instance-configure/5058f/db.yaml"
	noneReqIndex = "kratix/dev/.kratix/default-postgres_db_default_instance-configure.dev-5058f.yaml"
)

func pgRequest(files map[string]string) layout.Request {
	r := layout.Request{Promise: "postgres", Namespace: "default", Name: "db", Pipeline: "instance-configure", Files: map[string][]byte{}}
	for p, c := range files {
		r.Files[p] = []byte(c)
	}
	return r
}

func planRequest(t *testing.T, in placement.Request) placement.RequestPlan {
	t.Helper()
	if in.Key == "" {
		in.Key = requestKey
	}
	p, _, err := placement.PlanRequest(in)
	if err != nil {
		t.Fatalf("PlanRequest: %v", err)
	}
	return p
}

func named(name string, loc placement.Location, env string) placement.Member {
	return member(name, loc, storePath, "kratix/"+name, layout.ModeNestedByMetadata, map[string]string{"env": env})
}

func TestRequestFirstApplyNestedByMetadata(t *testing.T) {
	p := planRequest(t, placement.Request{Output: pgRequest(map[string]string{"db.yaml": dbYAML}), Pool: []placement.Member{dev("")}})
	if p.Chosen == nil || p.Chosen.Name != "dev" {
		t.Fatalf("Chosen = %+v, want dev", p.Chosen)
	}
	if len(p.Ops) != 1 {
		t.Fatalf("got %d Ops, want 1", len(p.Ops))
	}
	op := p.Ops[0]
	equal(t, "Put", strPut(op.Change.Put), map[string]string{nestedReqDB: dbYAML})
	sameSet(t, "Prune", op.Change.Prune, []string{nestedReqDir})
	sameSet(t, "Delete", op.Change.Delete, nil)
	equal(t, "Fresh", op.Fresh, map[string]string{nestedReqDB: md5hex(dbYAML)})
	equal(t, "Records", p.Records, map[string]placement.Record{"dev": {
		Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedReqDB: md5hex(dbYAML)}}})
}

// Rendezvous choice: the choice is one of the candidates, the same whatever the pool's order,
// and never a destination that does not match.
func TestRequestRendezvousChoice(t *testing.T) {
	a, b, c := named("a", locA(), "dev"), named("b", locA(), "dev"), named("c", locA(), "prod")
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	var first string
	for i, pool := range [][]placement.Member{{a, b, c}, {c, b, a}, {b, c, a}} {
		p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: pool})
		if p.Chosen == nil || (p.Chosen.Name != "a" && p.Chosen.Name != "b") {
			t.Fatalf("Chosen = %+v, want a or b", p.Chosen)
		}
		if i == 0 {
			first = p.Chosen.Name
		} else if p.Chosen.Name != first {
			t.Errorf("pool order changed the choice: %s then %s", first, p.Chosen.Name)
		}
	}
	// One candidate only: it.
	p := planRequest(t, placement.Request{Selector: envSelector("prod"), Output: out, Pool: []placement.Member{a, b, c}})
	if p.Chosen == nil || p.Chosen.Name != "c" {
		t.Errorf("Chosen = %+v, want the only candidate c", p.Chosen)
	}
}

// Sticky choice: once applied, the choice is kept while that destination stays in the pool, even when
// it stops matching (misscheduled, still updated).
func TestRequestStickyChoice(t *testing.T) {
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	a, b := named("a", locA(), "dev"), named("b", locA(), "dev")
	fileIn := func(dest string) string {
		return "kratix/" + dest + "/resources/default/postgres/db/instance-configure/5058f/db.yaml"
	}
	for _, prior := range []placement.Member{a, b} {
		t.Run("stays on "+prior.Name, func(t *testing.T) {
			rec := placement.Record{Store: "store", Location: locA().String(), Root: prior.Target.Root,
				Files: map[string]string{fileIn(prior.Name): md5hex(dbYAML)}}
			p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: []placement.Member{a, b},
				PriorDestination: prior.Name, Prior: &placement.Prior{Record: rec, Member: &prior}})
			if p.Chosen == nil || p.Chosen.Name != prior.Name {
				t.Fatalf("Chosen = %+v, want %s kept", p.Chosen, prior.Name)
			}
			if p.Misscheduled {
				t.Errorf("Misscheduled on a matching destination")
			}
			if len(p.Ops) != 0 {
				t.Errorf("Ops = %+v, want none: the store holds what the request records", p.Ops)
			}
			if got := p.Records[prior.Name]; !reflect.DeepEqual(got.Files, rec.Files) || got.Root != rec.Root {
				t.Errorf("Records[%s] = %+v, want the record kept: %+v", prior.Name, got, rec)
			}
		})
	}
	t.Run("stops matching: misscheduled, still written", func(t *testing.T) {
		relabelled := named("a", locA(), "prod")
		rec := placement.Record{Store: "store", Location: locA().String(), Root: "kratix/a",
			Files: map[string]string{fileIn("a"): md5hex("old")}}
		p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: []placement.Member{relabelled, b},
			PriorDestination: "a", Prior: &placement.Prior{Record: rec, Member: &a}})
		if p.Chosen == nil || p.Chosen.Name != "a" {
			t.Fatalf("Chosen = %+v, want a kept", p.Chosen)
		}
		if !p.Misscheduled || !p.Records["a"].Misscheduled {
			t.Errorf("Misscheduled = %v, record %+v; want misscheduled", p.Misscheduled, p.Records["a"])
		}
		if len(p.Ops) != 1 || strPut(p.Ops[0].Change.Put)[fileIn("a")] != dbYAML {
			t.Errorf("Ops = %+v, want the new content still written to a", p.Ops)
		}
		if !anyContains(p.Warnings, "misscheduled") {
			t.Errorf("Warnings = %q, want one saying misscheduled", p.Warnings)
		}
	})
}

// Rendezvous choice: a destination that left the pool is replaced by the rendezvous choice; its old
// files are its own cleanup's business, so no Op touches them.
func TestRequestDestinationLeftPool(t *testing.T) {
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	for _, oldLoc := range []placement.Location{locA(), locB()} {
		t.Run("old destination at "+oldLoc.String(), func(t *testing.T) {
			old := named("old", oldLoc, "dev")
			rec := placement.Record{Store: "store", Location: oldLoc.String(), Root: "kratix/old",
				Files: map[string]string{"kratix/old/resources/default/postgres/db/instance-configure/5058f/db.yaml": md5hex(dbYAML)}}
			p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out,
				Pool:             []placement.Member{dev(""), named("c", locA(), "prod")},
				PriorDestination: "old", Prior: &placement.Prior{Record: rec, Member: &old}})
			if p.Chosen == nil || p.Chosen.Name != "dev" {
				t.Fatalf("Chosen = %+v, want dev (the only candidate)", p.Chosen)
			}
			if len(p.Ops) != 1 || p.Ops[0].Location != locA() {
				t.Fatalf("Ops = %+v, want one Op at dev's location", p.Ops)
			}
			op := p.Ops[0]
			equal(t, "Put", strPut(op.Change.Put), map[string]string{nestedReqDB: dbYAML})
			for _, d := range append(op.Change.Delete, op.Change.Prune...) {
				if strings.HasPrefix(d, "kratix/old/") {
					t.Errorf("Op deletes %q at the destination that left the pool", d)
				}
			}
			equal(t, "Fresh", op.Fresh, map[string]string{nestedReqDB: md5hex(dbYAML)})
			if _, ok := p.Records["old"]; ok || len(p.Records) != 1 {
				t.Errorf("Records = %+v, want dev only", p.Records)
			}
			if !anyContains(p.Warnings, "left the pool") {
				t.Errorf("Warnings = %q, want one saying the destination left the pool", p.Warnings)
			}
		})
	}
}

// A destination that moved to another store takes the request's files with it.
func TestRequestDestinationMovedStore(t *testing.T) {
	before := dev("")
	now := member("dev", locB(), storePath, devRoot, layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	rec := placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
		Files: map[string]string{nestedReqDB: md5hex(dbYAML)}}
	p := planRequest(t, placement.Request{Output: pgRequest(map[string]string{"db.yaml": dbYAML}), Pool: []placement.Member{now},
		PriorDestination: "dev", Prior: &placement.Prior{Record: rec, Member: &before}})
	if len(p.Ops) != 2 {
		t.Fatalf("got %d Ops, want 2", len(p.Ops))
	}
	a := opAt(t, p.Ops, locA())
	if !contains(a.Change.Delete, nestedReqDir) || len(a.Change.Put) != 0 {
		t.Errorf("Op at A: Delete %q Put %v, want the folder %q deleted and nothing put", a.Change.Delete, strPut(a.Change.Put), nestedReqDir)
	}
	b := opAt(t, p.Ops, locB())
	equal(t, "Put at B", strPut(b.Change.Put), map[string]string{nestedReqDB: dbYAML})
	// Taking over: a folder the request never held at B is taken over: the writer warns about it.
	equal(t, "Fresh at B", b.Fresh, map[string]string{nestedReqDB: md5hex(dbYAML)})
	if out := p.Settle(map[string]bool{locA().String(): true}); out.Records["dev"].Location != locA().String() {
		t.Errorf("Settle with A failed: Records[dev] = %+v, want the prior record at A", out.Records["dev"])
	}
	if out := p.Settle(nil); out.Records["dev"].Location != locB().String() {
		t.Errorf("Settle(nil): Records[dev] = %+v, want the record at B", out.Records["dev"])
	}
}

func TestRequestNoCandidate(t *testing.T) {
	p := planRequest(t, placement.Request{Selector: envSelector("prod"), Output: pgRequest(map[string]string{"db.yaml": dbYAML}),
		Pool: []placement.Member{dev("")}})
	if p.Chosen != nil || len(p.Ops) != 0 || len(p.Records) != 0 {
		t.Errorf("Chosen %+v Ops %+v Records %+v, want nothing", p.Chosen, p.Ops, p.Records)
	}
	if !anyContains(p.Warnings, "no destinations can be selected for scheduling") {
		t.Errorf("Warnings = %q, want Kratix's wording", p.Warnings)
	}
}

// Combining selectors: on a key in both, the promise's selector wins and the plan warns.
func TestRequestSelectorConflictWarns(t *testing.T) {
	p := planRequest(t, placement.Request{PromiseSelector: envSelector("dev"), Selector: envSelector("prod"),
		Output: pgRequest(map[string]string{"db.yaml": dbYAML}), Pool: []placement.Member{dev("")}})
	if p.Chosen == nil || p.Chosen.Name != "dev" {
		t.Errorf("Chosen = %+v, want dev (the promise's env=dev wins)", p.Chosen)
	}
	if !anyContains(p.Warnings, "env=prod is ignored") {
		t.Errorf("Warnings = %q, want one naming the ignored env=prod", p.Warnings)
	}
}

// Mode none: a file the request no longer produces goes, the index file lists what it now writes.
func TestRequestNoneModeDropsFilesNoLongerProduced(t *testing.T) {
	m := dev(layout.ModeNone)
	rec := placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
		Files: map[string]string{"kratix/dev/a.yaml": md5hex("a"), noneReqIndex: md5hex("files:\n- dev/a.yaml\n")}}
	p := planRequest(t, placement.Request{Output: pgRequest(map[string]string{"b.yaml": dbYAML}), Pool: []placement.Member{m},
		PriorDestination: "dev", Prior: &placement.Prior{Record: rec, Member: &m}})
	if len(p.Ops) != 1 {
		t.Fatalf("got %d Ops, want 1", len(p.Ops))
	}
	op := p.Ops[0]
	equal(t, "Put", strPut(op.Change.Put), map[string]string{"kratix/dev/b.yaml": dbYAML, noneReqIndex: "files:\n- dev/b.yaml\n"})
	sameSet(t, "Delete", op.Change.Delete, []string{"kratix/dev/a.yaml"})
}

// RemoveRequest deletes the owned folder whole, misscheduled or not.
func TestRemoveRequest(t *testing.T) {
	m := dev("")
	for _, mis := range []bool{false, true} {
		p, err := placement.RemoveRequest(pgRequest(map[string]string{"db.yaml": dbYAML}), map[string]placement.Prior{"dev": {Member: &m,
			Record: placement.Record{Location: locA().String(), Root: devRoot, Misscheduled: mis,
				Files: map[string]string{nestedReqDB: md5hex(dbYAML)}}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Ops) != 1 || !contains(p.Ops[0].Change.Delete, nestedReqDir) || len(p.Ops[0].Change.Put) != 0 {
			t.Errorf("misscheduled=%v: Ops = %+v, want one Op deleting %q", mis, p.Ops, nestedReqDir)
		}
		if len(p.Settle(nil).Records) != 0 {
			t.Errorf("misscheduled=%v: records remain after removal", mis)
		}
	}
}

// Layout modes: where a request's files go in each mode, on a first apply.
func TestRequestLayouts(t *testing.T) {
	const part = "kratix/.kratix-aggregates/dev/aggregated.yaml/postgres_db_default_instance-configure.dev-5058f.part"
	tests := []struct {
		mode       layout.Mode
		wantPut    map[string]string
		wantDelete []string
		wantAgg    bool
	}{
		{layout.ModeNestedByMetadata, map[string]string{nestedReqDB: dbYAML}, nil, false},
		{layout.ModeNone, map[string]string{"kratix/dev/db.yaml": dbYAML, noneReqIndex: "files:\n- dev/db.yaml\n"}, nil, false},
		{layout.ModeAggregatedYAML, map[string]string{part: dbYAML}, nil, true},
		// <work> is <namespace>-<promise>-default-<namespace>-<name>, as Kratix named them in 2023.
		{layout.ModeSplitByKind, map[string]string{"kratix/dev/resources/01-default-postgres-default-default-db-resources.yaml": dbYAML},
			[]string{"kratix/dev/crds/00-default-postgres-default-default-db-crds.yaml"}, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			out := pgRequest(map[string]string{"db.yaml": dbYAML})
			out.Others = []byte(dbYAML)
			p := planRequest(t, placement.Request{Output: out, Pool: []placement.Member{dev(tt.mode)}})
			if len(p.Ops) != 1 {
				t.Fatalf("got %d Ops, want 1", len(p.Ops))
			}
			op := p.Ops[0]
			equal(t, "Put", strPut(op.Change.Put), tt.wantPut)
			sameSet(t, "Delete", op.Change.Delete, tt.wantDelete)
			if tt.wantAgg {
				if len(op.Change.Aggregates) != 1 || op.Change.Aggregates[0] != (layout.Aggregate{File: aggFile, Dir: aggPartsDir}) {
					t.Errorf("Aggregates = %+v, want %s rebuilt from %s", op.Change.Aggregates, aggFile, aggPartsDir)
				}
				if got := p.Records["dev"].Files[aggFile]; got != "part:"+md5hex(dbYAML) {
					t.Errorf("record of the aggregate = %q, want part:<md5 of the part>", got)
				}
			}
		})
	}
}

// Ownership reserves the canaries' own paths, not their names: a request's file in a sub-folder
// named like a canary ("sub/kratix-canary-namespace.yaml") is the request's, and goes when the
// request drops it or is destroyed, while the destination's canaries (every mode's, at its
// folder) never do. Before, any recorded path that ended like a canary's was kept for ever.
func TestRequestNoneModeCanaryNamedFileInSubfolder(t *testing.T) {
	const look = "kratix/dev/sub/kratix-canary-namespace.yaml"
	m := dev(layout.ModeNone)
	rec := placement.Record{Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{
		look: md5hex("look"), "kratix/dev/a.yaml": md5hex("a"), noneReqIndex: md5hex("index"),
		// Recorded by mistake (state can say anything): the canaries of every mode at the folder.
		"kratix/dev/kratix-canary-namespace.yaml": md5hex("c"), "kratix/dev/dependencies/kratix-canary-namespace.yaml": md5hex("c"),
		"kratix/dev/resources/kratix-canary-configmap.yaml": md5hex("c"), "kratix/dev/crds/kratix-crds.yaml": md5hex("c"),
	}}
	prior := &placement.Prior{Record: rec, Member: &m}

	p := planRequest(t, placement.Request{Output: pgRequest(map[string]string{"a.yaml": dbYAML}), Pool: []placement.Member{m},
		PriorDestination: "dev", Prior: prior})
	if len(p.Ops) != 1 {
		t.Fatalf("got %d Ops, want 1", len(p.Ops))
	}
	sameSet(t, "Delete after dropping the file", p.Ops[0].Change.Delete, []string{look})

	r, err := placement.RemoveRequest(pgRequest(map[string]string{"a.yaml": dbYAML}), map[string]placement.Prior{"dev": *prior})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Ops) != 1 {
		t.Fatalf("got %d Ops, want 1", len(r.Ops))
	}
	sameSet(t, "Delete on destroy", r.Ops[0].Change.Delete, []string{look, "kratix/dev/a.yaml", noneReqIndex})
}

// A request moved off a folder that now holds another destination's folder (dev moved deeper,
// into "kratix/dev/sub") keeps that destination's canaries even when it recorded their paths:
// the plan knows the pool as it is now.
func TestRequestMoveKeepsCanariesOfThePoolAsItIsNow(t *testing.T) {
	const look = "kratix/dev/sub/kratix-canary-namespace.yaml"
	old := dev(layout.ModeNone)
	now := member("dev", locA(), storePath, "kratix/dev/sub", layout.ModeNone, map[string]string{"env": "dev"})
	rec := placement.Record{Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{
		look: md5hex("look"), "kratix/dev/a.yaml": md5hex("a")}}
	p := planRequest(t, placement.Request{Output: pgRequest(map[string]string{"a.yaml": dbYAML}), Pool: []placement.Member{now},
		PriorDestination: "dev", Prior: &placement.Prior{Record: rec, Member: &old}})
	var deleted []string
	for _, op := range p.Ops {
		deleted = append(deleted, op.Change.Delete...)
	}
	if contains(deleted, look) {
		t.Errorf("the move deletes %s, the canary of dev where it is now: %q", look, deleted)
	}
	if !contains(deleted, "kratix/dev/a.yaml") {
		t.Errorf("the move keeps kratix/dev/a.yaml where dev was: %q", deleted)
	}
}

func TestRequestNoCandidateNamesUnknownKeys(t *testing.T) {
	p := planRequest(t, placement.Request{Selector: scheduling.Selector{MatchLabels: map[string]string{"Env": "dev"}},
		Output: pgRequest(map[string]string{"db.yaml": dbYAML}), Pool: []placement.Member{dev("")}})
	if !anyContains(p.Warnings, `No destination in the pool has the label key "Env"; did you mean "env"?`) {
		t.Errorf("Warnings = %q, want the hint for Env", p.Warnings)
	}
}

// A drain: destination a tainted NoExecute. A request on it that does not tolerate the taint moves
// to b: written on b (at b's location), removed from a (at a's), MovedFrom a; one that tolerates
// it stays; with no other candidate it stays and the plan says why; NoSchedule moves nothing.
func TestRequestDrain(t *testing.T) {
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	fileIn := func(dest string) string {
		return "kratix/" + dest + "/resources/default/postgres/db/instance-configure/5058f/db.yaml"
	}
	a, b := named("a", locA(), "dev"), named("b", locB(), "dev")
	tainted := func(m placement.Member, effect string) placement.Member {
		m.Taints = []scheduling.Taint{{Key: "maintenance", Value: "2026-12-01", Effect: effect}}
		return m
	}
	prior := func(m placement.Member) *placement.Prior {
		return &placement.Prior{Member: &m, Record: placement.Record{Store: "store", Location: m.Location.String(), Root: m.Target.Root,
			Files: map[string]string{fileIn(m.Name): md5hex(dbYAML)}}}
	}
	drained := tainted(a, scheduling.EffectNoExecute)

	t.Run("moves to the other candidate, written before removed", func(t *testing.T) {
		p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: []placement.Member{drained, b},
			PriorDestination: "a", Prior: prior(a)})
		if p.Chosen == nil || p.Chosen.Name != "b" || p.MovedFrom != "a" {
			t.Fatalf("Chosen = %+v, MovedFrom %q; want b, from a", p.Chosen, p.MovedFrom)
		}
		byLoc := map[placement.Location]placement.Op{}
		for _, op := range p.Ops {
			byLoc[op.Location] = op
		}
		if put := strPut(byLoc[locB()].Change.Put); put[fileIn("b")] != dbYAML {
			t.Errorf("b's Op puts %v, want the request's file", put)
		}
		removed := append(byLoc[locA()].Change.Delete, byLoc[locA()].Change.Prune...)
		if len(byLoc[locA()].Change.Put) != 0 || !slices.ContainsFunc(removed, func(p string) bool { return strings.HasPrefix(fileIn("a"), p) }) {
			t.Errorf("a's Op is %+v, want only the request's files removed", byLoc[locA()].Change)
		}
		if _, kept := p.Records["a"]; kept || len(p.Records) != 1 {
			t.Errorf("Records = %+v, want b only", p.Records)
		}
		if !anyContains(p.Warnings, `tainted maintenance=2026-12-01:NoExecute`) || !anyContains(p.Warnings, `moves to "b"`) {
			t.Errorf("Warnings = %q, want the taint and where it moves", p.Warnings)
		}
	})
	t.Run("tolerated: stays", func(t *testing.T) {
		p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: []placement.Member{drained, b},
			Tolerations:      []scheduling.Toleration{{Key: "maintenance", Operator: scheduling.TolerationOpExists}},
			PriorDestination: "a", Prior: prior(a)})
		if p.Chosen == nil || p.Chosen.Name != "a" || p.MovedFrom != "" {
			t.Fatalf("Chosen = %+v, MovedFrom %q; want a kept", p.Chosen, p.MovedFrom)
		}
	})
	t.Run("nowhere to go: stays, and says so", func(t *testing.T) {
		p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: []placement.Member{drained, tainted(b, scheduling.EffectNoSchedule)},
			PriorDestination: "a", Prior: prior(a)})
		if p.Chosen == nil || p.Chosen.Name != "a" || p.MovedFrom != "" {
			t.Fatalf("Chosen = %+v, MovedFrom %q; want a kept", p.Chosen, p.MovedFrom)
		}
		for _, op := range p.Ops {
			if len(op.Change.Delete) > 0 {
				t.Errorf("Op %+v deletes although the request stays", op)
			}
		}
		if !anyContains(p.Warnings, "no other destination can take it") {
			t.Errorf("Warnings = %q, want one saying it cannot move", p.Warnings)
		}
	})
	t.Run("NoSchedule: stays", func(t *testing.T) {
		p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: []placement.Member{tainted(a, scheduling.EffectNoSchedule), b},
			PriorDestination: "a", Prior: prior(a)})
		if p.Chosen == nil || p.Chosen.Name != "a" || p.MovedFrom != "" {
			t.Fatalf("Chosen = %+v, MovedFrom %q; want a kept", p.Chosen, p.MovedFrom)
		}
	})
}
