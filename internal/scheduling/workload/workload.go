// Package workload is the scheduling benchmark B1 (issue 10): 100 promises, each with two
// destination_selectors entries, merged and scheduled against 10,000 labelled destinations. The
// testing.B benchmark of package scheduling and `make bench` (bench/b1_scheduling.go) both run
// B1 from here, so that they measure the same thing on the same data.
//
// It is pure: no Terraform, no I/O.
package workload

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The size of B1.
const (
	Promises     = 100
	Destinations = 10_000
	// Decisions is the number of decisions of one B1 operation: every promise against every
	// destination.
	Decisions = Promises * Destinations
)

// A small vocabulary, so that selectors match a useful share of the pool (neither none nor all).
var (
	envs  = []string{"dev", "staging", "prod"}
	zones = []string{"eu-west", "eu-north", "us-east", "us-west", "ap-south"}
	tiers = []string{"gold", "silver", "bronze"}
	teams = []string{"payments", "search", "data", "platform"}
)

// B1 returns the promises' selector entries and the pool. A fixed seed: every run, and every
// machine, schedules the same pool.
func B1() (promises [][]scheduling.Selector, pool []scheduling.Destination) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool = Pool(rng, Destinations)
	promises = Selectors(rng, Promises)
	return promises, pool
}

// Pool is n destinations with random labels; some lack a label, so that missing labels and
// NotIn/Exists semantics are exercised too. Every tenth one has strict_match_labels.
func Pool(rng *rand.Rand, n int) []scheduling.Destination {
	pool := make([]scheduling.Destination, n)
	for i := range pool {
		labels := map[string]string{"env": pick(rng, envs), "zone": pick(rng, zones)}
		if rng.IntN(4) > 0 {
			labels["tier"] = pick(rng, tiers)
		}
		if rng.IntN(2) == 0 {
			labels["team"] = pick(rng, teams)
		}
		pool[i] = scheduling.Destination{Name: fmt.Sprintf("dest-%05d", i), Labels: labels, StrictMatchLabels: i%10 == 0}
	}
	return pool
}

// Selectors gives each of n promises two destination_selectors entries: match_labels on env,
// and a set-based requirement on zone (In, NotIn) or tier (Exists).
func Selectors(rng *rand.Rand, n int) [][]scheduling.Selector {
	ops := []string{scheduling.OpIn, scheduling.OpNotIn, scheduling.OpExists}
	out := make([][]scheduling.Selector, n)
	for i := range out {
		req := scheduling.Requirement{Key: "zone", Operator: ops[i%len(ops)]}
		switch req.Operator {
		case scheduling.OpIn, scheduling.OpNotIn:
			req.Values = []string{pick(rng, zones), pick(rng, zones)}
		case scheduling.OpExists:
			req.Key = "tier"
		}
		out[i] = []scheduling.Selector{
			{MatchLabels: map[string]string{"env": pick(rng, envs)}},
			{MatchExpressions: []scheduling.Requirement{req}},
		}
	}
	return out
}

// ScheduleAll merges and schedules every promise, as the provider does in ModifyPlan, and
// returns how many decisions selected a destination (using the result keeps the work from being
// optimised away).
func ScheduleAll(promises [][]scheduling.Selector, pool []scheduling.Destination) int {
	n := 0
	for _, entries := range promises {
		for _, d := range scheduling.Schedule(scheduling.Merge(entries), pool) {
			if d.Selected {
				n++
			}
		}
	}
	return n
}

// Selected is how many of B1's decisions select a destination, counted when B1 was written; a
// benchmark that gets another count measures something else.
const Selected = 196_110

// Benchmark runs B1 b.N times and reports, beside ns/op (one op = every promise scheduled, so
// Decisions decisions), allocations and the rates per decision.
func Benchmark(b *testing.B) {
	promises, pool := B1()
	b.ReportAllocs()
	b.ResetTimer()
	selected := 0
	for b.Loop() {
		selected = ScheduleAll(promises, pool)
	}
	b.StopTimer()
	if selected != Selected {
		b.Fatalf("B1 selected %d of %d, want %d", selected, Decisions, Selected)
	}
	ReportRates(b, Decisions)
}

// ReportRates adds decisions/s and ns/decision to a benchmark that made perOp decisions per op.
func ReportRates(b *testing.B, perOp int) {
	total := float64(b.N) * float64(perOp)
	if s := b.Elapsed().Seconds(); s > 0 && total > 0 {
		b.ReportMetric(total/s, "decisions/s")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/decision")
	}
}

func pick(rng *rand.Rand, from []string) string { return from[rng.IntN(len(from))] }
