package placement_test

import (
	"reflect"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

func TestParseRequestImportID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id, base, dest string
		parts          []string
		bad            bool
	}{
		{id: "jenkins/default/dev", base: "jenkins/default/dev", parts: []string{"jenkins", "default", "dev"}},
		{id: "jenkins/default/dev@worker-2", base: "jenkins/default/dev", parts: []string{"jenkins", "default", "dev"}, dest: "worker-2"},
		{id: "jenkins/default/dev@", bad: true},
		{id: "jenkins/dev", bad: true},
		{id: "jenkins//dev", bad: true},
		{id: "jenkins/default/dev/x@w", bad: true},
		{id: "@w", bad: true},
	}
	for _, tt := range tests {
		base, parts, dest, err := placement.ParseRequestImportID(tt.id)
		if tt.bad {
			if err == nil {
				t.Errorf("%q: accepted as %q %v %q", tt.id, base, parts, dest)
			}
			continue
		}
		if err != nil || base != tt.base || dest != tt.dest || !reflect.DeepEqual(parts, tt.parts) {
			t.Errorf("%q: got %q %v %q %v, want %q %v %q", tt.id, base, parts, dest, err, tt.base, tt.parts, tt.dest)
		}
	}
}
