package scheduling_test

import (
	"math/rand/v2"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling/workload"
)

// BenchmarkScheduleB1 is B1 of issue 10 (also run by `make bench`): 100 promises merged and
// scheduled against 10,000 destinations.
func BenchmarkScheduleB1(b *testing.B) { workload.Benchmark(b) }

// BenchmarkSchedule is one Schedule call over B1's pool of 10,000 destinations, for selectors of
// several shapes.
func BenchmarkSchedule(b *testing.B) {
	pool := workload.Pool(rand.New(rand.NewPCG(1, 2)), workload.Destinations)
	shapes := []struct {
		name string
		sel  scheduling.Selector
	}{
		{"empty", scheduling.Selector{}},
		{"labels", scheduling.Selector{MatchLabels: map[string]string{"env": "dev", "tier": "gold"}}},
		{"in", scheduling.Selector{MatchExpressions: []scheduling.Requirement{{Key: "zone", Operator: scheduling.OpIn, Values: []string{"eu-west", "us-east"}}}}},
		{"mixed", scheduling.Selector{
			MatchLabels: map[string]string{"env": "prod"},
			MatchExpressions: []scheduling.Requirement{
				{Key: "zone", Operator: scheduling.OpNotIn, Values: []string{"ap-south"}},
				{Key: "tier", Operator: scheduling.OpExists},
				{Key: "team", Operator: scheduling.OpDoesNotExist},
			},
		}},
	}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ds := scheduling.Schedule(s.sel, pool); len(ds) != len(pool) {
					b.Fatalf("%d decisions for %d destinations", len(ds), len(pool))
				}
			}
			workload.ReportRates(b, len(pool))
		})
	}
}

// BenchmarkScheduleB1Tainted is B1 with taints, weights and spread (issue 23, also run by
// `make bench`): B1's decisions plus each promise's taint verdicts and one Pick per promise.
func BenchmarkScheduleB1Tainted(b *testing.B) { workload.BenchmarkTainted(b) }

// BenchmarkPick is one Pick among B1's 10,000 destinations with weights, taints and zones.
func BenchmarkPick(b *testing.B) {
	w := workload.B1Tainted()
	for _, spread := range []string{"", workload.TaintedSpreadKey} {
		b.Run("spread="+spread, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in := scheduling.PickInput{Key: "default/p/r", Candidates: w.Pool, Replicas: 3, SpreadKey: spread}
				if got := scheduling.Pick(in); len(got.Chosen) != 3 {
					b.Fatalf("chose %v", got.Chosen)
				}
			}
			workload.ReportRates(b, len(w.Pool))
		})
	}
}
