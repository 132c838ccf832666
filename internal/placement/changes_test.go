package placement_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// Settle: a destination whose every change was made gets its new record; any other keeps what
// it held before, or nothing, so that the next plan shows the difference again.
func TestSettle(t *testing.T) {
	a := dev("")
	b := member("b", locA(), storePath, "kratix/b", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	c := member("c", locB(), storePath, "kratix/c", layout.ModeNestedByMetadata, map[string]string{"env": "dev"})
	priorA := placement.Record{Store: "store", Location: locA().String(), Root: devRoot, Files: map[string]string{nestedDepsFile: depsMD5}}
	p := planPromise(t, placement.Promise{
		Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsV2YAML), Pool: []placement.Member{a, b, c},
		Prior: map[string]placement.Prior{"dev": {Record: priorA, Member: &a}},
	})
	if len(p.Ops) != 2 {
		t.Fatalf("got %d Ops, want 2", len(p.Ops))
	}

	t.Run("A failed", func(t *testing.T) {
		out := p.Settle(map[string]bool{locA().String(): true})
		equal(t, "Records[dev]", out.Records["dev"], priorA)
		if _, ok := out.Records["b"]; ok {
			t.Errorf("b, never written, has a record after its write failed: %+v", out.Records["b"])
		}
		if out.Records["c"].Files["kratix/c/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml"] != depsV2MD5 {
			t.Errorf("c, written at B, lost its new record: %+v", out.Records["c"])
		}
		sameSet(t, "Scheduled", out.Scheduled, []string{"c"})
	})
	t.Run("B failed", func(t *testing.T) {
		out := p.Settle(map[string]bool{locB().String(): true})
		if _, ok := out.Records["c"]; ok {
			t.Errorf("c has a record after its first write failed")
		}
		equal(t, "Records[dev].Files", out.Records["dev"].Files, map[string]string{nestedDepsFile: depsV2MD5})
		sameSet(t, "Scheduled", out.Scheduled, []string{"b", "dev"})
	})
	t.Run("nothing failed", func(t *testing.T) {
		out := p.Settle(nil)
		equal(t, "Records", out.Records, p.Records)
		sameSet(t, "Scheduled", out.Scheduled, []string{"b", "c", "dev"})
		sameSet(t, "Misscheduled", out.Misscheduled, nil)
	})
	t.Run("an unrelated location failed", func(t *testing.T) {
		out := p.Settle(map[string]bool{placement.BucketLocation("http://other:9000", "x").String(): true})
		equal(t, "Records", out.Records, p.Records)
	})
}

func TestChangeEmpty(t *testing.T) {
	if !(placement.Change{}).Empty() || !(placement.Change{Put: map[string][]byte{}}).Empty() {
		t.Errorf("a change asking for nothing is not Empty")
	}
	for _, c := range []placement.Change{
		{Put: map[string][]byte{"a": nil}}, {Delete: []string{"a"}}, {Prune: []string{"a/"}},
		{Aggregates: []layout.Aggregate{{File: "a", Dir: "b/"}}},
	} {
		if c.Empty() {
			t.Errorf("%+v is Empty", c)
		}
	}
}

// The same inputs give the same plan, byte for byte, whatever Go's map order: the plan is shown
// to the user and compared across runs. Delete and Prune are sorted and without repeats.
func TestPlansAreDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for i := 0; i < 500; i++ {
		sc := randomScenario(rng)
		if sc.held {
			sc.recorded = adversarialRecord(rng, sc)
		}
		first, err := sc.run()
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 3; j++ {
			again, _ := sc.run()
			if !reflect.DeepEqual(first.Ops, again.Ops) || !reflect.DeepEqual(first.Records, again.Records) ||
				!reflect.DeepEqual(first.Warnings, again.Warnings) {
				t.Fatalf("case %d (%s): two runs differ", i, sc)
			}
		}
		for _, op := range first.Ops {
			for _, list := range [][]string{op.Change.Delete, op.Change.Prune} {
				for k := 1; k < len(list); k++ {
					if list[k-1] >= list[k] {
						t.Fatalf("case %d (%s): %q is not sorted and unique", i, sc, list)
					}
				}
			}
		}
	}
}
