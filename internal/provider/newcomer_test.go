package provider

import (
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// Mistakes of a first hour with the provider, made with the real CLI: each must end in a message
// that says what was found and what to do.

// TestAccCredentialErrorsListWhatWasFound: environment variables with the wrong key names
// (KRATIX_SECRET_MINIO_ACCESS_KEY for ..._ACCESS_KEY_ID) are named in the error, with the names
// that are accepted, never with their values; before, the error claimed no variable was set.
func TestAccCredentialErrorsListWhatWasFound(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	store := `
resource "kratix_state_store" "s" {
  name       = "minio"
  secret_ref = "minio"
  bucket = {
    endpoint    = "minio.example:9000"
    bucket_name = "kratix"
  }
}
`
	for _, c := range []struct {
		name, provider string
		env            []string
		wants          []string
	}{
		{
			name: "no set, stray variables",
			env:  []string{"KRATIX_SECRET_MINIO_ACCESS_KEY=AKIASTRAY1", "KRATIX_SECRET_MINIO_SECRET_KEY=stray-secret-1"},
			wants: []string{
				`Error: Unknown Secret`,
				`Found KRATIX_SECRET_MINIO_ACCESS_KEY, KRATIX_SECRET_MINIO_SECRET_KEY in the environment, which name no key a secret set may hold`,
				`the accepted variables are KRATIX_SECRET_MINIO_<KEY>, with <KEY> one of ACCESS_KEY_ID, SECRET_ACCESS_KEY, SESSION_TOKEN,`,
			},
		},
		{
			name:     "half a set, one stray variable",
			provider: "provider \"kratix\" {\n  secrets = { minio = { access_key_id = \"AKIAHALF\" } }\n}\n",
			env:      []string{"KRATIX_SECRET_MINIO_SECRET_KEY=stray-secret-2"},
			wants: []string{
				`Error: Incomplete Secret`,
				`it holds access_key_id.`,
				`Found KRATIX_SECRET_MINIO_SECRET_KEY in the environment`,
				`KRATIX_SECRET_MINIO_<KEY>, with <KEY> one of ACCESS_KEY_ID, SECRET_ACCESS_KEY`,
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newCLI(t, map[string]string{"main.tf": cliRequiredProviders + c.provider + store}, c.env...)
			out, err := cl.run("plan")
			if err == nil {
				t.Fatalf("the plan succeeded:\n%s", out)
			}
			got := flat(out)
			for _, w := range c.wants {
				if !strings.Contains(got, w) {
					t.Errorf("the plan's output lacks %q:\n%s", w, out)
				}
			}
			for _, secret := range []string{"AKIASTRAY1", "stray-secret-1", "stray-secret-2"} {
				if strings.Contains(out, secret) {
					t.Errorf("the plan's output shows the value %q", secret)
				}
			}
		})
	}
}

// offlineDestination is an offline provider with a store and one destination: a configuration
// that plans without any server.
const offlineDestination = cliRequiredProviders + `
provider "kratix" {
  offline = true
}

resource "kratix_state_store" "s" {
  name = "gitops"
  git  = { url = "https://git.example.com/org/gitops.git" }
}

resource "kratix_destination" "d" {
  name        = "worker-1"
  path        = "worker-1"
  state_store = kratix_state_store.s
}
`

// TestAccOfflinePlanSaysSo: a plan with offline = true looks like any other, yet read no store;
// it says so once, as a warning, and the apply still refuses.
func TestAccOfflinePlanSaysSo(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	cl := newCLI(t, map[string]string{"main.tf": offlineDestination})
	out, err := cl.run("plan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	got := flat(out)
	for _, w := range []string{
		"Warning: Provider Is Offline",
		"The kratix provider plans without its state stores (offline = true in the provider block)",
		"so this plan does not show what the stores hold",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("the plan's output lacks %q:\n%s", w, out)
		}
	}
	if n := strings.Count(got, "Warning: Provider Is Offline"); n != 1 {
		t.Errorf("the warning is printed %d times, want once", n)
	}
	out, err = cl.run("apply", "-auto-approve")
	if err == nil || !strings.Contains(flat(out), "Error: Provider Is Offline") {
		t.Errorf("the apply did not refuse (err %v):\n%s", err, out)
	}
}

// TestAccYAMLErrorPointsAtTheBadLine: an indentation mistake on line 7 of a promise's
// dependencies is reported at line 7 and at the attribute, not at the line where the enclosing
// mapping began (the YAML parser's number, line 6 here).
func TestAccYAMLErrorPointsAtTheBadLine(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	config := offlineDestination + `
resource "kratix_promise" "p" {
  name         = "app"
  destinations = [kratix_destination.d]
  dependencies = <<-YAML
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: app
    data:
      a: b
     bad: indentation
  YAML
}
`
	cl := newCLI(t, map[string]string{"main.tf": config})
	out, err := cl.run("plan")
	if err == nil {
		t.Fatalf("the plan succeeded:\n%s", out)
	}
	got := flat(out)
	for _, w := range []string{"document 1 (line 7): invalid YAML", `in resource "kratix_promise" "p"`, "dependencies = <<-YAML"} {
		if !strings.Contains(got, w) {
			t.Errorf("the plan's output lacks %q:\n%s", w, out)
		}
	}
}

// TestAccHTTPSToAPlainHTTPServer: an https:// Git URL whose server speaks plain HTTP and answers
// a TLS ClientHello with a bare HTML page (Python's http.server) gets the advice to use http://,
// not the advice to set ca_certificate that a certificate problem gets.
func TestAccHTTPSToAPlainHTTPServer(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	addr := testinfra.HTTP09Server(t)
	config := cliRequiredProviders + `
resource "kratix_state_store" "s" {
  name = "gitops"
  git  = { url = "https://` + addr + `/org/gitops.git" }
}

resource "kratix_destination" "d" {
  name        = "worker-1"
  path        = "worker-1"
  state_store = kratix_state_store.s
}
`
	cl := newCLI(t, map[string]string{"main.tf": config})
	out, err := cl.run("apply", "-auto-approve")
	if err == nil {
		t.Fatalf("the apply succeeded:\n%s", out)
	}
	got := flat(out)
	if !strings.Contains(got, "server speaks plain HTTP") || !strings.Contains(got, "Use an http:// URL") {
		t.Errorf("the output does not say the server speaks plain HTTP and to use http://:\n%s", out)
	}
	if strings.Contains(got, "ca_certificate") {
		t.Errorf("the output advises ca_certificate:\n%s", out)
	}
}
