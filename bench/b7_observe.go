package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

// The observed fleet (-b7-observe) is B7's fleet with observe on every promise: a second
// kratix_state_store on the same bucket at path healthFolder, where one record file per
// destination holds a HealthRecord of each promise. Its workspace starts from a copy of B7's
// state, so that both describe the same objects in the same bucket, and its no-change plan
// alternates with B7's: the difference is what reading and showing health costs, which should be
// one more listing (of healthFolder) and one GET per record file.

// observedPoint is what the observed fleet measured at one destination count.
type observedPoint struct {
	// setup is the apply that adds observe to B7's state, refresh the refresh-only apply that
	// brings the seeded records into health.
	setup, refresh             time.Duration
	setupCounts, refreshCounts s3Counts
	records                    int // record files seeded, one per destination
	healthy                    int // health entries found healthy and fresh in state, over all promises
	stateBytes                 int64

	plan                              timings
	planCounts                        s3Counts
	planUse                           fleetUsage // peaks over the runs
	planProviderCPU, planTerraformCPU timings
}

// observedSetup makes the observed fleet's workspace from B7's state (kratix's), adds observe
// with an apply, seeds the records through plain minio-go (outside any measured time), reads them
// into health with a refresh-only apply, and checks that health holds every destination of
// every promise, healthy and fresh.
func observedSetup(ctx context.Context, e *env, proxy *countingProxy, kratix *workspace, cfg kratixConfig) (*workspace, observedPoint, error) {
	var o observedPoint
	cfg.observe = true
	state, err := os.ReadFile(filepath.Join(kratix.dir, "terraform.tfstate"))
	if err != nil {
		return nil, o, fmt.Errorf("reading B7's state to copy it: %w", err)
	}
	ws, err := e.newWorkspace(cfg.store.bucket+"-observe", map[string][]byte{"main.tf": []byte(cfg.String()), "terraform.tfstate": state})
	if err != nil {
		return nil, o, err
	}
	ws.timeout = fleetTimeout
	fail := func(err error) (*workspace, observedPoint, error) {
		ws.remove()
		return nil, o, err
	}

	proxy.reset()
	res, err := ws.apply(ctx, false)
	o.setup, o.setupCounts = res.took, proxy.reset()
	if err != nil {
		return fail(fmt.Errorf("adding observe to the fleet: %w", err))
	}
	logf("B7 observed: adding observe took %s (%s; listing %s)", fmtDuration(o.setup), o.setupCounts, o.setupCounts.listedText())

	// A record counts as fresh only when made after the provider last wrote the destination, to
	// the second: the records are made a second after the apply ended.
	time.Sleep(time.Second)
	if o.records, err = seedHealth(ctx, e, cfg, time.Now()); err != nil {
		return fail(err)
	}
	proxy.reset()
	res, err = ws.apply(ctx, false, "-refresh-only")
	o.refresh, o.refreshCounts = res.took, proxy.reset()
	if err != nil {
		return fail(fmt.Errorf("reading the seeded health records with a refresh-only apply: %w", err))
	}
	logf("B7 observed: refresh-only apply took %s (%s; listing %s)", fmtDuration(o.refresh), o.refreshCounts, o.refreshCounts.listedText())
	if o.healthy, err = checkHealth(ws, cfg.promises[0].count, cfg.destinations); err != nil {
		return fail(err)
	}
	if o.stateBytes, err = stateSize(ws); err != nil {
		return fail(err)
	}
	return ws, o, nil
}

// seedHealth writes <healthFolder>/<destination>/records.yaml for every destination of cfg, each
// holding one HealthRecord per promise, healthy, last run at lastRun. It returns how many files
// it wrote.
func seedHealth(ctx context.Context, e *env, cfg kratixConfig, lastRun time.Time) (int, error) {
	promises := cfg.promises[0]
	var doc bytes.Buffer
	for i := range promises.instances() {
		if i > 0 {
			doc.WriteString("---\n")
		}
		name := promises.name
		if promises.count > 0 {
			name = fmt.Sprintf("%s-%d", promises.name, i)
		}
		doc.WriteString(healthRecordYAML(name, "healthy", lastRun))
	}
	for d := range cfg.destinations {
		key := healthFolder + "/" + destinationName(d) + "/records.yaml"
		if _, err := e.client.PutObject(ctx, cfg.store.bucket, key, bytes.NewReader(doc.Bytes()), int64(doc.Len()),
			minio.PutObjectOptions{ContentType: "application/yaml"}); err != nil {
			return d, fmt.Errorf("seeding health record %s in bucket %s: %w", key, cfg.store.bucket, err)
		}
	}
	return cfg.destinations, nil
}

// healthRecordYAML is one Kratix HealthRecord of a promise, as an agent on a destination writes it.
func healthRecordYAML(promise, state string, lastRun time.Time) string {
	return fmt.Sprintf(`apiVersion: platform.kratix.io/v1alpha1
kind: HealthRecord
metadata:
  name: %[1]s-health
  namespace: default
data:
  promiseRef:
    name: %[1]s
  state: %[2]s
  lastRun: %[3]d
`, promise, state, lastRun.Unix())
}

// checkHealth reads the workspace's state file and checks that each of the promises (the
// instances of kratix_promise.p) has health for every one of the destinations, healthy and
// fresh; it returns how many entries it checked.
func checkHealth(ws *workspace, promises, destinations int) (int, error) {
	raw, err := os.ReadFile(filepath.Join(ws.dir, "terraform.tfstate"))
	if err != nil {
		return 0, fmt.Errorf("reading the observed fleet's state: %w", err)
	}
	var state struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				Attributes struct {
					Name   string `json:"name"`
					Health map[string]struct {
						State string `json:"state"`
						Fresh bool   `json:"fresh"`
					} `json:"health"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		return 0, fmt.Errorf("parsing the observed fleet's state: %w", err)
	}
	checked, found := 0, 0
	var problems []string
	for _, r := range state.Resources {
		if r.Type != "kratix_promise" || r.Name != "p" {
			continue
		}
		for _, inst := range r.Instances {
			found++
			a := inst.Attributes
			if len(a.Health) != destinations {
				problems = append(problems, fmt.Sprintf("promise %s has health for %d destinations, want %d", a.Name, len(a.Health), destinations))
			}
			for dest, h := range a.Health {
				if h.State != "healthy" || !h.Fresh {
					problems = append(problems, fmt.Sprintf("promise %s at %s: state %q, fresh %t, want \"healthy\", true", a.Name, dest, h.State, h.Fresh))
					continue
				}
				checked++
			}
		}
	}
	if found != promises {
		problems = append(problems, fmt.Sprintf("%d kratix_promise.p instances in state, want %d", found, promises))
	}
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
		}
		return checked, fmt.Errorf("health in the observed fleet's state after the refresh: %s", strings.Join(problems, "; "))
	}
	return checked, nil
}

// observedPlanSeries is the observed fleet's no-change plans in ws, alternating with B7's.
func observedPlanSeries(ctx context.Context, e *env, proxy *countingProxy, ws *workspace) *series {
	return &series{run: counted(proxy, watched(e, ws.dir, emptyPlans(ctx, ws))), log: func(s sample) {
		logf("B7 observed: plan %s (%s; listing %s; CPU: provider %s, terraform %s)", fmtDuration(s.took), s.counts, s.counts.listedText(),
			fmtDuration(s.use.providerCPU), fmtDuration(s.use.terraformCPU))
	}}
}

// foldPlans keeps what the observed fleet's plans gave.
func (o *observedPoint) foldPlans(plans *series) {
	o.plan, o.planCounts, o.planUse = plans.times(), plans.counts(), plans.peaks()
	o.planProviderCPU, o.planTerraformCPU = plans.providerCPU(), plans.terraformCPU()
}

// extraRequests says whether the observed plan's requests are B7's plus exactly one listing, of
// healthFolder in bucket (one LIST request per 1,000 keys, S3's page), and one GET per record
// file, nothing else. Bucket location lookups are left out: minio-go caches them per client, and
// two clients asking at once may both look it up.
func extraRequests(observed, plain s3Counts, bucket string, records int) bool {
	pages := max(1, (records+999)/1000)
	want := maps.Clone(plain.Listed)
	if want == nil {
		want = map[string]int{}
	}
	want[bucket+"/"+healthFolder+"/"]++
	if !maps.Equal(observed.Listed, want) {
		return false
	}
	return observed.Listings == plain.Listings+1 && observed.Lists == plain.Lists+pages &&
		observed.Gets == plain.Gets+records && observed.Puts == plain.Puts && observed.Heads == plain.Heads &&
		otherThanLocation(observed) == otherThanLocation(plain)
}

// locationLookup is how describeOther names minio-go's bucket location lookup.
const locationLookup = "GET bucket?location"

// otherThanLocation is how many "other" requests were not bucket location lookups.
func otherThanLocation(c s3Counts) int { return c.Other - c.OtherKinds[locationLookup] }

// observedRow is the observed fleet's line, beside B7's row of the same size.
func (p fleetPoint) observedRow(runs int) row {
	o := p.observed
	_, rs := ratio(o.plan.median(), p.plan.median())
	wire := extraRequests(o.planCounts, p.planCounts, p.bucket, o.records)
	return row{
		scenario: fmt.Sprintf("B7 observed: no-change terraform plan -detailed-exitcode of the same fleet, %d promises x %d destinations, each promise with observe "+
			"(kratix_state_store on the same bucket, path %q: %d record files of %d HealthRecords each)",
			p.promises, p.destinations, healthFolder, o.records, p.promises),
		measured: fmtDuration(o.plan.median()),
		floor:    fmtDuration(p.plan.median()) + " (B7's no-change plan of the same fleet without observe, alternating)",
		ratio:    rs,
		floor2:   fmtDuration(p.fair.median()) + " (B7's fair floor, without health)",
		ratio2:   ratioText(o.plan.median(), p.fair.median()),
		goal: fmt.Sprintf("exit 0 (health never plans a change); health read in one listing: B7's S3 requests + 1 listing of %s/ + 1 GET per record file "+
			"(bucket location lookups aside)", healthFolder),
		met: yesNo(wire && len(o.plan) == runs),
		notes: fmt.Sprintf("%d plan run(s), exit 0 every run; after the set-up health held %d entries (%d promises x %d destinations), each \"healthy\" and fresh; "+
			"S3 requests per plan (max over runs): %s, listing %s (B7's: %s, listing %s); "+
			"during the plan: provider peak RSS %.0f MiB and CPU %s (B7's: %.0f MiB, %s), terraform peak RSS %.0f MiB and CPU %s (B7's: %.0f MiB, %s); "+
			"state %s (B7's %s); set-up: observe added to a copy of B7's state in %s (%s), records seeded with minio-go, refresh-only apply %s (%s); runs: %s",
			runs, o.healthy, p.promises, p.destinations,
			o.planCounts, o.planCounts.listedText(), p.planCounts, p.planCounts.listedText(),
			o.planUse.providerMiB, fmtDuration(o.planProviderCPU.median()), p.planUse.providerMiB, fmtDuration(p.planProviderCPU.median()),
			o.planUse.terraformMiB, fmtDuration(o.planTerraformCPU.median()), p.planUse.terraformMiB, fmtDuration(p.planTerraformCPU.median()),
			fmtBytes(o.stateBytes), fmtBytes(p.stateBytes),
			fmtDuration(o.setup), o.setupCounts, fmtDuration(o.refresh), o.refreshCounts, o.plan),
	}
}
