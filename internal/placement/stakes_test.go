package placement_test

import (
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

func TestOwnersFile(t *testing.T) {
	for _, c := range []struct{ storePath, object, want string }{
		{"kratix", "promise/jenkins", "kratix/.kratix-registry/owners/promise_jenkins.yaml"},
		{"", "request/postgres/default/db", ".kratix-registry/owners/request_postgres_default_db.yaml"},
		{"/fleet/", "promise/a.b", "fleet/.kratix-registry/owners/promise_a.b.yaml"},
	} {
		if got := placement.OwnersFile(c.storePath, c.object); got != c.want {
			t.Errorf("OwnersFile(%q, %q) = %q, want %q", c.storePath, c.object, got, c.want)
		}
	}
}

const jenkinsRecord = "# Owner record of terraform-provider-kratix: who holds promise/jenkins's placements, folder by folder.\n" +
	"# Another owner's plan that would write, prune or delete them is refused. Do not edit.\n" +
	"folders:\n" +
	"- files:\n  - kratix/dev/dependencies/jenkins/5058f/\n  instance: \"01\"\n  owner: platform-eu\n  root: kratix/dev\n" +
	"- files:\n  - kratix/prod/a.yaml\n  - kratix/prod/b.yaml\n  owner: \"\"\n  root: kratix/prod\n" +
	"object: promise/jenkins\n"

func TestRenderAndParseOwners(t *testing.T) {
	entries := []placement.Entry{
		{Root: "kratix/prod", Files: []string{"kratix/prod/b.yaml", "kratix/prod/a.yaml"}},
		{Root: devRoot, Owner: "platform-eu", Instance: "01", Files: []string{nestedDepsDir}},
	}
	if got := string(placement.RenderOwners("promise/jenkins", entries)); got != jenkinsRecord {
		t.Fatalf("RenderOwners:\n%s\nwant:\n%s", got, jenkinsRecord)
	}
	object, got, err := placement.ParseOwners([]byte(jenkinsRecord))
	if err != nil || object != "promise/jenkins" || len(got) != 2 || got[0].Owner != "platform-eu" || got[1].Root != "kratix/prod" {
		t.Errorf("ParseOwners = %q, %+v, %v", object, got, err)
	}
	for _, bad := range []string{"folders: []\n", "object: promise/x\nsurprise: 1\n", "- a\n"} {
		if _, _, err := placement.ParseOwners([]byte(bad)); err == nil {
			t.Errorf("ParseOwners(%q): want an error", bad)
		}
	}
	if s := (placement.Holder{Object: "promise/x"}).String(); s != "promise/x of the unnamed owner" {
		t.Errorf("the unnamed owner reads %q", s)
	}
}

func TestSettleOwners(t *testing.T) {
	file := "kratix/.kratix-registry/owners/promise_jenkins.yaml"
	eu := placement.Holder{Owner: "platform-eu", Object: "promise/jenkins", Instance: "01"}
	us := placement.Holder{Owner: "platform-us", Object: "promise/jenkins", Instance: "07"}
	successor := placement.Holder{Owner: "platform-eu", Object: "promise/jenkins", Instance: "02"}

	// Another owner's shard takes a folder of its own: the record keeps both.
	got, err := placement.Settle([]byte(jenkinsRecord), []placement.Stake{{File: file, Holder: us, Root: "kratix/us", Files: []string{"kratix/us/x/"}}})
	if err != nil || !got.Changed || len(got.Refused) != 0 {
		t.Fatalf("Settle = %+v, %v", got, err)
	}
	_, entries, _ := placement.ParseOwners(got.Content)
	if len(entries) != 3 || entries[2].Root != "kratix/us" || entries[2].Owner != "platform-us" || entries[2].Instance != "07" {
		t.Errorf("entries = %+v", entries)
	}

	// It would take platform-eu's folder: refused, the record as it was.
	got, _ = placement.Settle([]byte(jenkinsRecord), []placement.Stake{{File: file, Holder: us, Root: devRoot}})
	if len(got.Refused) != 1 || got.Refused[0].There != eu {
		t.Errorf("Refused = %+v, want platform-eu's folder", got.Refused)
	}

	// A successor takes the folder over; the deposed instance then spares it.
	got, _ = placement.Settle([]byte(jenkinsRecord), []placement.Stake{{File: file, Holder: successor, Root: devRoot, Files: []string{nestedDepsDir}}})
	_, entries, _ = placement.ParseOwners(got.Content)
	if !got.Changed || entries[0].Instance != "02" {
		t.Fatalf("the successor's take: %+v", entries)
	}
	deposed, _ := placement.Settle(got.Content, []placement.Stake{{File: file, Holder: eu, Root: devRoot, Release: true}})
	if deposed.Changed || len(deposed.Spared) != 1 || deposed.Spared[0].There != successor {
		t.Errorf("the deposed instance's removal: %+v, want the folder spared for the successor", deposed)
	}

	// The holder leaves both folders: no entry is left, and the record goes.
	gone, _ := placement.Settle([]byte(jenkinsRecord), []placement.Stake{
		{File: file, Holder: eu, Root: devRoot, Release: true},
		{File: file, Holder: placement.Holder{Object: "promise/jenkins"}, Root: "kratix/prod", Release: true},
	})
	if gone.Content != nil || !gone.Changed {
		t.Errorf("after the last entry: %+v, want no content", gone)
	}

	// Nothing new: unchanged.
	same, _ := placement.Settle([]byte(jenkinsRecord), []placement.Stake{{File: file, Holder: eu, Root: devRoot, Files: []string{nestedDepsDir}}})
	if same.Changed {
		t.Errorf("taking what it holds changed the record:\n%s", same.Content)
	}
}

func TestJudge(t *testing.T) {
	me := placement.Holder{Owner: "a", Object: "promise/p", Instance: "1"}
	successor := placement.Holder{Owner: "a", Object: "promise/p", Instance: "2"}
	otherOwner := placement.Holder{Owner: "b", Object: "promise/p", Instance: "1"}
	otherObject := placement.Holder{Owner: "a", Object: "promise/q", Instance: "1"}
	for _, c := range []struct {
		name              string
		there             *placement.Holder
		release, takeOver bool
		want              placement.StakeVerdict
	}{
		{"absent: take it", nil, false, false, placement.Take},
		{"ours: take it", &me, false, false, placement.Take},
		{"an earlier instance of ours (a replacement): take it", &successor, false, false, placement.Take},
		{"another owner's: refuse", &otherOwner, false, false, placement.Refuse},
		{"another object's: refuse", &otherObject, false, false, placement.Refuse},
		{"another owner's, imported on purpose: take it", &otherOwner, false, true, placement.Take},
		{"leaving, absent: nothing", nil, true, false, placement.Nothing},
		{"leaving, ours: drop it", &me, true, false, placement.Drop},
		{"leaving, a successor holds it: spare", &successor, true, false, placement.Spare},
		{"leaving, another owner holds it: spare", &otherOwner, true, false, placement.Spare},
		{"an import leaving what it took over: drop it", &successor, true, true, placement.Drop},
	} {
		if got := placement.Judge(me, c.there, c.release, c.takeOver); got != c.want {
			t.Errorf("%s: Judge = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestWithoutCovered(t *testing.T) {
	c := placement.Change{
		Delete: []string{nestedDepsDir, "kratix/dev/x.yaml", "kratix/other/y.yaml", nestedDepsFile},
		Prune:  []string{nestedDepsDir, "kratix/other/dependencies/jenkins/5058f/"},
	}
	got := c.WithoutCovered(placement.Stake{Root: devRoot, Files: []string{nestedDepsDir, "kratix/dev/x.yaml"}})
	sameSet(t, "Delete", got.Delete, []string{"kratix/other/y.yaml"})
	sameSet(t, "Prune", got.Prune, []string{"kratix/other/dependencies/jenkins/5058f/"})
}

// Every placement a promise writes gets its owner record, one per folder, covering its owned
// folder; one it leaves gives its record up, covering what it held there.
func TestPromiseStakes(t *testing.T) {
	jenkins := placement.Holder{Object: "promise/jenkins"} // the writer names the owner and the instance (As)
	other := member("other", locA(), storePath, "kratix/other", layout.ModeNone, map[string]string{"env": "dev"})
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
		Pool: []placement.Member{dev(""), other},
	})
	a := opAt(t, p.Ops, locA())
	const file = "kratix/.kratix-registry/owners/promise_jenkins.yaml"
	equal(t, "Stakes", a.Change.Stakes, map[string]placement.Stake{
		file + "#kratix/dev": {File: file, Holder: jenkins, Root: devRoot, Files: []string{nestedDepsDir}},
		file + "#kratix/other": {File: file, Holder: jenkins, Root: "kratix/other", Files: []string{
			"kratix/other/.kratix/kratix-platform-system-jenkins-static-deps.other-5058f.yaml",
			"kratix/other/static/jenkins-dependencies.yaml",
		}},
	})

	gone, err := placement.RemovePromise(deps(depsYAML), map[string]placement.Prior{"dev": {Record: p.Records["dev"], Member: ptr(dev(""))}})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "Stakes of the removal", opAt(t, gone.Ops, locA()).Change.Stakes, map[string]placement.Stake{
		file + "#kratix/dev": {File: file, Holder: jenkins, Root: devRoot, Files: []string{nestedDepsDir}, Release: true},
	})
}

func TestAs(t *testing.T) {
	ops := []placement.Op{{Change: placement.Change{Stakes: map[string]placement.Stake{
		"r.yaml": {Holder: placement.Holder{Object: "promise/p"}, Root: "dev"},
	}}}, {}}
	got := placement.As(ops, "fleet", "0a", true)
	equal(t, "stakes", got[0].Change.Stakes, map[string]placement.Stake{
		"r.yaml": {Holder: placement.Holder{Owner: "fleet", Object: "promise/p", Instance: "0a"}, TakeOver: true, Root: "dev"},
	})
	if ops[0].Change.Stakes["r.yaml"].Holder.Owner != "" {
		t.Error("As changed the plan's operations in place")
	}
}

// A destination's cleanup in one workspace leaves what another owner's placements hold there:
// their files, and their part of a shared aggregate, which is rebuilt from what stays.
func TestSpareForeign(t *testing.T) {
	agg := layout.Aggregate{File: aggFile, Dir: aggPartsDir}
	cleanup := placement.Change{Delete: []string{aggPartsDir, aggFile, "kratix/dev/kratix-canary-namespace.yaml"}}
	other := aggPartsDir + "cache-static-deps.dev-5058f.part"
	foreign := []placement.Stake{{Holder: placement.Holder{Owner: "b", Object: "promise/cache"}, Root: devRoot, Files: []string{other}}}
	got := placement.SpareForeign(cleanup, foreign, map[string][]string{aggPartsDir: {aggDepsPart, other}}, &agg)
	sameSet(t, "Delete", got.Delete, []string{aggDepsPart, "kratix/dev/kratix-canary-namespace.yaml"})
	equal(t, "Aggregates", got.Aggregates, []layout.Aggregate{agg})

	// No other owner's part there: the folder and the aggregate go whole, as before.
	alone := placement.SpareForeign(cleanup, foreign, map[string][]string{aggPartsDir: {aggDepsPart}}, &agg)
	sameSet(t, "Delete", alone.Delete, []string{aggPartsDir, aggFile, "kratix/dev/kratix-canary-namespace.yaml"})
	if len(alone.Aggregates) != 0 {
		t.Errorf("Aggregates = %v, want none", alone.Aggregates)
	}

	nested := placement.Change{Delete: []string{nestedDepsFile, "kratix/dev/dependencies/cache/5058f/static/cache-dependencies.yaml"}}
	cache := []placement.Stake{{Root: devRoot, Files: []string{"kratix/dev/dependencies/cache/5058f/"}}}
	sameSet(t, "Delete", placement.SpareForeign(nested, cache, nil, nil).Delete, []string{nestedDepsFile})
}

// An import's first apply holds every placement the object has, written again or not.
func TestHoldAll(t *testing.T) {
	records := map[string]placement.Record{
		"dev":       {Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}},
		"dev#extra": {Location: locA().String(), Root: devRoot, Files: map[string]string{"kratix/dev/extra.yaml": "beef"}},
		"gone":      {Location: locA().String(), Root: "kratix/gone", Files: map[string]string{"kratix/gone/x.yaml": "beef"}},
	}
	ops := placement.HoldAll("promise/jenkins", records, []placement.Member{dev("")})
	if len(ops) != 1 {
		t.Fatalf("%d ops, want 1 (the destination that left the pool has none)", len(ops))
	}
	const file = "kratix/.kratix-registry/owners/promise_jenkins.yaml"
	equal(t, "Stakes", ops[0].Change.Stakes, map[string]placement.Stake{
		file + "#kratix/dev": {File: file, Holder: placement.Holder{Object: "promise/jenkins"}, Root: devRoot,
			Files: []string{nestedDepsFile, "kratix/dev/extra.yaml"}},
	})
	if len(ops[0].Change.Put) != 0 || len(ops[0].Change.Delete) != 0 {
		t.Errorf("HoldAll writes files: %+v", ops[0].Change)
	}
}
