package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling/workload"
)

// benchScheduling times the pure engine: every promise's selectors merged and matched against
// every destination, as the provider does in ModifyPlan. Each run is one testing.Benchmark of
// workload.Benchmark, the same function as `go test -bench ScheduleB1 ./internal/scheduling/`,
// so that the table and the Go benchmark measure the same thing on the same data.
func benchScheduling(ctx context.Context, runs int) ([]row, error) {
	var nsPerDecision, allocs, bytes []float64
	for range runs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := testing.Benchmark(workload.Benchmark)
		if r.N == 0 {
			return nil, errors.New("the B1 benchmark failed: run go test -bench ScheduleB1 ./internal/scheduling/ to see why")
		}
		nsPerDecision = append(nsPerDecision, float64(r.NsPerOp())/workload.Decisions)
		allocs = append(allocs, float64(r.AllocsPerOp()))
		bytes = append(bytes, float64(r.AllocedBytesPerOp()))
	}
	ns := medianOf(nsPerDecision)
	runsText := make([]string, len(nsPerDecision))
	for i, v := range nsPerDecision {
		runsText[i] = fmt.Sprintf("%.2f", 1e3/v)
	}
	rows := []row{{
		scenario: fmt.Sprintf("B1 scheduling: %d promises x %s destinations (Merge + Schedule)", workload.Promises, "10,000"),
		measured: fmt.Sprintf("%.2f M decisions/s (%.0f ns/decision)", 1e3/ns, ns),
		floor:    "-", ratio: "-", goal: ">= 5 M decisions/s", met: yesNo(1e3/ns >= 5),
		notes: fmt.Sprintf("one op = %d decisions (%d select); per op: %.0f allocs, %.1f MB allocated; runs (M decisions/s): %s; "+
			"same as go test -bench ScheduleB1 ./internal/scheduling/",
			workload.Decisions, workload.Selected, medianOf(allocs), medianOf(bytes)/1e6, strings.Join(runsText, ", ")),
	}}
	tainted, err := benchTainted(ctx, runs)
	if err != nil {
		return nil, err
	}
	return append(rows, tainted), nil
}

// benchTainted is B1 with taints, weights and spread (issue 23): B1's scheduling plus each
// promise's taint verdict per selected destination and one Pick per promise, the same function
// as go test -bench ScheduleB1Tainted ./internal/scheduling/.
func benchTainted(ctx context.Context, runs int) (row, error) {
	perOp, _ := workload.RunTainted(workload.B1Tainted())
	var nsPerDecision, allocs []float64
	for range runs {
		if err := ctx.Err(); err != nil {
			return row{}, err
		}
		r := testing.Benchmark(workload.BenchmarkTainted)
		if r.N == 0 {
			return row{}, errors.New("the B1 benchmark with taints failed: run go test -bench ScheduleB1Tainted ./internal/scheduling/ to see why")
		}
		nsPerDecision = append(nsPerDecision, float64(r.NsPerOp())/float64(perOp))
		allocs = append(allocs, float64(r.AllocsPerOp()))
	}
	ns := medianOf(nsPerDecision)
	runsText := make([]string, len(nsPerDecision))
	for i, v := range nsPerDecision {
		runsText[i] = fmt.Sprintf("%.2f", 1e3/v)
	}
	return row{
		scenario: "B1 with taints, weights and spread: B1 + a taint verdict per selected destination + one Pick per promise",
		measured: fmt.Sprintf("%.2f M decisions/s (%.0f ns/decision)", 1e3/ns, ns),
		floor:    "-", ratio: "-", goal: ">= 5 M decisions/s", met: yesNo(1e3/ns >= 5),
		notes: fmt.Sprintf("10%% of destinations tainted (the three effects in turn), weights 1..4, spread over 5 zones for half the requests, replicas 1..3; "+
			"one op = %d decisions (B1's plus every request's candidates); per op: %.0f allocs; runs (M decisions/s): %s; "+
			"same as go test -bench ScheduleB1Tainted ./internal/scheduling/", perOp, medianOf(allocs), strings.Join(runsText, ", ")),
	}, nil
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
