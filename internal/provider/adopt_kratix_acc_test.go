package provider

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// A store laid out exactly as Kratix (syntasso/kratix at ae170e22) names it for a default
// promise "p" (no workflows.config.pipelineNamespace) and its requests in namespace "default",
// pipeline "instance-configure": eight destinations, two per filepath mode, all labelled
// env=dev, so that the promise's selector matches every one of them and a request placed by the
// rendezvous choice instead of being found would land on another destination. Paths and names
// are spelled by hand from Kratix's source: a request's Work is `<promise>-<name>-<pipeline>`
// (the namespace part only with a pipelineNamespace), then "-" and five random characters; a
// WorkPlacement is `<work>.<destination>-5058f`; its index file of mode none is
// `.kratix/<WorkPlacement namespace>-<WorkPlacement name>.yaml`, listing the files relative to
// the store's path; an aggregatedYAML file joins the WorkPlacements' documents in the order of
// their names.
var kratixWorkModes = map[string]string{
	"n1": "none", "n2": "none",
	"m1": "nestedByMetadata", "m2": "nestedByMetadata",
	"a1": "aggregatedYAML", "a2": "aggregatedYAML",
	"s1": "splitByKind", "s2": "splitByKind",
}

// kratixWorkRequest is one request as Kratix placed it: its destination and the files Kratix
// wrote for it there.
type kratixWorkRequest struct {
	dest  string
	files map[string]string
}

// kratixWorkRequests: one request per mode, each on a destination that is not its rendezvous
// choice among the eight; "piped" as a promise with pipelineNamespace "pipelines" would have
// named it, whose Work carries the request's namespace and lives in the pipeline namespace.
var kratixWorkRequests = map[string]kratixWorkRequest{
	// The name the finding saw: sample-sample-b-instance-configure-e4d7c for promise "sample".
	"sample-b": {"n2", map[string]string{
		"n2/sample-b.yaml": requestYAML("sample-b"),
		"n2/.kratix/default-p-sample-b-instance-configure-e4d7c.n2-5058f.yaml": "files:\n- n2/sample-b.yaml\n",
	}},
	"piped": {"n1", map[string]string{
		"n1/piped.yaml": requestYAML("piped"),
		"n1/.kratix/pipelines-p-piped-default-instance-configure-b81f0.n1-5058f.yaml": "files:\n- n1/piped.yaml\n",
	}},
	// multi's pipeline wrote three files (kratixWorkOutputs), which Kratix lists in the order it
	// walked /kratix/output: the folder multi before multi-x.yaml before multi.yaml, where
	// comparing whole paths would put them the other way round.
	"multi": {"n1", map[string]string{
		"n1/multi.yaml":        requestYAML("multi"),
		"n1/multi-x.yaml":      requestYAML("multi-x"),
		"n1/multi/deploy.yaml": requestYAML("multi-deploy"),
		"n1/.kratix/default-p-multi-instance-configure-7hq2d.n1-5058f.yaml": "files:\n- n1/multi/deploy.yaml\n- n1/multi-x.yaml\n- n1/multi.yaml\n",
	}},
	"nested": {"m2", map[string]string{"m2/resources/default/p/nested/instance-configure/5058f/nested.yaml": requestYAML("nested")}},
	"split":  {"s2", map[string]string{"s2/resources/01-default-p-default-default-split-resources.yaml": requestYAML("split")}},
	// agg's documents are in a2's aggregate (below), which Kratix wrote without parts.
	"agg": {"a2", nil},
}

// kratixWorkOutputs are the files of the requests whose pipeline wrote more than <name>.yaml, by
// path in /kratix/output.
var kratixWorkOutputs = map[string]map[string]string{
	"multi": {"multi.yaml": requestYAML("multi"), "multi-x.yaml": requestYAML("multi-x"), "multi/deploy.yaml": requestYAML("multi-deploy")},
}

// kratixWorkStore is every file Kratix wrote: canaries, the promise's static dependencies on all
// eight destinations (Work p-static-deps-q3v9z in kratix-platform-system), and the requests.
func kratixWorkStore() map[string]string {
	store := map[string]string{}
	for dest, mode := range kratixWorkModes {
		switch mode {
		case "nestedByMetadata":
			store[dest+"/dependencies/kratix-canary-namespace.yaml"] = canaryNamespaceYAML
			store[dest+"/resources/kratix-canary-configmap.yaml"] = canaryConfigMapYAML
			store[dest+"/dependencies/p/5058f/static/p-dependencies.yaml"] = adoptDeps
		case "splitByKind":
			store[dest+"/crds/kratix-crds.yaml"] = canaryNamespaceYAML
			store[dest+"/resources/kratix-resources.yaml"] = canaryConfigMapYAML
			store[dest+"/resources/01-default-p-default-resources.yaml"] = adoptDeps
		case "none":
			store[dest+"/kratix-canary-namespace.yaml"] = canaryNamespaceYAML
			store[dest+"/kratix-canary-configmap.yaml"] = canaryConfigMapYAML
			store[dest+"/static/p-dependencies.yaml"] = adoptDeps
			store[dest+"/.kratix/kratix-platform-system-p-static-deps-q3v9z."+dest+"-5058f.yaml"] = "files:\n- " + dest + "/static/p-dependencies.yaml\n"
		case "aggregatedYAML":
			store[dest+"/kratix-canary-namespace.yaml"] = canaryNamespaceYAML
			store[dest+"/kratix-canary-configmap.yaml"] = canaryConfigMapYAML
			store[dest+"/aggregated.yaml"] = adoptDeps
		}
	}
	// p-agg-instance-configure-c0ffe.a2-5058f sorts before p-static-deps-q3v9z.a2-5058f.
	store["a2/aggregated.yaml"] = requestYAML("agg") + "\n---\n" + adoptDeps
	for _, r := range kratixWorkRequests {
		for p, c := range r.files {
			store[p] = c
		}
	}
	return store
}

// kratixWorkConfig is the store, the eight destinations (env=dev), promise p selecting env=dev,
// and the requests, each with one file <name>.yaml (or its kratixWorkOutputs), with import blocks
// for all of them.
func kratixWorkConfig(ts *testStore, requests []string) string {
	names := tfvalue.SortedKeys(kratixWorkModes)
	var locals []string
	for _, n := range names {
		locals = append(locals, fmt.Sprintf("%s = %q", n, kratixWorkModes[n]))
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
  labels        = { env = "dev" }
  state_store   = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name                  = "p"
  destinations          = [for n in %s : kratix_destination.w[n]]
  destination_selectors = [{ match_labels = { env = "dev" } }]
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
`, ts.store, strings.Join(locals, ", "), pool, adoptDeps, storeName(ts))
	for _, r := range requests {
		output := kratixWorkOutputs[r]
		if output == nil {
			output = map[string]string{r + ".yaml": requestYAML(r)}
		}
		var files []string
		for _, name := range tfvalue.SortedKeys(output) {
			files = append(files, fmt.Sprintf("%q = %q", name, output[name]))
		}
		fmt.Fprintf(&b, `
resource "kratix_resource_request" %q {
  promise = kratix_promise.p
  name    = %q
  files   = { %s }
}

import {
  to = kratix_resource_request.%s
  id = %q
}
`, r, r, strings.Join(files, ", "), r, "p/default/"+r)
	}
	return b.String()
}

// TestAccAdoptKratixWorkNames: a store laid out as Kratix names it for a default promise, in
// every filepath mode, imported with plain import ids. Each request is found on the destination
// Kratix used, not on its rendezvous choice (each test request's choice is another destination
// of the eight the selector matches), whichever name Kratix gave its Work (with or without the
// namespace part). The apply probes no store (no write check on the imported state store), and
// writes nothing in the folders of modes none, nestedByMetadata and splitByKind: Kratix's own
// index files of mode none are the placements' index files from now on, so none is added beside
// them, and none is rewritten (multi's lists its files in the order Kratix walked them, which is
// not the order of the whole paths). In aggregatedYAML the parts the provider keeps are added,
// each listed in the plan with where and why, and no aggregate is written: a2's, which Kratix
// joined from two WorkPlacements in the order of their names, holds the same pieces as the
// parts' join in another order, and stays as Kratix wrote it. The next plan is empty.
//
// What stays: on a bucket, a2's remainder part is put with every document of the file before the
// promise's part (so that a rebuild by another writer in between loses none, see seedRemainder),
// put again without the promise's document once its part is there, and deleted once the
// request's part holds the last one. Nothing writes the aggregate meanwhile.
func TestAccAdoptKratixWorkNames(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) { testAdoptKratixWorkNames(t, kind) })
}

func testAdoptKratixWorkNames(t *testing.T, kind string) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	pool := tfvalue.SortedKeys(kratixWorkModes)
	names := tfvalue.SortedKeys(kratixWorkRequests)
	for _, name := range names {
		r := kratixWorkRequests[name]
		if c, _ := scheduling.Choose("default/p/"+name, pool); c == r.dest {
			t.Fatalf("request %s is on %s, its rendezvous choice: pick another name", name, c)
		}
	}
	store := kratixWorkStore()
	for _, p := range tfvalue.SortedKeys(store) {
		ts.put(t, p, []byte(store[p]))
	}
	before := ts.list(t)
	commits := 0
	if kind != "bucket" {
		commits = gitCommits(t, ts)
	}

	// The parts the provider adds in mode aggregatedYAML, named as it names its placements.
	const (
		a1Deps = ".kratix-aggregates/a1/aggregated.yaml/p-static-deps.a1-5058f.part"
		a2Deps = ".kratix-aggregates/a2/aggregated.yaml/p-static-deps.a2-5058f.part"
		a2Agg  = ".kratix-aggregates/a2/aggregated.yaml/p_agg_default_instance-configure.a2-5058f.part"
		a2Rest = ".kratix-aggregates/a2/aggregated.yaml/kratix-remainder.part"
	)
	added := map[string]string{a1Deps: adoptDeps, a2Deps: adoptDeps, a2Agg: requestYAML("agg")}

	wantRequests := map[string]map[string]any{}
	for name, r := range kratixWorkRequests {
		wantRequests[name] = map[string]any{}
		for p, c := range r.files {
			wantRequests[name][p] = md5Of(c)
		}
	}
	wantRequests["agg"] = map[string]any{a2Agg: md5Of(requestYAML("agg")), "a2/aggregated.yaml": "part:" + md5Of(requestYAML("agg"))}
	wantPromise := map[string]map[string]any{}
	for dest, mode := range kratixWorkModes {
		files := map[string]any{}
		switch mode {
		case "nestedByMetadata":
			files[dest+"/dependencies/p/5058f/static/p-dependencies.yaml"] = md5Of(adoptDeps)
		case "splitByKind":
			files[dest+"/resources/01-default-p-default-resources.yaml"] = md5Of(adoptDeps)
		case "none":
			files[dest+"/static/p-dependencies.yaml"] = md5Of(adoptDeps)
			index := dest + "/.kratix/kratix-platform-system-p-static-deps-q3v9z." + dest + "-5058f.yaml"
			files[index] = md5Of(store[index])
		case "aggregatedYAML":
			part := ".kratix-aggregates/" + dest + "/aggregated.yaml/p-static-deps." + dest + "-5058f.part"
			files[part], files[dest+"/aggregated.yaml"] = md5Of(adoptDeps), "part:"+md5Of(adoptDeps)
		}
		wantPromise[dest] = files
	}

	c := newCLI(t, map[string]string{"main.tf": kratixWorkConfig(ts, names)})
	// -json: the human output folds warnings with one summary into the first one.
	raw, err := c.run("plan", "-json", "-out=tfplan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, raw)
	}
	out := planDiagnostics(t, raw)
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
	for _, name := range names {
		after := changes["kratix_resource_request."+name].Change.After
		if want := kratixWorkRequests[name].dest; after["destination"] != want {
			t.Errorf("request %s planned on %v, want %s where Kratix put it", name, after["destination"], want)
		}
		if got := after["written_files"]; !reflect.DeepEqual(got, wantRequests[name]) {
			t.Errorf("request %s: written_files %v, want %v", name, got, wantRequests[name])
		}
	}
	placements, _ := changes["kratix_promise.p"].Change.After["placements"].(map[string]any)
	for _, dest := range pool {
		pl, _ := placements[dest].(map[string]any)
		if got := pl["files"]; !reflect.DeepEqual(got, wantPromise[dest]) {
			t.Errorf("promise on %s: files %v, want %v", dest, got, wantPromise[dest])
		}
	}
	// Each file the apply adds is listed, with where and why; nothing in .kratix/ is added.
	for _, want := range []string{
		`Import Adds Bookkeeping Files`,
		`- ` + a1Deps + ` \(destination "a1"\): the part that holds Promise "p"'s documents of the aggregatedYAML file`,
		`- ` + a2Deps + ` \(destination "a2"\): the part that holds Promise "p"'s documents`,
		`- ` + a2Agg + ` \(destination "a2"\): the part that holds Request p/default/agg's documents`,
		`every writer rebuilds that file from the parts, which Kratix does not keep`,
		// What the plan's "+" on placements is: a record of what was found, not a write.
		`Import Records Files From The Store`,
		`Promise "p" is imported. Its files on m1, m2, n1, n2, s1, s2 \(\d+ in all\) were read from the store and are recorded in state as they are`,
		`nothing is written to these destinations. The apply writes to a1, a2:`,
	} {
		if !wrapped(want).MatchString(out) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	if wrapped(`/\.kratix/\S* \(destination`).MatchString(out) {
		t.Errorf("the plan adds an index file beside Kratix's:\n%s", out)
	}

	mark := ts.mark(t)
	probes := 0
	if kind == "bucket" {
		probes = len(ts.recorder.probeWrites())
		ts.recorder.watch(a2Rest)
	}
	if out, err := c.run("apply", "tfplan"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if kind == "bucket" {
		if p := ts.recorder.probeWrites()[probes:]; len(p) > 0 {
			t.Errorf("the apply probed the imported store: %v", p)
		}
		// The parts, and on a2 only (see above) the remainder; no aggregate. a1's, whose
		// documents the promise's part holds whole, needs no remainder.
		want := append(puts(tfvalue.SortedKeys(added)...), "PUT "+a2Rest, "PUT "+a2Rest, "DELETE "+a2Rest)
		acctest.Run(t, acctest.WritesSince(ts.journal, &mark, want...))
		// First every document of Kratix's file, in its order; then what no part holds yet.
		wantRest := []string{requestYAML("agg") + "\n---\n" + adoptDeps, requestYAML("agg")}
		if got := ts.recorder.putBodies(a2Rest); !reflect.DeepEqual(got, wantRest) {
			t.Errorf("the PUTs of %s were\n%q\nwant\n%q", a2Rest, got, wantRest)
		}
	} else if w := ts.writesSince(t, mark); len(w) != 2 {
		// One for the promise's parts, one for agg's part: nothing else of the layout is written
		// (the adopted destinations' registration records, issue 39, are commits of their own,
		// which the journal leaves out).
		t.Errorf("the apply made %d commits of the layout, want 2 (the promise's parts, agg's part): %v (%d commits in all)", len(w), w, gitCommits(t, ts)-commits)
	}
	// Every file Kratix wrote is there with its content, a2's aggregate in Kratix's order; the
	// files added are exactly the parts.
	want := map[string]bool{}
	for _, p := range before {
		want[p] = true
	}
	for p, content := range added {
		want[p], store[p] = true, content
	}
	if after := ts.list(t); !reflect.DeepEqual(after, tfvalue.SortedKeys(want)) {
		t.Errorf("the store's files after the apply:\n%v\nwant\n%v", after, tfvalue.SortedKeys(want))
	}
	for _, p := range tfvalue.SortedKeys(store) {
		acctest.Run(t, acctest.FileHolds(ts.view, p, store[p]))
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the apply is not empty: %v\n%s", err, out)
	}
}

// planDiagnostics is the summary and detail of every diagnostic of a `terraform plan -json`
// run, one after the other, as the human output would print them unfolded.
func planDiagnostics(t *testing.T, raw string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(raw, "\n") {
		var msg struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
				Detail   string `json:"detail"`
			} `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.Type != "diagnostic" {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n%s\n\n", msg.Diagnostic.Severity, msg.Diagnostic.Summary, msg.Diagnostic.Detail)
	}
	return b.String()
}
