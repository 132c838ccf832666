package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// quickB9Requests is B9's request count with -quick.
const quickB9Requests = 50

// b9CommandTimeout bounds each terraform command of B9 instead of tfTimeout: on this shared
// two-core machine an apply of 100 requests took minutes, and 500 take several times that.
const b9CommandTimeout = time.Hour

// b9Destinations is how many destinations B9's promise is scheduled to.
const b9Destinations = 100

// b9Config is B9's configuration: one promise of one small Namespace to every destination of
// store, and requests requests of it, each a small ConfigMap of its own.
func b9Config(store storeRef, requests int) kratixConfig {
	return kratixConfig{store: store, destinations: b9Destinations,
		promises: []promiseSpec{{name: "p", dependencies: oneNamespace}},
		requests: []requestSpec{{name: "r", count: requests, promise: "p", documents: smallConfigMap}}}
}

// benchRequests is B9: a promise to 100 destinations and requests of it on one bucket, applied
// into a fresh bucket against its physical floor, then planned with nothing changed against its
// fair floor's plan.
func benchRequests(ctx context.Context, e *env, opts options) ([]row, error) {
	create, err := benchRequestsCreate(ctx, e, opts.e2eRuns, opts.b9Requests)
	if err != nil {
		return nil, err
	}
	plan, err := benchRequestsPlan(ctx, e, opts.runs, opts.b9Requests)
	if err != nil {
		return []row{create}, err
	}
	return []row{create, plan}, nil
}

// benchRequestsCreate is B9's first row. Each run applies the configuration into a fresh bucket,
// the fair floor in a fresh workspace, and the raw store floor: the objects the first run's apply
// wrote (keys and bytes, read back with plain minio-go), uploaded into a fresh bucket with the
// bucket writer's concurrency. The apply goes first in run 0, so the raw floor always has them.
func benchRequestsCreate(ctx context.Context, e *env, runs, requests int) (row, error) {
	var puts map[string][]byte // what the first apply wrote
	full := &series{run: func(i int) (sample, error) {
		name := fmt.Sprintf("b9-tf-%d", i)
		res, wrote, err := requestsApply(ctx, e, name, requests)
		got := sample{took: res.took, peakMiB: res.peakMiB}
		if err != nil {
			return got, err
		}
		if puts == nil {
			puts = wrote
		} else if k, want := slices.Sorted(maps.Keys(wrote)), slices.Sorted(maps.Keys(puts)); !slices.Equal(k, want) {
			return got, fmt.Errorf("bucket %s: run %d wrote other keys than run 0 (the same configuration must schedule the same way)", name, i)
		}
		return got, nil
	}}
	fair := &series{run: timed(func(i int) (time.Duration, error) {
		name := fmt.Sprintf("b9-tf-fair-%d", i)
		return b9FairApply(ctx, e, name, b9Config(e.bucketRef(e.minio.Endpoint, name), requests))
	})}
	raw := &series{run: timed(func(i int) (time.Duration, error) {
		return minioFloorRun(ctx, e, fmt.Sprintf("b9-raw-%d", i), puts, minio.PutObjectOptions{})
	})}
	if err := measure(runs, full, fair, raw); err != nil {
		return row{}, err
	}
	physical := fair.median() + raw.median()
	r, rs := ratio(full.median(), physical)
	cfg := b9Config(e.bucketRef(e.minio.Endpoint, "b9"), requests)
	return row{
		scenario: fmt.Sprintf("B9 create: terraform apply, 1 promise x %d destinations and %d kratix_resource_request on MinIO, fresh bucket", b9Destinations, requests),
		measured: fmtDuration(full.median()),
		floor:    fmt.Sprintf("%s (physical: fair %s + raw store %s)", fmtDuration(physical), fmtDuration(fair.median()), fmtDuration(raw.median())),
		ratio:    rs,
		floor2:   fmt.Sprintf("%s (fair: apply of %d terraform_data carrying the same values)", fmtDuration(fair.median()), cfg.resources()),
		ratio2:   ratioText(full.median(), fair.median()),
		goal:     "<= 1.3x physical floor", met: yesNo(r > 0 && r <= 1.3),
		notes: fmt.Sprintf("%d runs; %d objects checked after each (one dependencies file per destination, one file per request, "+
			"every request on exactly one destination, the same keys every run); raw store: minio-go PutObject of the same %d keys and bytes, "+
			"%d in flight; provider peak RSS %.0f MiB; runs: %s / fair %s / raw store %s",
			runs, b9Destinations+requests, len(puts), statestore.DefaultBucketConcurrency, full.peakMiB(), full.times(), fair.times(), raw.times()),
	}, nil
}

// b9FairApply applies cfg's fair floor in a fresh workspace, with B9's command timeout, and
// returns how long the apply took.
func b9FairApply(ctx context.Context, e *env, name string, cfg kratixConfig) (time.Duration, error) {
	ws, err := e.fairFloorWorkspace(name, cfg, nil)
	if err != nil {
		return 0, err
	}
	defer ws.remove()
	ws.timeout = b9CommandTimeout
	res, err := ws.apply(ctx, false)
	if err != nil {
		return 0, fmt.Errorf("applying the fair floor: %w", err)
	}
	return res.took, nil
}

// requestsApply applies B9's configuration into a fresh bucket in a fresh workspace, checks what
// it wrote and returns it, keys and bytes.
func requestsApply(ctx context.Context, e *env, bucket string, requests int) (tfResult, map[string][]byte, error) {
	if err := e.freshBucket(ctx, bucket); err != nil {
		return tfResult{}, nil, err
	}
	defer e.dropBucket(ctx, bucket)
	cfg := b9Config(e.bucketRef(e.minio.Endpoint, bucket), requests)
	ws, err := e.newWorkspace(bucket, map[string][]byte{"main.tf": []byte(cfg.String())})
	if err != nil {
		return tfResult{}, nil, err
	}
	defer ws.remove()
	ws.timeout = b9CommandTimeout
	res, err := ws.apply(ctx, true)
	if err != nil {
		return res, nil, err
	}
	wrote, err := e.readB9Objects(ctx, bucket, requests)
	return res, wrote, err
}

// b9Request matches where a request's documents land in the nestedByMetadata layout:
// <destination>/resources/<namespace>/<promise>/<name>/<pipeline>/<group>/<name>.yaml.
var b9Request = regexp.MustCompile(`^(dest-\d{3})/resources/default/p/r-(\d+)/instance-configure/5058f/r-(\d+)\.yaml$`)

// readB9Objects reads a B9 bucket back with plain minio-go and checks it holds what the layout
// says, worked out here rather than taken from the provider: the promise's dependencies file in
// every destination (dest-NNN/dependencies/p/5058f/static/p-dependencies.yaml, no canaries as
// init_workloads is false) and each request's one file in exactly one destination.
func (e *env) readB9Objects(ctx context.Context, bucket string, requests int) (map[string][]byte, error) {
	got := map[string][]byte{}
	for o := range e.client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("listing bucket %s: %w", bucket, o.Err)
		}
		got[o.Key] = nil
	}
	if want := b9Destinations + requests; len(got) != want {
		return nil, fmt.Errorf("bucket %s holds %d objects, want %d (%d dependencies files and %d requests)", bucket, len(got), want, b9Destinations, requests)
	}
	for i := range b9Destinations {
		key := destinationName(i) + "/dependencies/p/5058f/static/p-dependencies.yaml"
		if _, ok := got[key]; !ok {
			return nil, fmt.Errorf("bucket %s has no %s", bucket, key)
		}
	}
	placed := map[int]bool{}
	for key := range got {
		if strings.Contains(key, "/dependencies/") {
			continue
		}
		m := b9Request.FindStringSubmatch(key)
		if m == nil || m[2] != m[3] {
			return nil, fmt.Errorf("bucket %s holds %s, which is neither a dependencies file nor a request's", bucket, key)
		}
		n, _ := strconv.Atoi(m[2])
		dest, _ := strconv.Atoi(strings.TrimPrefix(m[1], "dest-"))
		if n >= requests || dest >= b9Destinations || placed[n] {
			return nil, fmt.Errorf("bucket %s holds %s: request r-%d out of range, twice, or on an unknown destination", bucket, key, n)
		}
		placed[n] = true
	}
	for key := range got {
		body, err := e.readObject(ctx, bucket, key)
		if err != nil {
			return nil, err
		}
		got[key] = body
	}
	return got, nil
}

func (e *env) readObject(ctx context.Context, bucket, key string) ([]byte, error) {
	obj, err := e.client.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading %s/%s: %w", bucket, key, err)
	}
	defer func() { _ = obj.Close() }()
	body, err := io.ReadAll(obj)
	if err != nil {
		return nil, fmt.Errorf("reading %s/%s: %w", bucket, key, err)
	}
	return body, nil
}

// benchRequestsPlan is B9's second row: with everything applied through the counting proxy and
// nothing changed, terraform plan must find nothing to do; it is set against the plan of the fair
// floor's state. One more plan, unmeasured, writes CPU profiles of the provider for the notes.
func benchRequestsPlan(ctx context.Context, e *env, runs, requests int) (row, error) {
	proxy, err := startCountingProxy(e.minio.Endpoint)
	if err != nil {
		return row{}, err
	}
	defer proxy.stop()
	const bucket = "b9-steady"
	if err := e.freshBucket(ctx, bucket); err != nil {
		return row{}, err
	}
	defer e.dropBucket(ctx, bucket)
	cfg := b9Config(e.bucketRef(proxy.Endpoint, bucket), requests)
	kratix, err := e.newWorkspace("b9-kratix", map[string][]byte{"main.tf": []byte(cfg.String())})
	if err != nil {
		return row{}, err
	}
	defer kratix.remove()
	kratix.timeout = b9CommandTimeout
	proxy.reset()
	setup, err := kratix.apply(ctx, false)
	if err != nil {
		return row{}, fmt.Errorf("applying B9's configuration: %w", err)
	}
	setupCounts := proxy.reset()
	if _, err := e.readB9Objects(ctx, bucket, requests); err != nil {
		return row{}, err
	}
	fair, err := e.fairFloorWorkspace("b9-fair", cfg, nil)
	if err != nil {
		return row{}, err
	}
	defer fair.remove()
	fair.timeout = b9CommandTimeout
	if _, err := fair.apply(ctx, false); err != nil {
		return row{}, fmt.Errorf("applying the fair floor: %w", err)
	}

	measured := &series{run: counted(proxy, emptyPlans(ctx, kratix))}
	fairPlans := &series{run: emptyPlans(ctx, fair)}
	if err := measure(runs, measured, fairPlans); err != nil {
		return row{}, err
	}
	r, rs := ratio(measured.median(), fairPlans.median())
	return row{
		scenario: fmt.Sprintf("B9 no-change plan: terraform plan -detailed-exitcode, 1 promise x %d destinations and %d requests applied (bucket, via counting proxy)", b9Destinations, requests),
		measured: fmtDuration(measured.median()),
		floor:    fmt.Sprintf("%s (fair: plan of %d terraform_data carrying the same values)", fmtDuration(fairPlans.median()), cfg.resources()),
		ratio:    rs,
		goal:     "<= 1.3x fair floor", met: yesNo(r > 0 && r <= 1.3),
		notes: fmt.Sprintf("%d runs; exit 0 (no changes) every run; S3 requests per plan (max over runs): %s; set-up apply: %s (%s); %s; runs: %s / fair %s",
			runs, measured.counts(), fmtDuration(setup.took), setupCounts, cpuSplit(ctx, e, kratix), measured.times(), fairPlans.times()),
	}, nil
}

// Packages whose share of the provider's CPU samples the notes give.
const (
	frameworkPackage = "github.com/hashicorp/terraform-plugin-framework"
	providerPackage  = "github.com/promise-platform"
)

// cpuSplit runs one more plan in ws, unmeasured, with the provider writing CPU profiles, and
// splits the samples (of every provider process of that plan, merged) by what is on their stack:
// this provider's code and no terraform-plugin-framework frame, both (mostly the framework
// converting values for our code, or our code called by it), the framework alone, and neither
// (gRPC, the runtime, GC). Any failure is said in the text, not returned.
func cpuSplit(ctx context.Context, e *env, ws *workspace) string {
	dir, err := os.MkdirTemp(e.dir, "b9-profile-")
	if err != nil {
		return "CPU split: " + err.Error()
	}
	profiled := *ws
	profiled.env = append(slices.Clone(ws.env), profileDirEnv+"="+dir)
	if _, err := emptyPlan(ctx, &profiled); err != nil {
		return "CPU split: the profiled plan failed: " + err.Error()
	}
	profiles, _ := filepath.Glob(filepath.Join(dir, "cpu-*.pprof"))
	if len(profiles) == 0 {
		return "CPU split: the provider wrote no profile"
	}
	ours, fw := regexp.QuoteMeta(providerPackage), regexp.QuoteMeta(frameworkPackage)
	var total, oursAll, oursOnly, fwOnly float64
	for _, q := range []struct {
		into    *float64
		filters []string
	}{
		{&total, nil},
		{&oursAll, []string{"-focus=" + ours}},
		{&oursOnly, []string{"-focus=" + ours, "-ignore=" + fw}},
		{&fwOnly, []string{"-focus=" + fw, "-ignore=" + ours}},
	} {
		if *q.into, err = pprofTotal(ctx, e, profiles, q.filters...); err != nil {
			return "CPU split: " + err.Error()
		}
	}
	if total <= 0 {
		return "CPU split: no samples"
	}
	pc := func(v float64) float64 { return 100 * v / total }
	return fmt.Sprintf("provider CPU in one extra plan (%d processes, %s of samples merged), by what is on the stack: "+
		"%s without %s %.0f%%, both %.0f%%, %s alone %.0f%%, neither (gRPC, runtime, GC) %.0f%%",
		len(profiles), time.Duration(total*float64(time.Millisecond)), providerPackage, frameworkPackage, pc(oursOnly),
		pc(oursAll-oursOnly), frameworkPackage, pc(fwOnly), pc(total-oursAll-fwOnly))
}

// pprofShowing is go tool pprof's summary line with -unit=ms: "Showing nodes accounting for
// 1230ms, 45.6% of 2700ms total", or "for 0, 0% of" when the filters keep nothing.
var pprofShowing = regexp.MustCompile(`Showing nodes accounting for ([0-9.]+)(?:ms)?, [0-9.]+% of [0-9.]+ms total`)

// pprofTotal is how many milliseconds of samples the profiles hold after the filters: every node
// shown, so the nodes shown account for every sample kept.
func pprofTotal(ctx context.Context, e *env, profiles []string, filters ...string) (float64, error) {
	args := append([]string{"tool", "pprof", "-top", "-unit=ms", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0"}, filters...)
	args = append(append(args, e.providerBin), profiles...)
	cmd := exec.CommandContext(ctx, "go", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("go tool pprof: %w: %s", err, tail(out.String()))
	}
	m := pprofShowing.FindStringSubmatch(out.String())
	if m == nil {
		if strings.Contains(out.String(), "matched no samples") {
			return 0, nil // the filter kept nothing
		}
		return 0, fmt.Errorf("go tool pprof: no summary line in its output: %s", tail(out.String()))
	}
	return strconv.ParseFloat(m[1], 64)
}
