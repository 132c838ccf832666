package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
)

// TestAccRequest_scheduledOnceADestinationMatches: a request's own selector (pvCapacity=large,
// as an ECK request with data collection asks) is added to the promise's; no destination has
// it, so the plan warns and nothing is written; labelling worker-1 schedules the request there.
func TestAccRequest_scheduledOnceADestinationMatches(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		cfg := func(labels string) string {
			return promiseConfig(ts, []string{labels}, `  name = "eck"
  destination_selectors = [{ match_labels = { environment = "dev" } }]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: elastic-system\n"`) + `
resource "kratix_resource_request" "r" {
  promise               = kratix_promise.p
  name                  = "eck-request"
  destination_selectors = [{ match_labels = { pvCapacity = "large" } }]
  documents             = <<-EOT
    apiVersion: elasticsearch.k8s.elastic.co/v1
    kind: Elasticsearch
    metadata:
      name: eck-request
    spec:
      version: 8.1.0
  EOT
}
`
		}
		file := "worker-1/resources/default/eck/eck-request/instance-configure/5058f/eck-request.yaml"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{
					Config: cfg(`{ environment = "dev" }`),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("destination"), knownvalue.Null()),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileMissing(ts.view, file),
					},
				},
				{
					Config: cfg(`{ environment = "dev", pvCapacity = "large" }`),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("destination"), knownvalue.StringExact("worker-1")),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, file, "apiVersion: elasticsearch.k8s.elastic.co/v1\nkind: Elasticsearch\nmetadata:\n  name: eck-request\nspec:\n  version: 8.1.0\n"),
					},
				},
			},
		})
	})
}

// TestAccRequest_destinationIsKept places a Jenkins instance on one of two dev destinations,
// the rendezvous choice; the choice stays when that destination stops matching (misscheduled,
// still updated); a file deleted by hand comes back; when the destination leaves the pool the
// request moves to the other one; destroying removes it.
func TestAccRequest_destinationIsKept(t *testing.T) {
	t.Parallel()
	onStoresOf(t, []string{"bucket", "git-ssh"}, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		instance := fixtures.JenkinsInstance()
		// Rendezvous choice: the candidate with the highest hash of (namespace/promise/name, name)
		// wins, the hash being the first 8 bytes of SHA-256 over "key\x00name", big-endian.
		// Worked out once outside the provider:
		//   printf 'default/jenkins/dev-instance\0worker-1' | sha256sum  ->  da3c6cd160890b76...
		//   printf 'default/jenkins/dev-instance\0worker-2' | sha256sum  ->  558dfd014cbab5b9...
		// so worker-1 is chosen.
		const want, other = "worker-1", "worker-2"
		// worker-1 (the choice) has chosenEnv, worker-2 is dev, worker-3 prod.
		labels := func(chosenEnv string) []string {
			return []string{hclObj{{"environment", q(chosenEnv)}}.inline(), `{ environment = "dev" }`, `{ environment = "prod" }`}
		}
		cfg := func(chosenEnv, extra string) string {
			return promiseConfig(ts, labels(chosenEnv), `  name = "jenkins"
  destination_selectors = [{ match_labels = { environment = "dev" } }]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: jenkins-operator\n"`) + kratixResourceRequest{
				Label: "r", Promise: "kratix_promise.p", Name: q("dev-instance"), Files: `{ "jenkins.yaml" = ` + q(string(instance)) + extra + " }",
			}.String()
		}
		file := want + "/resources/default/jenkins/dev-instance/instance-configure/5058f/jenkins.yaml"
		extraFile := want + "/resources/default/jenkins/dev-instance/instance-configure/5058f/notes.txt"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			CheckDestroy:             acctest.AsCheckFunc(acctest.FileMissing(ts.view, strings.Replace(file, want+"/", other+"/", 1))),
			Steps: []resource.TestStep{
				{
					Config: cfg("dev", ""),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("destination"), knownvalue.StringExact(want)),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, file, string(instance)),
					},
				},
				{
					// The chosen destination stops matching: the request stays, misscheduled,
					// and is still updated.
					Config: cfg("prod", `, "notes.txt" = "hello\n"`),
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("destination"), knownvalue.StringExact(want)),
						statecheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("misscheduled"), knownvalue.Bool(true)),
						acctest.FileHolds(ts.view, extraFile, "hello\n"),
					},
				},
				{
					// Dropping a file removes it; a file deleted by hand comes back.
					PreConfig: func() { ts.remove(t, file) },
					Config:    cfg("prod", ""),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, file, string(instance)),
						acctest.FileMissing(ts.view, extraFile),
					},
				},
				{
					// The chosen destination leaves the pool: a new one is chosen (the plan
					// says so in a warning) and the old files are the destination's business.
					Config: strings.Replace(cfg("dev", ""), "destinations = kratix_destination.d",
						fmt.Sprintf("destinations = [for d in kratix_destination.d : d if d.name != %q]", want), 1),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("destination"), knownvalue.StringExact(other)),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, strings.Replace(file, want+"/", other+"/", 1), string(instance)),
						acctest.FileHolds(ts.view, file, string(instance)),
					},
				},
			},
		})
	})
}

// TestAccRequest_modes sends one request to a destination of each filepath mode.
func TestAccRequest_modes(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	cfg := fourModes(ts, `  labels = { mode = local.modes[count.index] }`) + `
resource "kratix_promise" "p" {
  name         = "app"
  destinations = kratix_destination.d
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
}

resource "kratix_resource_request" "r" {
  count                 = 4
  promise               = kratix_promise.p
  name                  = "r${count.index}"
  destination_selectors = [{ match_labels = { mode = local.modes[count.index] } }]
  documents             = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r${count.index}\n"
}
`
	cm := func(i int) string { return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r%d\n", i) }
	want := map[string]string{
		"w0/resources/default/app/r0/instance-configure/5058f/r0.yaml": cm(0),
		"w1/r1.yaml": cm(1),
		"w1/.kratix/default-app_r1_default_instance-configure.worker-1-5058f.yaml":                    "files:\n- w1/r1.yaml\n",
		".kratix-aggregates/w2/aggregated.yaml/app_r2_default_instance-configure.worker-2-5058f.part": cm(2),
		// Parts in placement-name order: "app-static-deps..." sorts before "app_r2_..." ('-' < '_').
		"w2/aggregated.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n\n---\n" + cm(2),
		"w3/resources/01-default-app-default-default-r3-resources.yaml": cm(3),
	}
	var checks []statecheck.StateCheck
	for p, c := range want {
		checks = append(checks, acctest.FileHolds(ts.view, p, c))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps:                    []resource.TestStep{{Config: cfg, ConfigStateChecks: checks}},
	})
}
