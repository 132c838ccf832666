package refmodel

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestModelWorkspacesExpect: two workspaces on one bucket, written out by hand. team-0 registers
// d0 and places p0 there; team-1 places p0 on d1 (a shard) and p1 on d0; d1 was registered once
// and destroyed (cleanup "none": its canaries stay). The store holds d0's record, the canaries
// of both folders, each placement's file with its workspace's namespace, and one owner record per
// promise with an entry per folder, each naming its owner.
func TestModelWorkspacesExpect(t *testing.T) {
	m := &Workspaces{
		ws: []*wsWorkspace{
			{owner: "team-0", dests: []string{"d0"}, proms: map[string][]string{"p0": {"d0"}}},
			{owner: "team-1", proms: map[string][]string{"p0": {"d1"}, "p1": {"d0"}}},
		},
		canaries: map[string]bool{"d0": true, "d1": true},
	}
	got := m.Expect("bucket")
	want := map[string]string{
		".kratix-registry/destinations/d0.yaml":                "",
		".kratix-registry/owners/promise_p0.yaml":              "",
		".kratix-registry/owners/promise_p1.yaml":              "",
		".kratix-registry/promises/p0/team-0.yaml":             "",
		".kratix-registry/promises/p0/team-1.yaml":             "",
		".kratix-registry/promises/p1/team-1.yaml":             "",
		"d0/dependencies/kratix-canary-namespace.yaml":         "",
		"d0/resources/kratix-canary-configmap.yaml":            "",
		"d1/dependencies/kratix-canary-namespace.yaml":         "",
		"d1/resources/kratix-canary-configmap.yaml":            "",
		"d0/dependencies/p0/5058f/static/p0-dependencies.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p0-team-0\n",
		"d1/dependencies/p0/5058f/static/p0-dependencies.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p0-team-1\n",
		"d0/dependencies/p1/5058f/static/p1-dependencies.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p1-team-1\n",
	}
	if !slices.Equal(sortedKeys(got), sortedKeys(want)) {
		t.Fatalf("Expect holds\n  %s\nwant\n  %s", strings.Join(sortedKeys(got), "\n  "), strings.Join(sortedKeys(want), "\n  "))
	}
	for p, content := range want {
		if content != "" && got[p] != content {
			t.Errorf("%s = %q, want %q", p, got[p], content)
		}
	}
	wantOwners := "# Owner record of terraform-provider-kratix: who holds promise/p0's placements, folder by folder.\n" +
		"# Another owner's plan that would write, prune or delete them is refused. Do not edit.\n" +
		"folders:\n" +
		"- files:\n  - d0/dependencies/p0/5058f/\n  instance: INSTANCE\n  owner: team-0\n  root: d0\n" +
		"- files:\n  - d1/dependencies/p0/5058f/\n  instance: INSTANCE\n  owner: team-1\n  root: d1\n" +
		"object: promise/p0\n"
	if got := got[".kratix-registry/owners/promise_p0.yaml"]; got != wantOwners {
		t.Errorf("p0's owner record is\n%s\nwant\n%s", got, wantOwners)
	}
	for _, line := range []string{"    terraform.kratix.io/owner: team-0\n", "  labels:\n    team: team-0\n", "    kind: BucketStateStore\n    name: shared\n"} {
		if !strings.Contains(got[".kratix-registry/destinations/d0.yaml"], line) {
			t.Errorf("d0's record does not say %q:\n%s", line, got[".kratix-registry/destinations/d0.yaml"])
		}
	}
	// Each workspace publishes its own record of p0, over its own shard.
	wantP0 := "apiVersion: platform.kratix.io/v1alpha1\nkind: Promise\nmetadata:\n  annotations:\n" +
		"    terraform.kratix.io/destinations: '[{\"name\":\"d1\",\"path\":\"d1\",\"storeKind\":\"BucketStateStore\",\"storeName\":\"shared\",\"storeLocation\":\"LOCATION\"}]'\n" +
		"    terraform.kratix.io/instance-id: INSTANCE\n    terraform.kratix.io/owner: team-1\n" +
		"    terraform.kratix.io/written-at: \"WRITTEN\"\n  name: p0\nspec: {}\n"
	if got := got[".kratix-registry/promises/p0/team-1.yaml"]; got != wantP0 {
		t.Errorf("team-1's record of p0 is\n%s\nwant\n%s", got, wantP0)
	}
	if got := m.Registered(); !slices.Equal(got, []string{"d0"}) {
		t.Errorf("Registered = %v, want [d0]", got)
	}
}

// TestModelWorkspacesBookkeeping: only the instance tokens and the time a registration record
// was written are blanked, and only in the registry.
func TestModelWorkspacesBookkeeping(t *testing.T) {
	for _, tc := range []struct{ path, in, want string }{
		{".kratix-registry/destinations/d0.yaml",
			"  annotations:\n    terraform.kratix.io/instance-id: 0123456789abcdef\n    terraform.kratix.io/written-at: \"2026-11-29T20:00:00Z\"\n",
			"  annotations:\n    terraform.kratix.io/instance-id: INSTANCE\n    terraform.kratix.io/written-at: \"WRITTEN\"\n"},
		{".kratix-registry/owners/promise_p0.yaml", "  instance: 0123456789abcdef\n  owner: team-0\n", "  instance: INSTANCE\n  owner: team-0\n"},
		{".kratix-registry/promises/p0/team-0.yaml", `    terraform.kratix.io/destinations: '[{"name":"d0","storeLocation":"s3://127.0.0.1:9000/b"}]'` + "\n",
			`    terraform.kratix.io/destinations: '[{"name":"d0","storeLocation":"LOCATION"}]'` + "\n"},
		// Not a token, not a time: left as it is.
		{".kratix-registry/destinations/d0.yaml", "    terraform.kratix.io/written-at: \"yesterday\"\n", "    terraform.kratix.io/written-at: \"yesterday\"\n"},
		{".kratix-registry/owners/promise_p0.yaml", "  instance: team-0\n", "  instance: team-0\n"},
		// Outside the registry nothing is blanked.
		{"d0/x.yaml", "  instance: 0123456789abcdef\n", "  instance: 0123456789abcdef\n"},
	} {
		if got := Bookkeeping(tc.path, tc.in); got != tc.want {
			t.Errorf("Bookkeeping(%s, %q) = %q, want %q", tc.path, tc.in, got, tc.want)
		}
	}
}

// TestModelWorkspacesWalks: over many seeds, every step keeps one registrar per destination and
// one holder per promise and folder; a refused step claims what another workspace holds, names
// both owners, and once reverted leaves what the store must hold unchanged; every operation is
// drawn.
func TestModelWorkspacesWalks(t *testing.T) {
	drawn := map[string]int{}
	for seed := int64(1); seed <= 200; seed++ {
		m := NewWorkspaces(seed)
		if n := m.Count(); n < 2 || n > 3 {
			t.Fatalf("seed %d: %d workspaces, want 2 or 3", seed, n)
		}
		for step := 1; step <= 20; step++ {
			before := m.Expect("git-http")
			op := m.Next(WsOpNames)
			drawn[op.Name]++
			if op.ExpectError != "" {
				if op.Command != "plan" || !op.NoWrite || len(op.ExpectAlso) != 2 || !strings.Contains(op.ExpectAlso[1], m.Owner(op.WS)) {
					t.Fatalf("seed %d step %d: refused step %+v", seed, step, op)
				}
				op.Revert()
				if after := m.Expect("git-http"); !maps.Equal(after, before) {
					t.Fatalf("seed %d step %d: %s, reverted, changes what the store holds", seed, step, op.Desc)
				}
				continue
			}
			m.Applied(op)
			if op.NoWrite && !maps.Equal(m.Expect("git-http"), before) {
				t.Fatalf("seed %d step %d: %s writes nothing, but the model changed", seed, step, op.Desc)
			}
			for _, d := range wsDestNames {
				n := 0
				for _, w := range m.ws {
					if slices.Contains(w.dests, d) {
						n++
					}
				}
				if n > 1 {
					t.Fatalf("seed %d step %d: %s registered by %d workspaces", seed, step, d, n)
				}
			}
			for _, p := range wsPromiseNames {
				for _, d := range wsDestNames {
					n := 0
					for _, w := range m.ws {
						if slices.Contains(w.proms[p], d) {
							n++
						}
					}
					if n > 1 {
						t.Fatalf("seed %d step %d: promise %s on %s held by %d workspaces", seed, step, p, d, n)
					}
				}
			}
		}
	}
	for _, name := range WsOpNames {
		if drawn[name] == 0 {
			t.Errorf("operation %s never drawn in 200 seeds x 20 steps", name)
		}
	}
	t.Logf("drawn: %v", drawn)
}
