package provider

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// A store laid out as Kratix lays it, written by the tests with their own client: one promise "p"
// on five destinations (two nestedByMetadata, one splitByKind, one none, one aggregatedYAML),
// their canaries, and requests on destinations the rendezvous choice would not pick. Paths are
// spelled by hand from Kratix's layout; the index files of mode none and the aggregate parts are
// named as this provider names them (Kratix's index files carry a random suffix, and Kratix keeps
// no parts), as a store written by an earlier Terraform state holds them.
const (
	adoptDeps = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
)

// adoptCanaries are the canary files of w1..w4, as Kratix writes them when a destination is
// registered.
var adoptCanaries = map[string]string{
	"w1/dependencies/kratix-canary-namespace.yaml": canaryNamespaceYAML,
	"w1/resources/kratix-canary-configmap.yaml":    canaryConfigMapYAML,
	"w2/dependencies/kratix-canary-namespace.yaml": canaryNamespaceYAML,
	"w2/resources/kratix-canary-configmap.yaml":    canaryConfigMapYAML,
	"w3/crds/kratix-crds.yaml":                     canaryNamespaceYAML,
	"w3/resources/kratix-resources.yaml":           canaryConfigMapYAML,
	"w4/kratix-canary-namespace.yaml":              canaryNamespaceYAML,
	"w4/kratix-canary-configmap.yaml":              canaryConfigMapYAML,
	"w5/kratix-canary-namespace.yaml":              canaryNamespaceYAML,
	"w5/kratix-canary-configmap.yaml":              canaryConfigMapYAML,
}

const (
	canaryNamespaceYAML = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\nspec: {}\nstatus: {}\n"
	canaryConfigMapYAML = "apiVersion: v1\ndata:\n  canary: this confirms your infrastructure is reading from Kratix state stores\nkind: ConfigMap\nmetadata:\n  name: kratix-info\n  namespace: kratix-worker-system\n"
)

// adoptPromiseFiles are the promise's files on each destination.
var adoptPromiseFiles = map[string]map[string]string{
	"w1": {"w1/dependencies/p/5058f/static/p-dependencies.yaml": adoptDeps},
	"w2": {"w2/dependencies/p/5058f/static/p-dependencies.yaml": adoptDeps},
	"w3": {"w3/resources/01-default-p-default-resources.yaml": adoptDeps},
	"w4": {
		"w4/static/p-dependencies.yaml":                                 adoptDeps,
		"w4/.kratix/kratix-platform-system-p-static-deps.w4-5058f.yaml": "files:\n- w4/static/p-dependencies.yaml\n",
	},
	"w5": {adoptDepsPart: adoptDeps},
}

// The aggregatedYAML destination w5: the promise's part, and the aggregate, which a promise or
// request that holds a part records as "part:<MD5 of its part>".
const (
	adoptAggregate = "w5/aggregated.yaml"
	adoptDepsPart  = ".kratix-aggregates/w5/aggregated.yaml/p-static-deps.w5-5058f.part"
)

// adoptModes are the destinations of adoptConfig and their filepath modes.
var adoptModes = map[string]string{"w1": "nestedByMetadata", "w2": "nestedByMetadata", "w3": "splitByKind", "w4": "none", "w5": "aggregatedYAML"}

// adoptConfig is the store, the five destinations, promise p and the given requests (each with
// one file <name>.yaml holding a ConfigMap named after it), with import blocks for all of them;
// ids maps a request to its import id when it is not <promise>/<namespace>/<name>.
func adoptConfig(ts *testStore, requests []string, ids map[string]string) string {
	return adoptConfigWith(ts, adoptModes, requests, ids)
}

// adoptConfigWith is adoptConfig with other destinations (name => filepath mode), all in the
// promise's pool.
func adoptConfigWith(ts *testStore, modes map[string]string, requests []string, ids map[string]string) string {
	names := make([]string, 0, len(modes))
	var locals []string
	for n := range modes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		locals = append(locals, fmt.Sprintf("%s = %q", n, modes[n]))
	}
	pool, _ := json.Marshal(names)
	var b strings.Builder
	b.WriteString(ts.provider)
	fmt.Fprintf(&b, `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

resource "kratix_state_store" "s" {
%s
}

locals {
  modes = { %s }
}

resource "kratix_destination" "w" {
  for_each      = local.modes
  name          = each.key
  path          = each.key
  filepath_mode = each.value
  state_store   = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [for n in %s : kratix_destination.w[n]]
  dependencies = %q
}

import {
  to = kratix_state_store.s
  id = %q
}

import {
  for_each = local.modes
  to       = kratix_destination.w[each.key]
  id       = each.key
}

import {
  to = kratix_promise.p
  id = "p"
}
`, ts.store, strings.Join(locals, ", "), pool, adoptDeps, storeName(ts))
	for _, r := range requests {
		id := "p/default/" + r
		if ids[r] != "" {
			id = ids[r]
		}
		fmt.Fprintf(&b, `
resource "kratix_resource_request" %q {
  promise = kratix_promise.p
  name    = %q
  files   = { %q = %q }
}

import {
  to = kratix_resource_request.%s
  id = %q
}
`, r, r, r+".yaml", requestYAML(r), r, id)
	}
	return b.String()
}

func requestYAML(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
}

// writeKratixStore writes the canaries, the promise's files and extra into the store with the
// test's own client.
func writeKratixStore(t *testing.T, ts *testStore, extra map[string]string) {
	t.Helper()
	all := map[string]string{}
	for p, c := range adoptCanaries {
		all[p] = c
	}
	for _, files := range adoptPromiseFiles {
		for p, c := range files {
			all[p] = c
		}
	}
	for p, c := range extra {
		all[p] = c
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		ts.put(t, p, []byte(all[p]))
	}
}

// plannedChange is what `terraform show -json` says of one resource in a saved plan.
type plannedChange struct {
	Address string `json:"address"`
	Change  struct {
		Actions   []string       `json:"actions"`
		After     map[string]any `json:"after"`
		Importing *struct {
			ID string `json:"id"`
		} `json:"importing"`
	} `json:"change"`
}

func showPlan(t *testing.T, c *cli, file string) map[string]plannedChange {
	t.Helper()
	out, err := c.run("show", "-json", file)
	if err != nil {
		t.Fatalf("show: %v\n%s", err, out)
	}
	var plan struct {
		ResourceChanges []plannedChange `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("reading the plan: %v\n%s", err, out)
	}
	changes := map[string]plannedChange{}
	for _, rc := range plan.ResourceChanges {
		changes[rc.Address] = rc
	}
	return changes
}

// hashes is a map of path to MD5 of each content, as written_files records them; a part of
// w5's aggregate adds the aggregate, recorded as "part:<MD5 of the part>".
func hashes(files map[string]string) map[string]any {
	out := map[string]any{}
	for p, c := range files {
		out[p] = md5Of(c)
		if strings.HasPrefix(p, ".kratix-aggregates/w5/aggregated.yaml/") {
			out[adoptAggregate] = "part:" + md5Of(c)
		}
	}
	return out
}

// TestAccAdoptKratixStore: a store Kratix wrote, with requests on destinations the rendezvous
// choice would not pick, is imported with import blocks. The first plan imports and moves
// nothing: each request stays where it is, with the files it has there, and the promise records
// the files of every destination; the apply writes nothing (no PUT, no commit), and the next
// plan is empty. The kratix-named subtests do the same with the index files and aggregates
// Kratix itself names and writes (testAdoptKratixNamed).
func TestAccAdoptKratixStore(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		t.Run("kratix-named", func(t *testing.T) { testAdoptKratixNamed(t, kind) })
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		// Where each request is, and not where the rendezvous would put it.
		requests := map[string]struct {
			dest  string
			files map[string]string
		}{
			"ra": {"w2", map[string]string{"w2/resources/default/p/ra/instance-configure/5058f/ra.yaml": requestYAML("ra")}},
			"rb": {"w3", map[string]string{"w3/resources/01-default-p-default-default-rb-resources.yaml": requestYAML("rb")}},
			"alpha": {"w4", map[string]string{
				"w4/alpha.yaml": requestYAML("alpha"),
				"w4/.kratix/default-p_alpha_default_instance-configure.w4-5058f.yaml": "files:\n- w4/alpha.yaml\n",
			}},
			"beta": {"w5", map[string]string{
				".kratix-aggregates/w5/aggregated.yaml/p_beta_default_instance-configure.w5-5058f.part": requestYAML("beta"),
			}},
		}
		// The parts joined in the order of their names, "-" before "_".
		extra := map[string]string{adoptAggregate: adoptDeps + "\n---\n" + requestYAML("beta")}
		var names []string
		for name, r := range requests {
			names = append(names, name)
			if c, _ := scheduling.Choose("default/p/"+name, []string{"w1", "w2", "w3", "w4", "w5"}); c == r.dest {
				t.Fatalf("request %s is on %s, the rendezvous choice: pick another name", name, c)
			}
			for p, c := range r.files {
				extra[p] = c
			}
		}
		sort.Strings(names)
		writeKratixStore(t, ts, extra)
		before := ts.list(t)
		commits := 0
		if kind != "bucket" {
			commits = gitCommits(t, ts)
		}

		c := newCLI(t, map[string]string{"main.tf": adoptConfig(ts, names, nil)})
		if out, err := c.run("plan", "-out=tfplan"); err != nil {
			t.Fatalf("plan: %v\n%s", err, out)
		}
		changes := showPlan(t, c, "tfplan")
		for addr, rc := range changes {
			if rc.Change.Importing == nil {
				t.Errorf("%s: not imported (actions %v)", addr, rc.Change.Actions)
			}
			if a := rc.Change.Actions; len(a) != 1 || a[0] != "update" && a[0] != "no-op" {
				t.Errorf("%s: actions %v, want an import with at most an update in place", addr, a)
			}
		}
		for name, r := range requests {
			after := changes["kratix_resource_request."+name].Change.After
			if after["destination"] != r.dest {
				t.Errorf("request %s planned on %v, want %s where it is", name, after["destination"], r.dest)
			}
			if got, want := after["written_files"], hashes(r.files); !reflect.DeepEqual(got, want) {
				t.Errorf("request %s: written_files %v, want %v", name, got, want)
			}
		}
		placements, _ := changes["kratix_promise.p"].Change.After["placements"].(map[string]any)
		for dest, files := range adoptPromiseFiles {
			pl, _ := placements[dest].(map[string]any)
			if got, want := pl["files"], hashes(files); !reflect.DeepEqual(got, want) {
				t.Errorf("promise on %s: files %v, want %v", dest, got, want)
			}
		}

		mark := ts.mark(t)
		if out, err := c.run("apply", "tfplan"); err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		acctest.Run(t, acctest.NoWritesSince(ts.journal, &mark))
		if kind != "bucket" {
			// One commit per adopted destination, each writing only its registration record, and
			// those of the imported objects' owner records, which the imports take over (issue
			// 39): the journal leaves out commits that change only the registry, and
			// NoWritesSince above sees no other.
			if n := gitCommits(t, ts); n-commits < len(adoptModes) {
				t.Errorf("the apply made %d commits, want at least %d, one per destination's record", n-commits, len(adoptModes))
			}
		}
		if after := ts.list(t); !reflect.DeepEqual(after, before) {
			t.Errorf("the store's files changed:\nbefore %v\nafter  %v", before, after)
		}
		if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
			t.Errorf("the plan after the apply is not empty: %v\n%s", err, out)
		}
	})
}

// The Kratix-named store: destinations k1, k2 in mode none and k3, k4 in mode aggregatedYAML, as
// Kratix itself writes them. Kratix names each index file after its WorkPlacement, with the
// Work's five random characters (x7k2p for the requests, q3v9z for the promise), and keeps no
// parts: each aggregate is the WorkPlacements' documents joined in the order of their names.
var kratixNamedModes = map[string]string{"k1": "none", "k2": "none", "k3": "aggregatedYAML", "k4": "aggregatedYAML"}

const (
	// A request whose Kratix identifier, p-orders-database-for-the-payments-team-in-emea-region1-
	// instance-configure (a default promise's Work has no namespace part), is cut at 56
	// characters, just after "region1-", and loses the "-".
	kratixLongName = "orders-database-for-the-payments-team-in-emea-region1"
	kratixLongWork = "p-orders-database-for-the-payments-team-in-emea-region1-x7k2p"
)

// testAdoptKratixNamed: requests and a promise in a store Kratix wrote in modes none and
// aggregatedYAML, on destinations the rendezvous choice would not pick, are found where they are
// from Kratix's own index files and aggregates, with plain import ids. The first plan keeps them
// there and shows what the apply writes: the provider's parts. The aggregates stay as Kratix
// wrote them (k3's holds the parts' documents in the order of Kratix's WorkPlacement names, not
// of this provider's part names). Kratix's index files become the placements' own: no index
// file is added. The apply writes nothing else, writes no aggregate, moves no workload file and
// leaves Kratix's index files as they are; the next plan is empty.
func testAdoptKratixNamed(t *testing.T, kind string) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	pool := []string{"k1", "k2", "k3", "k4"}
	store := map[string]string{
		"k1/static/p-dependencies.yaml":                                       adoptDeps,
		"k1/.kratix/kratix-platform-system-p-static-deps-q3v9z.k1-5058f.yaml": "files:\n- k1/static/p-dependencies.yaml\n",
		"k2/static/p-dependencies.yaml":                                       adoptDeps,
		"k2/.kratix/kratix-platform-system-p-static-deps-q3v9z.k2-5058f.yaml": "files:\n- k2/static/p-dependencies.yaml\n",
		// alpha on k1, and the long-named request on k2.
		"k1/alpha.yaml": requestYAML("alpha"),
		"k1/.kratix/default-p-alpha-instance-configure-x7k2p.k1-5058f.yaml": "files:\n- k1/alpha.yaml\n",
		"k2/" + kratixLongName + ".yaml":                                    requestYAML(kratixLongName),
		"k2/.kratix/default-" + kratixLongWork + ".k2-5058f.yaml":           "files:\n- k2/" + kratixLongName + ".yaml\n",
		// beta on k3: "p-beta-instance-configure-x7k2p.k3-5058f" sorts before
		// "p-static-deps-q3v9z.k3-5058f".
		"k3/aggregated.yaml": requestYAML("beta") + "\n---\n" + adoptDeps,
		"k4/aggregated.yaml": adoptDeps,
	}
	for _, d := range pool {
		store[d+"/kratix-canary-namespace.yaml"] = canaryNamespaceYAML
		store[d+"/kratix-canary-configmap.yaml"] = canaryConfigMapYAML
	}
	dests := map[string]string{"alpha": "k1", kratixLongName: "k2", "beta": "k3"}
	var names []string
	for name, dest := range dests {
		names = append(names, name)
		if c, _ := scheduling.Choose("default/p/"+name, pool); c == dest {
			t.Fatalf("request %s is on %s, the rendezvous choice: pick another name", name, c)
		}
	}
	sort.Strings(names)
	for _, p := range tfvalue.SortedKeys(store) {
		ts.put(t, p, []byte(store[p]))
	}
	before := ts.list(t)

	// What the provider writes: its parts, named without random characters. In mode none it
	// keeps Kratix's index files as its own, and adds none.
	const (
		k3Deps = ".kratix-aggregates/k3/aggregated.yaml/p-static-deps.k3-5058f.part"
		k4Deps = ".kratix-aggregates/k4/aggregated.yaml/p-static-deps.k4-5058f.part"
		k3Beta = ".kratix-aggregates/k3/aggregated.yaml/p_beta_default_instance-configure.k3-5058f.part"
	)
	longIndex := "k2/.kratix/default-" + kratixLongWork + ".k2-5058f.yaml"
	ours := map[string]string{
		k3Deps: adoptDeps,
		k4Deps: adoptDeps,
		k3Beta: requestYAML("beta"),
	}
	wantRequests := map[string]map[string]any{
		"alpha": {
			"k1/alpha.yaml": md5Of(requestYAML("alpha")),
			"k1/.kratix/default-p-alpha-instance-configure-x7k2p.k1-5058f.yaml": md5Of("files:\n- k1/alpha.yaml\n"),
		},
		kratixLongName: {
			"k2/" + kratixLongName + ".yaml": md5Of(requestYAML(kratixLongName)),
			longIndex:                        md5Of("files:\n- k2/" + kratixLongName + ".yaml\n"),
		},
		"beta": {k3Beta: md5Of(requestYAML("beta")), "k3/aggregated.yaml": "part:" + md5Of(requestYAML("beta"))},
	}
	wantPromise := map[string]map[string]any{
		"k1": {
			"k1/static/p-dependencies.yaml":                                       md5Of(adoptDeps),
			"k1/.kratix/kratix-platform-system-p-static-deps-q3v9z.k1-5058f.yaml": md5Of("files:\n- k1/static/p-dependencies.yaml\n"),
		},
		"k2": {
			"k2/static/p-dependencies.yaml":                                       md5Of(adoptDeps),
			"k2/.kratix/kratix-platform-system-p-static-deps-q3v9z.k2-5058f.yaml": md5Of("files:\n- k2/static/p-dependencies.yaml\n"),
		},
		"k3": {k3Deps: md5Of(adoptDeps), "k3/aggregated.yaml": "part:" + md5Of(adoptDeps)},
		"k4": {k4Deps: md5Of(adoptDeps), "k4/aggregated.yaml": "part:" + md5Of(adoptDeps)},
	}

	// beta is found in k3's aggregate, with no "@k3" in its import id: the promise's part, written
	// first, leaves beta's documents in the file (kept in the remainder part), and the apply's
	// own plan of beta finds them there again.
	c := newCLI(t, map[string]string{"main.tf": adoptConfigWith(ts, kratixNamedModes, names, nil)})
	out, err := c.run("plan", "-out=tfplan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	if strings.Contains(out, "Imported Request Not Found") {
		t.Errorf("a request was not found:\n%s", out)
	}
	changes := showPlan(t, c, "tfplan")
	for addr, rc := range changes {
		if rc.Change.Importing == nil {
			t.Errorf("%s: not imported (actions %v)", addr, rc.Change.Actions)
		}
		if a := rc.Change.Actions; len(a) != 1 || a[0] != "update" && a[0] != "no-op" {
			t.Errorf("%s: actions %v, want an import with at most an update in place", addr, a)
		}
	}
	for name, dest := range dests {
		after := changes["kratix_resource_request."+name].Change.After
		if after["destination"] != dest {
			t.Errorf("request %s planned on %v, want %s where Kratix put it", name, after["destination"], dest)
		}
		if got := after["written_files"]; !reflect.DeepEqual(got, wantRequests[name]) {
			t.Errorf("request %s: written_files %v, want %v", name, got, wantRequests[name])
		}
	}
	placements, _ := changes["kratix_promise.p"].Change.After["placements"].(map[string]any)
	for dest, want := range wantPromise {
		pl, _ := placements[dest].(map[string]any)
		if got := pl["files"]; !reflect.DeepEqual(got, want) {
			t.Errorf("promise on %s: files %v, want %v", dest, got, want)
		}
	}
	for p := range ours {
		if !strings.Contains(out, p) {
			t.Errorf("the plan does not show %s:\n%s", p, out)
		}
	}

	mark := ts.mark(t)
	if out, err := c.run("apply", "tfplan"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if kind == "bucket" {
		// The promise's part comes with the remainder of k3's file (every document of it, then
		// what the part does not hold: beta), so that no rebuild makes the file from the parts
		// alone; beta's part empties the remainder. Neither aggregate is written: k3's holds the
		// parts' documents in Kratix's order, k4's the promise's part only (and needs no
		// remainder).
		const k3Rest = ".kratix-aggregates/k3/aggregated.yaml/kratix-remainder.part"
		want := append(puts(tfvalue.SortedKeys(ours)...), "PUT "+k3Rest, "PUT "+k3Rest, "DELETE "+k3Rest)
		acctest.Run(t, acctest.WritesSince(ts.journal, &mark, want...))
	}
	// Every file Kratix wrote is still there, unchanged (k3's aggregate in Kratix's order); the
	// new files are exactly ours.
	for p, c := range ours {
		store[p] = c
	}
	want := map[string]bool{}
	for _, p := range before {
		want[p] = true
	}
	for p := range ours {
		want[p] = true
	}
	if after := ts.list(t); !reflect.DeepEqual(after, tfvalue.SortedKeys(want)) {
		t.Errorf("the store's files after the apply:\n%v\nwant\n%v", after, tfvalue.SortedKeys(want))
	}
	for p, content := range store {
		acctest.Run(t, acctest.FileHolds(ts.view, p, content))
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the apply is not empty: %v\n%s", err, out)
	}
}

// gitCommits counts the commits on main of a git test store, with the git CLI.
func gitCommits(t *testing.T, ts *testStore) int {
	t.Helper()
	n, err := gitServer.CommitCount(storeName(ts), "main")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAccAdoptRequestChoices: a request found on several destinations is an error that lists
// them and says how to pick one, and so is a destination holding several index files Kratix
// could have written for it; the explicit form <promise>/<namespace>/<name>@<destination>
// keeps it on the one named (a destination outside the pool is an error); a request found
// nowhere is placed by rendezvous, with a warning that says so.
func TestAccAdoptRequestChoices(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	copies := func(name string) map[string]string {
		return map[string]string{
			"w1/resources/default/p/" + name + "/instance-configure/5058f/" + name + ".yaml": requestYAML(name),
			"w2/resources/default/p/" + name + "/instance-configure/5058f/" + name + ".yaml": requestYAML(name),
		}
	}
	extra := copies("rd")
	extra[adoptAggregate] = adoptDeps
	for p, c := range copies("rf") {
		extra[p] = c
	}
	// Two index files on w4 that Kratix could have written for rg, neither listing rg's file.
	const (
		rgX7 = "w4/.kratix/default-p-rg-default-instance-configure-x7k2p.w4-5058f.yaml"
		rgQ3 = "w4/.kratix/default-p-rg-default-instance-configure-q3v9z.w4-5058f.yaml"
	)
	extra[rgX7], extra["w4/rg-a.yaml"] = "files:\n- w4/rg-a.yaml\n", requestYAML("rg")
	extra[rgQ3], extra["w4/rg-b.yaml"] = "files:\n- w4/rg-b.yaml\n", requestYAML("rg")
	writeKratixStore(t, ts, extra)
	if c, _ := scheduling.Choose("default/p/re", []string{"w1", "w2", "w3", "w4", "w5"}); c != "w3" {
		t.Fatalf("the rendezvous choice of re is %s; the test expects w3", c)
	}
	names := []string{"rd", "re", "rf"}

	c := newCLI(t, map[string]string{"main.tf": adoptConfig(ts, append(names, "rg"), map[string]string{"rf": "p/default/rf@w9"})})
	out, err := c.run("plan")
	if err == nil {
		t.Fatalf("the plan of a request found twice succeeded:\n%s", out)
	}
	for _, want := range []string{
		`Request Found On Several Destinations`,
		`Request p/default/rd was imported, and the folders of several destinations of the promise's pool hold it: w1, w2.`,
		`as p/default/rd@<destination>`,
		`Import Destination Not In Pool`,
		`destination "w9" is not in the promise's pool \(w1, w2, w3, w4, w5\)`,
		`Several Kratix Index Files Match`,
		`Request p/default/rg was imported, and the folder of destination "w4" holds several index files that Kratix may have written for it`,
		rgQ3 + ", " + rgX7,
		`Give the request exactly the files its WorkPlacement wrote`,
	} {
		if !wrapped(want).MatchString(out) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}

	c = newCLI(t, map[string]string{"main.tf": adoptConfig(ts, names, map[string]string{"rd": "p/default/rd@w2", "rf": "p/default/rf@w1"})})
	out, err = c.run("plan", "-out=tfplan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	for _, want := range []string{
		`Imported Request Not Found`,
		`Request p/default/re was imported, but no destination of the promise's pool holds its files. It is placed as a new request is, on "w3" \(the rendezvous choice\)`,
		`import it naming that one: p/default/re@<destination>`,
	} {
		if !wrapped(want).MatchString(out) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	reFile := "w3/resources/01-default-p-default-default-re-resources.yaml"
	want := map[string]struct {
		dest  string
		files map[string]string
	}{
		"rd": {"w2", map[string]string{"w2/resources/default/p/rd/instance-configure/5058f/rd.yaml": requestYAML("rd")}},
		"rf": {"w1", map[string]string{"w1/resources/default/p/rf/instance-configure/5058f/rf.yaml": requestYAML("rf")}},
		"re": {"w3", map[string]string{reFile: requestYAML("re")}},
	}
	changes := showPlan(t, c, "tfplan")
	for name, w := range want {
		after := changes["kratix_resource_request."+name].Change.After
		if after["destination"] != w.dest {
			t.Errorf("request %s planned on %v, want %s", name, after["destination"], w.dest)
		}
		if got := after["written_files"]; !reflect.DeepEqual(got, hashes(w.files)) {
			t.Errorf("request %s: written_files %v, want %v", name, got, hashes(w.files))
		}
	}
	mark := ts.mark(t)
	if out, err := c.run("apply", "tfplan"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	// Only the request found nowhere is written; the copies stay as they were.
	acctest.Run(t, acctest.WritesSince(ts.journal, &mark, puts(reFile)...))
	for p, content := range extra {
		acctest.Run(t, acctest.FileHolds(ts.view, p, content))
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the apply is not empty: %v\n%s", err, out)
	}
}

// TestAccAdoptPromiseMisscheduled: an imported promise whose files are on a destination that no
// longer matches keeps them there, recorded as misscheduled, and the apply writes nothing.
func TestAccAdoptPromiseMisscheduled(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	files := map[string]string{
		"w1/dependencies/p/5058f/static/p-dependencies.yaml": adoptDeps,
		"w2/dependencies/p/5058f/static/p-dependencies.yaml": adoptDeps,
		"w1/dependencies/kratix-canary-namespace.yaml":       canaryNamespaceYAML,
		"w1/resources/kratix-canary-configmap.yaml":          canaryConfigMapYAML,
		"w2/dependencies/kratix-canary-namespace.yaml":       canaryNamespaceYAML,
		"w2/resources/kratix-canary-configmap.yaml":          canaryConfigMapYAML,
	}
	for p, c := range files {
		ts.put(t, p, []byte(c))
	}
	config := ts.provider + requiredKratix + kratixStateStore{Label: "s", Body: ts.store}.String() +
		block("locals", []hclAttr{{"env", `{ w1 = "dev", w2 = "prod" }`}}, "") + kratixDestination{
		Label: "w", ForEach: "local.env", Name: "each.key", Path: "each.key", Labels: "{ env = each.value }", StateStore: "kratix_state_store.s",
	}.String() + kratixPromise{
		Label: "p", Name: q("p"), Destinations: "values(kratix_destination.w)", DestinationSelectors: matchLabels("env", "dev"), Dependencies: q(adoptDeps),
	}.String() + block("import", []hclAttr{{"to", "kratix_state_store.s"}, {"id", q(storeName(ts))}}, "") +
		block("import", []hclAttr{{"for_each", "local.env"}, {"to", "kratix_destination.w[each.key]"}, {"id", "each.key"}}, "") +
		block("import", []hclAttr{{"to", "kratix_promise.p"}, {"id", q("p")}}, "")
	c := newCLI(t, map[string]string{"main.tf": config})
	out, err := c.run("plan", "-out=tfplan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	if !wrapped(`Destination "w2" no longer matches promise "p"`).MatchString(out) {
		t.Errorf("the plan does not say w2 is misscheduled:\n%s", out)
	}
	after := showPlan(t, c, "tfplan")["kratix_promise.p"].Change.After
	if got := after["misscheduled_destinations"]; !reflect.DeepEqual(got, []any{"w2"}) {
		t.Errorf("misscheduled_destinations %v, want [w2]", got)
	}
	placements, _ := after["placements"].(map[string]any)
	for _, dest := range []string{"w1", "w2"} {
		pl, _ := placements[dest].(map[string]any)
		f := dest + "/dependencies/p/5058f/static/p-dependencies.yaml"
		if got, want := pl["files"], map[string]any{f: md5Of(adoptDeps)}; !reflect.DeepEqual(got, want) {
			t.Errorf("promise on %s: files %v, want %v", dest, got, want)
		}
		if got, want := pl["misscheduled"], dest == "w2"; got != want {
			t.Errorf("promise on %s: misscheduled %v, want %v", dest, got, want)
		}
	}
	mark := ts.mark(t)
	if out, err := c.run("apply", "tfplan"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	acctest.Run(t, acctest.NoWritesSince(ts.journal, &mark))
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the apply is not empty: %v\n%s", err, out)
	}
}
