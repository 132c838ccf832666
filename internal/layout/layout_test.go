package layout

import (
	"crypto/md5"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultGroupIDIsMD5OfDot(t *testing.T) {
	sum := md5.Sum([]byte("."))
	if got := hex.EncodeToString(sum[:])[:5]; got != DefaultGroupID {
		t.Fatalf("md5(\".\")[:5] = %s, constant says %s", got, DefaultGroupID)
	}
}

func TestRoot(t *testing.T) {
	tests := []struct {
		store, dest string
		want        string
		wantErr     string
	}{
		{"", ".", "", ""},
		{"", "/", "", ""},
		{"", "worker-1", "worker-1", ""},
		{"destinations", "dev", "destinations/dev", ""},
		{"destinations/", "./dev/", "destinations/dev", ""},
		{"a//b", "c/./d", "a/b/c/d", ""},
		{".", ".", "", ""},
		{"/", "default/worker-cluster", "default/worker-cluster", ""},
		{"", "../other", "", "destination path \"../other\" contains \"..\""},
		{"", "a/../../b", "", "contains \"..\""},
		{"", "a/..", "", ""},
		{"team/../shared", "dev/../../x", "", "destination path \"dev/../../x\" contains \"..\" that leads outside"},
		{"team/../shared", "dev/../prod", "shared/prod", ""},
		{"", "/abs", "", "starts with \"/\""},
		{"/abs", "x", "", "state store path \"/abs\" starts with"},
		{"x", `a\b`, "", "backslash"},
	}
	for _, tt := range tests {
		got, err := Root(tt.store, tt.dest)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Root(%q, %q) error = %v, want it to contain %q", tt.store, tt.dest, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Root(%q, %q) = %q, %v; want %q", tt.store, tt.dest, got, err, tt.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	if got := Prefix("", "dependencies"); got != "dependencies/" {
		t.Errorf("Prefix(root, dependencies) = %q", got)
	}
	if got := Prefix(""); got != "" {
		t.Errorf("Prefix of the store root = %q, want empty", got)
	}
	if got := Prefix("a/b", ".kratix"); got != "a/b/.kratix/" {
		t.Errorf("Prefix = %q", got)
	}
}

func TestCanaries(t *testing.T) {
	tests := []struct {
		mode Mode
		root string
		want map[string]string
	}{
		{ModeNestedByMetadata, "dev", map[string]string{
			"dev/dependencies/kratix-canary-namespace.yaml": CanaryNamespace,
			"dev/resources/kratix-canary-configmap.yaml":    CanaryConfigMap,
		}},
		{ModeNone, "", map[string]string{
			"kratix-canary-namespace.yaml": CanaryNamespace,
			"kratix-canary-configmap.yaml": CanaryConfigMap,
		}},
		{ModeAggregatedYAML, "x/y", map[string]string{
			"x/y/kratix-canary-namespace.yaml": CanaryNamespace,
			"x/y/kratix-canary-configmap.yaml": CanaryConfigMap,
		}},
		{ModeSplitByKind, "default/worker-cluster", map[string]string{
			"default/worker-cluster/crds/kratix-crds.yaml":           CanaryNamespace,
			"default/worker-cluster/resources/kratix-resources.yaml": CanaryConfigMap,
		}},
	}
	for _, tt := range tests {
		got := map[string]string{}
		for p, b := range Canaries(tt.mode, tt.root) {
			got[p] = string(b)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Canaries(%s, %q) = %v, want %v", tt.mode, tt.root, got, tt.want)
		}
	}
}

// The canary bytes are Kratix's, byte for byte (the canary files); a change here breaks worker clusters
// that compare them.
func TestCanaryBytes(t *testing.T) {
	if CanaryNamespace != "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\nspec: {}\nstatus: {}\n" {
		t.Error("namespace canary bytes changed")
	}
	if !strings.Contains(CanaryConfigMap, "canary: this confirms your infrastructure is reading from Kratix state stores\n") {
		t.Error("configmap canary text changed")
	}
}

func TestIndex(t *testing.T) {
	idx, err := ParseIndex([]byte("files:\n- dev/a.yaml\n- dev/sub/b.yaml\n- ../escape.yaml\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := IndexedFiles("stores/one", idx)
	want := []string{"stores/one/dev/a.yaml", "stores/one/dev/sub/b.yaml"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IndexedFiles = %v, want %v", got, want)
	}
	if _, err := ParseIndex([]byte("files: [unclosed")); err == nil {
		t.Error("a broken index file parsed without error")
	}
}
