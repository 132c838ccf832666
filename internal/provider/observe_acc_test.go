package provider

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// The observe tests write HealthRecords into the store with the test's own client (minio-go, or
// a commit made with the git CLI) and check what `health` says of each destination, to the
// second, against the provider's clock, which the test sets.

// observeTF is destinations w1 and w2 on store s, promise p with dependencies ns observing
// folder observePath of the same bucket or repository through store h, and extra resources.
func observeTF(ts *testStore, ns, observePath, maxAge, extra string) string {
	health := regexp.MustCompile(`(?m)^(\s*)name(\s+)= "([^"]+)"`).ReplaceAllString(ts.store,
		fmt.Sprintf("${1}name${2}= \"${3}-health\"\n${1}path = %q", observePath))
	observe := "" // observePath "": no observe
	if observePath != "" {
		age := ""
		if maxAge != "" {
			age = fmt.Sprintf("max_age = %q", maxAge)
		}
		observe = fmt.Sprintf("observe = {\n    state_store = kratix_state_store.h\n    %s\n  }", age)
	} else {
		health = strings.Replace(health, `path = ""`, `path = "health"`, 1)
	}
	return storeConfig(ts) + kratixStateStore{Label: "h", Body: health}.String() + kratixDestination{
		Label: "d", Count: "2", Name: q("w${count.index + 1}"), Path: q("w${count.index + 1}"),
		Labels: `{ env = "dev" }`, StateStore: "kratix_state_store.s",
	}.String() + kratixPromise{
		Label: "p", Name: q("p"), Destinations: "kratix_destination.d", Dependencies: q(rolloutNamespace(ns)), Body: "  " + observe,
	}.String() + extra
}

// healthRecord is a HealthRecord of promise p (of request request in namespace default when
// request is not ""), in state, last run at lastRun, reporting the git revision revision ("" for
// none).
func healthRecord(promise, request, state string, lastRun time.Time, revision string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: platform.kratix.io/v1alpha1\nkind: HealthRecord\nmetadata:\n  name: %s-health\n  namespace: default\ndata:\n", promise)
	fmt.Fprintf(&b, "  promiseRef:\n    name: %s\n", promise)
	if request != "" {
		fmt.Fprintf(&b, "  resourceRef:\n    name: %s\n    namespace: default\n    generation: 1\n", request)
	}
	fmt.Fprintf(&b, "  state: %s\n  lastRun: %d\n", state, lastRun.Unix())
	if revision != "" {
		fmt.Fprintf(&b, "  details:\n    lastAppliedRevision: main@sha1:%s\n", revision)
	}
	return b.String()
}

// repoOf is the repository name of a git test store, from its location.
func repoOf(ts *testStore) string {
	return path.Base(strings.TrimSuffix(ts.location, "@main"))
}

// tipOf is the newest commit of a git test store's branch, read with the git CLI.
func tipOf(t *testing.T, ts *testStore) string {
	t.Helper()
	log, err := gitServer.Log(repoOf(ts), "main")
	if err != nil || len(log) == 0 {
		t.Fatalf("reading the log of %s: %v", repoOf(ts), err)
	}
	return log[0].Hash
}

// seedOf is the first commit of a git test store's branch: it holds no destination folder.
func seedOf(t *testing.T, ts *testStore) string {
	t.Helper()
	log, err := gitServer.Log(repoOf(ts), "main")
	if err != nil || len(log) == 0 {
		t.Fatalf("reading the log of %s: %v", repoOf(ts), err)
	}
	return log[len(log)-1].Hash
}

// TestAccObserve: `health` shows, per destination, the newest record of the promise in the
// observe folder (records of another promise, or of a request, left out), fresh when made after
// the provider's last write there and within max_age; on git, applied when the revision it
// reports holds the destination's folder as the tip does. Reading it writes nothing and plans
// nothing; a write makes the destination's record stale in the plan itself.
func TestAccObserve(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0}
		var mark acctest.Mark
		onGit := kind != "bucket"
		h := func(attr, want string) resource.TestCheckFunc {
			return resource.TestCheckResourceAttr("kratix_promise.p", "health."+attr, want)
		}
		none := func(attr string) resource.TestCheckFunc {
			return resource.TestCheckNoResourceAttr("kratix_promise.p", "health."+attr)
		}
		applied := func(dest, want string) resource.TestCheckFunc {
			if !onGit {
				return none(dest + ".applied") // a bucket keeps no history: nothing can tell
			}
			return h(dest+".applied", want)
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersWithClock(clock),
			Steps: []resource.TestStep{
				{
					// The observe folder may not be a destination's.
					Config:      observeTF(ts, "v1", "w1", "1h", ""),
					ExpectError: regexp.MustCompile(`(?s)Observe Folder Overlaps A Destination.*destination "w1"`),
				},
				{
					// Written at t0; no record yet.
					Config: observeTF(ts, "v1", "health", "1h", ""),
					Check: resource.ComposeAggregateTestCheckFunc(
						h("%", "2"),
						h("w1.state", "unknown"), h("w1.fresh", "false"), none("w1.last_run"), none("w1.source"), none("w1.applied"),
						h("w2.state", "unknown"), h("w2.fresh", "false"), none("w2.source"),
					),
				},
				{
					// Ten minutes later the agents have reported: w1 healthy five minutes after the
					// write, of the tip's revision; w2 degraded, a minute before the write, of the
					// seed's (which has no w2 folder). Another promise's record, newer, and a
					// request's record of p are not the promise's.
					PreConfig: func() {
						clock.set(t0.Add(10 * time.Minute))
						tip, seed := "", ""
						if onGit {
							tip, seed = tipOf(t, ts), seedOf(t, ts)
						}
						ts.put(t, "health/w1/p.yaml", []byte(healthRecord("p", "", "healthy", t0.Add(5*time.Minute), tip)))
						ts.put(t, "health/w2/p.yaml", []byte(healthRecord("p", "", "degraded", t0.Add(-time.Minute), seed)))
						ts.put(t, "health/w2/q.yaml", []byte(healthRecord("q", "", "healthy", t0.Add(9*time.Minute), "")))
						ts.put(t, "health/w1/x.yaml", []byte(healthRecord("p", "x", "unhealthy", t0.Add(9*time.Minute), "")))
						mark = ts.mark(t)
					},
					Config:            observeTF(ts, "v1", "health", "1h", ""),
					ConfigStateChecks: []statecheck.StateCheck{acctest.NoWritesSince(ts.journal, &mark)},
					Check: resource.ComposeAggregateTestCheckFunc(
						h("w1.state", "healthy"), h("w1.fresh", "true"), h("w1.last_run", "2030-01-02T03:09:05Z"),
						h("w1.source", "health/w1/p.yaml"), applied("w1", "true"),
						h("w2.state", "degraded"), h("w2.fresh", "false"), h("w2.last_run", "2030-01-02T03:03:05Z"),
						h("w2.source", "health/w2/p.yaml"), applied("w2", "false"),
					),
				},
				{
					// The same, read again: no plan, no write.
					Config:   observeTF(ts, "v1", "health", "1h", ""),
					PlanOnly: true,
				},
				{
					// Past max_age, w1's record is stale; nothing else changes, nothing is written.
					PreConfig: func() {
						clock.set(t0.Add(5*time.Minute + time.Hour + time.Second))
						mark = ts.mark(t)
					},
					Config:            observeTF(ts, "v1", "health", "1h", ""),
					ConfigStateChecks: []statecheck.StateCheck{acctest.NoWritesSince(ts.journal, &mark)},
					Check: resource.ComposeAggregateTestCheckFunc(
						h("w1.state", "healthy"), h("w1.fresh", "false"), h("w1.last_run", "2030-01-02T03:09:05Z"),
						h("w2.state", "degraded"), h("w2.fresh", "false"),
					),
				},
				{
					// A fresh record of w1, then a change of the dependencies: the apply writes
					// both destinations, so neither can have a fresh record of what they now hold.
					PreConfig: func() {
						clock.set(t0.Add(2 * time.Hour))
						tip := ""
						if onGit {
							tip = tipOf(t, ts)
						}
						ts.put(t, "health/w1/p.yaml", []byte(healthRecord("p", "", "healthy", t0.Add(2*time.Hour-time.Minute), tip)))
					},
					Config: observeTF(ts, "v2", "health", "1h", ""),
					Check: resource.ComposeAggregateTestCheckFunc(
						h("w1.state", "healthy"), h("w1.fresh", "false"), h("w1.last_run", "2030-01-02T05:03:05Z"),
						applied("w1", "false"),
						h("w2.state", "degraded"), h("w2.fresh", "false"),
					),
				},
				{
					// Without observe, health is null.
					Config: observeTF(ts, "v2", "", "", ""),
					Check:  resource.TestCheckNoResourceAttr("kratix_promise.p", "health.%"),
				},
			},
		})
	})
}

// TestAccObserve_knownOnlyAtApply: an observe store whose path is known only after apply (here
// from a terraform_data output) leaves `health` unknown in the plan; Terraform plans the promise
// again during the apply, with the path known, and the next plan is empty.
func TestAccObserve_knownOnlyAtApply(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	cfg := observeTF(ts, "v1", "health", "", `
resource "terraform_data" "path" {
  input = "health"
}
`)
	cfg = strings.Replace(cfg, `path = "health"`, `path = terraform_data.path.output`, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		ExternalProviders:        map[string]resource.ExternalProvider{"terraform": {Source: "terraform.io/builtin/terraform"}},
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("kratix_promise.p", tfjsonpath.New("health")),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("kratix_promise.p", "health.%", "2"),
				resource.TestCheckResourceAttr("kratix_promise.p", "health.w1.state", "unknown"),
			),
		}},
	})
}
