package provider

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
)

// TestPromiseBadInput: the kinds of bad input that concern promises fail at plan with the
// attribute and a message a user can act on, and nothing is written.
func TestPromiseBadInput(t *testing.T) {
	t.Parallel()
	repo := newFileRepo(t)
	base := kratixStateStore{Label: "s", Name: q("s"), Git: hclObj{{"url", q("file://" + repo)}}.inline()}.String() +
		kratixDestination{Label: "a", Name: q("a"), Path: q("a"), StateStore: "kratix_state_store.s"}.String() +
		kratixDestination{Label: "b", Name: q("b"), Path: q("b"), StateStore: "kratix_state_store.s"}.String()
	ns := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n"
	promise := func(deps, extra string) string {
		return base + fmt.Sprintf("resource \"kratix_promise\" \"p\" {\n  name = \"p\"\n  dependencies = %q\n%s\n}\n", deps, extra)
	}
	tests := []struct{ name, config, want string }{
		// The quote opens on line 95 of the operator's sixth document (see package fixtures).
		{"unclosed quote", promise(string(fixtures.JenkinsOperatorUnclosedQuote()), "  destinations = [kratix_destination.a]"),
			`Invalid Kubernetes YAML[\s\S]*dependencies: document 6 \(line 95\)[\s\S]*opened on line 95 is never closed`},
		{"not a Kubernetes object", promise("- a\n- b\n", "  destinations = [kratix_destination.a]"),
			`Invalid Kubernetes YAML[\s\S]*document 1 \(line 1\): is a list`},
		{"missing kind", promise("apiVersion: v1\nmetadata:\n  name: x\n", "  destinations = [kratix_destination.a]"),
			`missing kind`},
		{"duplicate destination", promise(ns, "  destinations = [kratix_destination.a, kratix_destination.a]"),
			`Duplicate Destination[\s\S]*destinations\[1\].name: destination "a" is listed twice`},
		{"two destinations on one folder", promise(ns, `  destinations = [kratix_destination.a, merge(kratix_destination.b, { path = "a" })]`),
			`Overlapping Destination Folders[\s\S]*destinations\[1\].path`},
		{"unknown operator", promise(ns, `  destinations = [kratix_destination.a]
  destination_selectors = [{ match_expressions = [{ key = "k", operator = "Maybe" }] }]`), `Invalid Attribute Value Match[\s\S]*Maybe`},
		{"values with Exists", promise(ns, `  destinations = [kratix_destination.a]
  destination_selectors = [{ match_expressions = [{ key = "k", operator = "Exists", values = ["v"] }] }]`),
			`Invalid Selector[\s\S]*destination_selectors\[0\].match_expressions\[0\].values: operator Exists takes no values`},
		// Terraform drops the unknown key: the entry arrives empty and would select everything.
		{"a selector without match_labels", promise(ns, `  destinations = [kratix_destination.a]
  destination_selectors = [{ environment = "dev" }]`),
			`Empty Selector[\s\S]*destination_selectors\[0\] has neither match_labels nor match_expressions[\s\S]*match_labels = \{ environment = "dev" \}`},
		{"an empty wave selector", promise(ns, `  destinations = [kratix_destination.a]
  rollout = { waves = [{ name = "w", destination_selectors = [{}] }] }`),
			`Empty Selector[\s\S]*rollout.waves\[0\].destination_selectors\[0\]`},
		{"two waves with one name", promise(ns, `  destinations = [kratix_destination.a]
  rollout = { waves = [{ name = "w" }, { name = "w" }] }`),
			`Duplicate Wave[\s\S]*rollout.waves\[1\].name: wave "w" is already waves\[0\]`},
		{"a rollout with no wave", promise(ns, `  destinations = [kratix_destination.a]
  rollout = { waves = [] }`), `Invalid Attribute Value[\s\S]*at least 1`},
		{"min_wait not a duration", promise(ns, `  destinations = [kratix_destination.a]
  rollout = { waves = [{ name = "w" }], min_wait = "soon" }`), `Invalid Time Duration String Value[\s\S]*Given Value: soon`},
		{"min_wait negative", promise(ns, `  destinations = [kratix_destination.a]
  rollout = { waves = [{ name = "w" }], min_wait = "-1h" }`), `Invalid Duration[\s\S]*"-1h" is a negative duration`},
		{"bad label in a selector", promise(ns, `  destinations = [kratix_destination.a]
  destination_selectors = [{ match_labels = { "bad key!" = "v" } }]`), `Invalid Label Key`},
		{"request file outside its folder", promise(ns, "  destinations = [kratix_destination.a]") + `
resource "kratix_resource_request" "r" {
  promise = kratix_promise.p
  name    = "r"
  files   = { "../escape.yaml" = "x" }
}`, `Invalid File Key[\s\S]*files\["../escape.yaml"\]`},
		{"request with neither documents nor files", promise(ns, "  destinations = [kratix_destination.a]") + `
resource "kratix_resource_request" "r" {
  promise = kratix_promise.p
  name    = "r"
}`, `Invalid Files[\s\S]*needs documents or files`},
		{"request documents not Kubernetes objects", promise(ns, "  destinations = [kratix_destination.a]") + `
resource "kratix_resource_request" "r" {
  promise   = kratix_promise.p
  name      = "r"
  documents = "just: text"
}`, `Invalid Kubernetes YAML[\s\S]*missing apiVersion, kind, metadata.name`},
		{"request selector with a bad value", promise(ns, "  destinations = [kratix_destination.a]") + `
resource "kratix_resource_request" "r" {
  promise               = kratix_promise.p
  name                  = "r"
  documents             = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"
  destination_selectors = [{ match_labels = { size = "not valid" } }]
}`, `Invalid Label Value`},
		{"bad promise name", base + "resource \"kratix_promise\" \"p\" {\n  name = \"Jenkins_Operator\"\n  dependencies = \"\"\n  destinations = []\n}\n",
			`Invalid Name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps:                    []resource.TestStep{{Config: tt.config, PlanOnly: true, ExpectError: wrapped(tt.want)}},
			})
		})
	}
	// The extra corpus, when it is beside the repository: the Jenkins operator exactly as the
	// Kratix Marketplace published it, with its quote left open on line 242.
	t.Run("unclosed quote in the Marketplace's Jenkins operator", func(t *testing.T) {
		p, err := fixtures.MarketplaceFile("invalid/jenkins-operator-unclosed-quote.yaml")
		if errors.Is(err, fixtures.ErrNoMarketplace) {
			t.Skipf("extra corpus not present: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		published, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{{
				Config: promise(string(published), "  destinations = [kratix_destination.a]"), PlanOnly: true,
				ExpectError: wrapped(`Invalid Kubernetes YAML[\s\S]*dependencies: document 6 \(line 242\)[\s\S]*opened on line 242 is never closed`),
			}},
		})
	})
	if n := commitCount(t, repo); n != 1 {
		t.Errorf("the repository has %d commits after the bad plans, want 1", n)
	}
}
