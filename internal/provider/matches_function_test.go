package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestMatchesFunction_nullAndUnknown: every argument of provider::kratix::matches that can be
// null or unknown, through the real CLI. A null is left out: a null label value is an absent
// label, a null in match_labels no requirement, a null selectors list no selectors; only a null
// key or operator is refused. An unknown argument, or an unknown value inside one, makes the
// result unknown at plan and known after apply.
func TestMatchesFunction_nullAndUnknown(t *testing.T) {
	t.Parallel()
	outputs := map[string]struct {
		expr string
		want bool
	}{
		// The finding: a label from a variable that is null.
		"null_label_value":          {`[{ match_labels = { env = "dev" } }], { env = "dev", zone = var.zone }`, true},
		"null_label_is_absent":      {`[{ match_expressions = [{ key = "zone", operator = "DoesNotExist" }] }], { env = "dev", zone = var.zone }`, true},
		"null_label_does_not_exist": {`[{ match_expressions = [{ key = "zone", operator = "Exists" }] }], { env = "dev", zone = null }`, false},
		"null_label_is_not_empty":   {`[{ match_labels = { zone = "" } }], { zone = null }`, false},
		"null_labels":               {`[], null`, true},
		"null_labels_select":        {`[{ match_labels = { env = "dev" } }], null`, false},
		"null_selectors":            {`null, { env = "prod" }`, true},
		"null_entry":                {`[null, { match_labels = { env = "dev" } }], { env = "dev" }`, true},
		"null_entry_alone":          {`[null], { env = "prod" }`, true},
		"null_parts":                {`[{ match_labels = null, match_expressions = null }], { env = "prod" }`, true},
		"null_match_label":          {`[{ match_labels = { env = "dev", zone = var.zone } }], { env = "dev", zone = "eu" }`, true},
		"null_match_label_other":    {`[{ match_labels = { env = "dev", zone = var.zone } }], { env = "prod" }`, false},
		"null_values":               {`[{ match_expressions = [{ key = "zone", operator = "Exists", values = null }] }], { zone = "eu" }`, true},
		"null_in_values":            {`[{ match_expressions = [{ key = "zone", operator = "In", values = ["eu", null] }] }], { zone = "eu" }`, true},
		"null_requirement":          {`[{ match_expressions = [null, { key = "zone", operator = "Exists" }] }], { zone = "eu" }`, true},
		"unknown_label":             {`[{ match_labels = { zone = "eu" } }], { zone = terraform_data.zone.output }`, true},
		"unknown_labels":            {`[{ match_labels = { zone = "eu" } }], terraform_data.labels.output`, true},
		"unknown_selectors":         {`terraform_data.selectors.output, { zone = "eu" }`, true},
		"unknown_match_label":       {`[{ match_labels = { zone = terraform_data.zone.output } }], { zone = "eu" }`, true},
	}
	cfg := `
variable "zone" {
  type    = string
  default = null
}

resource "terraform_data" "zone" {
  input = "eu"
}

resource "terraform_data" "labels" {
  input = { zone = "eu" }
}

resource "terraform_data" "selectors" {
  input = [{ match_labels = { zone = "eu" } }]
}
`
	var checks []statecheck.StateCheck
	var unknown []plancheck.PlanCheck
	for name, o := range outputs {
		cfg += "\noutput \"" + name + "\" {\n  value = provider::kratix::matches(" + o.expr + ")\n}\n"
		checks = append(checks, statecheck.ExpectKnownOutputValue(name, knownvalue.Bool(o.want)))
		if regexp.MustCompile(`terraform_data`).MatchString(o.expr) {
			unknown = append(unknown, plancheck.ExpectUnknownOutputValue(name))
		} else {
			unknown = append(unknown, plancheck.ExpectKnownOutputValue(name, knownvalue.Bool(o.want)))
		}
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config:            cfg,
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: unknown},
			ConfigStateChecks: checks,
		}},
	})
	for attr, expr := range map[string]string{
		"key":      `{ key = null, operator = "Exists" }`,
		"operator": `{ key = "zone", operator = null }`,
	} {
		t.Run("null "+attr, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      "output \"x\" {\n  value = provider::kratix::matches([{ match_expressions = [" + expr + "] }], { zone = \"eu\" })\n}\n",
					PlanOnly:    true,
					ExpectError: wrapped(`selectors\[0\]\.match_expressions\[0\]\.` + attr + `: must not be null`),
				}},
			})
		})
	}
}

// TestMatchesFunction_nullLabelAsThePromise: a destination labelled { env = "dev", zone = null }
// is a destination without a zone for a promise, for kratix_placement and for the function
// alike: a zone DoesNotExist selector selects it, a zone Exists selector does not; and
// match_labels { zone = null } puts no requirement on the zone. The provider is offline, so the
// plan needs no store.
func TestMatchesFunction_nullLabelAsThePromise(t *testing.T) {
	t.Parallel()
	cfg := offlineProvider + `
variable "zone" {
  type    = string
  default = null
}

resource "kratix_state_store" "s" {
  name       = "s"
  secret_ref = "nowhere"
  bucket = {
    endpoint    = "127.0.0.1:1"
    bucket_name = "none"
    insecure    = true
  }
}

resource "kratix_destination" "nozone" {
  name        = "nozone"
  path        = "nozone"
  labels      = { env = "dev", zone = var.zone }
  state_store = kratix_state_store.s
}

resource "kratix_destination" "eu" {
  name        = "eu"
  path        = "eu"
  labels      = { env = "dev", zone = "eu" }
  state_store = kratix_state_store.s
}

resource "kratix_promise" "without_zone" {
  name                  = "without-zone"
  destinations          = [kratix_destination.nozone, kratix_destination.eu]
  destination_selectors = [{ match_expressions = [{ key = "zone", operator = "DoesNotExist" }] }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
}

resource "kratix_promise" "with_zone" {
  name                  = "with-zone"
  destinations          = [kratix_destination.nozone, kratix_destination.eu]
  destination_selectors = [{ match_expressions = [{ key = "zone", operator = "Exists" }] }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n"
}

resource "kratix_promise" "any_zone" {
  name                  = "any-zone"
  destinations          = [kratix_destination.nozone, kratix_destination.eu]
  destination_selectors = [{ match_labels = { env = "dev", zone = var.zone } }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: c\n"
}

data "kratix_placement" "without_zone" {
  destinations = [
    { name = "nozone", labels = { env = "dev", zone = var.zone }, path = "nozone", state_store = { name = "s", path = "" } },
    { name = "eu", labels = { env = "dev", zone = "eu" }, path = "eu", state_store = { name = "s", path = "" } },
  ]
  destination_selectors = [{ match_expressions = [{ key = "zone", operator = "DoesNotExist" }] }]
}

output "placement_without_zone" {
  value = data.kratix_placement.without_zone.names
}

output "matches_without_zone" {
  value = provider::kratix::matches([{ match_expressions = [{ key = "zone", operator = "DoesNotExist" }] }], { env = "dev", zone = var.zone })
}

output "matches_with_zone" {
  value = provider::kratix::matches([{ match_expressions = [{ key = "zone", operator = "Exists" }] }], { env = "dev", zone = var.zone })
}
`
	one := func(n string) knownvalue.Check {
		return knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(n)})
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("kratix_promise.without_zone", tfjsonpath.New("scheduled_destinations"), one("nozone")),
				plancheck.ExpectKnownValue("kratix_promise.with_zone", tfjsonpath.New("scheduled_destinations"), one("eu")),
				plancheck.ExpectKnownValue("kratix_promise.any_zone", tfjsonpath.New("scheduled_destinations"), names("eu", "nozone")),
				plancheck.ExpectKnownOutputValue("placement_without_zone", one("nozone")),
				plancheck.ExpectKnownOutputValue("matches_without_zone", knownvalue.Bool(true)),
				plancheck.ExpectKnownOutputValue("matches_with_zone", knownvalue.Bool(false)),
			}},
			// Offline, the apply is refused: the plan is what is checked.
			ExpectError: offlineRefused,
		}},
	})
}
