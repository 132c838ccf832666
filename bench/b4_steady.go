package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// steadySize is the B4 configuration: promises, each scheduled to every destination.
type steadySize struct{ destinations, promises int }

var (
	fullB4  = steadySize{destinations: 100, promises: 20}
	quickB4 = steadySize{destinations: 20, promises: 5}
)

// benchSteadyPlan is B4: with everything applied and nothing changed, terraform plan must find
// nothing to do and read no object bodies. It is set against the plan of its fair floor (the
// same configuration as terraform_data resources carrying the same values), which is what
// Terraform costs by itself on that state, and beside it the plan of bare terraform_data
// resources of the same count.
func benchSteadyPlan(ctx context.Context, e *env, runs int, size steadySize) ([]row, error) {
	proxy, err := startCountingProxy(e.minio.Endpoint)
	if err != nil {
		return nil, err
	}
	defer proxy.stop()

	const bucket = "b4-steady"
	if err := e.freshBucket(ctx, bucket); err != nil {
		return nil, err
	}
	defer e.dropBucket(ctx, bucket)
	cfg := kratixConfig{
		store:         e.bucketRef(proxy.Endpoint, bucket),
		destinations:  size.destinations,
		initWorkloads: true, // the usual setting: the plan also checks every destination's canaries
		promises:      []promiseSpec{{name: "p", count: size.promises, dependencies: smallNamespace}},
	}
	kratix, setup, err := steadyKratixWorkspace(ctx, e, proxy, bucket, cfg, size)
	if err != nil {
		return nil, err
	}
	defer kratix.remove()
	if e.profileDir != "" {
		if err := kratix.profileInto(e.profileDir); err != nil {
			return nil, err
		}
	}
	fair, err := e.fairFloorWorkspace("b4-fair", cfg, nil)
	if err != nil {
		return nil, err
	}
	defer fair.remove()
	if _, err := fair.apply(ctx, false); err != nil {
		return nil, fmt.Errorf("applying the fair floor: %w", err)
	}
	bare, err := e.newWorkspace("b4-data", map[string][]byte{"main.tf": []byte(bareDataConfig(size.destinations, size.promises))})
	if err != nil {
		return nil, err
	}
	defer bare.remove()
	if _, err := bare.apply(ctx, false); err != nil {
		return nil, fmt.Errorf("applying the bare terraform_data floor: %w", err)
	}

	measured := &series{run: counted(proxy, emptyPlans(ctx, kratix))}
	fairPlans := &series{run: emptyPlans(ctx, fair)}
	barePlans := &series{run: emptyPlans(ctx, bare)}
	if err := measure(runs, measured, fairPlans, barePlans); err != nil {
		return nil, err
	}
	worst := measured.counts()
	r, rs := ratio(measured.median(), fairPlans.median())
	_, rs2 := ratio(measured.median(), barePlans.median())
	resources := cfg.resources()
	return []row{{
		scenario: fmt.Sprintf("B4 steady state: terraform plan -detailed-exitcode, %d promises x %d destinations applied (bucket, via counting proxy)", size.promises, size.destinations),
		measured: fmtDuration(measured.median()),
		floor:    fmt.Sprintf("%s (fair: plan of %d terraform_data carrying the same values)", fmtDuration(fairPlans.median()), resources),
		ratio:    rs,
		floor2:   fmt.Sprintf("%s (plan of %d bare terraform_data)", fmtDuration(barePlans.median()), resources),
		ratio2:   rs2,
		goal:     "≤1.3x fair floor; 0 PUT, 0 GET; 1 listing (one store location)",
		met:      yesNo(r <= 1.3 && worst.Puts == 0 && worst.Gets == 0 && worst.Listings <= 1),
		notes: fmt.Sprintf("exit 0 (no changes) every run; S3 requests per plan (max over runs): %s; set-up apply of %d resources: %s; runs: %s / fair %s / bare %s",
			worst, resources, setup, measured.times(), fairPlans.times(), barePlans.times()),
	}}, nil
}

// profileDirEnv is the provider's variable for CPU profiles (see main.go at the module root).
const profileDirEnv = "KRATIX_PROVIDER_CPU_PROFILE_DIR"

// profileInto has the provider processes of w's commands write their CPU profiles into dir,
// which it creates.
func (w *workspace) profileInto(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the profile folder: %w", err)
	}
	w.env = append(w.env, profileDirEnv+"="+dir)
	return nil
}

// steadyKratixWorkspace applies cfg, the B4 configuration, to bucket through the counting proxy
// and returns the workspace and a summary of the set-up apply.
func steadyKratixWorkspace(ctx context.Context, e *env, proxy *countingProxy, bucket string, cfg kratixConfig, size steadySize) (*workspace, string, error) {
	ws, err := e.newWorkspace("b4-kratix", map[string][]byte{"main.tf": []byte(cfg.String())})
	if err != nil {
		return nil, "", err
	}
	proxy.reset()
	res, err := ws.apply(ctx, false)
	if err != nil {
		ws.remove()
		return nil, "", fmt.Errorf("applying the steady-state configuration: %w", err)
	}
	counts := proxy.reset()
	// Two canaries per destination, and one file per promise and destination.
	if err := e.expectObjects(ctx, bucket, size.destinations*(2+size.promises)); err != nil {
		ws.remove()
		return nil, "", err
	}
	return ws, fmt.Sprintf("%s (%s)", fmtDuration(res.took), counts), nil
}

// emptyPlan runs terraform plan -detailed-exitcode, which must exit 0: nothing to change.
func emptyPlan(ctx context.Context, ws *workspace) (time.Duration, error) {
	res, err := ws.run(ctx, false, "plan", "-detailed-exitcode")
	if err != nil {
		return 0, err
	}
	if res.exitCode != 0 {
		return 0, fmt.Errorf("terraform plan in %s exited %d, want 0 (no changes):\n%s", ws.dir, res.exitCode, tail(planSummary(res.output)))
	}
	return res.took, nil
}

// emptyPlans is a series' run: emptyPlan in ws, timed.
func emptyPlans(ctx context.Context, ws *workspace) func(int) (sample, error) {
	return timed(func(int) (time.Duration, error) { return emptyPlan(ctx, ws) })
}

// planSummary drops the refresh lines, which are most of a big plan's output and say nothing.
func planSummary(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, ": Refreshing state...") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// maxCounts keeps the worst plan: the largest count of each kind over the runs.
func maxCounts(a, b s3Counts) s3Counts {
	out := s3Counts{Puts: max(a.Puts, b.Puts), Gets: max(a.Gets, b.Gets), Heads: max(a.Heads, b.Heads),
		Lists: max(a.Lists, b.Lists), Listings: max(a.Listings, b.Listings), Other: max(a.Other, b.Other),
		OtherKinds: map[string]int{}, Listed: map[string]int{}}
	for _, m := range []map[string]int{a.OtherKinds, b.OtherKinds} {
		for k, n := range m {
			out.OtherKinds[k] = max(out.OtherKinds[k], n)
		}
	}
	for _, m := range []map[string]int{a.Listed, b.Listed} {
		for k, n := range m {
			out.Listed[k] = max(out.Listed[k], n)
		}
	}
	return out
}
