package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// TestShardFunction: provider::kratix::shard through the CLI, with the shards computed apart from
// the provider (see scheduling's TestShard), and the refusal of a number of shards out of range.
func TestShardFunction(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: `
output "one" {
  value = provider::kratix::shard("worker-1", 1)
}

output "three" {
  value = provider::kratix::shard("worker-2", 3)
}

output "eight" {
  value = provider::kratix::shard("eu-west-1-a", 8)
}

output "mine" {
  value = [for n in ["worker-1", "worker-2", "eu-west-1-a", "us-east-2-prod-17", "dev"] : n if provider::kratix::shard(n, 4) == 1]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("one", knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownOutputValue("three", knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownOutputValue("eight", knownvalue.Int64Exact(6)),
				statecheck.ExpectKnownOutputValue("mine", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("us-east-2-prod-17"), knownvalue.StringExact("dev"),
				})),
			},
		}},
	})
	for _, shards := range []string{"0", "10001"} {
		t.Run(shards, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      "output \"x\" {\n  value = provider::kratix::shard(\"w\", " + shards + ")\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`shards is ` + shards + `; it must be 1 to 10000`),
				}},
			})
		})
	}
}
