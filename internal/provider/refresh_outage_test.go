package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestAccRefreshStoreDown: the one MinIO server of three destinations and a promise stops; the
// next plan fails with one error for that store, naming every destination on it, and not one
// identical error per object.
func TestAccRefreshStoreDown(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	second := secondMinIO(t, "outage")
	config := fmt.Sprintf(`
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

provider "kratix" {
  secrets = { s = { access_key_id = %[1]q, secret_access_key = %[2]q } }
}

resource "kratix_state_store" "s" {
  name       = "s"
  secret_ref = "s"
  bucket     = { endpoint = %[3]q, bucket_name = "outage", insecure = true }
}

resource "kratix_destination" "d" {
  for_each    = toset(["w1", "w2", "w3"])
  name        = each.key
  path        = each.key
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "app"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
  destinations = values(kratix_destination.d)
}
`, second.AccessKey, second.SecretKey, second.Endpoint)
	c := newCLI(t, map[string]string{"main.tf": config})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	second.Down()
	out, err := c.run("plan")
	if err == nil {
		t.Fatalf("the plan with the store down succeeded:\n%s", out)
	}
	errors := regexp.MustCompile(`(?m)^Error: `).FindAllString(out, -1)
	flat := strings.Join(strings.Fields(out), " ")
	if len(errors) != 1 {
		t.Errorf("%d errors, want one for the store:\n%s", len(errors), out)
	}
	for _, want := range []string{second.Endpoint, "endpoint unreachable", `Destination "w1"`, `Destination "w2"`, `Destination "w3"`} {
		if !strings.Contains(flat, want) {
			t.Errorf("the plan does not name %q:\n%s", want, out)
		}
	}
}
