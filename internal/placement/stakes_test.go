package placement_test

import (
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

func TestStakePath(t *testing.T) {
	for _, c := range []struct{ storePath, root, object, want string }{
		{"kratix", "kratix/dev", "promise/jenkins", "kratix/.kratix-registry/owners/@kratix%2Fdev/promise_jenkins.yaml"},
		{"", "", "request/postgres/default/db", ".kratix-registry/owners/@/request_postgres_default_db.yaml"},
		{"", "clusters/eu/w 1", "promise/a.b", ".kratix-registry/owners/@clusters%2Feu%2Fw%201/promise_a.b.yaml"},
	} {
		got := placement.StakePath(c.storePath, c.root, c.object)
		if got != c.want {
			t.Errorf("StakePath(%q, %q, %q) = %q, want %q", c.storePath, c.root, c.object, got, c.want)
		}
		if !placement.IsStake(got) {
			t.Errorf("IsStake(%q) = false", got)
		}
	}
	for _, p := range []string{"kratix/dev/dependencies/x.yaml", "kratix/.kratix-registry/destinations/dev.yaml", ".kratix-registry/owners/x.yaml"} {
		if placement.IsStake(p) {
			t.Errorf("IsStake(%q) = true", p)
		}
	}
}

func TestRenderAndParseStake(t *testing.T) {
	h := placement.Holder{Owner: "platform-eu", Object: "promise/jenkins", Instance: "0123456789abcdef"}
	got := string(placement.RenderStake(h, placement.Stake{Root: devRoot, Files: []string{nestedDepsDir, "kratix/dev/b.yaml"}}))
	want := "# Owner record of terraform-provider-kratix: who holds this placement's files in folder \"kratix/dev\".\n" +
		"# Another owner's plan that would write, prune or delete them is refused. Do not edit.\n" +
		"files:\n- kratix/dev/b.yaml\n- kratix/dev/dependencies/jenkins/5058f/\n" +
		"instance: 0123456789abcdef\nobject: promise/jenkins\nowner: platform-eu\nroot: kratix/dev\n"
	if got != want {
		t.Fatalf("RenderStake:\n%s\nwant:\n%s", got, want)
	}
	gotH, gotS, err := placement.ParseStake([]byte(want))
	if err != nil || gotH != h || gotS.Root != devRoot || len(gotS.Files) != 2 || gotS.Files[0] != "kratix/dev/b.yaml" {
		t.Errorf("ParseStake = %+v, %+v, %v", gotH, gotS, err)
	}
	for _, bad := range []string{"owner: x\n", "object: promise/x\nsurprise: 1\n", "- a\n"} {
		if _, _, err := placement.ParseStake([]byte(bad)); err == nil {
			t.Errorf("ParseStake(%q): want an error", bad)
		}
	}
	unnamed, _, err := placement.ParseStake([]byte("object: promise/x\nowner: \"\"\nroot: r\nfiles: []\n"))
	if err != nil || unnamed.Owner != "" || unnamed.String() != "promise/x of the unnamed owner" {
		t.Errorf("unnamed owner: %+v %v", unnamed, err)
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
	equal(t, "Stakes", a.Change.Stakes, map[string]placement.Stake{
		"kratix/.kratix-registry/owners/@kratix%2Fdev/promise_jenkins.yaml": {Holder: jenkins, Root: devRoot, Files: []string{nestedDepsDir}},
		"kratix/.kratix-registry/owners/@kratix%2Fother/promise_jenkins.yaml": {Holder: jenkins, Root: "kratix/other", Files: []string{
			"kratix/other/.kratix/kratix-platform-system-jenkins-static-deps.other-5058f.yaml",
			"kratix/other/static/jenkins-dependencies.yaml",
		}},
	})

	gone, err := placement.RemovePromise(deps(depsYAML), map[string]placement.Prior{"dev": {Record: p.Records["dev"], Member: ptr(dev(""))}})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "Stakes of the removal", opAt(t, gone.Ops, locA()).Change.Stakes, map[string]placement.Stake{
		"kratix/.kratix-registry/owners/@kratix%2Fdev/promise_jenkins.yaml": {Holder: jenkins, Root: devRoot, Files: []string{nestedDepsDir}, Release: true},
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
