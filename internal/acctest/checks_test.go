package acctest

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// mapStore is a Store held in memory.
type mapStore map[string]string

func (m mapStore) String() string { return "map" }

func (m mapStore) Files(context.Context) ([]string, error) {
	var out []string
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

func (m mapStore) Read(_ context.Context, path string) ([]byte, bool, error) {
	c, ok := m[path]
	return []byte(c), ok, nil
}

func run(c statecheck.StateCheck) error {
	var resp statecheck.CheckStateResponse
	c.CheckState(context.Background(), statecheck.CheckStateRequest{}, &resp)
	return resp.Error
}

// TestChecks: each check passes on a store that holds what it asks, and fails, naming the path
// and both values, on one that does not.
func TestChecks(t *testing.T) {
	store := mapStore{"w/a.yaml": "a\n", "w/b.yaml": "b\n", "x/c.yaml": "c\n"}
	for _, tc := range []struct {
		name  string
		check statecheck.StateCheck
		fails string // "" when the check must pass; else a part of its error
	}{
		{"holds", FileHolds(store, "w/a.yaml", "a\n"), ""},
		{"holds other content", FileHolds(store, "w/a.yaml", "b\n"), `w/a.yaml holds "a\n", want "b\n"`},
		{"holds a missing file", FileHolds(store, "w/z.yaml", "z\n"), "w/z.yaml is missing"},
		{"missing", FileMissing(store, "w/z.yaml"), ""},
		{"missing a present file", FileMissing(store, "w/a.yaml"), "w/a.yaml should not exist"},
		{"folder in any order", FolderHolds(store, "w/", "w/b.yaml", "w/a.yaml"), ""},
		{"folder with one more", FolderHolds(store, "w/", "w/a.yaml"), "want exactly\n  w/a.yaml"},
		{"folder with one less", FolderHolds(store, "x/", "x/c.yaml", "x/d.yaml"), "x/c.yaml\n  x/d.yaml"},
		{"empty folder", FolderHolds(store, "y/"), ""},
		{"exactly", HoldsExactly(store, map[string]string{"w/a.yaml": "a\n", "w/b.yaml": "b\n", "x/c.yaml": "c\n"}), ""},
		{"exactly, a file less", HoldsExactly(store, map[string]string{"w/a.yaml": "a\n", "w/b.yaml": "b\n"}), "want exactly"},
		{"exactly, other content", HoldsExactly(store, map[string]string{"w/a.yaml": "a\n", "w/b.yaml": "B\n", "x/c.yaml": "c\n"}), `w/b.yaml holds "b\n", want "B\n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(tc.check)
			switch {
			case tc.fails == "" && err != nil:
				t.Errorf("failed: %v", err)
			case tc.fails != "" && err == nil:
				t.Errorf("passed, want an error with %q", tc.fails)
			case tc.fails != "" && !strings.Contains(err.Error(), tc.fails):
				t.Errorf("error %q does not say %q", err, tc.fails)
			}
		})
	}
}

func TestGitOpsOnly(t *testing.T) {
	got := GitOpsOnly([]string{
		".kratix-registry/destinations/w1.yaml",
		"fleet/.kratix-registry/destinations/w1.yaml",
		"fleet/w1/dependencies/kratix-canary-namespace.yaml",
		"fleet/.kratix-registry-old/x.yaml",
		"PUT fleet/.kratix-registry/destinations/w1.yaml",
		"DELETE .kratix-registry/destinations/w1.yaml",
		"PUT fleet/w1/resources/kratix-canary-configmap.yaml",
		"Update from: destination/w1",
		"Update from: fleet/.kratix-registry/destinations/w1.yaml",
	})
	want := []string{
		"fleet/w1/dependencies/kratix-canary-namespace.yaml",
		"fleet/.kratix-registry-old/x.yaml",
		"PUT fleet/w1/resources/kratix-canary-configmap.yaml",
		"Update from: destination/w1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("GitOpsOnly = %q, want %q", got, want)
	}
}
