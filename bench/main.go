// Command bench measures the provider against the physical floor on this machine: each scenario
// runs against the real MinIO and git servers that internal/testinfra starts on loopback, beside
// a floor measured in the same run (a plain client doing the same work; for end-to-end runs, the
// same configuration as terraform_data resources carrying the same values, see floor.go), and
// reports medians in a Markdown table.
//
//	go run ./bench -runs 5 -out bench-results.md
//	go run ./bench -quick            # one run, smaller B4, B5, B7 and B9: a smoke test
//	go run ./bench -only B9 -runs 1 -b9-requests 100   # B9 (never run unless named) with 100 requests instead of 500
//	go run ./bench -quick -runs 3 -only B4,B5   # smaller B4 and B5, three runs each
//	go run ./bench -only B4 -runs 1 -profile /tmp/b4   # CPU profiles of the provider during B4's plan
//	go run ./bench -only B7 -timeout 4h         # the fleet (never run unless named): 50 promises x 250, 500, 1,000 destinations
//	go run ./bench -only B7 -b7-destinations 250 -timeout 1h   # the fleet at one size
//	go run ./bench -only B7 -b7-destinations 20 -b7-observe   # and the same fleet observing its health
//	go run ./bench -only B10 -runs 3 -timeout 3h   # the sharded fleet (never run unless named): 8 workspaces of 500 destinations
//	go run ./bench -only B10 -quick            # the same with 8 shards of 25 (a few minutes)
//	go run ./bench -only B10 -b10-destinations 100 -runs 3   # 8 shards of 100
//	go run ./bench -deps ../shared/testdata/marketplace/tekton.yaml   # B2 and B3 with a real release
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are the command-line flags.
type options struct {
	runs       int
	e2eRuns    int    // runs of the terraform apply scenarios (slow); 0 means runs
	b7Runs     int    // plan runs per size of B7 (slow: one fleet plan of 50,000 placements takes minutes)
	b7Dests    string // B7's destination counts, comma-separated; "" for the default
	b7Observe  bool   // B7 also measures the observed fleet (observe and health on every promise)
	b9Requests int    // B9's request count
	b10Dests   int    // destinations per shard of B10; 0 for the default
	out        string
	quick      bool
	deps       string
	terraform  string
	only       string
	profile    string
	timeout    time.Duration
}

func parseFlags() options {
	var o options
	flag.IntVar(&o.runs, "runs", 5, "runs per scenario; each scenario reports the median")
	flag.IntVar(&o.e2eRuns, "e2e-runs", 0, "runs of the end-to-end terraform apply scenarios (B2/B3 apply, B5); 0: same as -runs")
	flag.IntVar(&o.b7Runs, "b7-runs", 1, "plan runs per size of B7, the fleet (each alternating with its fair floor's plan)")
	flag.StringVar(&o.b7Dests, "b7-destinations", "", "B7's destination counts, comma-separated (default 250,500,1000; with -quick 50,100,200)")
	flag.BoolVar(&o.b7Observe, "b7-observe", false, "B7 also measures the same fleet with observe on every promise (health read from one record file per destination\n"+
		"on the same bucket), its no-change plan alternating with B7's, in a row of its own")
	flag.IntVar(&o.b9Requests, "b9-requests", 500, "B9's kratix_resource_request count (with -quick 50 unless given)")
	flag.IntVar(&o.b10Dests, "b10-destinations", 0, "destinations per shard of B10's 8 shards on the bucket (default 500; with -quick 25)")
	flag.StringVar(&o.out, "out", "", "also write the table to this file")
	flag.BoolVar(&o.quick, "quick", false, "smoke run: smaller B4, B5, B7, B9 and B10, and 1 run unless -runs is given")
	flag.StringVar(&o.deps, "deps", "", "a file of Promise dependencies for B2 and B3, such as the Kratix Marketplace's tekton.yaml\n(default: the generated 1.9 MB release of package internal/fixtures, the same size and shape)")
	flag.StringVar(&o.terraform, "terraform", "", "Terraform CLI (default: $TF_ACC_TERRAFORM_PATH, $TERRAFORM, PATH, /usr/local/bin/terraform)")
	flag.StringVar(&o.only, "only", "", "run only these scenarios, comma-separated (B1,B2,B3,B4,B5,B7,B8,B9,B10); B7, the fleet (about half an hour), B9, 500 requests (Terraform alone takes minutes per apply), and B10, a fleet of 4,000 destinations over 16 workspaces, run only when named here")
	flag.StringVar(&o.profile, "profile", "", "write CPU profiles of the provider during B4's measured plans and B2's and B3's applies into this folder\n(cpu-<pid>.pprof, one per provider process; the largest of a plan is the plan itself; an apply's in a folder named after its run)")
	flag.DurationVar(&o.timeout, "timeout", 40*time.Minute, "bound on the whole benchmark")
	flag.Parse()
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if o.quick && !given["runs"] {
		o.runs = 1
	}
	if o.quick && !given["b9-requests"] {
		o.b9Requests = quickB9Requests
	}
	o.b9Requests = max(o.b9Requests, 1)
	if o.runs < 1 {
		o.runs = 1
	}
	if o.e2eRuns <= 0 || o.e2eRuns > o.runs {
		o.e2eRuns = o.runs
	}
	o.b7Runs = max(o.b7Runs, 1)
	return o
}

func main() {
	opts := parseFlags()
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(opts options) error {
	// Ctrl-C must still stop the servers and remove their folders, so it only cancels the context.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()

	started := time.Now()
	e, err := startEnv(ctx, opts)
	if err != nil {
		return err
	}
	defer e.stop()

	var rows []row
	for _, s := range scenarios(opts) {
		if !opts.selected(s.id) || (optIn[s.id] && opts.only == "") {
			continue
		}
		logf("%s: %s", s.id, s.title)
		got, err := s.run(ctx, e)
		if err != nil {
			// One broken scenario must not cost the others' results.
			logf("%s failed: %v", s.id, err)
			got = append(got, failedRow(s.id+" "+s.title, err))
		}
		rows = append(rows, got...)
		if ctx.Err() != nil {
			break
		}
	}

	report := renderReport(e.machine, opts, rows, time.Since(started))
	fmt.Print(report)
	if opts.out != "" {
		if err := os.WriteFile(opts.out, []byte(report), 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", opts.out, err)
		}
	}
	return ctx.Err()
}

// scenario is one line (or a few) of the table.
type scenario struct {
	id, title string
	run       func(ctx context.Context, e *env) ([]row, error)
}

// optIn are the scenarios that run only when -only names them: too long for make bench's
// timeout on this machine.
var optIn = map[string]bool{"B7": true, "B9": true, "B10": true}

func scenarios(opts options) []scenario {
	b4, b5, b7, b10 := fullB4, fullB5, fullB7, fullB10
	if opts.quick {
		b4, b5, b7, b10 = quickB4, quickB5, quickB7, quickB10
	}
	if opts.b10Dests > 0 {
		b10.perShard = opts.b10Dests
	}
	if opts.b7Dests != "" {
		b7.destinations = nil
		for _, f := range strings.Split(opts.b7Dests, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
				b7.destinations = append(b7.destinations, n)
			}
		}
	}
	return []scenario{
		{"B1", "scheduling engine", func(ctx context.Context, e *env) ([]row, error) { return benchScheduling(ctx, opts.runs) }},
		{"B2", "1.9 MB of dependencies to 100 destinations on MinIO", func(ctx context.Context, e *env) ([]row, error) { return benchBucket(ctx, e, opts) }},
		{"B3", "1.9 MB of dependencies to 100 destinations on git", func(ctx context.Context, e *env) ([]row, error) { return benchGit(ctx, e, opts) }},
		{"B4", "steady-state plan", func(ctx context.Context, e *env) ([]row, error) { return benchSteadyPlan(ctx, e, opts.runs, b4) }},
		{"B5", "parallel promises to one repository", func(ctx context.Context, e *env) ([]row, error) { return benchParallelGit(ctx, e, opts.e2eRuns, b5) }},
		{"B7", "a fleet of promises x destinations on one bucket", func(ctx context.Context, e *env) ([]row, error) {
			return benchFleet(ctx, e, opts.b7Runs, b7, opts.b7Observe)
		}},
		{"B8", "first write into a repository of 20,000 files of other teams", func(ctx context.Context, e *env) ([]row, error) { return benchLargeRepo(ctx, e, opts.e2eRuns) }},
		{"B9", "resource requests of one promise on one bucket", func(ctx context.Context, e *env) ([]row, error) { return benchRequests(ctx, e, opts) }},
		{"B10", "a fleet sharded over workspaces: the store as the shared registry", func(ctx context.Context, e *env) ([]row, error) {
			return benchShards(ctx, e, opts.runs, b10)
		}},
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
