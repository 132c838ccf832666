package layout_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// The ids below are the hex MD5 of each folder name, taken with `printf %s <name> | md5sum`,
// never with the code under test: "." 5058f1af8388633f609cadb75a75dc9d, "db"
// d77d5e503ad1439f585ac494268b351b, "baz" 73feffa4b7f6bb68e44cf984c85f6e88.
const (
	defaultID = "5058f1af8388633f609cadb75a75dc9d"
	dbID      = "d77d5e503ad1439f585ac494268b351b"
	bazID     = "73feffa4b7f6bb68e44cf984c85f6e88"
)

// Kratix's group id is the MD5 of the directory once cleaned with filepath.Clean, so every
// spelling of one folder has one id, and "" is the default group ".".
func TestGroupID(t *testing.T) {
	for _, tt := range []struct{ dir, id, short string }{
		{".", defaultID, "5058f"},
		{"", defaultID, "5058f"},
		{"./", defaultID, "5058f"},
		{"db", dbID, "d77d5"},
		{"db/", dbID, "d77d5"},
		{"./db", dbID, "d77d5"},
		{"baz", bazID, "73fef"},
		{"x/../baz", bazID, "73fef"},
	} {
		if got := layout.GroupID(tt.dir); got != tt.id {
			t.Errorf("GroupID(%q) = %s, want %s", tt.dir, got, tt.id)
		}
		if got := layout.ShortGroupID(tt.dir); got != tt.short {
			t.Errorf("ShortGroupID(%q) = %s, want %s", tt.dir, got, tt.short)
		}
	}
	if layout.DefaultGroupID != "5058f" {
		t.Errorf("DefaultGroupID = %s, want 5058f", layout.DefaultGroupID)
	}
}

// A request's workload group in each filepath mode, its paths written out by hand from Kratix's
// source (workplacement_controller.go getDir and generateKratixStateFile, scheduler.go's
// WorkPlacement names): the group's files keep their folder, under the group's short id in
// nestedByMetadata and straight under the root in none; the index file and the aggregate part
// are named after the group's placement. The default group, spelled "" or ".", is as before.
func TestRequestFilesGroups(t *testing.T) {
	target := func(m layout.Mode) layout.Target {
		return layout.Target{Destination: "worker", Mode: m, StorePath: "s", Root: "s/w"}
	}
	base := layout.Request{Promise: "jenkins", Namespace: "default", Name: "dev", Pipeline: layout.DefaultPipeline}
	db := base
	db.Group = "db"
	db.Files = map[string][]byte{"db/app.yaml": []byte("a\n"), "db/conf/b.yaml": []byte("b\n")}
	db.CRDs, db.Others = []byte("crd\n"), []byte("a\n---\nb\n")
	def := base
	def.Files = map[string][]byte{"dev.yaml": []byte("d\n"), "extra/e.yaml": []byte("e\n")}
	def.Others = []byte("d\n---\ne\n")
	dot := def
	dot.Group = "."

	type want struct {
		put    map[string]string
		prune  []string
		claims []string
		agg    *layout.Aggregate
	}
	agg := &layout.Aggregate{File: "s/w/aggregated.yaml", Dir: "s/.kratix-aggregates/w/aggregated.yaml/"}
	defaultWant := map[layout.Mode]want{
		layout.ModeNestedByMetadata: {put: map[string]string{
			"s/w/resources/default/jenkins/dev/instance-configure/5058f/dev.yaml":     "d\n",
			"s/w/resources/default/jenkins/dev/instance-configure/5058f/extra/e.yaml": "e\n",
		}, prune: []string{"s/w/resources/default/jenkins/dev/instance-configure/5058f/"}},
		layout.ModeNone: {put: map[string]string{
			"s/w/dev.yaml":     "d\n",
			"s/w/extra/e.yaml": "e\n",
			"s/w/.kratix/default-jenkins_dev_default_instance-configure.worker-5058f.yaml": "files:\n- w/dev.yaml\n- w/extra/e.yaml\n",
		}, claims: []string{"s/w/.kratix/default-jenkins_dev_default_instance-configure.worker-5058f.yaml"}},
		layout.ModeAggregatedYAML: {put: map[string]string{
			"s/.kratix-aggregates/w/aggregated.yaml/jenkins_dev_default_instance-configure.worker-5058f.part": "d\n\n---\ne\n",
		}, claims: []string{"s/.kratix-aggregates/w/aggregated.yaml/jenkins_dev_default_instance-configure.worker-5058f.part"}, agg: agg},
		layout.ModeSplitByKind: {put: map[string]string{
			"s/w/resources/01-default-jenkins-default-default-dev-resources.yaml": "d\n---\ne\n",
		}, claims: []string{"s/w/crds/00-default-jenkins-default-default-dev-crds.yaml", "s/w/resources/01-default-jenkins-default-default-dev-resources.yaml"}},
	}
	tests := []struct {
		name string
		r    layout.Request
		mode layout.Mode
		want want
	}{
		{"group db", db, layout.ModeNestedByMetadata, want{put: map[string]string{
			"s/w/resources/default/jenkins/dev/instance-configure/d77d5/db/app.yaml":    "a\n",
			"s/w/resources/default/jenkins/dev/instance-configure/d77d5/db/conf/b.yaml": "b\n",
		}, prune: []string{"s/w/resources/default/jenkins/dev/instance-configure/d77d5/"}}},
		{"group db", db, layout.ModeNone, want{put: map[string]string{
			"s/w/db/app.yaml":    "a\n",
			"s/w/db/conf/b.yaml": "b\n",
			"s/w/.kratix/default-jenkins_dev_default_instance-configure.worker-d77d5.yaml": "files:\n- w/db/app.yaml\n- w/db/conf/b.yaml\n",
		}, claims: []string{"s/w/.kratix/default-jenkins_dev_default_instance-configure.worker-d77d5.yaml"}}},
		{"group db", db, layout.ModeAggregatedYAML, want{put: map[string]string{
			"s/.kratix-aggregates/w/aggregated.yaml/jenkins_dev_default_instance-configure.worker-d77d5.part": "a\n\n---\nb\n",
		}, claims: []string{"s/.kratix-aggregates/w/aggregated.yaml/jenkins_dev_default_instance-configure.worker-d77d5.part"}, agg: agg}},
		// Kratix had no groups in the splitByKind era: the provider adds the short id to the names.
		{"group db", db, layout.ModeSplitByKind, want{put: map[string]string{
			"s/w/crds/00-default-jenkins-default-default-dev-d77d5-crds.yaml":           "crd\n",
			"s/w/resources/01-default-jenkins-default-default-dev-d77d5-resources.yaml": "a\n---\nb\n",
		}, claims: []string{"s/w/crds/00-default-jenkins-default-default-dev-d77d5-crds.yaml", "s/w/resources/01-default-jenkins-default-default-dev-d77d5-resources.yaml"}}},
	}
	for _, m := range layout.Modes {
		tests = append(tests,
			struct {
				name string
				r    layout.Request
				mode layout.Mode
				want want
			}{`default group ""`, def, m, defaultWant[m]},
			struct {
				name string
				r    layout.Request
				mode layout.Mode
				want want
			}{`default group "."`, dot, m, defaultWant[m]})
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+string(tt.mode), func(t *testing.T) {
			f, err := layout.RequestFiles(target(tt.mode), tt.r)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for p, c := range f.Put {
				got[p] = string(c)
			}
			if !reflect.DeepEqual(got, tt.want.put) {
				t.Errorf("Put = %v, want %v", got, tt.want.put)
			}
			if !reflect.DeepEqual(f.Prune, tt.want.prune) {
				t.Errorf("Prune = %v, want %v", f.Prune, tt.want.prune)
			}
			if !reflect.DeepEqual(f.Claims, tt.want.claims) {
				t.Errorf("Claims = %v, want %v", f.Claims, tt.want.claims)
			}
			if !reflect.DeepEqual(f.Aggregate, tt.want.agg) {
				t.Errorf("Aggregate = %+v, want %+v", f.Aggregate, tt.want.agg)
			}
		})
	}
}

// The placements of a request's groups are named as Kratix names their WorkPlacements, with the
// group's short id last.
func TestGroupPlacementName(t *testing.T) {
	for _, tt := range []struct{ group, want string }{
		{"", "w.d-5058f"},
		{".", "w.d-5058f"},
		{"db", "w.d-d77d5"},
		{"baz/", "w.d-73fef"},
	} {
		if got := layout.GroupPlacementName("w", "d", tt.group); got != tt.want {
			t.Errorf("GroupPlacementName(w, d, %q) = %s, want %s", tt.group, got, tt.want)
		}
	}
	if got := layout.PlacementName("w", "d"); got != "w.d-5058f" {
		t.Errorf("PlacementName(w, d) = %s, want w.d-5058f", got)
	}
}

// RequestFiles refuses a group that Kratix could not have made, and a file outside the group's
// folder, rather than write files where no Kratix group puts them.
func TestRequestFilesRefusesBadGroups(t *testing.T) {
	r := layout.Request{Promise: "p", Namespace: "default", Name: "n", Pipeline: layout.DefaultPipeline}
	for _, tt := range []struct {
		group string
		files []string
		want  string
	}{
		{"db", []string{"db/a.yaml", "app.yaml"}, `file "app.yaml" is not in the folder "db/" of group "db"`},
		{"db", []string{"dbx/a.yaml"}, `file "dbx/a.yaml" is not in the folder "db/"`},
		{"a/b", []string{"a/b/c.yaml"}, `names a folder inside another`},
		{"..", []string{"a.yaml"}, `leads outside`},
	} {
		r.Group, r.Files = tt.group, map[string][]byte{}
		for _, f := range tt.files {
			r.Files[f] = []byte("x\n")
		}
		for _, m := range layout.Modes {
			_, err := layout.RequestFiles(layout.Target{Destination: "d", Mode: m, Root: "d"}, r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: group %q with %v: err = %v, want it to say %q", m, tt.group, tt.files, err, tt.want)
			}
		}
	}
}

// Kratix's index file of a group's WorkPlacement ends in the group's short id; the request's
// index for one group does not take another group's.
func TestKratixRequestIndexGroups(t *testing.T) {
	k2 := layout.Target{Destination: "k2", Mode: layout.ModeNone, StorePath: "kratix", Root: "kratix/k2"}
	r := layout.Request{Promise: "p", Name: "alpha", Namespace: "default", Pipeline: "instance-configure"}
	db := r
	db.Group = "db"
	for _, tt := range []struct {
		name string
		r    layout.Request
		path string
		want bool
	}{
		{"group db's", db, "kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-d77d5.yaml", true},
		{"group db's, pipelineNamespace set", db, "kratix/k2/.kratix/pipelines-p-alpha-default-instance-configure-x7k2p.k2-d77d5.yaml", true},
		{"the default group's, for group db", db, "kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"group baz's, for group db", db, "kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-73fef.yaml", false},
		{"group db's, for the default group", r, "kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-d77d5.yaml", false},
		{"the default group's", r, "kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-5058f.yaml", true},
	} {
		if got := layout.KratixRequestIndex(k2, tt.r).Match(tt.path); got != tt.want {
			t.Errorf("%s: Match(%q) = %v, want %v", tt.name, tt.path, got, tt.want)
		}
	}

	// Adopted, Kratix's index file of the group is the placement's index file.
	const kratix = "kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-d77d5.yaml"
	db.Files = map[string][]byte{"db/a.yaml": []byte("a\n")}
	db.Kept = []string{"kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-5058f.yaml", kratix}
	f, err := layout.RequestFiles(k2, db)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"kratix/k2/db/a.yaml": "a\n", kratix: "files:\n- k2/db/a.yaml\n"}
	got := map[string]string{}
	for p, c := range f.Put {
		got[p] = string(c)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(f.Claims, []string{kratix}) {
		t.Errorf("put %v claims %v, want %v claims [%s]", got, f.Claims, want, kratix)
	}
}

// Kratix's rules for a `directory` (work_creator.go, ParseDestinationSelectors and
// getWorkloadsFromDir), as the provider applies them to a group's name.
func TestValidateGroupDir(t *testing.T) {
	files := []string{"app.yaml", "db/a.yaml", "db/conf/b.yaml", "dbx/c.yaml", "db.yaml", "web", "a/b/c.yaml"}
	for _, tt := range []struct {
		dir  string
		want string // a part of the error; "" for none
	}{
		{"db", ""},
		{"db/", ""},
		{"./db", ""},
		{"x/../db", ""}, // cleaned to "db", as Kratix does
		{"a", ""},       // holds a/b/c.yaml, at any depth
		{"dbx", ""},
		{"a/b", `group "a/b" names a folder inside another ("a/b"); Kratix places only the folders directly in the output folder on their own, so name "a"`},
		{"db/conf", `names a folder inside another`},
		{"missing", `group "missing" names the folder "missing/", which holds none of the request's files; add a file such as "missing/app.yaml" or remove the group`},
		{"d", `holds none of the request's files`}, // "db/..." and "dbx/..." are not in "d/"
		{"web", `group "web" names the file "web", not a folder`},
		{"app.yaml", `names the file "app.yaml", not a folder`},
		{"", `group "" names the output folder itself`},
		{".", `group "." names the output folder itself`},
		{"db/..", `names the output folder itself`},
		{"/", `group "/" starts with "/"`},
		{"/db", `group "/db" starts with "/"; name a folder relative to the pipeline's output folder, such as "db"`},
		{"..", `group ".." leads outside the pipeline's output folder`},
		{"../db", `leads outside`},
		{`db\x`, `group "db\\x" contains a backslash`},
	} {
		err := layout.ValidateGroupDir(tt.dir, files)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateGroupDir(%q) = %v, want no error", tt.dir, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ValidateGroupDir(%q) = %v, want an error saying %q", tt.dir, err, tt.want)
		}
	}
}

// Two names of one folder are refused, as Kratix refuses two entries for one directory ("foo/"
// and "foo" in its own test); the clean spelling is kept.
func TestValidateGroups(t *testing.T) {
	files := []string{"db/a.yaml", "web/b.yaml"}
	got := layout.ValidateGroups([]string{"db/", "web", "db", "./db", "a/b", "web"}, files)
	want := []layout.GroupError{
		{Key: "./db", Message: `Group "./db" names the same folder as "db" (both mean "db"); keep only one of them.`},
		{Key: "a/b", Message: `Group "a/b" names a folder inside another ("a/b"); Kratix places only the folders directly in the output folder on their own, so name "a", which then holds all of "a/b/".`},
		{Key: "db/", Message: `Group "db/" names the same folder as "db" (both mean "db"); keep only one of them.`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ValidateGroups =\n%q\nwant\n%q", got, want)
	}
	if got := layout.ValidateGroups([]string{"db", "web"}, files); got != nil {
		t.Errorf("ValidateGroups of valid groups = %v", got)
	}
	// Without a clean spelling, the first in order is kept.
	got = layout.ValidateGroups([]string{"db/", "./db"}, files)
	if len(got) != 1 || got[0].Key != "db/" || !strings.Contains(got[0].Message, `as "./db"`) {
		t.Errorf("ValidateGroups(db/, ./db) = %q, want db/ refused beside ./db", got)
	}
}

// SplitGroups on Kratix's own samples (work-creator/samples/complete and
// empty-default-workload-group, directory "baz/"), then the edges: a folder's name as the start
// of another name, nested folders, and refused groups.
func TestSplitGroups(t *testing.T) {
	files := func(names ...string) map[string][]byte {
		out := map[string][]byte{}
		for _, n := range names {
			out[n] = []byte(n)
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		files map[string][]byte
		dirs  []string
		want  map[string][]string
	}{
		{"Kratix's complete sample", files("baz/baz-namespace-resource-request.yaml", "configmap.yaml",
			"foo/bar/namespace-resource-request.yaml", "foo/multi-resource-requests.yaml"), []string{"baz/"},
			map[string][]string{
				"baz": {"baz/baz-namespace-resource-request.yaml"},
				".":   {"configmap.yaml", "foo/bar/namespace-resource-request.yaml", "foo/multi-resource-requests.yaml"},
			}},
		{"no default group left", files("baz/baz-namespace-resource-request.yaml"), []string{"baz/"},
			map[string][]string{"baz": {"baz/baz-namespace-resource-request.yaml"}}},
		{"no file", files(), nil, map[string][]string{}},
		{"no group", files("a.yaml", "b/c.yaml"), nil,
			map[string][]string{".": {"a.yaml", "b/c.yaml"}}},
		{"names that start like a group", files("db/a.yaml", "db/x/y.yaml", "dbx/b.yaml", "db.yaml", "db-c.yaml"), []string{"db"},
			map[string][]string{"db": {"db/a.yaml", "db/x/y.yaml"}, ".": {"db-c.yaml", "db.yaml", "dbx/b.yaml"}}},
		{"two groups", files("db/a.yaml", "web/b.yaml"), []string{"./web", "db"},
			map[string][]string{"db": {"db/a.yaml"}, "web": {"web/b.yaml"}}},
	} {
		got, err := layout.SplitGroups(tt.files, tt.dirs)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		names := map[string][]string{}
		for g, fs := range got {
			names[g] = []string{} // a group with no file is a group all the same
			for n, c := range fs {
				if string(c) != n {
					t.Errorf("%s: %s holds %q", tt.name, n, c)
				}
				names[g] = append(names[g], n)
			}
			sort.Strings(names[g])
		}
		if !reflect.DeepEqual(names, tt.want) {
			t.Errorf("%s: SplitGroups = %v, want %v", tt.name, names, tt.want)
		}
	}

	_, err := layout.SplitGroups(files("db/a.yaml"), []string{"db", "db/", "missing"})
	if err == nil || !strings.Contains(err.Error(), `Group "db/" names the same folder as "db"`) ||
		!strings.Contains(err.Error(), `Group "missing" names the folder "missing/"`) {
		t.Errorf("SplitGroups with a duplicate and a missing folder: err = %v, want both refused", err)
	}
}
