package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestFairFloorMirrorsKratixState applies a small kratix configuration (a bucket store with
// init_workloads and a count of promises; a git store with one promise reading its dependencies
// from a file; a bucket store with one promise and a count of requests) and its fair floor, and
// compares the two states: the same resource count; per promise as many destination objects and
// placements, with the same keys, roots, locations and store paths; per request the same
// attributes, promise object and store path under its destination's root; per destination as
// many files; the same store object; and state values of about the same size. So the floor cannot silently become empty or drift from the provider's state.
func TestFairFloorMirrorsKratixState(t *testing.T) {
	if testing.Short() || os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: starts MinIO and a git server and runs terraform apply; set TF_ACC=1")
	}
	ctx := context.Background()
	e, err := startEnv(ctx, options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.stop)
	const deps = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: a\ndata:\n  k: v\n"

	if err := e.freshBucket(ctx, "floor-test"); err != nil {
		t.Fatal(err)
	}
	if err := e.freshBucket(ctx, "floor-test-requests"); err != nil {
		t.Fatal(err)
	}
	if err := e.git.CreateRepo("floor-test", "main"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  kratixConfig
	}{
		{"bucket", kratixConfig{store: e.bucketRef(e.minio.Endpoint, "floor-test"), destinations: 3, initWorkloads: true,
			promises: []promiseSpec{{name: "p", count: 2, dependencies: smallNamespace}}}},
		{"git", kratixConfig{store: e.gitRef("floor-test"), destinations: 4,
			promises: []promiseSpec{{name: "pipelines", dependencies: `file("${path.module}/dependencies.yaml")`}}}},
		{"requests", kratixConfig{store: e.bucketRef(e.minio.Endpoint, "floor-test-requests"), destinations: 3,
			promises: []promiseSpec{{name: "p", dependencies: oneNamespace}},
			requests: []requestSpec{{name: "r", count: 5, promise: "p", documents: smallConfigMap}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			floorHCL, err := tc.cfg.fairFloor()
			if err != nil {
				t.Fatal(err)
			}
			kratix := applyForState(t, e, "kratix-"+tc.name, tc.cfg.String(), deps)
			floor := applyForState(t, e, "floor-"+tc.name, floorHCL, deps)
			compareFloor(t, tc.cfg, kratix, floor)
		})
	}
}

// applyForState applies config in a fresh workspace and returns its state's resources.
func applyForState(t *testing.T, e *env, name, config, deps string) []stateResource {
	t.Helper()
	ws, err := e.newWorkspace(name, map[string][]byte{"main.tf": []byte(config), "dependencies.yaml": []byte(deps)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.remove)
	if _, err := ws.apply(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(ws.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Resources []stateResource `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatalf("%s: reading the state: %v", name, err)
	}
	return st.Resources
}

type stateResource struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Instances []struct {
		Attributes map[string]any `json:"attributes"`
	} `json:"instances"`
}

// values are the attributes of the instances of one resource: the kratix resource's own, or a
// terraform_data's input value (dynamic attributes are kept as {"value": ..., "type": ...}).
func values(t *testing.T, rs []stateResource, typ, name string) []map[string]any {
	t.Helper()
	for _, r := range rs {
		if r.Type != typ || r.Name != name {
			continue
		}
		var out []map[string]any
		for _, inst := range r.Instances {
			a := inst.Attributes
			if typ == "terraform_data" {
				in, _ := a["triggers_replace"].(map[string]any)
				a, _ = in["value"].(map[string]any)
			}
			if a == nil {
				t.Fatalf("%s.%s: an instance has no values", typ, name)
			}
			out = append(out, a)
		}
		return out
	}
	t.Fatalf("no resource %s.%s in the state", typ, name)
	return nil
}

var md5Hex = regexp.MustCompile(`^[0-9a-f]{32}$`)

func compareFloor(t *testing.T, cfg kratixConfig, kratix, floor []stateResource) {
	t.Helper()
	count := func(rs []stateResource) int {
		n := 0
		for _, r := range rs {
			n += len(r.Instances)
		}
		return n
	}
	if k, f := count(kratix), count(floor); k != f || k != cfg.resources() {
		t.Errorf("resource instances: kratix %d, floor %d, configuration %d", k, f, cfg.resources())
	}

	kStore := values(t, kratix, "kratix_state_store", "s")[0]
	fStore := values(t, floor, "terraform_data", "s")[0]
	kDests := values(t, kratix, "kratix_destination", "d")
	fDests := values(t, floor, "terraform_data", "d")
	if len(kDests) != cfg.destinations || len(fDests) != cfg.destinations {
		t.Fatalf("destinations: kratix %d, floor %d, want %d", len(kDests), len(fDests), cfg.destinations)
	}
	for i := range kDests {
		kd, fd := kDests[i], fDests[i]
		if k, f := len(asMap(kd["files"])), len(asMap(fd["files"])); k != f {
			t.Errorf("destination %d: kratix files %d, floor files %d", i, k, f)
		}
		if !jsonEqual(kd["state_store"], asMap(fd["destination"])["state_store"]) {
			t.Errorf("destination %d: store object differs:\nkratix %v\nfloor  %v", i, kd["state_store"], asMap(fd["destination"])["state_store"])
		}
		if kd["root"] != fd["root"] || kd["name"] != asMap(fd["destination"])["name"] {
			t.Errorf("destination %d: kratix root %v name %v, floor root %v name %v", i, kd["root"], kd["name"], fd["root"], asMap(fd["destination"])["name"])
		}
	}

	for _, p := range cfg.promises {
		kps := values(t, kratix, "kratix_promise", p.resourceName())
		fps := values(t, floor, "terraform_data", p.resourceName())
		if len(kps) != p.instances() || len(fps) != p.instances() {
			t.Fatalf("promise %s: kratix %d instances, floor %d, want %d", p.name, len(kps), len(fps), p.instances())
		}
		for i := range kps {
			comparePromise(t, fmt.Sprintf("promise %s[%d]", p.name, i), kps[i], fps[i], cfg.destinations)
		}
	}

	for _, r := range cfg.requests {
		krs := values(t, kratix, "kratix_resource_request", r.resourceName())
		frs := values(t, floor, "terraform_data", r.resourceName())
		if len(krs) != r.instances() || len(frs) != r.instances() {
			t.Fatalf("request %s: kratix %d instances, floor %d, want %d", r.name, len(krs), len(frs), r.instances())
		}
		for i := range krs {
			compareRequest(t, fmt.Sprintf("request %s[%d]", r.name, i), krs[i], frs[i], cfg.destinations)
		}
	}

	// Values of about the same size: the kratix resources' attributes against the floor's inputs.
	kSize, fSize := jsonSize(t, kratix, ""), jsonSize(t, floor, "terraform_data")
	t.Logf("state values: kratix %d bytes, floor %d bytes", kSize, fSize)
	if r := float64(fSize) / float64(kSize); r < 0.85 || r > 1.15 {
		t.Errorf("state values: kratix %d bytes, floor %d bytes (%.2fx), want within 15%%", kSize, fSize, r)
	}
	if kStore["name"] != asMap(fStore["ref"])["name"] {
		t.Errorf("store name: kratix %v, floor %v", kStore["name"], asMap(fStore["ref"])["name"])
	}
}

func comparePromise(t *testing.T, what string, kp, fp map[string]any, destinations int) {
	t.Helper()
	kd, fd := asList(kp["destinations"]), asList(fp["destinations"])
	if len(kd) != destinations || len(fd) != destinations {
		t.Errorf("%s: destination objects: kratix %d, floor %d, want %d", what, len(kd), len(fd), destinations)
	}
	for i := range min(len(kd), len(fd)) {
		if k, f := sortedKeys(asMap(kd[i])), sortedKeys(asMap(fd[i])); !slices.Equal(k, f) {
			t.Errorf("%s: destination object %d: kratix keys %v, floor keys %v", what, i, k, f)
		}
	}
	if kp["dependencies"] != fp["dependencies"] {
		t.Errorf("%s: dependencies differ: kratix %q, floor %q", what, kp["dependencies"], fp["dependencies"])
	}
	if k, f := len(asList(kp["scheduled_destinations"])), len(asList(fp["scheduled_destinations"])); k != f {
		t.Errorf("%s: scheduled_destinations: kratix %d, floor %d", what, k, f)
	}
	kpl, fpl := asMap(kp["placements"]), asMap(fp["placements"])
	if len(kpl) != destinations || len(fpl) != destinations {
		t.Fatalf("%s: placements: kratix %d, floor %d, want %d", what, len(kpl), len(fpl), destinations)
	}
	for dest, kv := range kpl {
		k, f := asMap(kv), asMap(fpl[dest])
		if f == nil {
			t.Errorf("%s: the floor has no placement for %s", what, dest)
			continue
		}
		if ks, fs := sortedKeys(k), sortedKeys(f); !slices.Equal(ks, fs) {
			t.Errorf("%s: placement %s: kratix keys %v, floor keys %v", what, dest, ks, fs)
		}
		for _, attr := range []string{"store", "location", "root", "misscheduled"} {
			if k[attr] != f[attr] {
				t.Errorf("%s: placement %s: %s kratix %v, floor %v", what, dest, attr, k[attr], f[attr])
			}
		}
		kf, ff := asMap(k["files"]), asMap(f["files"])
		if ks, fs := sortedKeys(kf), sortedKeys(ff); len(ks) == 0 || !slices.Equal(ks, fs) {
			t.Errorf("%s: placement %s: kratix files %v, floor files %v", what, dest, ks, fs)
		}
		for p, h := range ff {
			if s, _ := h.(string); !md5Hex.MatchString(s) {
				t.Errorf("%s: placement %s: floor file %s has hash %v, want 32 hex digits", what, dest, p, h)
			}
		}
	}
}

// compareRequest checks one request of the floor against the provider's: the same attribute
// names, the same values where the floor copies them, the same promise object shape, and one
// written file at the same path under each side's destination root (the destination itself is
// the provider's rendezvous choice, which the floor does not make).
func compareRequest(t *testing.T, what string, kr, fr map[string]any, destinations int) {
	t.Helper()
	if k, f := sortedKeys(kr), sortedKeys(fr); !slices.Equal(k, f) {
		t.Errorf("%s: kratix attributes %v, floor attributes %v", what, k, f)
	}
	for _, attr := range []string{"id", "name", "namespace", "pipeline", "documents", "location", "misscheduled"} {
		if kr[attr] != fr[attr] {
			t.Errorf("%s: %s kratix %v, floor %v", what, attr, kr[attr], fr[attr])
		}
	}
	kp, fp := asMap(kr["promise"]), asMap(fr["promise"])
	if k, f := sortedKeys(kp), sortedKeys(fp); !slices.Equal(k, f) || kp["name"] != fp["name"] {
		t.Errorf("%s: promise kratix keys %v name %v, floor keys %v name %v", what, k, kp["name"], f, fp["name"])
	}
	kd, fd := asList(kp["destinations"]), asList(fp["destinations"])
	if len(kd) != destinations || len(fd) != destinations {
		t.Errorf("%s: promise destination objects: kratix %d, floor %d, want %d", what, len(kd), len(fd), destinations)
	}
	for i := range min(len(kd), len(fd)) {
		// The same object but for instance_id, random in the provider's state, 16 hex digits on
		// both sides.
		k, f := maps.Clone(asMap(kd[i])), maps.Clone(asMap(fd[i]))
		if ki, fi := fmt.Sprint(k["instance_id"]), fmt.Sprint(f["instance_id"]); len(ki) != 16 || len(fi) != 16 {
			t.Errorf("%s: promise destination object %d: instance_id kratix %q, floor %q, want 16 hex digits each", what, i, ki, fi)
		}
		delete(k, "instance_id")
		delete(f, "instance_id")
		if !jsonEqual(k, f) {
			t.Errorf("%s: promise destination object %d differs:\nkratix %v\nfloor  %v", what, i, k, f)
		}
	}
	for side, r := range map[string]map[string]any{"kratix": kr, "floor": fr} {
		dest, _ := r["destination"].(string)
		if dest == "" || r["root"] != dest {
			t.Errorf("%s: %s destination %v, root %v, want a destination and its folder", what, side, r["destination"], r["root"])
		}
	}
	kf, ff := asMap(kr["written_files"]), asMap(fr["written_files"])
	rel := func(files map[string]any, root any) []string {
		var out []string
		for p := range files {
			out = append(out, strings.TrimPrefix(p, fmt.Sprint(root)+"/"))
		}
		return out
	}
	if k, f := rel(kf, kr["root"]), rel(ff, fr["root"]); len(k) != 1 || !slices.Equal(k, f) {
		t.Errorf("%s: written files under the root: kratix %v, floor %v, want the same one", what, k, f)
	}
	for p, h := range ff {
		if s, _ := h.(string); !md5Hex.MatchString(s) {
			t.Errorf("%s: floor file %s has hash %v, want 32 hex digits", what, p, h)
		}
	}
}

// jsonSize is the size of every instance's values as JSON: the attributes of the resources of
// any type but terraform_data when typ is "", the terraform_data inputs otherwise. Timeouts and
// nulls are left in on both sides.
func jsonSize(t *testing.T, rs []stateResource, typ string) int {
	t.Helper()
	n := 0
	for _, r := range rs {
		if (typ == "") == (r.Type == "terraform_data") {
			continue
		}
		for _, v := range values(t, rs, r.Type, r.Name) {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			n += len(b)
		}
	}
	return n
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonEqual(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
