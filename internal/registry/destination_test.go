package registry

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

var at = time.Date(2026, 11, 29, 17, 30, 5, 0, time.UTC)

func TestRenderDestination(t *testing.T) {
	tests := []struct {
		name string
		d    Destination
		want string
	}{
		{"the defaults, unnamed owner", Destination{
			Name: "worker-1", Path: "worker-1", StoreKind: BucketStateStore, StoreName: "minio", InitWorkloads: true,
			Cleanup: "none", WrittenAt: at,
		}, `apiVersion: platform.kratix.io/v1alpha1
kind: Destination
metadata:
  annotations:
    terraform.kratix.io/written-at: "2026-11-29T17:30:05Z"
  name: worker-1
spec:
  cleanup: none
  filepath:
    mode: nestedByMetadata
  initWorkloads:
    enabled: true
  path: worker-1
  stateStoreRef:
    kind: BucketStateStore
    name: minio
  strictMatchLabels: false
`},
		{"every extension", Destination{
			Name: "w1", Labels: map[string]string{"zone": "eu", "env": "dev"}, Path: "clusters/w1", StoreKind: GitStateStore,
			StoreName: "fleet-repo", Mode: layout.ModeAggregatedYAML, AggregatedFilename: "all.yaml", StrictMatchLabels: true,
			InitWorkloads: false, Cleanup: "all", Weight: 3, Instance: "0123456789abcdef", Owner: "fleet team/eu",
			Taints:    []scheduling.Taint{{Key: "maintenance", Effect: "NoSchedule"}, {Key: "zone", Value: "down", Effect: "NoExecute"}},
			WrittenAt: time.Date(2026, 11, 29, 18, 30, 5, 999, time.FixedZone("CET", 3600)),
		}, `apiVersion: platform.kratix.io/v1alpha1
kind: Destination
metadata:
  annotations:
    terraform.kratix.io/instance-id: 0123456789abcdef
    terraform.kratix.io/owner: fleet team/eu
    terraform.kratix.io/taints: '[{"key":"maintenance","effect":"NoSchedule"},{"key":"zone","value":"down","effect":"NoExecute"}]'
    terraform.kratix.io/weight: "3"
    terraform.kratix.io/written-at: "2026-11-29T17:30:05Z"
  labels:
    env: dev
    zone: eu
  name: w1
spec:
  cleanup: all
  filepath:
    filename: all.yaml
    mode: aggregatedYAML
  initWorkloads:
    enabled: false
  path: clusters/w1
  stateStoreRef:
    kind: GitStateStore
    name: fleet-repo
  strictMatchLabels: true
`},
		{"the default aggregate name is not written", Destination{
			Name: "root", Path: ".", StoreKind: BucketStateStore, StoreName: "s", Mode: layout.ModeAggregatedYAML,
			AggregatedFilename: "aggregated.yaml", InitWorkloads: true, WrittenAt: at,
		}, `apiVersion: platform.kratix.io/v1alpha1
kind: Destination
metadata:
  annotations:
    terraform.kratix.io/written-at: "2026-11-29T17:30:05Z"
  name: root
spec:
  filepath:
    mode: aggregatedYAML
  initWorkloads:
    enabled: true
  path: .
  stateStoreRef:
    kind: BucketStateStore
    name: s
  strictMatchLabels: false
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(RenderDestination(tt.d))
			if got != tt.want {
				t.Errorf("RenderDestination:\n%s\nwant:\n%s", got, tt.want)
			}
			if again := string(RenderDestination(tt.d)); again != got {
				t.Errorf("two renders differ:\n%s\n%s", got, again)
			}
			back, err := ParseDestination([]byte(got))
			if err != nil {
				t.Fatalf("ParseDestination of the render: %v", err)
			}
			if !back.Same(tt.d) {
				t.Errorf("ParseDestination of the render = %+v, want %+v", back, tt.d)
			}
			if !back.WrittenAt.Equal(tt.d.WrittenAt.Truncate(time.Second)) {
				t.Errorf("WrittenAt = %v, want %v", back.WrittenAt, tt.d.WrittenAt)
			}
		})
	}
}

// A record seeded from Kratix (`kubectl get destinations -o yaml`, one item): the fields the API
// server adds are ignored, the missing annotations read as their defaults.
func TestParseDestinationFromKratix(t *testing.T) {
	got, err := ParseDestination([]byte(`apiVersion: platform.kratix.io/v1alpha1
kind: Destination
metadata:
  creationTimestamp: "2026-01-02T03:04:05Z"
  generation: 1
  labels:
    environment: dev
  name: worker-1
  resourceVersion: "1234"
  uid: 5f0c6c2e-0000-4000-8000-000000000000
spec:
  cleanup: none
  filepath:
    mode: nestedByMetadata
  path: worker-1
  stateStoreRef:
    kind: BucketStateStore
    name: default
status:
  conditions:
  - type: Ready
    status: "True"
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Destination{Name: "worker-1", Labels: map[string]string{"environment": "dev"}, Path: "worker-1",
		StoreKind: BucketStateStore, StoreName: "default", Mode: layout.ModeNestedByMetadata,
		AggregatedFilename: "aggregated.yaml", InitWorkloads: true, Cleanup: "none"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseDestination = %+v\nwant %+v", got, want)
	}
}

func TestParseDestinationRefuses(t *testing.T) {
	const head = "apiVersion: platform.kratix.io/v1alpha1\nkind: Destination\nmetadata:\n  name: w1\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"not YAML", "a: [", "not YAML"},
		{"another kind", "apiVersion: platform.kratix.io/v1alpha1\nkind: Promise\nmetadata:\n  name: w1\n", `kind "Promise"`},
		{"another version", "apiVersion: platform.kratix.io/v1\nkind: Destination\nmetadata:\n  name: w1\n", `apiVersion "platform.kratix.io/v1"`},
		{"no name", "apiVersion: platform.kratix.io/v1alpha1\nkind: Destination\n", "no metadata.name"},
		{"a weight of 0", head + "  annotations:\n    terraform.kratix.io/weight: \"0\"\n", "not a positive whole number"},
		{"a weight in words", head + "  annotations:\n    terraform.kratix.io/weight: three\n", "not a positive whole number"},
		{"taints not JSON", head + "  annotations:\n    terraform.kratix.io/taints: maintenance\n", "not a JSON list of taints"},
		{"a time not RFC 3339", head + "  annotations:\n    terraform.kratix.io/written-at: yesterday\n", "not an RFC 3339 time"},
		{"a mode nobody has", head + "spec:\n  filepath:\n    mode: flat\n", `spec.filepath.mode "flat"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDestination([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseDestination: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestDestinationSame(t *testing.T) {
	base := Destination{Name: "w1", Path: "w1", StoreKind: BucketStateStore, StoreName: "a", InitWorkloads: true, Owner: "fleet", WrittenAt: at}
	with := func(edit func(*Destination)) Destination {
		d := base
		edit(&d)
		return d
	}
	tests := []struct {
		name  string
		other Destination
		same  bool
	}{
		{"written at another time", with(func(d *Destination) { d.WrittenAt = at.Add(time.Hour) }), true},
		{"no labels and empty labels", with(func(d *Destination) { d.Labels = map[string]string{} }), true},
		{"the default mode spelled out", with(func(d *Destination) { d.Mode = layout.ModeNestedByMetadata }), true},
		{"the default aggregate name spelled out", with(func(d *Destination) { d.AggregatedFilename = "aggregated.yaml" }), true},
		{"a label", with(func(d *Destination) { d.Labels = map[string]string{"env": "dev"} }), false},
		{"a taint", with(func(d *Destination) { d.Taints = []scheduling.Taint{{Key: "k", Effect: "NoSchedule"}} }), false},
		{"a weight", with(func(d *Destination) { d.Weight = 2 }), false},
		{"another owner", with(func(d *Destination) { d.Owner = "platform" }), false},
		{"another instance", with(func(d *Destination) { d.Instance = "i2" }), false},
		{"another path", with(func(d *Destination) { d.Path = "w2" }), false},
		{"another store", with(func(d *Destination) { d.StoreName = "b" }), false},
		{"strict", with(func(d *Destination) { d.StrictMatchLabels = true }), false},
	}
	for _, tt := range tests {
		if got := base.Same(tt.other); got != tt.same {
			t.Errorf("%s: Same = %v, want %v", tt.name, got, tt.same)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{DestinationPath("", "w1"), ".kratix-registry/destinations/w1.yaml"},
		{DestinationPath("/fleet/eu/", "w1"), "fleet/eu/.kratix-registry/destinations/w1.yaml"},
		{DestinationsPrefix("fleet"), "fleet/.kratix-registry/destinations/"},
		{PromisePath("fleet", "postgres", "platform"), "fleet/.kratix-registry/promises/postgres/platform.yaml"},
		{PromisePath("", "postgres", ""), ".kratix-registry/promises/postgres/_unnamed.yaml"},
		{PromisePath("", "postgres", "team a/eu"), ".kratix-registry/promises/postgres/team%20a%2Feu.yaml"},
		{PromisesPrefix("."), ".kratix-registry/promises/"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, c := range []struct {
		p, name string
		ok      bool
	}{
		{"fleet/.kratix-registry/destinations/w1.yaml", "w1", true},
		{"fleet/.kratix-registry/destinations/w1.yml", "", false},
		{"fleet/.kratix-registry/destinations/sub/w1.yaml", "", false},
		{"fleet/.kratix-registry/destinations/.yaml", "", false},
		{"other/.kratix-registry/destinations/w1.yaml", "", false},
	} {
		name, ok := IsDestinationPath("fleet", c.p)
		if name != c.name || ok != c.ok {
			t.Errorf("IsDestinationPath(%q) = %q, %v; want %q, %v", c.p, name, ok, c.name, c.ok)
		}
	}
}
