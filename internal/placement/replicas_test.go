package placement_test

import (
	"slices"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// A request with replicas, over four destinations a to d (a and b at one location, c and d at
// another), each step planned from what the one before recorded.
//
//   - replicas = 2: two destinations, both recorded, first = All[0].
//   - raised to 3: the two stay first in their order, one is added; nothing is removed.
//   - lowered to 1: the first of the three by rank stays; the other two are Leaving, their files
//     deleted, and the guard counts each as removed.
//   - one of two replicas drained: it leaves for the destination not used yet, which the guard
//     counts as a move there, and the other stays.
func TestRequestReplicas(t *testing.T) {
	out := pgRequest(map[string]string{"db.yaml": dbYAML})
	pool := []placement.Member{named("a", locA(), "dev"), named("b", locA(), "dev"), named("c", locB(), "dev"), named("d", locB(), "dev")}
	byName := map[string]placement.Member{}
	for _, m := range pool {
		byName[m.Name] = m
	}
	names := func(ms []placement.Member) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	// from builds the next plan's input from a plan's records, in its order.
	from := func(p placement.RequestPlan, order []string) placement.Request {
		in := placement.Request{Key: requestKey, Selector: envSelector("dev"), Output: out, Pool: pool, OtherPriors: map[string]placement.Prior{}, PriorOrder: order}
		for i, dest := range order {
			m := byName[dest]
			pr := placement.Prior{Member: &m, Record: p.Records[dest]}
			if i == 0 {
				in.PriorDestination, in.Prior = dest, &pr
			} else {
				in.OtherPriors[dest] = pr
			}
		}
		return in
	}
	rank := scheduling.Rank(requestKey, placement.Destinations(pool))

	two := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: out, Pool: pool, Replicas: 2})
	if got := names(two.All); !slices.Equal(got, rank[:2]) || two.Chosen.Name != rank[0] || len(two.Records) != 2 {
		t.Fatalf("replicas 2: All %v (first %s), %d records; want %v", got, two.Chosen.Name, len(two.Records), rank[:2])
	}

	// Raised, with the state's order reversed: the order stays the state's.
	order := []string{rank[1], rank[0]}
	in := from(two, order)
	in.Replicas = 3
	three := planRequest(t, in)
	if got := names(three.All); !slices.Equal(got, append(slices.Clone(order), rank[2])) {
		t.Fatalf("replicas 3: All %v, want %v then %s", got, order, rank[2])
	}
	if len(three.Leaving) != 0 || len(placement.RequestLosses(in.PriorDestination, in.Prior, three, pool)) != 0 {
		t.Errorf("raising replicas leaves %v, losses %v; want nothing", three.Leaving, placement.RequestLosses(in.PriorDestination, in.Prior, three, pool))
	}
	for _, op := range three.Ops {
		if len(op.Change.Delete) > 0 {
			t.Errorf("raising replicas deletes %v", op.Change.Delete)
		}
	}

	in = from(three, names(three.All))
	in.Replicas = 1
	one := planRequest(t, in)
	if got := names(one.All); !slices.Equal(got, rank[:1]) {
		t.Fatalf("replicas 1: All %v, want %v (the best-ranked)", got, rank[:1])
	}
	if want := slices.Sorted(slices.Values(rank[1:3])); !slices.Equal(slices.Sorted(slices.Values(one.Leaving)), want) || one.MovedFrom != "" {
		t.Errorf("replicas 1: Leaving %v, MovedFrom %q; want %v, none", one.Leaving, one.MovedFrom, want)
	}
	losses := placement.RequestLosses(in.PriorDestination, in.Prior, one, pool)
	var removed []string
	for _, l := range losses {
		if l.Kind == placement.LossRemoved {
			removed = append(removed, l.Destination)
		}
	}
	if want := slices.Sorted(slices.Values(rank[1:3])); !slices.Equal(removed, want) || len(losses) != 2 {
		t.Errorf("replicas 1: losses %+v, want %v removed", losses, want)
	}
	if !anyContains(one.Warnings, "replicas = 1") {
		t.Errorf("Warnings = %q, want one saying why it leaves", one.Warnings)
	}

	// Drain the second of two.
	drainedPool := slices.Clone(pool)
	for i := range drainedPool {
		if drainedPool[i].Name == rank[1] {
			drainedPool[i].Taints = []scheduling.Taint{{Key: "maintenance", Effect: scheduling.EffectNoExecute}}
		}
	}
	in = from(two, names(two.All))
	in.Pool, in.Replicas = drainedPool, 2
	moved := planRequest(t, in)
	if got := names(moved.All); !slices.Equal(got, []string{rank[0], rank[2]}) || moved.MovedFrom != rank[1] || !slices.Equal(moved.Leaving, []string{rank[1]}) {
		t.Fatalf("drained: All %v, MovedFrom %q, Leaving %v; want [%s %s], from %s", got, moved.MovedFrom, moved.Leaving, rank[0], rank[2], rank[1])
	}
	losses = placement.RequestLosses(in.PriorDestination, in.Prior, moved, drainedPool)
	if len(losses) != 1 || losses[0].Kind != placement.LossMoved || losses[0].To != "destination "+rank[2] {
		t.Errorf("drained: losses %+v, want one move of %s to destination %s", losses, rank[1], rank[2])
	}
}

// Fewer candidates than replicas: the request goes to those there are and the plan says so.
func TestRequestReplicasShortfall(t *testing.T) {
	p := planRequest(t, placement.Request{Selector: envSelector("dev"), Output: pgRequest(map[string]string{"db.yaml": dbYAML}),
		Pool: []placement.Member{named("a", locA(), "dev"), named("b", locA(), "prod")}, Replicas: 3})
	if len(p.All) != 1 || p.Chosen.Name != "a" {
		t.Fatalf("All %+v, want a only", p.All)
	}
	if !anyContains(p.Warnings, "asks for 3 replicas, but only 1 destination(s) can take it (a)") {
		t.Errorf("Warnings = %q, want the shortfall", p.Warnings)
	}
}
