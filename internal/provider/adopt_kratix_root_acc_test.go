package provider

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The fleet of issue 37's finding 14, in one store, as Kratix (syntasso/kratix at ae170e22)
// writes it: the platform's destination at the store's root ("root", path ".", mode none, its
// placements tracked by index files in .kratix/) beside six workers' destinations inside that
// folder (two per mode nestedByMetadata, none and splitByKind), all labelled env=dev. Promise p
// (selector env=dev) has its static dependencies on all seven; promise q (selector
// role=platform) on the root alone. Request platform-db is on the root and web on m1, neither
// where the rendezvous choice among the seven would put it. Names are Kratix's: a static
// dependency's Work is <promise>-static-deps-<5 random> in kratix-platform-system, a request's
// <promise>-<name>-<pipeline>-<5 random> in its namespace, a WorkPlacement <work>.<destination>-5058f,
// and mode none's index file .kratix/<namespace>-<WorkPlacement>.yaml under the destination's
// path, listing the files relative to the store's path (for path ".", with nothing before them).
var kratixRootModes = map[string]string{
	"root": "none",
	"m1":   "nestedByMetadata", "m2": "nestedByMetadata",
	"n1": "none", "n2": "none",
	"s1": "splitByKind", "s2": "splitByKind",
}

const kratixRootQDeps = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: q\n"

// kratixRootRequests: where Kratix put each request and what it wrote there.
var kratixRootRequests = map[string]kratixWorkRequest{
	"platform-db": {"root", map[string]string{
		"platform-db.yaml": requestYAML("platform-db"),
		".kratix/default-p-platform-db-instance-configure-k8s2x.root-5058f.yaml": "files:\n- platform-db.yaml\n",
	}},
	"web": {"m1", map[string]string{"m1/resources/default/p/web/instance-configure/5058f/web.yaml": requestYAML("web")}},
}

// kratixRootStore is every file Kratix wrote for the fleet.
func kratixRootStore() map[string]string {
	store := map[string]string{}
	for dest, mode := range kratixRootModes {
		dir := dest + "/"
		if dest == "root" {
			dir = ""
		}
		switch mode {
		case "nestedByMetadata":
			store[dir+"dependencies/kratix-canary-namespace.yaml"] = canaryNamespaceYAML
			store[dir+"resources/kratix-canary-configmap.yaml"] = canaryConfigMapYAML
			store[dir+"dependencies/p/5058f/static/p-dependencies.yaml"] = adoptDeps
		case "splitByKind":
			store[dir+"crds/kratix-crds.yaml"] = canaryNamespaceYAML
			store[dir+"resources/kratix-resources.yaml"] = canaryConfigMapYAML
			store[dir+"resources/01-default-p-default-resources.yaml"] = adoptDeps
		case "none":
			store[dir+"kratix-canary-namespace.yaml"] = canaryNamespaceYAML
			store[dir+"kratix-canary-configmap.yaml"] = canaryConfigMapYAML
			store[dir+"static/p-dependencies.yaml"] = adoptDeps
			store[dir+".kratix/kratix-platform-system-p-static-deps-q3v9z."+dest+"-5058f.yaml"] = "files:\n- " + dir + "static/p-dependencies.yaml\n"
		}
	}
	store["static/q-dependencies.yaml"] = kratixRootQDeps
	store[".kratix/kratix-platform-system-q-static-deps-7tx4m.root-5058f.yaml"] = "files:\n- static/q-dependencies.yaml\n"
	for _, r := range kratixRootRequests {
		for p, c := range r.files {
			store[p] = c
		}
	}
	return store
}

func kratixRootConfig(ts *testStore) string {
	names := tfvalue.SortedKeys(kratixRootModes)
	var modes []string
	for _, n := range names {
		modes = append(modes, fmt.Sprintf("%s = %q", n, kratixRootModes[n]))
	}
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
  path          = each.key == "root" ? "." : each.key
  filepath_mode = each.value
  labels        = each.key == "root" ? { env = "dev", role = "platform" } : { env = "dev" }
  state_store   = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name                  = "p"
  destinations          = values(kratix_destination.w)
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies          = %q
}

resource "kratix_promise" "q" {
  name                  = "q"
  destinations          = values(kratix_destination.w)
  destination_selectors = [{ match_labels = { role = "platform" } }]
  dependencies          = %q
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

import {
  to = kratix_promise.q
  id = "q"
}
`, ts.store, strings.Join(modes, ", "), adoptDeps, kratixRootQDeps, storeName(ts))
	for _, r := range tfvalue.SortedKeys(kratixRootRequests) {
		fmt.Fprintf(&b, `
resource "kratix_resource_request" %[1]q {
  promise = kratix_promise.p
  name    = %[1]q
  files   = { "%[1]s.yaml" = %[2]q }
}

import {
  to = kratix_resource_request.%[1]s
  id = "p/default/%[1]s"
}
`, r, requestYAML(r))
	}
	return b.String()
}

// TestAccAdoptKratixRootDestination: the fleet above, laid out by Kratix, is adopted by import
// on a bucket and a repository: 12 imports (store, seven destinations, two promises, two
// requests), each request found where Kratix put it, and the apply writes nothing at all (no
// PUT or DELETE on the bucket, no commit on the repository: Kratix's index files are the
// placements' own); every file stays as Kratix wrote it, and the next plan is empty. Before,
// the first plan failed with "Overlapping Destination Folders ... inside the folder of
// destination "root"".
func TestAccAdoptKratixRootDestination(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) { testAdoptKratixRootDestination(t, kind) })
}

func testAdoptKratixRootDestination(t *testing.T, kind string) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	pool := tfvalue.SortedKeys(kratixRootModes)
	for _, name := range tfvalue.SortedKeys(kratixRootRequests) {
		if c, _ := scheduling.Choose("default/p/"+name, pool); c == kratixRootRequests[name].dest {
			t.Fatalf("request %s is on %s, its rendezvous choice: pick another name", name, c)
		}
	}
	store := kratixRootStore()
	for _, p := range tfvalue.SortedKeys(store) {
		ts.put(t, p, []byte(store[p]))
	}
	before := ts.list(t)
	commits := 0
	if kind != "bucket" {
		commits = gitCommits(t, ts)
	}

	c := newCLI(t, map[string]string{"main.tf": kratixRootConfig(ts)})
	raw, err := c.run("plan", "-json", "-out=tfplan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, planDiagnostics(t, raw))
	}
	out := planDiagnostics(t, raw)
	if strings.Contains(out, "Imported Request Not Found") || strings.Contains(out, "Import Adds Bookkeeping Files") {
		t.Errorf("the plan did not find a request, or adds files:\n%s", out)
	}
	changes := showPlan(t, c, "tfplan")
	if len(changes) != 12 {
		t.Errorf("the plan has %d resources, want 12", len(changes))
	}
	for addr, rc := range changes {
		if rc.Change.Importing == nil {
			t.Errorf("%s: not imported (actions %v)", addr, rc.Change.Actions)
		}
		if a := rc.Change.Actions; len(a) != 1 || a[0] != "update" && a[0] != "no-op" {
			t.Errorf("%s: actions %v, want an import with at most an update in place", addr, a)
		}
	}
	for _, name := range tfvalue.SortedKeys(kratixRootRequests) {
		r := kratixRootRequests[name]
		after := changes["kratix_resource_request."+name].Change.After
		if after["destination"] != r.dest {
			t.Errorf("request %s planned on %v, want %s where Kratix put it", name, after["destination"], r.dest)
		}
		want := map[string]any{}
		for p, c := range r.files {
			want[p] = md5Of(c)
		}
		if got := after["written_files"]; !reflect.DeepEqual(got, want) {
			t.Errorf("request %s: written_files %v, want %v", name, got, want)
		}
	}
	// q is on the root alone, with Kratix's index file as its own.
	placements, _ := changes["kratix_promise.q"].Change.After["placements"].(map[string]any)
	wantQ := map[string]any{
		"static/q-dependencies.yaml":                                         md5Of(kratixRootQDeps),
		".kratix/kratix-platform-system-q-static-deps-7tx4m.root-5058f.yaml": md5Of("files:\n- static/q-dependencies.yaml\n"),
	}
	if pl, _ := placements["root"].(map[string]any); len(placements) != 1 || !reflect.DeepEqual(pl["files"], wantQ) {
		t.Errorf("promise q's placements %v, want the root alone with files %v", placements, wantQ)
	}

	mark := ts.mark(t)
	if out, err := c.run("apply", "tfplan"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if kind == "bucket" {
		if w := ts.writesSince(t, mark); len(w) != 0 {
			t.Errorf("the apply wrote to the bucket: %v", w)
		}
		if p := ts.recorder.probeWrites(); len(p) > 0 {
			t.Errorf("the apply probed the imported store: %v", p)
		}
	} else if n, w := gitCommits(t, ts)-commits, ts.writesSince(t, mark); n < 7 || len(w) != 0 {
		// One commit per adopted destination, each writing its registration record and nothing
		// else, and the commits of the imported objects' owner records, which the imports take
		// over (issue 39; the journal leaves out commits that change only the registry).
		t.Errorf("the apply made %d commits, want at least 7 (one per destination's record), none of the layout: %v", n, w)
	}
	if after := ts.list(t); !reflect.DeepEqual(after, before) {
		t.Errorf("the store's files after the apply:\n%v\nwant\n%v", after, before)
	}
	for _, p := range tfvalue.SortedKeys(store) {
		if got, _ := ts.read(t, p); string(got) != store[p] {
			t.Errorf("%s holds %q, want %q as Kratix wrote it", p, got, store[p])
		}
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the apply is not empty: %v\n%s", err, out)
	}
}
