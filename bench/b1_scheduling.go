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
	return []row{{
		scenario: fmt.Sprintf("B1 scheduling: %d promises x %s destinations (Merge + Schedule)", workload.Promises, "10,000"),
		measured: fmt.Sprintf("%.2f M decisions/s (%.0f ns/decision)", 1e3/ns, ns),
		floor:    "-", ratio: "-", goal: ">= 5 M decisions/s", met: yesNo(1e3/ns >= 5),
		notes: fmt.Sprintf("one op = %d decisions (%d select); per op: %.0f allocs, %.1f MB allocated; runs (M decisions/s): %s; "+
			"same as go test -bench ScheduleB1 ./internal/scheduling/",
			workload.Decisions, workload.Selected, medianOf(allocs), medianOf(bytes)/1e6, strings.Join(runsText, ", ")),
	}}, nil
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
