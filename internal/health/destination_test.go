package health

import "testing"

// TestDestinationOf: which destination's folder a record file is in.
func TestDestinationOf(t *testing.T) {
	tests := []struct {
		root, path string
		want       string
		ok         bool
	}{
		{"health", "health/worker-1/x.yaml", "worker-1", true},
		{"health/", "health/worker-1/x.yaml", "worker-1", true},
		{"/health/", "health/worker-1/x.yml", "worker-1", true},
		{"health", "health/worker-1/deep/er/x.yaml", "worker-1", true},
		{"", "worker-1/x.yaml", "worker-1", true},
		{"", "worker-1/a/b.yml", "worker-1", true},
		{"clusters/health", "clusters/health/prod-eu/redis.yaml", "prod-eu", true},
		{"health", "health/worker-1/.hidden.yaml", "worker-1", true},
		{"health", "health/x.yaml", "", false},                // directly in root
		{"", "x.yaml", "", false},                             // directly in the store's top
		{"health", "health/worker-1/x.json", "", false},       // not YAML by name
		{"health", "health/worker-1/x.YAML", "", false},       // names are case-sensitive
		{"health", "health/worker-1/x.yaml.bak", "", false},   // not YAML by name
		{"health", "health/worker-1/", "", false},             // a folder
		{"health", "healthy/worker-1/x.yaml", "", false},      // another root sharing a prefix
		{"health", "other/health/worker-1/x.yaml", "", false}, // root not at the top
		{"health", "health//x.yaml", "", false},               // empty folder name
		{"health", "health/./x.yaml", "", false},
		{"health", "health/../x.yaml", "", false},
	}
	for _, tt := range tests {
		got, ok := DestinationOf(tt.root, tt.path)
		if got != tt.want || ok != tt.ok {
			t.Errorf("DestinationOf(%q, %q) = %q, %v; want %q, %v", tt.root, tt.path, got, ok, tt.want, tt.ok)
		}
	}
}
