package provider

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
)

// fixtureFile writes a manifest (see package fixtures) into the test's temporary folder and
// returns its path, for configurations that read it with Terraform's file().
func fixtureFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, content, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const namespaceFoo = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo\n"

// promiseConfig is poolConfig and a promise over its destinations.
func promiseConfig(ts *testStore, labels []string, promise string) string {
	return poolConfig(ts, labels) + kratixPromise{Label: "p", Destinations: "kratix_destination.d", Body: promise}.String()
}

// poolConfig is a store and destinations worker-1..N with the given labels.
func poolConfig(ts *testStore, labels []string) string {
	return storeConfig(ts) + block("locals", []hclAttr{{"labels", "[" + strings.Join(labels, ", ") + "]"}}, "") + kratixDestination{
		Label: "d", Count: "length(local.labels)", Name: q("worker-${count.index + 1}"), Path: q("worker-${count.index + 1}"),
		Labels: "local.labels[count.index]", StateStore: "kratix_state_store.s",
	}.String()
}

// TestAccPromise_scheduledOnceLabelled: nothing matches an unlabelled worker; labelling it
// schedules the promise there. Then: reformatting the dependencies plans nothing, and a file
// deleted by hand comes back.
func TestAccPromise_scheduledOnceLabelled(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		promise := `  name = "eck"
  destination_selectors = [{ match_labels = { environment = "dev" } }]
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: foo
  EOT`
		reformatted := `  name = "eck"
  destination_selectors = [{ match_labels = { environment = "dev" } }]
  dependencies = <<-EOT
    # the same object, written differently
    kind: "Namespace"
    metadata: {name: foo}
    apiVersion: v1
  EOT`
		file := "worker-1/dependencies/eck/5058f/static/eck-dependencies.yaml"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{
					Config: promiseConfig(ts, []string{`{}`}, promise),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("scheduled_destinations"), knownvalue.ListExact([]knownvalue.Check{})),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileMissing(ts.view, file),
					},
				},
				{
					Config: promiseConfig(ts, []string{`{ environment = "dev" }`}, promise),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("scheduled_destinations"),
							knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("worker-1")})),
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("placements").AtMapKey("worker-1").AtMapKey("files"),
							knownvalue.MapExact(map[string]knownvalue.Check{file: knownvalue.StringExact(md5Of(namespaceFoo))})),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, file, namespaceFoo),
					},
				},
				{
					Config: promiseConfig(ts, []string{`{ environment = "dev" }`}, reformatted),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectEmptyPlan(),
					}},
				},
				{
					PreConfig: func() { ts.remove(t, file) },
					Config:    promiseConfig(ts, []string{`{ environment = "dev" }`}, promise),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, file, namespaceFoo),
					},
				},
			},
		})
	})
}

// TestAccPromise_movedKeepsMisscheduledFiles: when the promise moves from dev to prod with new
// dependencies, the dev destination keeps its old files untouched and is reported misscheduled;
// with on_unschedule = "delete" its files go. Then the promise is forgotten and imported back by
// name: the next plan records what the store holds and the apply writes nothing. Destroying
// removes the rest.
func TestAccPromise_movedKeepsMisscheduledFiles(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		labels := []string{`{ environment = "dev" }`, `{ environment = "prod" }`}
		promise := func(env, ns, extra string) string {
			return attrLines(
				hclAttr{"name", q("app")},
				hclAttr{"destination_selectors", matchLabels("environment", env)},
				hclAttr{"dependencies", heredoc(namespaceDoc(ns))},
			) + extra
		}
		devFile := "worker-1/dependencies/app/5058f/static/app-dependencies.yaml"
		prodFile := "worker-2/dependencies/app/5058f/static/app-dependencies.yaml"
		nsBar := strings.ReplaceAll(namespaceFoo, "foo", "bar")
		final := promiseConfig(ts, labels, promise("prod", "bar", `  on_unschedule = "delete"`))
		// Where the promise ends: on worker-2 alone, with the one file it holds there.
		onlyProd := knownvalue.MapExact(map[string]knownvalue.Check{
			"worker-2": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"store":        knownvalue.StringExact(storeName(ts)),
				"location":     knownvalue.StringExact(ts.location),
				"root":         knownvalue.StringExact("worker-2"),
				"misscheduled": knownvalue.Bool(false),
				"files":        knownvalue.MapExact(map[string]knownvalue.Check{prodFile: knownvalue.StringExact(md5Of(nsBar))}),
			}),
		})
		var beforeImport acctest.Mark
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			CheckDestroy:             acctest.AsCheckFunc(acctest.FileMissing(ts.view, devFile), acctest.FileMissing(ts.view, prodFile)),
			Steps: []resource.TestStep{
				{
					Config: promiseConfig(ts, labels, promise("dev", "foo", "")),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, devFile, namespaceFoo),
						acctest.FileMissing(ts.view, prodFile),
					},
				},
				{
					Config: promiseConfig(ts, labels, promise("prod", "bar", "")),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("misscheduled_destinations"),
							knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("worker-1")})),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("placements").AtMapKey("worker-1").AtMapKey("misscheduled"), knownvalue.Bool(true)),
						acctest.FileHolds(ts.view, devFile, namespaceFoo),
						acctest.FileHolds(ts.view, prodFile, nsBar),
					},
				},
				{
					Config: final,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("misscheduled_destinations"), knownvalue.ListExact([]knownvalue.Check{})),
						statecheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("placements"), onlyProd),
						acctest.FileMissing(ts.view, devFile),
						acctest.FileHolds(ts.view, prodFile, nsBar),
					},
				},
				{
					// Forget the promise without destroying it: its files stay.
					Config: poolConfig(ts, labels) + "\nremoved {\n  from = kratix_promise.p\n  lifecycle {\n    destroy = false\n  }\n}\n",
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, prodFile, nsBar),
						acctest.SetMark(ts.journal, &beforeImport),
					},
				},
				{
					// Import by name. Without the configuration's pool the import cannot
					// know where the promise is written, so it records its name and nothing
					// it has not read.
					Config:       final,
					ResourceName: "kratix_promise.p", ImportState: true, ImportStateId: "app", ImportStatePersist: true,
					ImportStateCheck: func(states []*terraform.InstanceState) error {
						var promises []*terraform.InstanceState // the state holds the pool too
						for _, s := range states {
							if s.Ephemeral.Type == "kratix_promise" {
								promises = append(promises, s)
							}
						}
						if len(promises) != 1 {
							return fmt.Errorf("%d promises in state after the import, want 1", len(promises))
						}
						// Null attributes are absent; "%" counts the schema's attributes.
						got := maps.Clone(promises[0].Attributes)
						delete(got, "%")
						if want := map[string]string{"id": "app", "name": "app"}; !reflect.DeepEqual(got, want) {
							return fmt.Errorf("imported attributes %v, want %v", got, want)
						}
						return nil
					},
				},
				{
					// The next plan records what the store already holds: worker-2 and its
					// file, changed in place; the apply writes nothing, and the plan after
					// it is empty (checked by the test harness).
					Config: final,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("scheduled_destinations"),
							knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("worker-2")})),
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("misscheduled_destinations"), knownvalue.ListExact([]knownvalue.Check{})),
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("placements"), onlyProd),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("placements"), onlyProd),
						acctest.FileHolds(ts.view, prodFile, nsBar),
						acctest.FileMissing(ts.view, devFile),
						acctest.NoWritesSince(ts.journal, &beforeImport),
					},
				},
			},
		})
	})
}

// TestAccPromise_modes writes one promise to a destination of each filepath mode and checks
// the files, the index file of mode none, and the aggregated file; then removes it.
func TestAccPromise_modes(t *testing.T) {
	t.Parallel()
	onStoresOf(t, []string{"bucket", "git-ssh"}, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		cfg := fourModes(ts, "") + `
resource "kratix_promise" "p" {
  name         = "app"
  destinations = kratix_destination.d
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: foo
  EOT
}
`
		want := map[string]string{
			"w0/dependencies/app/5058f/static/app-dependencies.yaml":                namespaceFoo,
			"w1/static/app-dependencies.yaml":                                       namespaceFoo,
			"w1/.kratix/kratix-platform-system-app-static-deps.worker-1-5058f.yaml": "files:\n- w1/static/app-dependencies.yaml\n",
			// The part the aggregate is rebuilt from lives outside the destination's folder.
			".kratix-aggregates/w2/aggregated.yaml/app-static-deps.worker-2-5058f.part": namespaceFoo,
			"w2/aggregated.yaml": namespaceFoo,
			"w3/resources/01-default-app-default-resources.yaml": namespaceFoo,
		}
		var checks, gone []statecheck.StateCheck
		for p, c := range want {
			checks = append(checks, acctest.FileHolds(ts.view, p, c))
			gone = append(gone, acctest.FileMissing(ts.view, p))
		}
		gone = append(gone, acctest.FileHolds(ts.view, canariesByMode[0].namespace, wantNamespace))
		// As Kratix writes it: an aggregatedYAML folder holds the aggregate and the canaries, nothing else.
		checks = append(checks, acctest.FolderHolds(ts.view, "w2/", "w2/aggregated.yaml", "w2/kratix-canary-configmap.yaml", "w2/kratix-canary-namespace.yaml"))
		gone = append(gone, acctest.FolderHolds(ts.view, "w2/", "w2/kratix-canary-configmap.yaml", "w2/kratix-canary-namespace.yaml"))
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{Config: cfg, ConfigStateChecks: checks},
				{Config: fourModes(ts, ""), ConfigStateChecks: gone},
			},
		})
	})
}

// TestAccPromise_splitByKindSeparatesCRDs: a splitByKind destination at default/worker-cluster
// receives the Jenkins dependencies (a large CRD and the operator), the CRD under crds/ and the
// rest under resources/.
func TestAccPromise_splitByKindSeparatesCRDs(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) { testPromiseSplitByKind(t, kind) })
}

func testPromiseSplitByKind(t *testing.T, kind string) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	crd, operator := fixtureFile(t, "jenkins-crd.yaml", fixtures.JenkinsCRD()), fixtureFile(t, "jenkins-operator.yaml", fixtures.JenkinsOperator())
	cfg := storeConfig(ts) + kratixDestination{
		Label: "worker", Name: q("worker-cluster"), Path: q("default/worker-cluster"), FilepathMode: q("splitByKind"),
		Labels: `{ environment = "dev" }`, StateStore: "kratix_state_store.s",
	}.String() + kratixPromise{
		Label: "jenkins", Name: q("jenkins"), DestinationSelectors: matchLabels("environment", "dev"),
		Dependencies: `join("---\n", [` + fileAt(crd) + ", " + fileAt(operator) + "])", Destinations: "[kratix_destination.worker]",
	}.String()
	crds := "default/worker-cluster/crds/00-default-jenkins-default-crds.yaml"
	resources := "default/worker-cluster/resources/01-default-jenkins-default-resources.yaml"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.FileMatches(ts.view, crds, func(c string) error {
					if n := strings.Count(c, "kind: CustomResourceDefinition"); n != 1 {
						return fmt.Errorf("holds %d CRDs, want exactly the one", n)
					}
					return nil
				}),
				acctest.FileMatches(ts.view, resources, func(r string) error {
					if strings.Contains(r, "kind: CustomResourceDefinition") {
						return fmt.Errorf("holds a CRD; it should hold every document but the CRD")
					}
					if n := strings.Count(r, "\n---\n") + 1; n != 6 {
						return fmt.Errorf("holds %d documents, want the operator's 6", n)
					}
					return nil
				}),
			},
		}},
	})
}

// TestAccPromise_largeDependenciesToTwentyDestinations schedules two releases of the size of
// cert-manager's and Tekton's (0.4 and 1.9 MB, CRDs with deep schemas) to 20 destinations: every
// destination gets the same bytes, and Git gets one commit per promise.
func TestAccPromise_largeDependenciesToTwentyDestinations(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		var start acctest.Mark
		// Every destination holds each promise's file, the same bytes everywhere.
		files := map[string][]string{}
		for i := range 20 {
			for _, p := range []string{"cert-manager", "tekton"} {
				files[p] = append(files[p], fmt.Sprintf("worker-%d/dependencies/%s/5058f/static/%s-dependencies.yaml", i, p, p))
			}
		}
		// Git: one commit per promise. Bucket: each file written once, nothing else.
		writes := puts(slices.Concat(files["cert-manager"], files["tekton"])...)
		if ts.kind != "bucket" {
			writes = []string{"Update from: promise/cert-manager", "Update from: promise/tekton"}
		}
		cfg := storeConfig(ts) + kratixDestination{
			Label: "d", Count: "20", Name: q("worker-${count.index}"), Path: q("worker-${count.index}"),
			Labels: `{ tier = "platform" }`, InitWorkloads: "false", StateStore: "kratix_state_store.s",
		}.String() + kratixPromise{
			Label: "cert_manager", Name: q("cert-manager"), DestinationSelectors: matchLabels("tier", "platform"),
			Dependencies: fileAt(fixtureFile(t, "cert-manager.yaml", fixtures.CertManager())), Destinations: "kratix_destination.d",
		}.String() + kratixPromise{
			Label: "tekton", Name: q("tekton"),
			DestinationSelectors: `[{ match_expressions = [{ key = "tier", operator = "In", values = ["platform"] }] }]`,
			Dependencies:         fileAt(fixtureFile(t, "tekton.yaml", fixtures.Pipelines())), Destinations: "kratix_destination.d",
		}.String()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{{
				PreConfig: func() { start = ts.mark(t) },
				Config:    cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.SameContent(ts.view, files["cert-manager"]...),
					acctest.SameContent(ts.view, files["tekton"]...),
					acctest.WritesSince(ts.journal, &start, writes...),
				},
			}},
		})
	})
}
