// Package workload is the scheduling benchmark B1 (issue 10): 100 promises, each with two
// destination_selectors entries, merged and scheduled against 10,000 labelled destinations. The
// testing.B benchmark of package scheduling and `make bench` (bench/b1_scheduling.go) both run
// B1 from here, so that they measure the same thing on the same data.
//
// It is pure: no Terraform, no I/O.
package workload

import (
	"fmt"
	"hash/fnv"
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

// B1 with taints, weights and spread (issue 23): B1's promises and pool, with every tenth
// destination tainted (NoSchedule, PreferNoSchedule and NoExecute in turn), weights 1 to 4, and
// B1's zone label (five zones) as the spread domain. Each promise has tolerations (none, its
// NoSchedule taint, or every taint, in turn) and one resource request, placed with Pick among
// the destinations the promise's verdicts keep, with 1 to 3 replicas, spread over zones for
// every other request, and a current destination for every third.
type Tainted struct {
	Promises    [][]scheduling.Selector
	Tolerations [][]scheduling.Toleration // per promise
	Pool        []scheduling.Destination
	// PlacedBefore says, per destination, whether the promises were placed there before (half
	// of them, tainted or not: alternate tens), for the NoSchedule verdict.
	PlacedBefore []bool
}

// TaintedSpreadKey is the label Tainted's requests spread over.
const TaintedSpreadKey = "zone"

// B1Tainted returns B1 with taints, weights and spread (a fixed seed, as B1).
func B1Tainted() Tainted {
	promises, pool := B1()
	taints := []scheduling.Taint{
		{Key: "maintenance", Value: "2026-12-01", Effect: scheduling.EffectNoSchedule},
		{Key: "spot", Effect: scheduling.EffectPreferNoSchedule},
		{Key: "drain", Effect: scheduling.EffectNoExecute},
	}
	w := Tainted{Promises: promises, Pool: pool, PlacedBefore: make([]bool, len(pool))}
	for i := range w.Pool {
		if i%10 == 3 {
			w.Pool[i].Taints = []scheduling.Taint{taints[(i/10)%3]}
		}
		w.Pool[i].Weight = 1 + i%4
		w.PlacedBefore[i] = (i/10)%2 == 0
	}
	tols := [][]scheduling.Toleration{
		nil,
		{{Key: "maintenance", Operator: scheduling.TolerationOpExists, Effect: scheduling.EffectNoSchedule}},
		{{Operator: scheduling.TolerationOpExists}},
	}
	w.Tolerations = make([][]scheduling.Toleration, len(promises))
	for p := range w.Tolerations {
		w.Tolerations[p] = tols[p%len(tols)]
	}
	return w
}

// TaintedOutcome is what one run of B1 with taints decides: how many (promise, destination)
// placements the verdicts keep, how many destinations the requests get, and a checksum of their
// names (FNV-1a, summed), so that a benchmark can tell a changed outcome from a changed speed.
type TaintedOutcome struct {
	Kept, Chosen int
	ChosenSum    uint64
}

// WantTainted is RunTainted's outcome, counted when the variant was written; a benchmark that
// gets another measures something else.
var WantTainted = TaintedOutcome{Kept: 191_614, Chosen: 199, ChosenSum: 15_527_187_457_887_918_516}

// RunTainted schedules every promise, decides the taint verdict of each destination it
// selects, and picks the destinations of one request per promise among those kept. It returns
// the decisions made (every promise against every destination, plus every candidate of every
// request) and the outcome.
func RunTainted(w Tainted) (decisions int, out TaintedOutcome) {
	cands := make([]scheduling.Destination, 0, len(w.Pool))
	for p, entries := range w.Promises {
		cands = cands[:0]
		for i, d := range scheduling.Schedule(scheduling.Merge(entries), w.Pool) {
			if !d.Selected {
				continue
			}
			if keep, _ := scheduling.PromiseTaintVerdict(w.Tolerations[p], w.Pool[i], w.PlacedBefore[i]); keep {
				cands = append(cands, w.Pool[i])
				out.Kept++
			}
		}
		in := scheduling.PickInput{
			Key:         fmt.Sprintf("default/promise-%d/request", p),
			Candidates:  cands,
			Tolerations: w.Tolerations[p],
			Replicas:    1 + p%3,
		}
		if p%2 == 0 {
			in.SpreadKey = TaintedSpreadKey
		}
		if p%3 == 0 && len(cands) > 0 {
			in.Current = []string{cands[len(cands)/2].Name}
		}
		for _, name := range scheduling.Pick(in).Chosen {
			h := fnv.New64a()
			h.Write([]byte(name))
			out.Chosen++
			out.ChosenSum += h.Sum64()
		}
		decisions += len(w.Pool) + len(cands)
	}
	return decisions, out
}

// BenchmarkTainted runs B1 with taints, weights and spread b.N times and reports decisions/s
// (one op = every promise's decisions plus every request's candidates).
func BenchmarkTainted(b *testing.B) {
	w := B1Tainted()
	b.ReportAllocs()
	b.ResetTimer()
	var decisions int
	var out TaintedOutcome
	for b.Loop() {
		decisions, out = RunTainted(w)
	}
	b.StopTimer()
	if out != WantTainted {
		b.Fatalf("B1 with taints decided %+v, want %+v", out, WantTainted)
	}
	ReportRates(b, decisions)
}
