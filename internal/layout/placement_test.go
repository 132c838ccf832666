package layout

import (
	"reflect"
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
			"dev/.kratix/aggregated/jenkins-static-deps.worker-1-5058f.yaml": "all\n",
		}, nil, &Aggregate{File: "dev/aggregated.yaml", Dir: "dev/.kratix/aggregated/"}},
		// Seed 003: the 2023 layout, CRDs first.
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
			"w/.kratix/default-jenkins-dev-default-instance-configure.worker-5058f.yaml": "files:\n- w/dev.yaml\n- w/extra/b.yaml\n",
		}},
		{ModeAggregatedYAML, map[string]string{
			"w/.kratix/aggregated/jenkins-dev-default-instance-configure.worker-5058f.yaml": "a\n\n---\nb\n",
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
