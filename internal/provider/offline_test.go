package provider

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// offlineProvider is the provider block of an offline plan: no secret at all, so the stores'
// secret_ref name nothing.
const offlineProvider = `
provider "kratix" {
  offline = true
}
`

var offlineRefused = regexp.MustCompile(`Provider Is Offline(.|\n)*offline = true`)

// offlinePlatform is ts's store with a destination worker-1 labelled env=<env>, a promise for
// env=dev and a request for it.
func offlinePlatform(ts *testStore, provider, env string) string {
	return provider + kratixStateStore{Label: "s", Body: ts.store}.String() +
		kratixDestination{Label: "d", Name: q("worker-1"), Path: q("worker-1"), Labels: hclObj{{"env", q(env)}}.inline(), StateStore: "kratix_state_store.s"}.String() +
		kratixPromise{
			Label: "p", Name: q("app"), Destinations: "[kratix_destination.d]",
			DestinationSelectors: matchLabels("env", "dev"), Dependencies: q(namespaceDoc("app")),
		}.String() +
		kratixResourceRequest{Label: "r", Promise: "kratix_promise.p", Name: q("one"), Documents: q(configMapDoc("one"))}.String()
}

const (
	offlineDependency = "worker-1/dependencies/app/5058f/static/app-dependencies.yaml"
	offlineRequest    = "worker-1/resources/default/app/one/instance-configure/5058f/one.yaml"
)

// requestsSince is how many requests of any kind the provider sent to a bucket since m; 0 for git,
// whose reads the test does not see (its writes it does).
func requestsSince(ts *testStore, m acctest.Mark) int {
	n, counted := ts.journal.Requests()
	if !counted {
		return 0
	}
	return n - m.Requests
}

// TestAccOffline_planWithoutStores: with offline = true and no secrets, a configuration whose
// stores are one real store (its secret_ref naming nothing) and one address where nothing listens
// plans every schedule, file and hash; the apply is refused, and neither store was reached: the
// bucket saw no request at all, the repository got no commit, and both hold nothing new.
func TestAccOffline_planWithoutStores(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		before := ts.list(t)
		mark := ts.mark(t)
		cfg := offlinePlatform(ts, offlineProvider, "dev") + `
resource "kratix_state_store" "nowhere" {
  name       = "nowhere"
  secret_ref = "nowhere"
  bucket = {
    endpoint    = "127.0.0.1:1"
    bucket_name = "none"
    insecure    = true
  }
}

resource "kratix_destination" "far" {
  name        = "worker-2"
  path        = "worker-2"
  labels      = { env = "dev" }
  state_store = kratix_state_store.nowhere
}

resource "kratix_promise" "both" {
  name                  = "both"
  destinations          = [kratix_destination.d, kratix_destination.far]
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: both\n"
}
`
		both := func(dest string) knownvalue.Check {
			return knownvalue.MapExact(map[string]knownvalue.Check{
				dest + "/dependencies/both/5058f/static/both-dependencies.yaml": knownvalue.StringExact(md5Of("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: both\n")),
			})
		}
		tfresource.Test(t, tfresource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []tfresource.TestStep{{
				Config: cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_promise.both", plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue("kratix_promise.both", tfjsonpath.New("scheduled_destinations"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("worker-1"), knownvalue.StringExact("worker-2")})),
					plancheck.ExpectKnownValue("kratix_promise.both", tfjsonpath.New("placements").AtMapKey("worker-1").AtMapKey("files"), both("worker-1")),
					plancheck.ExpectKnownValue("kratix_promise.both", tfjsonpath.New("placements").AtMapKey("worker-2").AtMapKey("files"), both("worker-2")),
					plancheck.ExpectKnownValue("kratix_promise.both", tfjsonpath.New("placements").AtMapKey("worker-2").AtMapKey("location"),
						knownvalue.StringExact("s3://127.0.0.1:1/none")),
					plancheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("destination"), knownvalue.StringExact("worker-1")),
					plancheck.ExpectKnownValue("kratix_resource_request.r", tfjsonpath.New("written_files"), knownvalue.MapExact(map[string]knownvalue.Check{
						offlineRequest: knownvalue.StringExact(md5Of("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n")),
					})),
					plancheck.ExpectKnownValue("kratix_destination.far", tfjsonpath.New("files"), knownvalue.MapSizeExact(2)),
				}},
				ExpectError: offlineRefused,
			}},
		})
		if w := ts.writesSince(t, mark); len(w) > 0 {
			t.Errorf("the store was written: %v", w)
		}
		if n := requestsSince(ts, mark); n != 0 {
			t.Errorf("the provider sent %d requests to the bucket; offline, it must send none", n)
		}
		if after := ts.list(t); !reflect.DeepEqual(after, before) {
			t.Errorf("the store holds %v, held %v", after, before)
		}
	})
}

// TestAccOffline_readTouchesNoStore: a platform applied online is planned offline. The refresh
// reads no store (a file deleted by hand is not seen, the plan is empty, and the bucket gets no
// request); a relabel and a removed request plan their changes, whose apply is refused with
// nothing written. Online again, the plan sees the drift and the apply repairs it.
func TestAccOffline_readTouchesNoStore(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		online := offlinePlatform(ts, ts.provider, "dev")
		var mark acctest.Mark
		var held []string
		unreached := func() {
			if w := ts.writesSince(t, mark); len(w) > 0 {
				t.Errorf("offline, the store was written: %v", w)
			}
			if n := requestsSince(ts, mark); n != 0 {
				t.Errorf("offline, the provider sent %d requests to the bucket", n)
			}
			if got := ts.list(t); !reflect.DeepEqual(got, held) {
				t.Errorf("offline, the store changed: it holds %v, held %v", got, held)
			}
		}
		withoutRequest := offlinePlatform(ts, offlineProvider, "prod")
		withoutRequest = withoutRequest[:strings.Index(withoutRequest, `resource "kratix_resource_request"`)]
		tfresource.Test(t, tfresource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []tfresource.TestStep{
				{Config: online},
				{
					// Drift made by hand, then an offline plan: empty, as the store is not read.
					PreConfig: func() {
						ts.remove(t, offlineDependency)
						mark, held = ts.mark(t), ts.list(t)
					},
					Config:   offlinePlatform(ts, offlineProvider, "dev"),
					PlanOnly: true,
				},
				{
					// worker-1 relabelled prod: the promise unschedules it; the request is
					// removed from the configuration. Updates and deletes are refused.
					PreConfig: unreached,
					Config:    withoutRequest,
					ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_destination.d", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kratix_resource_request.r", plancheck.ResourceActionDestroy),
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("scheduled_destinations"), knownvalue.ListSizeExact(0)),
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("misscheduled_destinations"),
							knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("worker-1")})),
					}},
					ExpectError: offlineRefused,
				},
				{
					// Online again: the refresh sees the deleted file and the apply puts it back.
					PreConfig: unreached,
					Config:    online,
					ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, offlineDependency, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"),
					},
				},
			},
		})
	})
}

// TestOfflineRefusesApply: every create, update and delete of every resource refuses before it
// reads its request, with the summary and the advice, when the provider is offline.
func TestOfflineRefusesApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	offline := &providerData{offline: true}
	resources := map[string]resource.Resource{
		"kratix_state_store":      &stateStoreResource{data: offline},
		"kratix_destination":      &destinationResource{data: offline},
		"kratix_promise":          &promiseResource{data: offline},
		"kratix_resource_request": &requestResource{data: offline},
	}
	for typeName, r := range resources {
		for op, call := range map[string]func() diag.Diagnostics{
			"create": func() diag.Diagnostics {
				var resp resource.CreateResponse
				r.Create(ctx, resource.CreateRequest{}, &resp)
				return resp.Diagnostics
			},
			"update": func() diag.Diagnostics {
				var resp resource.UpdateResponse
				r.Update(ctx, resource.UpdateRequest{}, &resp)
				return resp.Diagnostics
			},
			"delete": func() diag.Diagnostics {
				var resp resource.DeleteResponse
				r.Delete(ctx, resource.DeleteRequest{}, &resp)
				return resp.Diagnostics
			},
		} {
			diags := call()
			if len(diags) != 1 || diags[0].Summary() != "Provider Is Offline" {
				t.Errorf("%s %s: diagnostics %v, want one \"Provider Is Offline\"", op, typeName, diags)
				continue
			}
			for _, want := range []string{"Cannot " + op + " this " + typeName, "offline = true", "Nothing was written", "remove offline"} {
				if !strings.Contains(diags[0].Detail(), want) {
					t.Errorf("%s %s: the detail %q does not say %q", op, typeName, diags[0].Detail(), want)
				}
			}
		}
	}
}

// TestOfflinePlan_importAndWriteOnly: offline, with the real CLI and no store anywhere, the first
// plan after an import does not look for the imported promise (it warns and plans its files as
// new), and a request with write-only content and no content_hash_key plans without an error,
// its hashes left unknown.
func TestOfflinePlan_importAndWriteOnly(t *testing.T) {
	t.Parallel()
	c := newCLI(t, map[string]string{"main.tf": `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}
` + offlineProvider + `
resource "kratix_state_store" "s" {
  name       = "s"
  secret_ref = "s"
  git        = { url = "https://git.example.invalid/acme/gitops.git" }
}

resource "kratix_destination" "d" {
  name        = "worker-1"
  path        = "worker-1"
  state_store = kratix_state_store.s
}

import {
  to = kratix_promise.p
  id = "app"
}

resource "kratix_promise" "p" {
  name         = "app"
  destinations = [kratix_destination.d]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
}

resource "kratix_resource_request" "r" {
  promise      = kratix_promise.p
  name         = "one"
  documents_wo = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: one\nstringData:\n  password: hunter2\n"
}
`}, "KRATIX_CONTENT_HASH_KEY=")
	out, err := c.run("plan")
	if err != nil {
		t.Fatalf("terraform plan: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Warning: Import Not Looked Up",
		`Promise "app" was imported, and the provider is offline`,
		"kratix_promise.p will be updated in-place",
		`"worker-1/dependencies/app/5058f/static/app-dependencies.yaml" = "` + md5Of("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n") + `"`,
		"written_files = (known after apply)",
	} {
		// Compared with runs of spaces as one: the CLI aligns attributes and wraps warnings.
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "Content Hash Key") {
		t.Errorf("the plan shows the write-only content or asks for a key:\n%s", out)
	}
}
