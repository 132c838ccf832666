package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

const (
	b1Promises     = 100
	b1Destinations = 10_000
)

// A small vocabulary, so that selectors match a useful share of the pool (neither none nor all).
var (
	b1Envs  = []string{"dev", "staging", "prod"}
	b1Zones = []string{"eu-west", "eu-north", "us-east", "us-west", "ap-south"}
	b1Tiers = []string{"gold", "silver", "bronze"}
	b1Teams = []string{"payments", "search", "data", "platform"}
)

// benchScheduling times the pure engine: every promise's selectors merged and matched against
// every destination, as the provider does in ModifyPlan.
func benchScheduling(ctx context.Context, runs int) ([]row, error) {
	// A fixed seed: every run, and every machine, schedules the same pool.
	rng := rand.New(rand.NewPCG(1, 2))
	pool := b1Pool(rng)
	promises := b1Selectors(rng)

	var times timings
	selected := 0
	for range runs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		selected = scheduleAll(promises, pool)
		times = append(times, time.Since(start))
	}
	decisions := b1Promises * b1Destinations
	med := times.median()
	return []row{{
		scenario: fmt.Sprintf("B1 scheduling: %d promises x %s destinations (Merge + Schedule)", b1Promises, "10,000"),
		measured: fmt.Sprintf("%.2f M decisions/s (%s for %d)", float64(decisions)/med.Seconds()/1e6, fmtDuration(med), decisions),
		floor:    "-", ratio: "-", goal: "-", met: "-",
		notes: fmt.Sprintf("%d of %d decisions select (%.0f%%); runs: %s", selected, decisions, 100*float64(selected)/float64(decisions), times),
	}}, nil
}

// scheduleAll schedules every promise and returns how many decisions selected a destination
// (using the result keeps the work from being optimised away).
func scheduleAll(promises [][]scheduling.Selector, pool []scheduling.Destination) int {
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

// b1Pool is destinations with random labels; some lack a label, so that missing labels and
// NotIn/Exists semantics are exercised too.
func b1Pool(rng *rand.Rand) []scheduling.Destination {
	pool := make([]scheduling.Destination, b1Destinations)
	for i := range pool {
		labels := map[string]string{"env": pick(rng, b1Envs), "zone": pick(rng, b1Zones)}
		if rng.IntN(4) > 0 {
			labels["tier"] = pick(rng, b1Tiers)
		}
		if rng.IntN(2) == 0 {
			labels["team"] = pick(rng, b1Teams)
		}
		pool[i] = scheduling.Destination{Name: fmt.Sprintf("dest-%05d", i), Labels: labels, StrictMatchLabels: i%10 == 0}
	}
	return pool
}

// b1Selectors gives each promise two destination_selectors entries: match_labels on env, and a
// set-based requirement on zone or tier.
func b1Selectors(rng *rand.Rand) [][]scheduling.Selector {
	ops := []string{scheduling.OpIn, scheduling.OpNotIn, scheduling.OpExists}
	out := make([][]scheduling.Selector, b1Promises)
	for i := range out {
		req := scheduling.Requirement{Key: "zone", Operator: ops[i%len(ops)]}
		switch req.Operator {
		case scheduling.OpIn, scheduling.OpNotIn:
			req.Values = []string{pick(rng, b1Zones), pick(rng, b1Zones)}
		case scheduling.OpExists:
			req.Key = "tier"
		}
		out[i] = []scheduling.Selector{
			{MatchLabels: map[string]string{"env": pick(rng, b1Envs)}},
			{MatchExpressions: []scheduling.Requirement{req}},
		}
	}
	return out
}

func pick(rng *rand.Rand, from []string) string { return from[rng.IntN(len(from))] }
