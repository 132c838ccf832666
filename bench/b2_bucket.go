package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// storeOpTimeout bounds one store-level write: seconds when healthy.
const storeOpTimeout = 2 * time.Minute

// benchBucket is B2: 1.9 MB of dependencies to 100 destinations on MinIO, first through the
// provider's store code against plain minio-go, then end to end through terraform apply.
func benchBucket(ctx context.Context, e *env, opts options) ([]row, error) {
	puts, err := dependencyPuts("pipelines", e.depsCanonical, b2Destinations)
	if err != nil {
		return nil, err
	}
	store, err := benchBucketStore(ctx, e, opts.runs, puts)
	if err != nil {
		return nil, err
	}
	apply, err := benchBucketApply(ctx, e, opts.e2eRuns, puts)
	if err != nil {
		return []row{store}, err
	}
	return append([]row{store}, apply...), nil
}

func benchBucketStore(ctx context.Context, e *env, runs int, puts map[string][]byte) (row, error) {
	// One unmeasured round first: MinIO's first writes after start and the first TCP connections
	// would otherwise land on whichever side runs first.
	if _, _, err := storeApplyRun(ctx, e, "b2-store-warm", puts); err != nil {
		return row{}, err
	}
	if _, err := minioFloorRun(ctx, e, "b2-floor-warm", puts, minio.PutObjectOptions{}); err != nil {
		return row{}, err
	}
	var stats statestore.BucketStats
	measured := &series{run: func(i int) (sample, error) {
		d, s, err := storeApplyRun(ctx, e, fmt.Sprintf("b2-store-%d", i), puts)
		stats = s
		return sample{took: d}, err
	}}
	floor := &series{run: timed(func(i int) (time.Duration, error) {
		return minioFloorRun(ctx, e, fmt.Sprintf("b2-floor-%d", i), puts, minio.PutObjectOptions{})
	})}
	// Not part of the floor: the floor with the provider's upload options, which tells how much
	// of the gap is Content-MD5 and how much the lookups before the PUTs.
	withMD5 := &series{run: timed(func(i int) (time.Duration, error) {
		return minioFloorRun(ctx, e, fmt.Sprintf("b2-md5-%d", i), puts, providerPutOptions)
	})}
	if err := measure(runs, measured, floor, withMD5); err != nil {
		return row{}, err
	}
	r, rs := ratio(measured.median(), floor.median())
	size := len(e.depsCanonical)
	return row{
		scenario: fmt.Sprintf("B2 store: %s (%.1f MiB canonical) to %d destinations, Pool.Bucket(...).Apply, fresh bucket", e.depsName, float64(size)/(1<<20), b2Destinations),
		measured: fmtDuration(measured.median()),
		floor:    fmtDuration(floor.median()) + " (minio-go PutObject, same concurrency)",
		ratio:    rs, goal: "<= 1.1x", met: yesNo(r <= 1.1),
		notes: fmt.Sprintf("%d objects each side, %d in flight; store requests per run: %d PUT, %d HEAD, %d GET, %d LIST; "+
			"minio-go with the store's PutObject options (DisableMultipart, SendContentMd5), no HEADs: %s; runs: store %s / floor %s",
			len(puts), statestore.DefaultBucketConcurrency, stats.Puts, stats.Heads, stats.Gets, stats.Lists, fmtDuration(withMD5.median()), measured.times(), floor.times()),
	}, nil
}

// storeApplyRun writes puts as one Change through a fresh Pool into a fresh bucket.
func storeApplyRun(ctx context.Context, e *env, bucket string, puts map[string][]byte) (time.Duration, statestore.BucketStats, error) {
	if err := e.freshBucket(ctx, bucket); err != nil {
		return 0, statestore.BucketStats{}, err
	}
	defer e.dropBucket(ctx, bucket)
	store, err := statestore.NewPool().Bucket(statestore.BucketConfig{
		Endpoint: e.minio.Endpoint, BucketName: bucket, Insecure: true,
		AccessKeyID: e.minio.AccessKey, SecretAccessKey: e.minio.SecretKey,
	})
	if err != nil {
		return 0, statestore.BucketStats{}, fmt.Errorf("opening bucket %s: %w", bucket, err)
	}
	ctx, cancel := context.WithTimeout(ctx, storeOpTimeout)
	defer cancel()
	start := time.Now()
	res, err := store.Apply(ctx, statestore.Change{Message: "Update from: promise/pipelines", Put: puts})
	took := time.Since(start)
	if err != nil {
		return 0, statestore.BucketStats{}, fmt.Errorf("store Apply to bucket %s: %w", bucket, err)
	}
	if len(res.Written) != len(puts) {
		return 0, statestore.BucketStats{}, fmt.Errorf("store Apply to bucket %s wrote %d files, want %d", bucket, len(res.Written), len(puts))
	}
	var stats statestore.BucketStats
	if sr, ok := store.(statestore.StatsReporter); ok {
		stats = sr.Stats()
	}
	return took, stats, e.expectObjects(ctx, bucket, len(puts))
}

// providerPutOptions are the options the bucket store uploads with (internal/statestore/bucket.go).
var providerPutOptions = minio.PutObjectOptions{ContentType: "application/yaml", DisableMultipart: true, SendContentMd5: true}

// minioFloorRun is the floor: a plain minio-go program uploading the same objects with the same
// number in flight, into a fresh bucket, with put options (none for the floor). It does nothing
// else: no lookups before the uploads.
func minioFloorRun(ctx context.Context, e *env, bucket string, puts map[string][]byte, put minio.PutObjectOptions) (time.Duration, error) {
	return minioFloorRunAt(ctx, e, e.minio.Endpoint, bucket, puts, put)
}

// minioFloorRunAt is minioFloorRun through endpoint (MinIO's own, or a proxy in front of it).
func minioFloorRunAt(ctx context.Context, e *env, endpoint, bucket string, puts map[string][]byte, put minio.PutObjectOptions) (time.Duration, error) {
	if err := e.freshBucket(ctx, bucket); err != nil {
		return 0, err
	}
	defer e.dropBucket(ctx, bucket)
	// A client of its own, as the store gets from its fresh Pool: both open their connections
	// inside the timing.
	client, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(e.minio.AccessKey, e.minio.SecretKey, "")})
	if err != nil {
		return 0, fmt.Errorf("minio client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, max(storeOpTimeout, time.Duration(len(puts))*10*time.Millisecond))
	defer cancel()
	start := time.Now()
	if err := putAll(ctx, client, bucket, puts, statestore.DefaultBucketConcurrency, put); err != nil {
		return 0, err
	}
	took := time.Since(start)
	return took, e.expectObjects(ctx, bucket, len(puts))
}

// putAll uploads every object with at most inFlight requests at a time.
func putAll(ctx context.Context, client *minio.Client, bucket string, puts map[string][]byte, inFlight int, opts minio.PutObjectOptions) error {
	sem := make(chan struct{}, inFlight)
	errs := make(chan error, len(puts))
	var wg sync.WaitGroup
	for key, content := range puts {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := client.PutObject(ctx, bucket, key, bytes.NewReader(content), int64(len(content)), opts); err != nil {
				errs <- fmt.Errorf("floor PutObject %s/%s: %w", bucket, key, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // nil when the channel is empty
}

// expectObjects checks, with an independent client, that a bucket holds exactly n objects.
func (e *env) expectObjects(ctx context.Context, bucket string, n int) error {
	got, err := e.countObjects(ctx, bucket)
	if err != nil {
		return err
	}
	if got != n {
		return fmt.Errorf("bucket %s holds %d objects, want %d", bucket, got, n)
	}
	return nil
}

// benchBucketApply is B2 end to end: terraform apply of the promise to 100 destinations,
// against its physical floor and, with a selector that matches nothing, against its fair floor.
func benchBucketApply(ctx context.Context, e *env, runs int, puts map[string][]byte) ([]row, error) {
	raw := func(name string) (time.Duration, error) {
		return minioFloorRun(ctx, e, name, puts, minio.PutObjectOptions{})
	}
	return benchDepsApply(ctx, e, runs, "b2", func(name string) storeRef { return e.bucketRef(e.minio.Endpoint, name) }, raw,
		fmt.Sprintf("B2 e2e: terraform apply, a promise of %s to %d destinations on MinIO (init_workloads = false)", e.depsName, b2Destinations),
		"minio-go PutObject of the same objects, same concurrency",
		fmt.Sprintf("%d objects checked after each", b2Destinations))
}

// benchDepsApply is B2 or B3 end to end, each run in a fresh bucket or repository named after
// prefix. Its first row is the full apply against the physical floor: the fair floor (Terraform
// carrying the same values) plus the raw store floor (rawStore: the same bytes written by the
// store's own client), each measured in every run. Its second row is the same apply with a
// selector matching nothing, against the fair floor alone: what the provider adds when it writes
// nothing.
func benchDepsApply(ctx context.Context, e *env, runs int, prefix string, store func(name string) storeRef,
	rawStore func(name string) (time.Duration, error), scenario, rawName, checked string) ([]row, error) {
	full := &series{run: command(func(i int) (tfResult, error) {
		name := fmt.Sprintf("%s-tf-%d", prefix, i)
		return depsApply(ctx, e, name, store(name), "")
	})}
	fair := &series{run: timed(func(i int) (time.Duration, error) {
		name := fmt.Sprintf("%s-tf-fair-%d", prefix, i)
		return e.fairFloorApply(ctx, name, depsConfig(store(name), ""), map[string][]byte{"dependencies.yaml": e.depsRaw})
	})}
	raw := &series{run: timed(func(i int) (time.Duration, error) { return rawStore(fmt.Sprintf("%s-raw-%d", prefix, i)) })}
	empty := &series{run: command(func(i int) (tfResult, error) {
		name := fmt.Sprintf("%s-tf-none-%d", prefix, i)
		return depsApply(ctx, e, name, store(name), nothingMatches)
	})}
	noop := &series{run: timed(func(i int) (time.Duration, error) {
		return noopApply(ctx, e, fmt.Sprintf("%s-tf-noop-%d", prefix, i), store)
	})}
	if err := measure(runs, full, fair, raw, empty, noop); err != nil {
		return nil, err
	}
	physical := fair.median() + raw.median()
	r, rs := ratio(full.median(), physical)
	r2, rs2 := ratio(empty.median(), fair.median())
	cfg := depsConfig(store(prefix), "")
	fairText := fmt.Sprintf("%s (fair: apply of %d terraform_data carrying the same values)", fmtDuration(fair.median()), cfg.resources())
	noopText := fmt.Sprintf("%s (protocol: the same apply with bench/noop, a provider of the same schemas that does nothing)", fmtDuration(noop.median()))
	return []row{{
		scenario: scenario,
		measured: fmtDuration(full.median()),
		floor:    fmt.Sprintf("%s (physical: fair %s + raw store %s)", fmtDuration(physical), fmtDuration(fair.median()), fmtDuration(raw.median())),
		ratio:    rs,
		floor2:   fairText, ratio2: ratioText(full.median(), fair.median()),
		goal: "<= 1.3x physical floor", met: yesNo(r > 0 && r <= 1.3),
		notes: fmt.Sprintf("%d runs; %s; raw store: %s; provider peak RSS %.0f MiB; protocol floor plus raw store %s, ratio %s; runs: %s / fair %s / raw store %s",
			runs, checked, rawName, full.peakMiB(), fmtDuration(noop.median()+raw.median()), ratioText(full.median(), noop.median()+raw.median()), full.times(), fair.times(), raw.times()),
	}, {
		scenario: scenario + ", selector matching nothing",
		measured: fmtDuration(empty.median()),
		floor:    fairText,
		ratio:    rs2,
		floor2:   noopText, ratio2: ratioText(empty.median(), noop.median()),
		goal: "<= 1.3x fair floor", met: yesNo(r2 > 0 && r2 <= 1.3),
		notes: fmt.Sprintf("%d runs; nothing written (checked); provider peak RSS %.0f MiB; the protocol floor is %s the fair floor; runs: %s / fair %s / protocol %s",
			runs, empty.peakMiB(), ratioText(noop.median(), fair.median()), empty.times(), fair.times(), noop.times()),
	}}, nil
}

// noopApply is the apply with nothing scheduled, in a fresh workspace, with bench/noop in place of
// the provider: what Terraform and the plugin protocol take for these schemas. The store is never
// reached, so it is neither made nor checked.
func noopApply(ctx context.Context, e *env, name string, store func(name string) storeRef) (time.Duration, error) {
	cfg := depsConfig(store(name), nothingMatches)
	ws, err := e.newWorkspace(name, map[string][]byte{"main.tf": []byte(cfg.String()), "dependencies.yaml": e.depsRaw})
	if err != nil {
		return 0, err
	}
	defer ws.remove()
	ws.cliConfig = e.noopConfig
	res, err := ws.apply(ctx, false)
	return res.took, err
}

// depsConfig is the configuration of B2 and B3: one promise whose dependencies are the file
// dependencies.yaml, to b2Destinations destinations of store.
func depsConfig(store storeRef, selector string) kratixConfig {
	return kratixConfig{store: store, destinations: b2Destinations,
		promises: []promiseSpec{{name: "pipelines", dependencies: `file("${path.module}/dependencies.yaml")`, selector: selector}}}
}

// depsApply applies the promise to 100 destinations of a fresh store in a fresh
// workspace and checks what it wrote. name is the bucket (or repository) to create and remove.
func depsApply(ctx context.Context, e *env, name string, store storeRef, selector string) (tfResult, error) {
	cleanup, err := e.freshStore(ctx, name, store)
	if err != nil {
		return tfResult{}, err
	}
	defer cleanup()
	cfg := depsConfig(store, selector)
	ws, err := e.newWorkspace(name, map[string][]byte{"main.tf": []byte(cfg.String()), "dependencies.yaml": e.depsRaw})
	if err != nil {
		return tfResult{}, err
	}
	defer ws.remove()
	if e.profileDir != "" {
		if err := ws.profileInto(filepath.Join(e.profileDir, name)); err != nil {
			return tfResult{}, err
		}
	}
	res, err := ws.apply(ctx, true)
	if err != nil {
		return res, err
	}
	want := b2Destinations
	if selector != "" {
		want = 0
	}
	return res, e.expectWritten(ctx, name, store, want)
}

// freshStore creates the bucket or repository of a run and returns what removes it.
func (e *env) freshStore(ctx context.Context, name string, store storeRef) (func(), error) {
	if store.url != "" {
		if err := e.git.CreateRepo(name, "main"); err != nil {
			return nil, fmt.Errorf("creating repository %s: %w", name, err)
		}
		return func() {}, nil // the git server's Stop removes every repository
	}
	if err := e.freshBucket(ctx, name); err != nil {
		return nil, err
	}
	return func() { e.dropBucket(ctx, name) }, nil
}

// expectWritten checks, with an independent client, that a run wrote n dependency files; for
// git also that it made one commit (none when nothing was written) on the seed commit.
func (e *env) expectWritten(ctx context.Context, name string, store storeRef, n int) error {
	if store.url == "" {
		return e.expectObjects(ctx, name, n)
	}
	files, err := e.git.ListFiles(name, "main")
	if err != nil {
		return err
	}
	if len(files) != n+1 { // and the seed README.md
		return fmt.Errorf("repository %s holds %d files, want %d and README.md", name, len(files), n)
	}
	wantCommits := 1
	if n > 0 {
		wantCommits = 2
	}
	return e.expectCommits(name, wantCommits)
}

func (e *env) expectCommits(repo string, want int) error {
	got, err := e.git.CommitCount(repo, "main")
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("repository %s has %d commits, want %d", repo, got, want)
	}
	return nil
}
