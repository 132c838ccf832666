package layout

import "testing"

func TestRegistryPrefix(t *testing.T) {
	for storePath, want := range map[string]string{
		"":          ".kratix-registry/",
		".":         ".kratix-registry/",
		"/":         ".kratix-registry/",
		"fleet":     "fleet/.kratix-registry/",
		"/fleet/eu": "fleet/eu/.kratix-registry/",
		"fleet/":    "fleet/.kratix-registry/",
	} {
		if got := RegistryPrefix(storePath); got != want {
			t.Errorf("RegistryPrefix(%q) = %q, want %q", storePath, got, want)
		}
	}
}

func TestInRegistry(t *testing.T) {
	for _, c := range []struct {
		storePath, root string
		want            bool
	}{
		{"", ".kratix-registry", true},
		{"", ".kratix-registry/owners", true},
		{"", ".kratix-registry-2", false},
		{"", "", false},
		{"", "worker-1", false},
		{"fleet", "fleet/.kratix-registry", true},
		{"fleet", ".kratix-registry", false},
		{"fleet", "fleet/worker/.kratix-registry", false},
		{"fleet", "fleet", false},
	} {
		if got := InRegistry(c.storePath, c.root); got != c.want {
			t.Errorf("InRegistry(%q, %q) = %v, want %v", c.storePath, c.root, got, c.want)
		}
	}
}

func TestRootRefusesTheRegistry(t *testing.T) {
	for _, c := range [][2]string{{"", ".kratix-registry"}, {"fleet", ".kratix-registry/x"}, {"/", "/.kratix-registry/"}} {
		if root, err := Root(c[0], c[1]); err == nil {
			t.Errorf("Root(%q, %q) = %q, want an error", c[0], c[1], root)
		}
	}
	if root, err := Root("fleet", "eu/.kratix-registry"); err != nil || root != "fleet/eu/.kratix-registry" {
		t.Errorf("Root(fleet, eu/.kratix-registry) = %q, %v: a folder of that name deeper down is not the registry", root, err)
	}
}
