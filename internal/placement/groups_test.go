package placement_test

import (
	"slices"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// Two plans' operations at two locations become one per location: puts joined, deletes and
// destinations joined without repeats, and a location only one plan writes kept as it was.
func TestMergeOps(t *testing.T) {
	a, b := named("a", locA(), "dev"), named("b", locB(), "dev")
	first := []placement.Op{{Location: locA(), Member: a, Destinations: []string{"a"},
		Change: placement.Change{Put: map[string][]byte{"kratix/a/x.yaml": []byte("x")}, Delete: []string{"kratix/a/old.yaml"}}}}
	second := []placement.Op{
		{Location: locA(), Member: a, Destinations: []string{"a"},
			Change: placement.Change{Put: map[string][]byte{"kratix/a/db/y.yaml": []byte("y")}, Delete: []string{"kratix/a/old.yaml"}, Prune: []string{"kratix/a/p/"}}},
		{Location: locB(), Member: b, Destinations: []string{"b"}, Change: placement.Change{Put: map[string][]byte{"kratix/b/z.yaml": []byte("z")}}},
	}
	got := placement.MergeOps(first, second)
	if len(got) != 2 {
		t.Fatalf("%d ops, want 2 (one per location): %+v", len(got), got)
	}
	byLoc := map[placement.Location]placement.Op{}
	for _, op := range got {
		byLoc[op.Location] = op
	}
	atA := byLoc[locA()]
	equal(t, "Put at a", strPut(atA.Change.Put), map[string]string{"kratix/a/x.yaml": "x", "kratix/a/db/y.yaml": "y"})
	if !slices.Equal(atA.Change.Delete, []string{"kratix/a/old.yaml"}) || !slices.Equal(atA.Change.Prune, []string{"kratix/a/p/"}) || !slices.Equal(atA.Destinations, []string{"a"}) {
		t.Errorf("at a: Delete %v, Prune %v, Destinations %v", atA.Change.Delete, atA.Change.Prune, atA.Destinations)
	}
	equal(t, "Put at b", strPut(byLoc[locB()].Change.Put), map[string]string{"kratix/b/z.yaml": "z"})
}
