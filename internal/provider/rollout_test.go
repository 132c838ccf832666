package provider

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// The rollout tests stage a dependency change over ten destinations: one canary, three dev and
// six prod, waves canary, dev, then prod in two halves. What every destination must hold after
// each apply is stated here by hand (fleetHolds), and read back with the store's independent
// client.

var rolloutFleet = []string{"canary-1", "dev-1", "dev-2", "dev-3", "prod-1", "prod-2", "prod-3", "prod-4", "prod-5", "prod-6"}

func rolloutNamespace(name string) string {
	return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n"
}

// rolloutDepFile is where destination d holds promise p's dependencies (nestedByMetadata).
func rolloutDepFile(d string) string { return d + "/dependencies/p/5058f/static/p-dependencies.yaml" }

// rolloutConfig is the fleet (plus extra destinations, labelled env=dev) and promise p with the
// given dependencies (a namespace name) and rollout attributes.
func rolloutConfig(ts *testStore, ns string, rolloutExtra string, extra ...string) string {
	return rolloutConfigWith(ts, ns, rolloutExtra, "", extra...)
}

// rolloutConfigWith adds promiseExtra to the promise's arguments. Every destination carries its
// name as label "name", for selectors that leave one out.
func rolloutConfigWith(ts *testStore, ns, rolloutExtra, promiseExtra string, extra ...string) string {
	var dests []string
	for _, d := range append(append([]string(nil), rolloutFleet...), extra...) {
		dests = append(dests, fmt.Sprintf("%q", d))
	}
	return storeConfig(ts) + block("locals", []hclAttr{{"fleet", "[" + strings.Join(dests, ", ") + "]"}}, "") + kratixDestination{
		Label: "d", Count: "length(local.fleet)", Name: "local.fleet[count.index]", Path: "local.fleet[count.index]",
		Labels:     `{ env = split("-", local.fleet[count.index])[0], name = local.fleet[count.index] }`,
		StateStore: "kratix_state_store.s",
	}.String() + kratixPromise{
		Label: "p", Name: q("p"), Destinations: "kratix_destination.d", Dependencies: q(rolloutNamespace(ns)),
		Body: `  rollout = {
    waves = [
      { name = "canary", destination_selectors = [{ match_labels = { env = "canary" } }] },
      { name = "dev", destination_selectors = [{ match_labels = { env = "dev" } }] },
      { name = "prod-a", destination_selectors = [{ match_labels = { env = "prod" } }], max_percent = 50 },
      { name = "prod-b", destination_selectors = [{ match_labels = { env = "prod" } }] },
    ]
    ` + rolloutExtra + `
  }
  ` + promiseExtra,
	}.String()
}

// fleetHolds checks that every destination named holds exactly the dependencies of the
// namespace given, and nothing else under the promise's folder.
func fleetHolds(ts *testStore, want map[string]string) statecheck.StateCheck {
	var checks []statecheck.StateCheck
	for _, d := range tfvalue.SortedKeys(want) {
		checks = append(checks,
			acctest.FileHolds(ts.view, rolloutDepFile(d), rolloutNamespace(want[d])),
			acctest.FolderHolds(ts.view, d+"/dependencies/p/", rolloutDepFile(d)))
	}
	return acctest.All(checks...)
}

// holding is the fleet (and extra destinations) holding ns, with the named ones holding other.
func holding(ns string, other string, names ...string) map[string]string {
	out := map[string]string{}
	for _, d := range rolloutFleet {
		out[d] = ns
	}
	for _, d := range names {
		out[d] = other
	}
	return out
}

// waveWrites is what one apply writing the dependencies file of each named destination leaves in
// the store's history: one commit on git, one PUT per file on a bucket.
func waveWrites(ts *testStore, names ...string) []string {
	if ts.recorder == nil {
		return []string{"Update from: promise/p"}
	}
	var files []string
	for _, d := range names {
		files = append(files, rolloutDepFile(d))
	}
	sort.Strings(files)
	return puts(files...)
}

// TestAccRolloutWaves: a dependency change goes to the canary, then dev, then each half of
// prod, one wave per apply; the waiting destinations keep their bytes and are not written to;
// each apply is one commit on git. The plan stays non-empty until the rollout is complete.
func TestAccRolloutWaves(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		var mark acctest.Mark
		setMark := func() { mark = ts.mark(t) }
		v2 := func(names ...string) map[string]string { return holding("v1", "v2", names...) }
		step := func(names []string, complete bool) resource.TestStep {
			return resource.TestStep{
				PreConfig: setMark,
				Config:    rolloutConfig(ts, "v2", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					fleetHolds(ts, v2(names...)),
					acctest.WritesSince(ts.journal, &mark, waveWrites(ts, names[len(names)-waveSize(names):]...)...),
				},
				ExpectNonEmptyPlan: !complete,
			}
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{
					// A new promise goes everywhere at once.
					Config:            rolloutConfig(ts, "v1", ""),
					ConfigStateChecks: []statecheck.StateCheck{fleetHolds(ts, holding("v1", ""))},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waves_done", "0"),
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waiting.#", "0"),
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waves.prod-4", "prod-b"),
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waves.prod-3", "prod-a"),
					),
				},
				step([]string{"canary-1"}, false),
				{
					// prod-1, waiting with v1, is edited by hand: the dev wave's apply repairs it
					// (to v1) in the same commit.
					PreConfig: func() {
						setMark()
						ts.put(t, rolloutDepFile("prod-1"), []byte("edited by hand\n"))
					},
					Config: rolloutConfig(ts, "v2", ""),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, v2("canary-1", "dev-1", "dev-2", "dev-3")),
						acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "dev-1", "dev-2", "dev-3", "prod-1")...),
					},
					ExpectNonEmptyPlan: true,
				},
				step([]string{"canary-1", "dev-1", "dev-2", "dev-3", "prod-1", "prod-2", "prod-3"}, false),
				step(rolloutFleet, true),
				{
					// Complete: nothing to do, and nothing written.
					PreConfig: setMark,
					Config:    rolloutConfig(ts, "v2", ""),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, holding("v2", "")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waiting.#", "0"),
						resource.TestCheckNoResourceAttr("kratix_promise.p", "rollout_status.next_wave"),
					),
				},
			},
		})
	})
}

// waveSize is how many of the cumulative list names the last wave wrote: the waves of
// TestAccRolloutWaves are 1, 3, 3 and 3 destinations.
func waveSize(names []string) int {
	if len(names) == 1 {
		return 1
	}
	return 3
}

// TestAccRolloutPausedRestartedAndJoined: a paused rollout writes nothing; unpaused, it writes
// the canary; a further change starts again from the first wave; a destination that joins during
// the rollout gets the revision that last completed; min_wait holds the next wave back.
func TestAccRolloutPausedRestartedAndJoined(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		var mark acctest.Mark
		setMark := func() { mark = ts.mark(t) }
		withDev4 := func(m map[string]string, ns string) map[string]string { m["dev-4"] = ns; return m }
		noProd6 := func(m map[string]string) map[string]string { delete(m, "prod-6"); return m }
		withoutProd6 := func(ns string) string {
			return rolloutConfigWith(ts, ns, "", `destination_selectors = [{ match_expressions = [{ key = "name", operator = "NotIn", values = ["prod-6"] }] }]
  on_unschedule = "delete"`, "dev-4")
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{Config: rolloutConfig(ts, "v1", "")},
				{
					PreConfig: setMark,
					Config:    rolloutConfig(ts, "v2", "paused = true"),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, holding("v1", "")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.next_wave", "canary"),
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waiting.#", "10"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					PreConfig: setMark,
					Config:    rolloutConfig(ts, "v2", `min_wait = "1h"`),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, holding("v1", "v2", "canary-1")),
						acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "canary-1")...),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.next_wave", "dev"),
						resource.TestCheckResourceAttrSet("kratix_promise.p", "rollout_status.next_wave_not_before"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// min_wait has not passed: nothing goes.
					PreConfig: setMark,
					Config:    rolloutConfig(ts, "v2", `min_wait = "1h"`),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, holding("v1", "v2", "canary-1")),
						acctest.NoWritesSince(ts.journal, &mark),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waves_done", "1"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// Without min_wait the dev wave goes.
					PreConfig: setMark,
					Config:    rolloutConfig(ts, "v2", ""),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, holding("v1", "v2", "canary-1", "dev-1", "dev-2", "dev-3")),
						acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "dev-1", "dev-2", "dev-3")...),
					},
					ExpectNonEmptyPlan: true,
				},
				{
					// v3 during the rollout of v2: it starts again from the canary; dev keeps
					// v2 and prod v1, byte for byte.
					PreConfig: setMark,
					Config:    rolloutConfig(ts, "v3", ""),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, func() map[string]string {
							m := holding("v1", "v2", "dev-1", "dev-2", "dev-3")
							m["canary-1"] = "v3"
							return m
						}()),
						acctest.WritesSince(ts.journal, &mark, waveWrites(ts, "canary-1")...),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.waves_done", "1"),
						resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.next_wave", "dev"),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// dev-4 joins, paused: it gets v1, the revision that last went everywhere.
					PreConfig: setMark,
					Config:    rolloutConfig(ts, "v3", "paused = true", "dev-4"),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, func() map[string]string {
							m := withDev4(holding("v1", "v2", "dev-1", "dev-2", "dev-3"), "v1")
							m["canary-1"] = "v3"
							return m
						}()),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_promise.p", "revisions.dev-4", rolloutRevisionOf(t, "v1")),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// Still paused, prod-6 stops matching with on_unschedule = "delete": a removal
					// is not staged, its files go in this apply. And dev-1's file, of v2 (a
					// revision no longer rolled out), is deleted by hand: v2 cannot be written
					// again, so dev-1 gets v1, the revision that last went everywhere.
					PreConfig: func() {
						setMark()
						ts.remove(t, rolloutDepFile("dev-1"))
					},
					Config: rolloutConfigWith(ts, "v3", "paused = true",
						`destination_selectors = [{ match_expressions = [{ key = "name", operator = "NotIn", values = ["prod-6"] }] }]
  on_unschedule = "delete"`, "dev-4"),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, func() map[string]string {
							m := withDev4(holding("v1", "v2", "dev-2", "dev-3"), "v1")
							m["canary-1"] = "v3"
							delete(m, "prod-6")
							return m
						}()),
						acctest.FolderHolds(ts.view, "prod-6/dependencies/p/"),
					},
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckNoResourceAttr("kratix_promise.p", "revisions.prod-6"),
						resource.TestCheckResourceAttr("kratix_promise.p", "revisions.dev-1", rolloutRevisionOf(t, "v1")),
					),
					ExpectNonEmptyPlan: true,
				},
				{
					// The rest, wave by wave, until every destination holds v3: dev (dev-4 too),
					// then prod-1 to prod-3 (half of five, rounded up), then prod-4 and prod-5.
					Config:             withoutProd6("v3"),
					ConfigStateChecks:  []statecheck.StateCheck{fleetHolds(ts, noProd6(withDev4(holding("v1", "v3", "canary-1", "dev-1", "dev-2", "dev-3"), "v3")))},
					ExpectNonEmptyPlan: true,
				},
				{
					Config:             withoutProd6("v3"),
					ConfigStateChecks:  []statecheck.StateCheck{fleetHolds(ts, noProd6(withDev4(holding("v1", "v3", "canary-1", "dev-1", "dev-2", "dev-3", "prod-1", "prod-2", "prod-3"), "v3")))},
					ExpectNonEmptyPlan: true,
				},
				{
					Config: withoutProd6("v3"),
					ConfigStateChecks: []statecheck.StateCheck{
						fleetHolds(ts, noProd6(withDev4(holding("v3", ""), "v3"))),
					},
					Check: resource.TestCheckResourceAttr("kratix_promise.p", "rollout_status.completed_revision", rolloutRevisionOf(t, "v3")),
				},
			},
		})
	})
}

// rolloutRevisionOf is the documented revision of namespace ns's dependencies: the first 12 hex
// digits of the SHA-256 of their canonical YAML (which, for this document, is the text as given).
func rolloutRevisionOf(t *testing.T, ns string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(rolloutNamespace(ns)))
	return hex.EncodeToString(sum[:])[:12]
}

const cliRequiredProviders = `terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}
`

// TestAccRolloutDetailedExitCode drives a rollout with the Terraform CLI as a pipeline would:
// `terraform plan -detailed-exitcode` returns 2 while the rollout is not complete (paused
// included), each plan says which wave goes now and which next, and it returns 0 once every
// destination holds the new revision.
func TestAccRolloutDetailedExitCode(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	c := newCLI(t, map[string]string{"main.tf": rolloutConfig(ts, "v1", ""), "versions.tf": cliRequiredProviders})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	exitCode := func(args ...string) (int, string) {
		out, err := c.run(args...)
		out = strings.Join(strings.Fields(out), " ") // the CLI wraps long diagnostics
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, out
		case errors.As(err, &exit):
			return exit.ExitCode(), out
		}
		t.Fatalf("terraform %v: %v\n%s", args, err, out)
		return -1, ""
	}
	if code, out := exitCode("plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the first apply: exit %d, want 0\n%s", code, out)
	}
	write := func(config string) {
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(rolloutConfig(ts, "v2", "paused = true"))
	code, out := exitCode("plan", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, `The rollout is paused; wave "canary" goes when`) || !strings.Contains(out, "This apply writes nothing.") {
		t.Fatalf("paused plan: exit %d, want 2 and the paused message\n%s", code, out)
	}
	write(rolloutConfig(ts, "v2", ""))
	waves := []struct{ now, next string }{
		{`wave "canary" to: canary-1.`, `Next wave: "dev", at the next apply.`},
		{`wave "dev" to: dev-1, dev-2, dev-3.`, `Next wave: "prod-a", at the next apply.`},
		{`wave "prod-a" to: prod-1, prod-2, prod-3.`, `Next wave: "prod-b", at the next apply.`},
		{`wave "prod-b" to: prod-4, prod-5, prod-6.`, `The rollout is then complete.`},
	}
	for i, w := range waves {
		code, out := exitCode("plan", "-detailed-exitcode")
		if code != 2 || !strings.Contains(out, "This apply writes "+w.now) || !strings.Contains(out, w.next) {
			t.Fatalf("plan %d: exit %d, want 2 and %q, %q\n%s", i+1, code, w.now, w.next, out)
		}
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("apply %d: %v\n%s", i+1, err, out)
		}
	}
	if code, out := exitCode("plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the rollout: exit %d, want 0\n%s", code, out)
	}
	if err := acctest.Check(context.Background(), fleetHolds(ts, holding("v2", ""))); err != nil {
		t.Fatal(err)
	}
	// v3 reaches the canary; then v4, with dev-4 joining: the plan says the rollout starts again
	// and that dev-4 gets v2, the revision that last went everywhere.
	write(rolloutConfig(ts, "v3", ""))
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply v3: %v\n%s", err, out)
	}
	write(rolloutConfig(ts, "v4", "", "dev-4"))
	code, out = exitCode("plan", "-detailed-exitcode")
	for _, want := range []string{
		`Promise "p" rolls out revision ` + rolloutRevisionOf(t, "v4") + ` (the fleet held ` + rolloutRevisionOf(t, "v2") + `).`,
		"A rollout of another revision was in flight: this one starts again from the first wave.",
		`This apply writes wave "canary" to: canary-1.`,
		"New here, these get " + rolloutRevisionOf(t, "v2") + ", the revision that last went everywhere: dev-4.",
		`Next wave: "dev", at the next apply.`,
	} {
		if code != 2 || !strings.Contains(out, want) {
			t.Fatalf("plan of v4: exit %d, want 2 and %q\n%s", code, want, out)
		}
	}
}

// TestAccRolloutWaveFailsPartly: the canary wave spans two MinIO servers and one is down when it
// is applied. The apply fails; the canary on the reachable server holds the new revision, the
// other keeps the old one, and the rollout does not move on: the next apply (the server back)
// writes the canary wave again, to the canary that missed it, and not the next wave.
func TestAccRolloutWaveFailsPartly(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ctx := context.Background()
	bucket := randomName("wave")
	second := secondMinIO(t, bucket)
	config := func(ns string) string {
		return kratixProviderBlock{Secrets: []hclAttr{
			bucketSecret("one", minioServer.AccessKey, minioServer.SecretKey),
			bucketSecret("two", second.AccessKey, second.SecretKey),
		}}.String() +
			kratixStateStore{Label: "one", Name: q("one"), SecretRef: q("one"), Bucket: bucketAt(minioServer.Endpoint, bucket)}.String() +
			kratixStateStore{Label: "two", Name: q("two"), SecretRef: q("two"), Bucket: bucketAt(second.Endpoint, bucket)}.String() + `
locals {
  fleet = [
    { name = "c1", env = "canary", store = kratix_state_store.two },
    { name = "c2", env = "canary", store = kratix_state_store.one },
    { name = "d1", env = "dev", store = kratix_state_store.one },
  ]
}
` + kratixDestination{
			Label: "d", Count: "length(local.fleet)", Name: "local.fleet[count.index].name", Path: "local.fleet[count.index].name",
			Labels: "{ env = local.fleet[count.index].env }", InitWorkloads: "false", StateStore: "local.fleet[count.index].store",
		}.String() + kratixPromise{
			Label: "p", Name: q("p"), Destinations: "kratix_destination.d", Dependencies: q(rolloutNamespace(ns)),
			Body: `  rollout = {
    waves = [
      { name = "canary", destination_selectors = [{ match_labels = { env = "canary" } }] },
      { name = "rest" },
    ]
  }`,
		}.String()
	}
	read := func(server *testinfra.MinIO, dest string) string {
		client, err := server.Client()
		if err != nil {
			t.Fatal(err)
		}
		obj, err := client.GetObject(ctx, bucket, rolloutDepFile(dest), minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = obj.Close() }()
		var b bytes.Buffer
		if _, err := b.ReadFrom(obj); err != nil {
			t.Fatalf("reading %s: %v", rolloutDepFile(dest), err)
		}
		return b.String()
	}
	holds := func(when string, want map[string]string) {
		t.Helper()
		servers := map[string]*testinfra.MinIO{"c1": second, "c2": minioServer, "d1": minioServer}
		for dest, ns := range want {
			if got := read(servers[dest], dest); got != rolloutNamespace(ns) {
				t.Errorf("%s: %s holds %q, want namespace %s", when, dest, got, ns)
			}
		}
	}
	c := newCLI(t, map[string]string{"main.tf": config("v1"), "versions.tf": cliRequiredProviders})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("v2")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("plan", "-out", "canary.tfplan"); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	second.Down()
	if out, err := c.run("apply", "canary.tfplan"); err == nil || !strings.Contains(out, second.Endpoint) {
		t.Fatalf("the apply with c1's store down should fail naming it:\n%s", out)
	}
	if err := second.Up(); err != nil {
		t.Fatal(err)
	}
	holds("after the failed canary wave", map[string]string{"c1": "v1", "c2": "v2", "d1": "v1"})
	out, err := c.run("plan")
	flat := strings.Join(strings.Fields(out), " ")
	if err != nil || !strings.Contains(flat, `This apply writes wave "canary" to: c1.`) || !strings.Contains(flat, `Next wave: "rest", at the next apply.`) {
		t.Fatalf("the plan after the failure should write the canary wave again, to c1 alone: %v\n%s", err, out)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("canary again: %v\n%s", err, out)
	}
	holds("after the canary wave", map[string]string{"c1": "v2", "c2": "v2", "d1": "v1"})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("the rest: %v\n%s", err, out)
	}
	holds("after the rollout", map[string]string{"c1": "v2", "c2": "v2", "d1": "v2"})
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the rollout is not empty: %v\n%s", err, out)
	}
}
