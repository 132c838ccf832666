package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// A destination at the store's root in mode none ("root", path ".") beside destinations inside
// its folder, one per mode that the inner one may have: nestedByMetadata at w-nested, none at
// w-none, aggregatedYAML at w-agg. Every destination has cleanup = "all". Promise p is on all of
// them; request r-<slot> is on each one alone (its selector names the slot), with one file
// r-<slot>.yaml.
var rootHeld = []string{"nested", "flat", "agg"}

var rootFolders = map[string]struct{ path, mode string }{
	"root":   {".", "none"},
	"nested": {"w-nested", "nestedByMetadata"},
	"flat":   {"w-none", "none"},
	"agg":    {"w-agg", "aggregatedYAML"},
}

// rootDestinationConfig is the configuration with the destinations of present (and their
// requests).
func rootDestinationConfig(ts *testStore, present ...string) string {
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
`, ts.store)
	var pool []string
	for _, d := range present {
		f := rootFolders[d]
		fmt.Fprintf(&b, `
resource "kratix_destination" %[1]q {
  name          = %[1]q
  path          = %[2]q
  filepath_mode = %[3]q
  cleanup       = "all"
  labels        = { env = "dev", slot = %[1]q }
  state_store   = kratix_state_store.s
}

resource "kratix_resource_request" "r-%[1]s" {
  promise               = kratix_promise.p
  name                  = "r-%[1]s"
  destination_selectors = [{ match_labels = { slot = %[1]q } }]
  files                 = { "r-%[1]s.yaml" = %[4]q }
}
`, d, f.path, f.mode, requestYAML("r-"+d))
		pool = append(pool, "kratix_destination."+d)
	}
	fmt.Fprintf(&b, `
resource "kratix_promise" "p" {
  name                  = "p"
  destinations          = [%s]
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies          = %q
}
`, strings.Join(pool, ", "), adoptDeps)
	return b.String()
}

// rootDestinationFiles is what each destination's folder holds, spelled by hand from Kratix's
// layout and the provider's names for its index files and aggregate parts.
func rootDestinationFiles(d string) map[string]string {
	req := "r-" + d
	switch d {
	case "root":
		return map[string]string{
			"kratix-canary-namespace.yaml":                                 canaryNamespaceYAML,
			"kratix-canary-configmap.yaml":                                 canaryConfigMapYAML,
			"static/p-dependencies.yaml":                                   adoptDeps,
			".kratix/kratix-platform-system-p-static-deps.root-5058f.yaml": "files:\n- static/p-dependencies.yaml\n",
			"r-root.yaml": requestYAML(req),
			".kratix/default-p_r-root_default_instance-configure.root-5058f.yaml": "files:\n- r-root.yaml\n",
		}
	case "nested":
		return map[string]string{
			"w-nested/dependencies/kratix-canary-namespace.yaml":                           canaryNamespaceYAML,
			"w-nested/resources/kratix-canary-configmap.yaml":                              canaryConfigMapYAML,
			"w-nested/dependencies/p/5058f/static/p-dependencies.yaml":                     adoptDeps,
			"w-nested/resources/default/p/r-nested/instance-configure/5058f/r-nested.yaml": requestYAML(req),
		}
	case "flat":
		return map[string]string{
			"w-none/kratix-canary-namespace.yaml":                                        canaryNamespaceYAML,
			"w-none/kratix-canary-configmap.yaml":                                        canaryConfigMapYAML,
			"w-none/static/p-dependencies.yaml":                                          adoptDeps,
			"w-none/.kratix/kratix-platform-system-p-static-deps.flat-5058f.yaml":        "files:\n- w-none/static/p-dependencies.yaml\n",
			"w-none/r-flat.yaml":                                                         requestYAML(req),
			"w-none/.kratix/default-p_r-flat_default_instance-configure.flat-5058f.yaml": "files:\n- w-none/r-flat.yaml\n",
		}
	case "agg":
		return map[string]string{
			"w-agg/kratix-canary-namespace.yaml": canaryNamespaceYAML,
			"w-agg/kratix-canary-configmap.yaml": canaryConfigMapYAML,
			// The parts in the order of their names: p-static-deps... before p_r-agg_...
			"w-agg/aggregated.yaml": adoptDeps + "\n---\n" + requestYAML(req),
			".kratix-aggregates/w-agg/aggregated.yaml/p-static-deps.agg-5058f.part":                      adoptDeps,
			".kratix-aggregates/w-agg/aggregated.yaml/p_r-agg_default_instance-configure.agg-5058f.part": requestYAML(req),
		}
	}
	panic(d)
}

// TestAccRootDestinationHoldsOthers: Kratix's root destination (path ".", mode none) beside
// destinations inside its folder in modes nestedByMetadata, none and aggregatedYAML, all with
// cleanup = "all", on a bucket and a repository. The plan accepts them (it refused them with
// "Overlapping Destination Folders" before), each writes exactly its own files, a hand edit of
// each one's files (and a stray file in a folder nestedByMetadata owns) is repaired without
// touching the others', destroying the inner destinations leaves the root's files byte for
// byte, destroying the root leaves the inner ones', and destroy leaves only the file nobody
// wrote (README.md); a request on the root that would write into a held folder is refused at
// plan. Expected files are spelled by hand (rootDestinationFiles); the store is read
// back with the test's own client, and on the bucket no PUT or DELETE on the wire touches a file
// of a destination that is not changing.
func TestAccRootDestinationHoldsOthers(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) { testRootDestinationHoldsOthers(t, kind) })
}

func testRootDestinationHoldsOthers(t *testing.T, kind string) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	const readme = "README.md" // git's seed; the test writes it to the bucket: a file nobody owns
	if kind == "bucket" {
		ts.put(t, readme, []byte("# fleet\n"))
	}
	all := append([]string{"root"}, rootHeld...)
	// expect is the whole store when the destinations of present are there.
	expect := func(present ...string) map[string]string {
		out := map[string]string{}
		for _, d := range present {
			for p, c := range rootDestinationFiles(d) {
				out[p] = c
			}
		}
		return out
	}
	// holds checks that the store holds exactly want and README.md.
	holds := func(step string, want map[string]string) {
		t.Helper()
		paths := []string{readme}
		for p := range want {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		if got := ts.list(t); !reflect.DeepEqual(got, paths) {
			t.Fatalf("%s: the store holds\n%q\nwant\n%q", step, got, paths)
		}
		for p, c := range want {
			if got, _ := ts.read(t, p); string(got) != c {
				t.Errorf("%s: %s holds %q, want %q", step, p, got, c)
			}
		}
	}
	// untouched checks that no write on the wire since mark touched a path of keep (buckets;
	// a repository's tree is compared whole by holds).
	untouched := func(step string, since int, keep map[string]string) {
		t.Helper()
		if kind != "bucket" {
			return
		}
		w, _ := ts.recorder.snapshot()
		for _, op := range w[since:] {
			_, key, _ := strings.Cut(op, " ")
			if _, kept := keep[key]; kept {
				t.Errorf("%s: %s, a file of a destination that is not changing", step, op)
			}
		}
	}
	writes := func() int {
		if kind != "bucket" {
			return 0
		}
		w, _ := ts.recorder.snapshot()
		return len(w)
	}
	c := newCLI(t, map[string]string{"main.tf": rootDestinationConfig(ts, all...)})
	apply := func(step, config string) {
		t.Helper()
		if config != "" {
			if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("%s: apply: %v\n%s", step, err, out)
		}
		if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
			t.Fatalf("%s: the plan after the apply is not empty: %v\n%s", step, err, out)
		}
	}

	apply("create", "")
	holds("create", expect(all...))

	// Drift: a hand edit of a file of each destination and a stray file where nestedByMetadata
	// owns the folder. The repair rewrites those alone.
	edited := map[string]bool{
		"static/p-dependencies.yaml": true,
		"r-root.yaml":                true,
		"w-none/r-flat.yaml":         true,
		"w-nested/resources/default/p/r-nested/instance-configure/5058f/r-nested.yaml": true,
		"w-agg/aggregated.yaml": true,
	}
	for p := range edited {
		ts.put(t, p, []byte("edited by hand\n"))
	}
	stray := "w-nested/dependencies/p/5058f/stray.yaml"
	ts.put(t, stray, []byte("stray\n"))
	if out, err := c.run("plan", "-detailed-exitcode"); err == nil {
		t.Fatalf("the plan after the hand edits is empty:\n%s", out)
	}
	since := writes()
	apply("repair", "")
	holds("repair", expect(all...))
	if kind == "bucket" {
		w, _ := ts.recorder.snapshot()
		var want []string
		for p := range edited {
			want = append(want, "PUT "+p)
		}
		want = append(want, "DELETE "+stray)
		got := append([]string(nil), w[since:]...)
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the repair wrote\n%q\nwant\n%q", got, want)
		}
	}

	// The inner destinations go (cleanup = "all"): the root's files stay as they are.
	since = writes()
	apply("inner destinations destroyed", rootDestinationConfig(ts, "root"))
	holds("inner destinations destroyed", expect("root"))
	untouched("inner destinations destroyed", since, expect("root"))

	apply("inner destinations back", rootDestinationConfig(ts, all...))
	holds("inner destinations back", expect(all...))

	// The root goes (cleanup = "all"): the inner ones' files stay as they are.
	since = writes()
	apply("root destroyed", rootDestinationConfig(ts, rootHeld...))
	holds("root destroyed", expect(rootHeld...))
	untouched("root destroyed", since, expect(rootHeld...))

	apply("root back", rootDestinationConfig(ts, all...))
	holds("root back", expect(all...))

	// A file a placement on the root would write inside a held destination's folder is refused
	// at plan, at the file's key: the nested destination would prune it as a stray file, and the
	// flat one's cluster would apply it. Nothing is written.
	for _, tt := range []struct{ file, inner string }{
		{"w-nested/resources/default/p/r-nested/instance-configure/5058f/extra.yaml", "nested"},
		{"w-none/extra.yaml", "flat"},
	} {
		config := strings.Replace(rootDestinationConfig(ts, all...), `{ "r-root.yaml" = `,
			fmt.Sprintf(`{ %q = "kind: X\n", "r-root.yaml" = `, tt.file), 1)
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		since := writes()
		out, err := c.run("plan")
		flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
		want := fmt.Sprintf(`Request p/default/r-root would write %q on destination "root"`, tt.file)
		if err == nil || !strings.Contains(flat, "File Inside Another Destination's Folder") || !strings.Contains(flat, want) ||
			!strings.Contains(flat, fmt.Sprintf(`destination %q`, tt.inner)) {
			t.Errorf("the plan writing %s was not refused with %q naming %s:\n%s", tt.file, want, tt.inner, out)
		}
		holds("refused "+tt.file, expect(all...))
		if kind == "bucket" && writes() != since {
			t.Errorf("the refused plan wrote to the bucket")
		}
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(rootDestinationConfig(ts, all...)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("destroy", "-auto-approve"); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	holds("destroy", nil)
}
