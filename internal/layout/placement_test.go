package layout

import (
	"reflect"
	"slices"
	"testing"
)

func TestDependencyFiles(t *testing.T) {
	deps := Dependencies{Promise: "jenkins", All: []byte("all\n"), CRDs: []byte("crds\n"), Others: []byte("others\n")}
	tests := []struct {
		mode      Mode
		root      string
		storePath string
		wantPut   map[string]string
		wantPrune []string
		wantAgg   *Aggregate
	}{
		{ModeNestedByMetadata, "dev", "", map[string]string{
			"dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": "all\n",
		}, []string{"dev/dependencies/jenkins/5058f/"}, nil},
		{ModeNone, "stores/dev", "stores", map[string]string{
			"stores/dev/static/jenkins-dependencies.yaml":                                       "all\n",
			"stores/dev/.kratix/kratix-platform-system-jenkins-static-deps.worker-1-5058f.yaml": "files:\n- dev/static/jenkins-dependencies.yaml\n",
		}, nil, nil},
		{ModeAggregatedYAML, "dev", "", map[string]string{
			".kratix-aggregates/dev/aggregated.yaml/jenkins-static-deps.worker-1-5058f.part": "all\n",
		}, nil, &Aggregate{File: "dev/aggregated.yaml", Dir: ".kratix-aggregates/dev/aggregated.yaml/"}},
		// The 2023 layout (splitByKind), CRDs first.
		{ModeSplitByKind, "default/worker-cluster", "", map[string]string{
			"default/worker-cluster/crds/00-default-jenkins-default-crds.yaml":           "crds\n",
			"default/worker-cluster/resources/01-default-jenkins-default-resources.yaml": "others\n",
		}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			f, err := DependencyFiles(Target{Destination: "worker-1", Mode: tt.mode, Root: tt.root, StorePath: tt.storePath}, deps)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for p, c := range f.Put {
				got[p] = string(c)
			}
			if !reflect.DeepEqual(got, tt.wantPut) {
				t.Errorf("Put = %v, want %v", got, tt.wantPut)
			}
			if !reflect.DeepEqual(f.Prune, tt.wantPrune) {
				t.Errorf("Prune = %v, want %v", f.Prune, tt.wantPrune)
			}
			if !reflect.DeepEqual(f.Aggregate, tt.wantAgg) {
				t.Errorf("Aggregate = %+v, want %+v", f.Aggregate, tt.wantAgg)
			}
		})
	}
	// splitByKind writes only the files it has documents for.
	f, _ := DependencyFiles(Target{Destination: "w", Mode: ModeSplitByKind, Root: "r"}, Dependencies{Promise: "p", All: []byte("x"), Others: []byte("x")})
	if len(f.Put) != 1 {
		t.Errorf("splitByKind without CRDs wrote %v", f.Put)
	}
}

func TestRequestFiles(t *testing.T) {
	r := Request{Promise: "jenkins", Namespace: "default", Name: "dev", Pipeline: DefaultPipeline,
		Files: map[string][]byte{"dev.yaml": []byte("a\n"), "extra/b.yaml": []byte("b\n")}, Others: []byte("a\n---\nb\n")}
	tests := []struct {
		mode Mode
		want map[string]string
	}{
		{ModeNestedByMetadata, map[string]string{
			"w/resources/default/jenkins/dev/instance-configure/5058f/dev.yaml":     "a\n",
			"w/resources/default/jenkins/dev/instance-configure/5058f/extra/b.yaml": "b\n",
		}},
		{ModeNone, map[string]string{
			"w/dev.yaml":     "a\n",
			"w/extra/b.yaml": "b\n",
			"w/.kratix/default-jenkins_dev_default_instance-configure.worker-5058f.yaml": "files:\n- w/dev.yaml\n- w/extra/b.yaml\n",
		}},
		{ModeAggregatedYAML, map[string]string{
			".kratix-aggregates/w/aggregated.yaml/jenkins_dev_default_instance-configure.worker-5058f.part": "a\n\n---\nb\n",
		}},
		{ModeSplitByKind, map[string]string{
			"w/resources/01-default-jenkins-default-default-dev-resources.yaml": "a\n---\nb\n",
		}},
	}
	for _, tt := range tests {
		f, err := RequestFiles(Target{Destination: "worker", Mode: tt.mode, Root: "w"}, r)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for p, c := range f.Put {
			got[p] = string(c)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Put = %v, want %v", tt.mode, got, tt.want)
		}
	}
}

// A promise with no document writes nothing in any mode, and claims what it would have written
// so that an earlier file is removed (Kratix deletes the Work of empty dependencies).
func TestDependencyFilesWithoutDocuments(t *testing.T) {
	for _, mode := range Modes {
		f, err := DependencyFiles(Target{Destination: "w", Mode: mode, Root: "r"}, Dependencies{Promise: "p"})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Put) != 0 {
			t.Errorf("%s: an empty promise puts %v", mode, f.Put)
		}
		if len(f.Prune)+len(f.Claims) == 0 {
			t.Errorf("%s: an empty promise claims nothing, so an earlier file would stay", mode)
		}
	}
}

// The parts of an aggregate live outside the destination's folder, named after that folder
// relative to the store's path and after the file.
func TestAggregateOf(t *testing.T) {
	tests := []struct {
		t    Target
		want Aggregate
	}{
		{Target{Root: "w1"}, Aggregate{File: "w1/aggregated.yaml", Dir: ".kratix-aggregates/w1/aggregated.yaml/"}},
		{Target{Root: "team/a/b", StorePath: "team", AggregatedFilename: "all.yaml"}, Aggregate{File: "team/a/b/all.yaml", Dir: "team/.kratix-aggregates/a%2Fb/all.yaml/"}},
		{Target{Root: "team", StorePath: "team/"}, Aggregate{File: "team/aggregated.yaml", Dir: "team/.kratix-aggregates/%2E/aggregated.yaml/"}},
		{Target{Root: ""}, Aggregate{File: "aggregated.yaml", Dir: ".kratix-aggregates/%2E/aggregated.yaml/"}},
	}
	for _, tt := range tests {
		if got := AggregateOf(tt.t); got != tt.want {
			t.Errorf("AggregateOf(%+v) = %+v, want %+v", tt.t, got, tt.want)
		}
	}
}

// Request names joined with "-" collide (request "a-b" of promise "db", request "b" of promise
// "db-a"); the work names must not.
func TestRequestWorkNamesDoNotCollide(t *testing.T) {
	a := RequestWork(Request{Promise: "db", Name: "a-b", Namespace: "default", Pipeline: DefaultPipeline})
	b := RequestWork(Request{Promise: "db-a", Name: "b", Namespace: "default", Pipeline: DefaultPipeline})
	if a == b {
		t.Fatalf("both requests are named %q", a)
	}
}

// An index file Kratix wrote for a placement of mode none, once an import adopted it (the
// placement holds it: Kept), is the placement's index file: no second one is written beside it.
// Anything else in Kept (another destination's, another request's, the provider's own name)
// changes nothing.
func TestKeptKratixIndex(t *testing.T) {
	w1 := Target{Destination: "w1", Mode: ModeNone, Root: "w1"}
	r := Request{Promise: "sample", Namespace: "default", Name: "sample-b", Pipeline: "instance-configure",
		Files: map[string][]byte{"b.yaml": []byte("b\n")}}
	const (
		kratix  = "w1/.kratix/default-sample-sample-b-instance-configure-e4d7c.w1-5058f.yaml"
		ours    = "w1/.kratix/default-sample_sample-b_default_instance-configure.w1-5058f.yaml"
		listing = "files:\n- w1/b.yaml\n"
	)
	tests := []struct {
		name      string
		kept      []string
		wantIndex string
	}{
		{"nothing kept", nil, ours},
		{"Kratix's, adopted", []string{"w1/b.yaml", kratix}, kratix},
		{"Kratix's, pipelineNamespace set", []string{"w1/.kratix/pipelines-sample-sample-b-default-instance-configure-e4d7c.w1-5058f.yaml"},
			"w1/.kratix/pipelines-sample-sample-b-default-instance-configure-e4d7c.w1-5058f.yaml"},
		{"our own", []string{ours}, ours},
		{"another destination's", []string{"w2/.kratix/default-sample-sample-b-instance-configure-e4d7c.w2-5058f.yaml"}, ours},
		{"another request's", []string{"w1/.kratix/default-sample-sample-c-instance-configure-e4d7c.w1-5058f.yaml"}, ours},
	}
	for _, tt := range tests {
		r.Kept = tt.kept
		f, err := RequestFiles(w1, r)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"w1/b.yaml": "b\n", tt.wantIndex: listing}
		got := map[string]string{}
		for p, c := range f.Put {
			got[p] = string(c)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(f.Claims, []string{tt.wantIndex}) {
			t.Errorf("%s: put %v claims %v, want %v claims [%s]", tt.name, got, f.Claims, want, tt.wantIndex)
		}
	}

	const deps = "w1/.kratix/kratix-platform-system-p-static-deps-q3v9z.w1-5058f.yaml"
	f, err := DependencyFiles(w1, Dependencies{Promise: "p", All: []byte("all\n"), Kept: []string{deps}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Put[deps]; !ok || !reflect.DeepEqual(f.Claims, []string{"w1/static/p-dependencies.yaml", deps}) {
		t.Errorf("the promise does not keep Kratix's index file: put %v claims %v", sortedFileNames(f.Put), f.Claims)
	}
}

// TestDependencyDocuments: the files that hold a promise's documents, in the order they join,
// spelled out by hand per mode.
func TestDependencyDocuments(t *testing.T) {
	for _, tt := range []struct {
		mode      Mode
		root      string
		storePath string
		want      []string
	}{
		{ModeNestedByMetadata, "dev", "", []string{"dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml"}},
		{ModeNone, "stores/dev", "stores", []string{"stores/dev/static/jenkins-dependencies.yaml"}},
		{ModeAggregatedYAML, "dev", "", []string{".kratix-aggregates/dev/aggregated.yaml/jenkins-static-deps.worker-1-5058f.part"}},
		{ModeSplitByKind, "w", "", []string{"w/crds/00-default-jenkins-default-crds.yaml", "w/resources/01-default-jenkins-default-resources.yaml"}},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			got, err := DependencyDocuments(Target{Destination: "worker-1", Mode: tt.mode, Root: tt.root, StorePath: tt.storePath}, "jenkins")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DependencyDocuments = %v, want %v", got, tt.want)
			}
		})
	}
}

// sortKratixPaths: the order in which Kratix's work creator walks a pipeline's output (each
// folder's entries by name, a folder's files where the folder comes), written out by hand.
func TestSortKratixPaths(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		// The folder "app" sorts before the file "app.yaml"; as whole strings "." < "/".
		{[]string{"app.yaml", "app/deploy.yaml"}, []string{"app/deploy.yaml", "app.yaml"}},
		// "sub" < "sub-x.yaml" < "sub.yaml"; as whole strings "-" < "." < "/".
		{[]string{"sub.yaml", "sub-x.yaml", "sub/b.yaml"}, []string{"sub/b.yaml", "sub-x.yaml", "sub.yaml"}},
		// Deeper: a's entries are the folders b and b-c, then the file b.yaml.
		{[]string{"b.yaml", "a.yaml", "a/b.yaml", "a/b-c/d.yaml", "a/b/c.yaml"},
			[]string{"a/b/c.yaml", "a/b-c/d.yaml", "a/b.yaml", "a.yaml", "b.yaml"}},
		// Names compare by their bytes: upper case first.
		{[]string{"a.yaml", "B.yaml", "_c.yaml"}, []string{"B.yaml", "_c.yaml", "a.yaml"}},
		// Behind a destination's folder, as an index file lists them.
		{[]string{"n1/x.yaml", "n1/x/y.yaml", "n1/w.yaml"}, []string{"n1/w.yaml", "n1/x/y.yaml", "n1/x.yaml"}},
		{[]string{"only.yaml"}, []string{"only.yaml"}},
		{nil, nil},
	} {
		got := slices.Clone(tc.in)
		sortKratixPaths(got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("sortKratixPaths(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A request's index file of mode none lists its files in Kratix's order, in the bytes Kratix
// writes (Kratix marshals with gopkg.in/yaml.v2: "files:", then "- " and each path).
func TestRequestIndexInKratixOrder(t *testing.T) {
	r := Request{Promise: "p", Namespace: "default", Name: "multi", Pipeline: DefaultPipeline, Files: map[string][]byte{
		"multi.yaml": []byte("a\n"), "multi-x.yaml": []byte("b\n"), "multi/deploy.yaml": []byte("c\n"),
	}}
	f, err := RequestFiles(Target{Destination: "n1", Mode: ModeNone, StorePath: "s", Root: "s/n1"}, r)
	if err != nil {
		t.Fatal(err)
	}
	const index = "s/n1/.kratix/default-p_multi_default_instance-configure.n1-5058f.yaml"
	want := "files:\n- n1/multi/deploy.yaml\n- n1/multi-x.yaml\n- n1/multi.yaml\n"
	if got := string(f.Put[index]); got != want {
		t.Errorf("index file %s = %q, want %q", index, got, want)
	}
}
