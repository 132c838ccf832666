package registry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// rec is a destination record written out by hand, as a store would hold it.
func rec(name, labels, extra string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: platform.kratix.io/v1alpha1
kind: Destination
metadata:
  name: %s
  labels: {%s}
%sspec:
  path: %s
  stateStoreRef: {kind: BucketStateStore, name: s}
`, name, labels, extra, name))
}

func TestDiscover(t *testing.T) {
	const dir = "fleet/.kratix-registry/destinations/"
	found := []Found{
		{Store: 1, Path: dir + "eu-2.yaml", Content: rec("eu-2", "env: prod, zone: eu", "")},
		{Store: 0, Path: dir + "us-1.yaml", Content: rec("us-1", "env: prod, zone: us", "")},
		{Store: 0, Path: dir + "eu-1.yaml", Content: rec("eu-1", "env: dev, zone: eu", "  annotations: {terraform.kratix.io/taints: '[{\"key\":\"m\",\"effect\":\"NoExecute\"}]'}\n")},
		{Store: 0, Path: dir + "broken.yaml", Content: []byte("kind: [")},
		{Store: 0, Path: dir + "renamed.yaml", Content: rec("other", "", "")},
		{Store: 1, Path: dir + "us-1.yaml", Content: rec("us-1", "env: prod", "")},
		{Store: 0, Path: dir + "strict.yaml", Content: []byte(strings.Replace(string(rec("strict", "env: prod", "")), "spec:\n", "spec:\n  strictMatchLabels: true\n", 1))},
		{Store: 0, Path: dir + "dry.yaml", Content: rec("dry", "kratix.io/dry-run: \"true\"", "")},
	}
	wantSkipped := []string{
		"0 " + dir + "broken.yaml: not YAML",
		"0 " + dir + "renamed.yaml: it names destination \"other\"",
		"1 " + dir + "us-1.yaml: destination \"us-1\" is registered already, in " + dir + "us-1.yaml of store 1",
	}
	tests := []struct {
		name      string
		selectors []scheduling.Selector
		want      string // name@store, sorted by name
	}{
		{"no selectors: every record", nil, "dry@0 eu-1@0 eu-2@1 strict@0 us-1@0"},
		{"an empty selector: Kratix's rules (strict and dry-run out)", []scheduling.Selector{}, "eu-1@0 eu-2@1 us-1@0"},
		{"match labels, tainted kept", []scheduling.Selector{{MatchLabels: map[string]string{"zone": "eu"}}}, "eu-1@0 eu-2@1"},
		{"entries merged as a promise merges them", []scheduling.Selector{
			{MatchLabels: map[string]string{"zone": "eu"}}, {MatchLabels: map[string]string{"env": "prod"}},
		}, "eu-2@1"},
		{"expressions", []scheduling.Selector{{MatchExpressions: []scheduling.Requirement{{Key: "env", Operator: "In", Values: []string{"prod"}}}}}, "eu-2@1 strict@0 us-1@0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, skipped := Discover(found, tt.selectors)
			var got []string
			for _, l := range out {
				got = append(got, fmt.Sprintf("%s@%d", l.Destination.Name, l.Store))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("Discover = %s, want %s", strings.Join(got, " "), tt.want)
			}
			if len(skipped) != len(wantSkipped) {
				t.Fatalf("skipped %+v, want %d", skipped, len(wantSkipped))
			}
			for i, s := range skipped {
				if line := fmt.Sprintf("%d %s: %s", s.Store, s.Path, s.Why); !strings.HasPrefix(line, wantSkipped[i]) {
					t.Errorf("skipped[%d] = %q, want it to start with %q", i, line, wantSkipped[i])
				}
			}
		})
	}
	out, _ := Discover(found, nil)
	if eu1 := out[1].Destination; eu1.Name != "eu-1" || len(eu1.Taints) != 1 || eu1.Taints[0].Effect != "NoExecute" {
		t.Errorf("eu-1 = %+v, want its NoExecute taint", eu1)
	}
}
