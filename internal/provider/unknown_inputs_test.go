package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// devAndProd is a store and two destinations, dev and prod, labelled env, all created in the
// same run as whatever receives them.
func devAndProd(ts *testStore) string {
	return storeConfig(ts) + envDestination("dev", "kratix_state_store.s") + envDestination("prod", "kratix_state_store.s")
}

// envDestination is destination name at path name on store, labelled env = name.
func envDestination(name, store string) string {
	return kratixDestination{Label: name, Name: q(name), Path: q(name), Labels: hclObj{{"env", q(name)}}.inline(), StateStore: store}.String()
}

// envIsDev is destination selectors known after apply: env = "dev" when terraform_data.env's
// output is "dev", none otherwise.
const envIsDev = `terraform_data.env.output == "dev" ? [{ match_labels = { env = "dev" } }] : []`

const namespaceApp = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"

func names(n ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(n))
	for i, s := range n {
		checks[i] = knownvalue.StringExact(s)
	}
	return knownvalue.ListExact(checks)
}

// TestAccUnknown_literalTuple: a literal list of destination resources created in the same run,
// `[kratix_destination.prod, kratix_destination.dev]`, is accepted by the placement data source
// and by a promise; the promise's placement is known at plan (only the destinations' own
// computed attributes are not) and the apply writes the dev file only. A request for that
// promise with a file whose content is known after apply plans its files as unknown.
func TestAccUnknown_literalTuple(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	devFile := "dev/dependencies/app/5058f/static/app-dependencies.yaml"
	prodFile := "prod/dependencies/app/5058f/static/app-dependencies.yaml"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: devAndProd(ts) + `
data "kratix_placement" "dev" {
  destinations          = [kratix_destination.prod, kratix_destination.dev]
  destination_selectors = [{ match_labels = { env = "dev" } }]
}
` + kratixPromise{
				Label: "p", Name: q("app"), Destinations: "[kratix_destination.prod, kratix_destination.dev]",
				DestinationSelectors: matchLabels("env", "dev"), Dependencies: q(namespaceApp),
			}.String() + `
resource "terraform_data" "note" {
  input = "a note"
}

# Promise known at plan, one file's content known after apply.
` + kratixResourceRequest{Label: "r", Promise: "kratix_promise.p", Name: q("r"), Files: `{ "notes.txt" = terraform_data.note.output }`}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("scheduled_destinations"), names("dev")),
				plancheck.ExpectUnknownValue("kratix_resource_request.r", tfjsonpath.New("written_files")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kratix_placement.dev", tfjsonpath.New("names"), names("dev")),
				statecheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("scheduled_destinations"), names("dev")),
				acctest.FileHolds(ts.view, devFile, namespaceApp),
				acctest.FileMissing(ts.view, prodFile),
				acctest.FileHolds(ts.view, "dev/resources/default/app/r/instance-configure/5058f/notes.txt", "a note"),
			},
		}},
	})
}

// TestAccUnknown_wholeListsAtPlan: pools and selectors that are wholly unknown at plan (a
// terraform_data output, a conditional on one) plan with the placement known after apply; the
// data source is read at apply; a request whose promise is created in the same run, with
// selectors of its own unknown at plan, lands where the selectors say. The apply writes the
// right files.
func TestAccUnknown_wholeListsAtPlan(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	depFile := func(dest, promise string) string {
		return fmt.Sprintf("%s/dependencies/%s/5058f/static/%s-dependencies.yaml", dest, promise, promise)
	}
	reqFile := func(dest string) string {
		return dest + "/resources/default/sel/r1/instance-configure/5058f/r1.yaml"
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: devAndProd(ts) + `
resource "terraform_data" "env" {
  input = "dev"
}

# The whole pool is unknown at plan: it passes through a resource created in this run.
resource "terraform_data" "pool" {
  input = [kratix_destination.dev, kratix_destination.prod]
}

data "kratix_placement" "unknown" {
  destinations          = terraform_data.pool.output
  destination_selectors = terraform_data.env.output == "dev" ? [{ match_labels = { env = "dev" } }] : []
}

# Pool unknown, selectors known.
` + kratixPromise{
				Label: "app", Name: q("app"), Destinations: "terraform_data.pool.output",
				DestinationSelectors: matchLabels("env", "prod"), Dependencies: q(namespaceApp),
			}.String() + `
# Pool known, selectors unknown (a conditional on a value known after apply).
` + kratixPromise{
				Label: "sel", Name: q("sel"), Destinations: "[kratix_destination.dev, kratix_destination.prod]",
				DestinationSelectors: envIsDev, Dependencies: q(namespaceApp),
			}.String() + `
# A request for a promise created in this run, with selectors unknown at plan.
` + kratixResourceRequest{
				Label: "r1", Promise: "kratix_promise.sel", Name: q("r1"), DestinationSelectors: envIsDev, Documents: q(namespaceFoo),
			}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("kratix_promise.app", tfjsonpath.New("scheduled_destinations")),
				plancheck.ExpectUnknownValue("kratix_promise.app", tfjsonpath.New("placements")),
				plancheck.ExpectUnknownValue("kratix_promise.sel", tfjsonpath.New("scheduled_destinations")),
				plancheck.ExpectUnknownValue("kratix_resource_request.r1", tfjsonpath.New("destination")),
				plancheck.ExpectUnknownValue("kratix_resource_request.r1", tfjsonpath.New("written_files")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.kratix_placement.unknown", tfjsonpath.New("names"), names("dev")),
				statecheck.ExpectKnownValue("kratix_promise.app", tfjsonpath.New("scheduled_destinations"), names("prod")),
				statecheck.ExpectKnownValue("kratix_promise.sel", tfjsonpath.New("scheduled_destinations"), names("dev")),
				statecheck.ExpectKnownValue("kratix_resource_request.r1", tfjsonpath.New("destination"), knownvalue.StringExact("dev")),
				acctest.FileHolds(ts.view, depFile("prod", "app"), namespaceApp),
				acctest.FileMissing(ts.view, depFile("dev", "app")),
				acctest.FileHolds(ts.view, depFile("dev", "sel"), namespaceApp),
				acctest.FileMissing(ts.view, depFile("prod", "sel")),
				acctest.FileHolds(ts.view, reqFile("dev"), namespaceFoo),
				acctest.FileMissing(ts.view, reqFile("prod")),
			},
		}},
	})
}

// TestAccUnknown_wholePromiseObject: a request's promise that is a wholly unknown object at plan
// (a conditional between two promises on a value known after apply), and files with a value
// known after apply, plan; the apply writes the request where that promise's pool and selectors
// say.
func TestAccUnknown_wholePromiseObject(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	reqFile := func(dest string) string {
		return dest + "/resources/default/b/r2/instance-configure/5058f/r2.yaml"
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: devAndProd(ts) + `
resource "terraform_data" "pick" {
  input = "b"
}
` + kratixPromise{
				Label: "a", Name: q("a"), Destinations: "[kratix_destination.dev, kratix_destination.prod]",
				DestinationSelectors: matchLabels("env", "dev"), Dependencies: q(namespaceApp),
			}.String() + kratixPromise{
				Label: "b", Name: q("b"), Destinations: "[kratix_destination.dev, kratix_destination.prod]",
				DestinationSelectors: matchLabels("env", "prod"), Dependencies: q(namespaceApp),
			}.String() + kratixResourceRequest{
				Label: "r2", Promise: `terraform_data.pick.output == "a" ? kratix_promise.a : kratix_promise.b`,
				Name: q("r2"), Documents: q(namespaceFoo),
				// A map with one value known after apply.
				Files: `{ "notes.txt" = "picked ${terraform_data.pick.output}" }`,
			}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("kratix_resource_request.r2", tfjsonpath.New("destination")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("kratix_resource_request.r2", tfjsonpath.New("destination"), knownvalue.StringExact("prod")),
				statecheck.ExpectKnownValue("kratix_resource_request.r2", tfjsonpath.New("id"), knownvalue.StringExact("b/default/r2")),
				acctest.FileHolds(ts.view, reqFile("prod"), namespaceFoo),
				acctest.FileMissing(ts.view, reqFile("dev")),
				acctest.FileHolds(ts.view, "prod/resources/default/b/r2/instance-configure/5058f/notes.txt", "picked b"),
			},
		}},
	})
}

// TestAccUnknown_storeObject: a destination's state_store that is a wholly unknown object at
// plan (a conditional between two stores on a value known after apply) plans; the promise over
// that destination plans with its placement known after apply, and the apply writes the
// canaries and the promise's file to the chosen store only. A pool element partly unknown (a
// destination's labels known after apply) is scheduled at apply too.
func TestAccUnknown_storeObject(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	a, b := newTestStore(t, "bucket"), newTestStore(t, "bucket")
	file := "w/dependencies/app/5058f/static/app-dependencies.yaml"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: a.provider + kratixStateStore{Label: "a", Body: a.store}.String() + kratixStateStore{Label: "b", Body: b.store}.String() + `
resource "terraform_data" "pick" {
  input = "b"
}
` + kratixDestination{
				Label: "d", Name: q("w"), Path: q("w"),
				StateStore: `terraform_data.pick.output == "a" ? kratix_state_store.a : kratix_state_store.b`,
			}.String() + kratixPromise{Label: "p", Name: q("app"), Destinations: "[kratix_destination.d]", Dependencies: q(namespaceApp)}.String() +
				kratixDestination{
					Label: "labelled", Name: q("labelled"), Path: q("labelled"), Labels: "{ env = terraform_data.pick.output }",
					StateStore: "kratix_state_store.a",
				}.String() + kratixPromise{
				Label: "labels", Name: q("labels"), Destinations: "[kratix_destination.labelled]",
				DestinationSelectors: matchLabels("env", "b"), Dependencies: q(namespaceApp),
			}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("kratix_promise.p", tfjsonpath.New("placements")),
				plancheck.ExpectUnknownValue("kratix_promise.labels", tfjsonpath.New("scheduled_destinations")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("placements").AtMapKey("w").AtMapKey("location"), knownvalue.StringExact(b.location)),
				acctest.FileHolds(b.view, "w/dependencies/kratix-canary-namespace.yaml", wantNamespace),
				acctest.FileHolds(b.view, file, namespaceApp),
				acctest.FileMissing(a.view, "w/dependencies/kratix-canary-namespace.yaml"),
				acctest.FileMissing(a.view, file),
				acctest.FileHolds(a.view, "labelled/dependencies/labels/5058f/static/labels-dependencies.yaml", namespaceApp),
			},
		}},
	})
}
