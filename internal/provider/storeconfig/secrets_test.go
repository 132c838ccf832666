package storeconfig

import (
	"errors"
	"reflect"
	"testing"
)

func TestEnvName(t *testing.T) {
	t.Parallel()
	tests := map[[2]string]string{
		{"minio", "secret_access_key"}: "KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY",
		{"git-ops", "password"}:        "KRATIX_SECRET_GIT_OPS_PASSWORD",
		{"a.b_c9", "known_hosts"}:      "KRATIX_SECRET_A_B_C9_KNOWN_HOSTS",
	}
	for in, want := range tests {
		if got := EnvName(in[0], in[1]); got != want {
			t.Errorf("envName(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}

func TestSecretResolution(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY": "from-env",
		"KRATIX_SECRET_MINIO_ACCESS_KEY_ID":     "env-id",
		"KRATIX_SECRET_ONLYENV_PASSWORD":        "token",
	}
	d := &Secrets{
		sets: map[string]Set{
			"minio": {"access_key_id": "config-id"},
			"empty": {},
		},
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	tests := []struct {
		name      string
		want      Set
		wantFound bool
	}{
		// The configuration wins key by key; the environment fills the rest.
		{"minio", Set{"access_key_id": "config-id", "secret_access_key": "from-env"}, true},
		{"onlyenv", Set{"password": "token"}, true},
		{"empty", Set{}, true},
		{"nothing", Set{}, false},
	}
	for _, tt := range tests {
		got, found, err := d.Resolve(tt.name)
		if err != nil || found != tt.wantFound || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("secret(%q) = %v, %v, %v; want %v, %v", tt.name, got, found, err, tt.want, tt.wantFound)
		}
	}
	d.allUnknown = true
	if _, _, err := d.Resolve("nothing"); !errors.Is(err, ErrSecretsUnknown) {
		t.Errorf("with unknown secrets, an unresolvable set gave %v, want errSecretsUnknown", err)
	}
}

func TestGitTransport(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"https://github.com/acme/gitops.git":   "https",
		"http://git.internal/acme/gitops.git":  "http",
		"ssh://git@github.com/acme/gitops.git": "ssh",
		"git@github.com:acme/gitops.git":       "ssh",
		"file:///srv/git/gitops.git":           "file",
		"ftp://example.com/x.git":              "",
		"github.com/acme/gitops":               "",
		"https:///nohost":                      "",
	}
	for url, want := range tests {
		got, err := GitTransport(url)
		if want == "" {
			if err == nil {
				t.Errorf("gitTransport(%q) = %q, want an error", url, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("gitTransport(%q) = %q, %v; want %q", url, got, err, want)
		}
	}
}
