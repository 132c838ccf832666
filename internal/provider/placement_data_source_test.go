package provider

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestPlacement_selectsAndExplains: over destinations prod and dev, labelled env, [{}] selects
// both, env=dev selects dev only, and every "no" has its reason; mode "one" picks the rendezvous
// choice; the matches function agrees. It needs the Terraform CLI but no store.
func TestPlacement_selectsAndExplains(t *testing.T) {
	t.Parallel()
	cfg := `
locals {
  pool = [
    { name = "prod", labels = { env = "prod" }, path = "prod", state_store = { name = "gitops", path = "clusters" } },
    { name = "dev", labels = { env = "dev" }, path = "dev", state_store = { name = "gitops", path = "clusters" } },
  ]
}

data "kratix_placement" "all" {
  destinations          = local.pool
  destination_selectors = [{}]
}

data "kratix_placement" "dev" {
  destinations          = local.pool
  destination_selectors = [{ match_labels = { env = "dev" } }]
}

data "kratix_placement" "any" {
  destinations = local.pool
  match        = "any"
  destination_selectors = [
    { match_labels = { env = "dev" } },
    { match_labels = { env = "prod" } },
  ]
}

data "kratix_placement" "request" {
  destinations          = local.pool
  destination_selectors = [{ match_labels = { env = "dev" } }]
  resource_selectors    = [{ match_labels = { env = "prod", pvCapacity = "large" } }]
}

data "kratix_placement" "one" {
  destinations = local.pool
  mode         = "one"
  request      = "jenkins/default/dev-instance"
}

data "kratix_placement" "one_by_key" {
  destinations = local.pool
  mode         = "one"
  key          = "default/jenkins/dev-instance"
}

data "kratix_placement" "waves" {
  destinations = [for n in ["canary", "dev-1", "dev-2", "prod-1", "prod-2", "prod-3", "prod-4", "staging"] :
    { name = n, labels = { env = split("-", n)[0] }, path = n, state_store = { name = "gitops", path = "" } }
  ]
  destination_selectors = [{ match_expressions = [{ key = "env", operator = "NotIn", values = ["staging"] }] }]
  rollout_waves = [
    { name = "canary", destination_selectors = [{ match_labels = { env = "canary" } }] },
    { name = "dev", destination_selectors = [{ match_labels = { env = "dev" } }], max_destinations = 1 },
    { name = "prod-a", destination_selectors = [{ match_labels = { env = "prod" } }], max_percent = 50 },
    { name = "prod-b", destination_selectors = [{ match_labels = { env = "prod" } }] },
  ]
}

locals {
  tainted = [
    { name = "prod", labels = { env = "prod" }, path = "prod", state_store = { name = "gitops", path = "clusters" },
      taints = [{ key = "maintenance", value = "2026-12-01", effect = "NoSchedule" }] },
    { name = "dev", labels = { env = "dev" }, path = "dev", state_store = { name = "gitops", path = "clusters" } },
  ]
}

data "kratix_placement" "cordoned" {
  destinations = local.tainted
}

data "kratix_placement" "cordoned_one" {
  destinations = local.tainted
  mode         = "one"
  request      = "jenkins/default/dev-instance"
}

data "kratix_placement" "tolerated_one" {
  destinations = local.tainted
  mode         = "one"
  request      = "jenkins/default/dev-instance"
  tolerations  = [{ key = "maintenance", operator = "Exists", effect = "NoSchedule" }]
}

locals {
  zoned = [for n in ["a1", "a2", "b1"] :
    { name = n, labels = { zone = substr(n, 0, 1) }, path = n, state_store = { name = "gitops", path = "" } }
  ]
}

data "kratix_placement" "replicas" {
  destinations = local.zoned
  mode         = "one"
  request      = "jenkins/default/r2"
  replicas     = 2
}

data "kratix_placement" "spread" {
  destinations = local.zoned
  mode         = "one"
  request      = "jenkins/default/r2"
  replicas     = 2
  spread       = { topology_key = "zone" }
}

output "matches" {
  value = provider::kratix::matches([{ match_labels = { env = "dev" } }], { env = "dev", zone = "eu" })
}

output "not_matches" {
  value = provider::kratix::matches([{ match_expressions = [{ key = "zone", operator = "In", values = ["us"] }] }], { zone = "eu" })
}
`
	names := func(n ...string) knownvalue.Check {
		checks := make([]knownvalue.Check, len(n))
		for i, s := range n {
			checks[i] = knownvalue.StringExact(s)
		}
		return knownvalue.ListExact(checks)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kratix_placement.all", tfjsonpath.New("names"), names("dev", "prod")),
				statecheck.ExpectKnownValue("data.kratix_placement.dev", tfjsonpath.New("names"), names("dev")),
				statecheck.ExpectKnownValue("data.kratix_placement.dev", tfjsonpath.New("decisions").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"destination": knownvalue.StringExact("prod"),
					"selected":    knownvalue.Bool(false),
					"reason":      knownvalue.StringExact("env=dev but destination has env=prod"),
					"wave":        knownvalue.Null(),
				})),
				statecheck.ExpectKnownValue("data.kratix_placement.dev", tfjsonpath.New("selected").AtSliceIndex(0).AtMapKey("full_path"), knownvalue.StringExact("clusters/dev")),
				statecheck.ExpectKnownValue("data.kratix_placement.any", tfjsonpath.New("names"), names("dev", "prod")),
				// The request's env=prod is ignored (the promise wins); pvCapacity=large is added.
				statecheck.ExpectKnownValue("data.kratix_placement.request", tfjsonpath.New("names"), names()),
				statecheck.ExpectKnownValue("data.kratix_placement.request", tfjsonpath.New("decisions").AtSliceIndex(1).AtMapKey("reason"),
					knownvalue.StringExact("missing label pvCapacity=large")),
				// The rendezvous choice (one destination, chosen deterministically) of request
				// jenkins/default/dev-instance, which hashes namespace/promise/name, worked out once
				// outside the provider:
				//   printf 'default/jenkins/dev-instance\0prod' | sha256sum  ->  bc4f2efb3bb57138...
				//   printf 'default/jenkins/dev-instance\0dev'  | sha256sum  ->  5313b5f06b07c302...
				// The first 8 bytes of prod's are larger, so prod is the one.
				statecheck.ExpectKnownValue("data.kratix_placement.one", tfjsonpath.New("names"), names("prod")),
				statecheck.ExpectKnownValue("data.kratix_placement.one", tfjsonpath.New("decisions").AtSliceIndex(1).AtMapKey("reason"),
					knownvalue.StringExact(`matches, but mode = "one" chose prod for request jenkins/default/dev-instance`)),
				// The deprecated key, spelled in the hash's order, still chooses the same.
				statecheck.ExpectKnownValue("data.kratix_placement.one_by_key", tfjsonpath.New("names"), names("prod")),
				// Waves by hand: the dev wave takes one of two (dev-1, first by name); 50% of the four
				// prod is two; dev-2, taken by no wave, goes with the last; staging is not selected.
				statecheck.ExpectKnownValue("data.kratix_placement.waves", tfjsonpath.New("decisions"), knownvalue.ListExact(func() []knownvalue.Check {
					var out []knownvalue.Check
					for _, dw := range [][2]string{{"canary", "canary"}, {"dev-1", "dev"}, {"dev-2", "prod-b"}, {"prod-1", "prod-a"},
						{"prod-2", "prod-a"}, {"prod-3", "prod-b"}, {"prod-4", "prod-b"}, {"staging", ""}} {
						var wave knownvalue.Check = knownvalue.StringExact(dw[1])
						if dw[1] == "" {
							wave = knownvalue.Null()
						}
						out = append(out, knownvalue.ObjectPartial(map[string]knownvalue.Check{"destination": knownvalue.StringExact(dw[0]), "wave": wave}))
					}
					return out
				}())),
				// prod tainted NoSchedule: a promise placed for the first time and a new request leave it
				// out, with the taint as the reason; a request that tolerates it chooses prod again.
				statecheck.ExpectKnownValue("data.kratix_placement.cordoned", tfjsonpath.New("names"), names("dev")),
				statecheck.ExpectKnownValue("data.kratix_placement.cordoned", tfjsonpath.New("decisions").AtSliceIndex(0).AtMapKey("reason"),
					knownvalue.StringExact("tainted maintenance=2026-12-01:NoSchedule, not tolerated")),
				statecheck.ExpectKnownValue("data.kratix_placement.cordoned_one", tfjsonpath.New("names"), names("dev")),
				statecheck.ExpectKnownValue("data.kratix_placement.cordoned_one", tfjsonpath.New("decisions").AtSliceIndex(0).AtMapKey("reason"),
					knownvalue.StringExact("tainted maintenance=2026-12-01:NoSchedule, not tolerated")),
				statecheck.ExpectKnownValue("data.kratix_placement.tolerated_one", tfjsonpath.New("names"), names("prod")),
				// Replicas and spread, by the test's own model of rendezvous and of spread; request r2's
				// order is a2, a1, b1, so two replicas take both a's and spread takes a2 and b1.
				statecheck.ExpectKnownValue("data.kratix_placement.replicas", tfjsonpath.New("names"),
					names(slices.Sorted(slices.Values(rendezvousOrder("default/jenkins/r2", []string{"a1", "a2", "b1"}, nil)[:2]))...)),
				statecheck.ExpectKnownValue("data.kratix_placement.replicas", tfjsonpath.New("names"), names("a1", "a2")),
				statecheck.ExpectKnownValue("data.kratix_placement.spread", tfjsonpath.New("names"),
					names(slices.Sorted(slices.Values(spreadModel("default/jenkins/r2", map[string]string{"a1": "a", "a2": "a", "b1": "b"}, 2)))...)),
				statecheck.ExpectKnownValue("data.kratix_placement.spread", tfjsonpath.New("names"), names("a2", "b1")),
				statecheck.ExpectKnownOutputValue("matches", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("not_matches", knownvalue.Bool(false)),
			},
		}},
	})
}

func TestMatchesFunction(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: `
output "dev" {
  value = provider::kratix::matches([{ match_labels = { env = "dev" } }], { env = "dev", zone = "eu" })
}
output "zone" {
  value = provider::kratix::matches([{ match_expressions = [{ key = "zone", operator = "In", values = ["us"] }] }], { zone = "eu" })
}
output "first_entry_wins" {
  value = provider::kratix::matches([{ match_labels = { env = "dev" } }, { match_labels = { env = "prod" } }], { env = "dev" })
}
output "no_selectors" {
  value = provider::kratix::matches([], {})
}
output "dry_run" {
  value = provider::kratix::matches([], { "kratix.io/dry-run" = "true" })
}
output "dry_run_false" {
  value = provider::kratix::matches([], { "kratix.io/dry-run" = "false" })
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("dev", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("zone", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("first_entry_wins", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("no_selectors", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("dry_run", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("dry_run_false", knownvalue.Bool(true)),
			},
		}},
	})
}

// TestPlacement_requestIDRefused: request takes a request's id, <promise>/<namespace>/<name>;
// anything else is refused at its path with the form to use.
func TestPlacement_requestIDRefused(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"jenkins/dev-instance", "jenkins//dev-instance", "a/b/c/d"} {
		t.Run(id, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config: `
data "kratix_placement" "one" {
  destinations = [{ name = "dev", labels = { env = "dev" }, path = "dev", state_store = { name = "gitops", path = "" } }]
  mode         = "one"
  request      = "` + id + `"
}
`,
					PlanOnly:    true,
					ExpectError: wrapped(`Invalid Request ID(.|\n)*request: "` + id + `" is not a request's id\. Give it as <promise>/<namespace>/<name>`),
				}},
			})
		})
	}
}
