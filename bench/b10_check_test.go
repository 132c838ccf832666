package main

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// shardStore is, written out by hand, what a bucket holds after two shards of one destination
// each and one promise p-0 (Kratix's layout in nestedByMetadata, the records of issue 39).
func shardStore() map[string][]byte {
	store := map[string][]byte{}
	for _, s := range []struct{ shard, dest string }{{"s0", "s0-d000"}, {"s1", "s1-d000"}} {
		store[s.dest+"/dependencies/kratix-canary-namespace.yaml"] = []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\nspec: {}\nstatus: {}\n")
		store[s.dest+"/resources/kratix-canary-configmap.yaml"] = []byte("apiVersion: v1\ndata:\n  canary: this confirms your infrastructure is reading from Kratix state stores\nkind: ConfigMap\nmetadata:\n  name: kratix-info\n  namespace: kratix-worker-system\n")
		store[s.dest+"/dependencies/p-0/5058f/static/p-0-dependencies.yaml"] = []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-0\n")
		store[".kratix-registry/destinations/"+s.dest+".yaml"] = []byte("apiVersion: platform.kratix.io/v1alpha1\nkind: Destination\nmetadata:\n" +
			"  name: " + s.dest + "\n  labels:\n    env: bench\n    shard: " + s.shard + "\n  annotations:\n    terraform.kratix.io/owner: fleet-" + s.shard + "\nspec:\n  path: " + s.dest + "\n")
	}
	store[".kratix-registry/owners/promise_p-0.yaml"] = []byte("object: promise/p-0\nfolders:\n" +
		"- root: s0-d000\n  owner: platform-s0\n  files: [dependencies/p-0/]\n" +
		"- root: s1-d000\n  owner: platform-s1\n  files: [dependencies/p-0/]\n")
	return store
}

func TestCheckShardStore(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		change                    func(map[string][]byte)
		lost, takenOver, unexpect int
	}{
		{"what every workspace wrote", func(map[string][]byte) {}, 0, 0, 0},
		{"a record lost", func(s map[string][]byte) { delete(s, ".kratix-registry/destinations/s1-d000.yaml") }, 1, 0, 0},
		{"a record rewritten by another fleet workspace", func(s map[string][]byte) {
			p := ".kratix-registry/destinations/s1-d000.yaml"
			s[p] = []byte(strings.Replace(string(s[p]), "owner: fleet-s1", "owner: fleet-s0", 1))
		}, 0, 1, 0},
		{"a folder of shard s1 held by s0's promise workspace", func(s map[string][]byte) {
			p := ".kratix-registry/owners/promise_p-0.yaml"
			s[p] = []byte(strings.Replace(string(s[p]), "owner: platform-s1", "owner: platform-s0", 1))
		}, 0, 1, 0},
		{"a dependency file with other bytes", func(s map[string][]byte) {
			s["s0-d000/dependencies/p-0/5058f/static/p-0-dependencies.yaml"] = []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-9\n")
		}, 1, 0, 0},
		{"a canary lost", func(s map[string][]byte) { delete(s, "s1-d000/resources/kratix-canary-configmap.yaml") }, 1, 0, 0},
		{"a file nobody's configuration writes", func(s map[string][]byte) { s["s0-d000/resources/stray.yaml"] = []byte("x") }, 0, 0, 1},
		{"a promise record of its workspace", func(s map[string][]byte) {
			s[".kratix-registry/promises/p-0/platform-s0.yaml"] = []byte("apiVersion: platform.kratix.io/v1alpha1\nkind: Promise\nmetadata:\n  name: p-0\n  annotations:\n    terraform.kratix.io/owner: platform-s0\n")
		}, 0, 0, 0},
		{"a promise record of a fleet workspace", func(s map[string][]byte) {
			s[".kratix-registry/promises/p-0/fleet-s0.yaml"] = []byte("apiVersion: platform.kratix.io/v1alpha1\nkind: Promise\nmetadata:\n  name: p-0\n  annotations:\n    terraform.kratix.io/owner: fleet-s0\n")
		}, 0, 0, 1},
	} {
		store := maps.Clone(shardStore())
		tc.change(store)
		c, err := checkShardStore(store, 2, 1, 1)
		if len(c.lost) != tc.lost || len(c.takenOver) != tc.takenOver || len(c.unexpected) != tc.unexpect {
			t.Errorf("%s: lost %q, taken over %q, unexpected %q; want %d, %d, %d", tc.name, c.lost, c.takenOver, c.unexpected, tc.lost, tc.takenOver, tc.unexpect)
		}
		if (err == nil) != (tc.lost+tc.takenOver+tc.unexpect == 0) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if tc.lost+tc.takenOver+tc.unexpect == 0 && (c.records != 2 || c.files != 6 || c.entries != 2) {
			t.Errorf("%s: %s; want 2/2 records, 6/6 files, 2/2 owner-record folders", tc.name, c)
		}
	}
}

func TestApplyErrorKeepsTheCause(t *testing.T) {
	dests := strings.Repeat("s1-d000, ", 100)
	err := errors.New("terraform apply -auto-approve in /w exited 1:\n...\nError: Cannot Write Promise\n\n  with kratix_promise.p[0],\n" +
		"Promise \"p-0\": writing to destinations " + dests + "failed: bucket \"b\" at 127.0.0.1:1: request failed.\n\n" +
		"Cause: .kratix-registry/owners/promise_p-0.yaml: At least one of the pre-conditions you specified did not hold\n\n" +
		"Retry the operation. If the error persists, check the store's configuration.\n")
	got := applyError(err)
	for _, want := range []string{"Error: Cannot Write Promise", "Cause: .kratix-registry/owners/promise_p-0.yaml: At least one of the pre-conditions you specified did not hold"} {
		if !strings.Contains(got, want) {
			t.Errorf("applyError = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "Retry") || len(got) > 600 {
		t.Errorf("applyError = %q (%d bytes), want the summary and the cause alone", got, len(got))
	}
}
