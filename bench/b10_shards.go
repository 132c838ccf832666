package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// shardSize is the B10 configuration: a fleet registered by shards fleet workspaces of perShard
// destinations each, and one promise workspace per shard publishing promises over the
// destinations of its shard, found with data.kratix_destinations. gitPerShard is the smaller
// shard of the same fleet on one git repository (scenario c).
type shardSize struct{ shards, perShard, promises, gitPerShard int }

var (
	fullB10  = shardSize{shards: 8, perShard: 500, promises: 5, gitPerShard: 25}
	quickB10 = shardSize{shards: 8, perShard: 25, promises: 5, gitPerShard: 5}
)

// B10's goals (issue 39, point 5).
const (
	shardFlatRatio    = 1.2 // the shard's plan with 8 shards registered over the same with 1
	shardLiteralRatio = 1.3 // the shard's plan over the same workspace written with a literal pool
)

// shardName is the shard label's value and the fleet workspace's owner suffix: s0, s1, ...
func shardName(k int) string { return fmt.Sprintf("s%d", k) }

// shardDestination is destination i of shard k: s3-d007.
func shardDestination(k, i int) string { return fmt.Sprintf("s%d-d%03d", k, i) }

// fleetOwner and platformOwner are the owners (KRATIX_OWNER) of shard k's two workspaces.
func fleetOwner(k int) string    { return "fleet-" + shardName(k) }
func platformOwner(k int) string { return "platform-" + shardName(k) }

// shardFleetConfig is fleet workspace k: perShard destinations labelled with their shard.
func shardFleetConfig(store storeRef, k, perShard int) string {
	return kratixConfig{store: store}.header() + fmt.Sprintf(`
resource "kratix_destination" "d" {
  count          = %d
  name           = format("%s-d%%03d", count.index)
  path           = format("%s-d%%03d", count.index)
  labels         = { env = "bench", shard = %q }
  init_workloads = true
  state_store    = kratix_state_store.s
}
`, perShard, shardName(k), shardName(k), shardName(k))
}

// shardPromiseConfig is promise workspace k: promises over pool, an HCL expression; with pool ""
// the destinations of shard k that data.kratix_destinations finds in the store's registry.
func shardPromiseConfig(store storeRef, k, promises int, pool string) string {
	var b strings.Builder
	b.WriteString(kratixConfig{store: store}.header())
	if pool == "" {
		fmt.Fprintf(&b, `
data "kratix_destinations" "fleet" {
  state_stores          = [kratix_state_store.s]
  destination_selectors = [{ match_labels = { shard = %q } }]
}
`, shardName(k))
		pool = "data.kratix_destinations.fleet.destinations"
	}
	fmt.Fprintf(&b, `
resource "kratix_promise" "p" {
  count        = %d
  name         = "p-${count.index}"
  dependencies = %s
  destinations = %s
}
`, promises, smallNamespace, pool)
	return b.String()
}

// registryReaderConfig reads the whole registry of the store: every destination, no selector.
func registryReaderConfig(store storeRef) string {
	return kratixConfig{store: store}.header() + `
data "kratix_destinations" "all" {
  state_stores = [kratix_state_store.s]
}

output "registered" {
  value = length(data.kratix_destinations.all.destinations)
}
`
}

// header is the terraform block, the provider and the store of a configuration.
func (c kratixConfig) header() string {
	return `terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

` + c.providerAndStore()
}

// shardFleet is one store holding a sharded fleet: shards fleet workspaces and as many promise
// workspaces, index k for shard k.
type shardFleet struct {
	name             string // the bucket or repository
	store            storeRef
	shards, perShard int
	promises         int
	fleet, platform  []*workspace
	// rounds are the concurrent applies of every workspace that set the fleet up, each how long
	// it took from the first start to the last exit.
	rounds []time.Duration
	// failures are the concurrent applies that failed, each with its round, owner and error.
	failures []string
	// unsettled are the workspaces whose apply of the last round failed.
	unsettled []*workspace
	check     shardCheck
}

func (f *shardFleet) remove() {
	for _, ws := range append(append([]*workspace{}, f.fleet...), f.platform...) {
		ws.remove()
	}
}

// newShardFleet creates the workspaces of a fleet of shards shards on store (not applied).
func (e *env) newShardFleet(name string, store storeRef, shards, perShard, promises int, timeout time.Duration) (*shardFleet, error) {
	f := &shardFleet{name: name, store: store, shards: shards, perShard: perShard, promises: promises}
	for k := range shards {
		fw, err := e.newWorkspace(name+"-"+fleetOwner(k), map[string][]byte{"main.tf": []byte(shardFleetConfig(store, k, perShard))})
		if err != nil {
			f.remove()
			return nil, err
		}
		fw.env = append(fw.env, "KRATIX_OWNER="+fleetOwner(k))
		fw.timeout = timeout
		f.fleet = append(f.fleet, fw)
		pw, err := e.newWorkspace(name+"-"+platformOwner(k), map[string][]byte{"main.tf": []byte(shardPromiseConfig(store, k, promises, ""))})
		if err != nil {
			f.remove()
			return nil, err
		}
		pw.env = append(pw.env, "KRATIX_OWNER="+platformOwner(k))
		pw.timeout = timeout
		f.platform = append(f.platform, pw)
	}
	return f, nil
}

// applyConcurrently applies every fleet and promise workspace at once, twice: in the first
// round a promise workspace's plan sees the part of its shard registered so far (the fleet
// workspaces register at the same time), in the second the whole shard. Each round's failed
// applies are kept (failures), not retried: they are what (c) counts.
func (f *shardFleet) applyConcurrently(ctx context.Context) {
	all := append(append([]*workspace{}, f.fleet...), f.platform...)
	for round := 1; round <= 2; round++ {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make([]error, len(all))
		for i, ws := range all {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = ws.apply(ctx, false)
			}()
		}
		wg.Wait()
		f.rounds = append(f.rounds, time.Since(start))
		n := 0
		for i, err := range errs {
			if err != nil {
				n++
				f.failures = append(f.failures, fmt.Sprintf("round %d, %s: %s", round, ownerOf(all[i]), applyError(err)))
				logf("B10: %s: %s", f.name, f.failures[len(f.failures)-1])
				if round == 2 {
					f.unsettled = append(f.unsettled, all[i])
				}
			}
		}
		logf("B10: %s: round %d of %d concurrent applies took %s, %d failed", f.name, round, len(all), fmtDuration(time.Since(start)), n)
	}
}

// settle applies again, one at a time, every workspace whose apply failed in the last round, so
// that the fleet is whole for (a) and (b); an apply that fails alone too is an error.
func (f *shardFleet) settle(ctx context.Context) error {
	if len(f.unsettled) == 0 {
		return nil
	}
	for _, ws := range f.unsettled {
		if _, err := ws.apply(ctx, false); err != nil {
			return fmt.Errorf("%s: applying %s alone after the concurrent rounds: %w", f.name, ownerOf(ws), err)
		}
	}
	logf("B10: %s: the %d workspace(s) whose apply failed in the last round applied again, one at a time", f.name, len(f.unsettled))
	return nil
}

// applyError is the first error diagnostic of a failed apply, on one line: its summary and the
// cause the provider gave.
func applyError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "Error: "); i >= 0 {
		msg = msg[i:]
	}
	msg = strings.ReplaceAll(strings.Join(strings.Fields(msg), " "), "|", "/")
	if i := strings.Index(msg, "Retry the operation"); i > 0 {
		msg = msg[:i]
	}
	// The detail lists every destination of the write; the summary and the cause say what failed.
	head, cause, found := strings.Cut(msg, "Cause: ")
	if len(head) > 300 {
		head = head[:300] + "... "
	}
	if found {
		head += "Cause: " + cause
	}
	if len(head) > 800 {
		head = head[:800] + "..."
	}
	return strings.TrimSpace(head)
}

// benchShards is B10: a fleet sharded over workspaces on one bucket, each shard registered by a
// fleet workspace and served by a promise workspace that finds its destinations in the store's
// registry (data.kratix_destinations with a selector on the shard label), the owners told apart
// by KRATIX_OWNER.
//
// (c) comes first, as the fleet's set-up: the fleet and promise workspaces of 8 shards apply all
// at once (two rounds, see applyConcurrently) on one bucket and, smaller, on one repository, and
// the store is read back with plain minio-go or the git CLI and compared with what each
// workspace should have written (shardCheck). A fleet of 1 shard is set up the same way on a
// bucket of its own.
//
// (a) Shard 0's promise workspace then plans with no change (terraform plan -detailed-exitcode,
// exit 0) on both buckets, alternating with the same workspace written with a literal pool (its
// state copied, the pool written out as the data source gave it), on the 8-shard bucket.
//
// (b) A workspace reading the whole registry (data.kratix_destinations without selector) plans on
// both buckets, alternating with minio-go listing the registry's destinations and reading each
// record; the S3 requests are counted through the proxy, and on git the upload-pack requests.
func benchShards(ctx context.Context, e *env, runs int, size shardSize) ([]row, error) {
	proxy, err := startCountingProxy(e.minio.Endpoint)
	if err != nil {
		return nil, err
	}
	defer proxy.stop()
	timeout := tfTimeout
	if size.perShard > 100 {
		timeout = fleetTimeout
	}

	var rows []row
	// (c): the 8 shards on one bucket (the set-up of a), then on one repository.
	eight, row8, err := shardSetUp(ctx, e, proxy, "b10-eight", size.shards, size.perShard, size.promises, timeout, false)
	rows = append(rows, row8)
	if eight != nil {
		defer eight.remove()
		defer e.dropBucket(ctx, eight.name)
	}
	if err != nil {
		return rows, err
	}
	git, rowGit, errGit := shardSetUp(ctx, e, proxy, "b10-git", size.shards, size.gitPerShard, size.promises, timeout, true)
	rows = append(rows, rowGit)
	if git != nil {
		defer git.remove()
	}
	// The fleet of one shard, the floor of a's flatness.
	one, _, err := shardSetUp(ctx, e, proxy, "b10-one", 1, size.perShard, size.promises, timeout, false)
	if one != nil {
		defer one.remove()
		defer e.dropBucket(ctx, one.name)
	}
	if err != nil {
		return rows, err
	}

	planRows, err := shardPlans(ctx, e, proxy, runs, eight, one)
	rows = append(rows, planRows...)
	if err != nil {
		return rows, err
	}
	regRows, err := registryReads(ctx, e, proxy, runs, eight, one, git)
	rows = append(rows, regRows...)
	if err == nil {
		err = errGit
	}
	return rows, err
}

// shardSetUp creates a fleet of shards shards in a fresh bucket (or repository), applies it
// concurrently and checks what the store holds. Its row is scenario (c) for that store.
func shardSetUp(ctx context.Context, e *env, proxy *countingProxy, name string, shards, perShard, promises int, timeout time.Duration, onGit bool) (*shardFleet, row, error) {
	kind := "one bucket"
	store := e.bucketRef(proxy.Endpoint, name)
	if onGit {
		kind = "one git repository (smart HTTP)"
		store = e.gitRef(name)
		if err := e.git.CreateRepo(name, "main"); err != nil {
			err = fmt.Errorf("creating repository %s: %w", name, err)
			return nil, failedRow("B10 (c) "+name, err), err
		}
	} else if err := e.freshBucket(ctx, name); err != nil {
		return nil, failedRow("B10 (c) "+name, err), err
	}
	scenario := fmt.Sprintf("B10 (c) concurrent applies: %d fleet workspaces (%d destinations each, init_workloads = true) and %d promise workspaces (%d promises over their shard via data.kratix_destinations), all at once, on %s",
		shards, perShard, shards, promises, kind)
	f, err := e.newShardFleet(name, store, shards, perShard, promises, timeout)
	if err != nil {
		return nil, failedRow(scenario, err), err
	}
	logf("B10: %s: %d fleet and %d promise workspaces apply concurrently (%d destinations each)", name, shards, shards, perShard)
	proxy.reset()
	f.applyConcurrently(ctx)
	counts := proxy.reset()
	if err := f.settle(ctx); err != nil {
		return f, failedRow(scenario, err), err
	}
	var files map[string][]byte
	if onGit {
		files, err = e.gitFiles(ctx, name)
		delete(files, "README.md") // the repository's seed
	} else {
		files, err = e.bucketFiles(ctx, name)
	}
	if err != nil {
		return f, failedRow(scenario, err), err
	}
	var checkErr error
	f.check, checkErr = checkShardStore(files, shards, perShard, promises)
	logf("B10: %s: %s", name, f.check)
	requests := counts.String()
	if onGit {
		requests = "not counted on git"
	}
	reader := map[bool]string{false: "minio-go", true: "the git CLI (clone)"}[onGit]
	afterwards := "read back after the two rounds"
	if len(f.failures) > 0 {
		afterwards = "read back after the failed workspaces applied again, one at a time"
	}
	r := row{
		scenario: scenario,
		measured: fmt.Sprintf("%d failed applies of %d; %s + %s (two rounds)", len(f.failures), 4*shards, fmtDuration(f.rounds[0]), fmtDuration(f.rounds[1])),
		floor:    "-", ratio: "-",
		goal: "0 failures, 0 records lost, 0 files taken over (store read back with an independent client)",
		met:  yesNo(len(f.failures) == 0 && checkErr == nil),
		notes: fmt.Sprintf("%d workspaces (%d states) at once, twice: round 1 from an empty store (a promise workspace plans over the part of its shard registered so far), "+
			"round 2 the same workspaces again (the promise workspaces now see their whole shard); %s with %s: %s; S3 requests of both rounds: %s",
			2*shards, 2*shards, afterwards, reader, f.check, requests),
	}
	if len(f.failures) > 0 {
		r.notes += "; failed: " + strings.Join(f.failures, " / ")
	}
	if checkErr != nil {
		r.notes += "; " + checkErr.Error()
	}
	return f, r, checkErr
}

// shardPlans is (a): shard 0's no-change plan with 8 shards and with 1 registered, and with a
// literal pool, alternating.
func shardPlans(ctx context.Context, e *env, proxy *countingProxy, runs int, eight, one *shardFleet) ([]row, error) {
	literal, err := literalPoolWorkspace(e, eight.platform[0], eight.store)
	if err != nil {
		return nil, err
	}
	defer literal.remove()
	// A first plan of each, not measured: each must be empty already, and the literal one fills
	// its manifest cache as the others did in their applies.
	for _, ws := range []*workspace{eight.platform[0], one.platform[0], literal} {
		if _, err := emptyPlan(ctx, ws); err != nil {
			return nil, err
		}
	}
	planSeries := func(label string, ws *workspace) *series {
		return &series{run: counted(proxy, watched(e, ws.dir, emptyPlans(ctx, ws))), log: func(s sample) {
			logf("B10: %s plan %s (%s; listing %s; CPU: provider %s, terraform %s)", label, fmtDuration(s.took), s.counts, s.counts.listedText(),
				fmtDuration(s.use.providerCPU), fmtDuration(s.use.terraformCPU))
		}}
	}
	p8 := planSeries("8 shards", eight.platform[0])
	p1 := planSeries("1 shard", one.platform[0])
	lit := planSeries("literal pool, 8 shards", literal)
	err = measure(runs, p8, p1, lit)
	r1, rs1 := ratio(p8.median(), p1.median())
	r2, rs2 := ratio(p8.median(), lit.median())
	cpu := func(s *series) string {
		return fmt.Sprintf("provider CPU %s, terraform CPU %s, provider peak RSS %.0f MiB, terraform %.0f MiB; S3 requests %s; listings %s",
			fmtDuration(s.providerCPU().median()), fmtDuration(s.terraformCPU().median()), s.peaks().providerMiB, s.peaks().terraformMiB,
			s.counts(), s.counts().listedText())
	}
	perShard, promises := eight.perShard, eight.promises
	return []row{{
		scenario: fmt.Sprintf("B10 (a) no-change terraform plan -detailed-exitcode of shard s0's promise workspace (%d promises over its %d destinations via data.kratix_destinations, selector shard = s0) with %d shards of %d registered on one bucket (%d destinations; via counting proxy)",
			promises, perShard, eight.shards, perShard, eight.shards*perShard),
		measured: fmtDuration(p8.median()),
		floor:    fmt.Sprintf("%s (the same workspace with 1 shard of %d registered, same plan)", fmtDuration(p1.median()), perShard),
		ratio:    rs1,
		floor2:   fmt.Sprintf("%s (the same workspace, same bucket, written with a literal pool of its %d destinations)", fmtDuration(lit.median()), perShard),
		ratio2:   rs2,
		goal:     fmt.Sprintf("<= %.1fx the 1-shard plan; <= %.1fx the literal pool's", shardFlatRatio, shardLiteralRatio),
		met:      yesNo(r1 > 0 && r1 <= shardFlatRatio && r2 > 0 && r2 <= shardLiteralRatio),
		notes: fmt.Sprintf("%d plan run(s) of each, alternating, exit 0 (no changes) every run; %d shards: %s; 1 shard: %s; literal pool: %s; runs: %s / 1 shard %s / literal %s",
			runs, eight.shards, cpu(p8), cpu(p1), cpu(lit), p8.times(), p1.times(), lit.times()),
	}}, err
}

// literalPoolWorkspace is a copy of the promise workspace ws (its state and owner) whose pool is
// written out: the destinations its data.kratix_destinations holds in state, each with
// state_store = kratix_state_store.s, as a user would write them by hand.
func literalPoolWorkspace(e *env, ws *workspace, store storeRef) (*workspace, error) {
	raw, err := os.ReadFile(filepath.Join(ws.dir, "terraform.tfstate"))
	if err != nil {
		return nil, fmt.Errorf("reading the state of %s: %w", ws.dir, err)
	}
	var state struct {
		Resources []struct {
			Mode, Type string
			Instances  []struct {
				Attributes struct {
					Destinations []map[string]json.RawMessage `json:"destinations"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		return nil, fmt.Errorf("parsing the state of %s: %w", ws.dir, err)
	}
	var pool []map[string]json.RawMessage
	for _, r := range state.Resources {
		if r.Mode == "data" && r.Type == "kratix_destinations" && len(r.Instances) == 1 {
			pool = r.Instances[0].Attributes.Destinations
		}
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("the state of %s holds no destinations of data.kratix_destinations", ws.dir)
	}
	var b strings.Builder
	b.WriteString("[\n")
	for _, d := range pool {
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("    {")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			v := string(d[k])
			if k == "state_store" {
				v = "kratix_state_store.s"
			}
			fmt.Fprintf(&b, "%s = %s", k, v)
		}
		b.WriteString("},\n")
	}
	b.WriteString("  ]")
	promises := 0
	for _, r := range state.Resources {
		if r.Mode == "managed" && r.Type == "kratix_promise" {
			promises = len(r.Instances)
		}
	}
	// The shard's number only names the data source's selector, which a literal pool has not.
	cfg := shardPromiseConfig(store, 0, promises, "local.pool") + "\nlocals {\n  pool = " + b.String() + "\n}\n"
	lit, err := e.newWorkspace("b10-literal", map[string][]byte{"main.tf": []byte(cfg), "terraform.tfstate": raw})
	if err != nil {
		return nil, err
	}
	lit.env = append(lit.env, "KRATIX_OWNER="+ownerOf(ws))
	lit.timeout = ws.timeout
	return lit, nil
}

// ownerOf is the KRATIX_OWNER a workspace runs with.
func ownerOf(ws *workspace) string {
	for _, kv := range ws.env {
		if v, ok := strings.CutPrefix(kv, "KRATIX_OWNER="); ok {
			return v
		}
	}
	return ""
}

// registryReads is (b): a workspace reading the whole registry plans on the 8-shard bucket and
// the 1-shard one, alternating with minio-go reading the same records; and on the repository.
func registryReads(ctx context.Context, e *env, proxy *countingProxy, runs int, eight, one, git *shardFleet) ([]row, error) {
	var readers []*workspace
	defer func() {
		for _, ws := range readers {
			ws.remove()
		}
	}()
	reader := func(f *shardFleet) (*workspace, error) {
		ws, err := e.newWorkspace(f.name+"-reader", map[string][]byte{"main.tf": []byte(registryReaderConfig(f.store))})
		if err != nil {
			return nil, err
		}
		readers = append(readers, ws)
		ws.env = append(ws.env, "KRATIX_OWNER=reader")
		ws.timeout = f.fleet[0].timeout
		if _, err := ws.apply(ctx, false); err != nil {
			return nil, err
		}
		raw, err := os.ReadFile(filepath.Join(ws.dir, "terraform.tfstate"))
		if err != nil {
			return nil, err
		}
		var state struct {
			Outputs struct {
				Registered struct{ Value int } `json:"registered"`
			} `json:"outputs"`
		}
		if err := json.Unmarshal(raw, &state); err != nil {
			return nil, fmt.Errorf("parsing the state of %s: %w", ws.dir, err)
		}
		if got, want := state.Outputs.Registered.Value, f.shards*f.perShard; got != want {
			return nil, fmt.Errorf("the registry of %s gives %d destinations, want %d", f.name, got, want)
		}
		return ws, nil
	}
	r8, err := reader(eight)
	if err != nil {
		return nil, err
	}
	r1, err := reader(one)
	if err != nil {
		return nil, err
	}
	planSeries := func(ws *workspace) *series {
		return &series{run: counted(proxy, watched(e, ws.dir, emptyPlans(ctx, ws)))}
	}
	raw := func(f *shardFleet) *series {
		return &series{run: counted(proxy, timed(func(int) (time.Duration, error) { return rawRegistryRead(ctx, e, proxy.Endpoint, f) }))}
	}
	p8, p1, raw8, raw1 := planSeries(r8), planSeries(r1), raw(eight), raw(one)
	if err := measure(runs, p8, raw8, p1, raw1); err != nil {
		return nil, err
	}
	registry := ".kratix-registry/destinations/"
	bucketRow := func(f *shardFleet, plan, floor *series) row {
		records := f.shards * f.perShard
		c := plan.counts()
		prefixes := len(c.Listed)
		perPrefix := 0
		for _, n := range c.Listed {
			perPrefix = max(perPrefix, n)
		}
		_, rs := ratio(plan.median(), floor.median())
		return row{
			scenario: fmt.Sprintf("B10 (b) reading the whole registry: no-change terraform plan of data.kratix_destinations without selector, %d destinations registered by %d fleet workspace(s) on one bucket (via counting proxy)",
				records, f.shards),
			measured: fmtDuration(plan.median()),
			floor:    fmt.Sprintf("%s (raw store: minio-go listing %s and reading each record, %d in flight)", fmtDuration(floor.median()), registry, statestore.DefaultBucketConcurrency),
			ratio:    rs,
			goal:     "at most 1 listing per prefix; GETs not growing with the records, or the bound stated",
			met:      fmt.Sprintf("listings %s; GETs no: %d for %d records", yesNo(perPrefix <= 1), c.Gets, records),
			notes: fmt.Sprintf("%d run(s), exit 0 every run; S3 requests per plan (max over runs): %s; listings (%d prefixes): %s; the bound: 1 listing of the store's path per plan (shared with the plan's other reads of the store; its pages grow with every object in the store, 1,000 keys a page) "+
				"and 1 GET per record (a record's labels are in its body: the selector cannot be judged from the listing); raw store's requests: %s; provider CPU %s, terraform CPU %s; runs: %s / raw %s",
				len(plan.samples), c, prefixes, c.listedText(), floor.counts(), fmtDuration(plan.providerCPU().median()), fmtDuration(plan.terraformCPU().median()), plan.times(), floor.times()),
		}
	}
	rows := []row{bucketRow(eight, p8, raw8), bucketRow(one, p1, raw1)}
	if git == nil || git.check.err() != nil {
		return rows, nil
	}
	rg, err := reader(git)
	if err != nil {
		return rows, err
	}
	var posts atomic.Int32
	e.git.BeforePost(git.name, func(service string) {
		if service == "git-upload-pack" {
			posts.Add(1)
		}
	})
	defer e.git.BeforePost(git.name, nil)
	gp := &series{run: func(i int) (sample, error) {
		posts.Store(0)
		before := e.git.FetchedBytes(git.name)
		d, err := emptyPlan(ctx, rg)
		return sample{took: d, note: fmt.Sprintf("%d upload-pack POST, %d bytes fetched", posts.Load(), e.git.FetchedBytes(git.name)-before)}, err
	}}
	if err := measure(runs, gp); err != nil {
		return rows, err
	}
	return append(rows, row{
		scenario: fmt.Sprintf("B10 (b) reading the whole registry on git: no-change terraform plan of data.kratix_destinations without selector, %d destinations registered by %d workspaces on one repository",
			git.shards*git.perShard, git.shards),
		measured: fmtDuration(gp.median()),
		floor:    "-", ratio: "-",
		goal: "one fetch", met: "see notes (fetch requests per plan)",
		notes: fmt.Sprintf("%d run(s), exit 0 every run; per plan: %s (go-git speaks git's protocol v0/v1 over smart HTTP, where each upload-pack POST is one fetch: "+
			"the provider process fetches the branch's tip once, shared by every read of the plan, then the blobs its clone lacks, every record's in one request; "+
			"neither count grows with the records); runs: %s", len(gp.samples), gp.notes(), gp.times()),
	}), nil
}

// rawRegistryRead is the raw floor of (b): minio-go lists the registry's destinations and reads
// every record, through the proxy, as many at a time as the provider's writes.
func rawRegistryRead(ctx context.Context, e *env, endpoint string, f *shardFleet) (time.Duration, error) {
	client, err := minio.New(endpoint, &minio.Options{Creds: credentials.NewStaticV4(e.minio.AccessKey, e.minio.SecretKey, "")})
	if err != nil {
		return 0, err
	}
	start := time.Now()
	var keys []string
	for o := range client.ListObjects(ctx, f.name, minio.ListObjectsOptions{Prefix: ".kratix-registry/destinations/", Recursive: true}) {
		if o.Err != nil {
			return 0, o.Err
		}
		keys = append(keys, o.Key)
	}
	if want := f.shards * f.perShard; len(keys) != want {
		return 0, fmt.Errorf("%s: %d records listed, want %d", f.name, len(keys), want)
	}
	sem := make(chan struct{}, statestore.DefaultBucketConcurrency)
	var wg sync.WaitGroup
	var failed atomic.Value
	for _, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			obj, err := client.GetObject(ctx, f.name, k, minio.GetObjectOptions{})
			if err == nil {
				_, err = io.ReadAll(obj)
				_ = obj.Close()
			}
			if err != nil {
				failed.Store(err)
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return 0, err
	}
	return time.Since(start), nil
}
