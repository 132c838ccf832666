package provider

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// Kratix's canary documents, written out here rather than taken from package layout so that the
// test fails if the provider's bytes ever drift from Kratix's.
const (
	wantNamespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\nspec: {}\nstatus: {}\n"
	wantConfigMap = "apiVersion: v1\ndata:\n  canary: this confirms your infrastructure is reading from Kratix state stores\nkind: ConfigMap\nmetadata:\n  name: kratix-info\n  namespace: kratix-worker-system\n"
)

// canariesByMode is where each filepath mode puts the two canaries, under a destination at wN.
var canariesByMode = []struct {
	mode                 string
	namespace, configMap string
}{
	{"nestedByMetadata", "w0/dependencies/kratix-canary-namespace.yaml", "w0/resources/kratix-canary-configmap.yaml"},
	{"none", "w1/kratix-canary-namespace.yaml", "w1/kratix-canary-configmap.yaml"},
	{"aggregatedYAML", "w2/kratix-canary-namespace.yaml", "w2/kratix-canary-configmap.yaml"},
	{"splitByKind", "w3/crds/kratix-crds.yaml", "w3/resources/kratix-resources.yaml"},
}

func md5Of(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// fourModes is a store and one destination per filepath mode, at w0..w3.
func fourModes(ts *testStore, extra string) string {
	return storeConfig(ts) + block("locals", []hclAttr{{"modes", `["nestedByMetadata", "none", "aggregatedYAML", "splitByKind"]`}}, "") +
		kratixDestination{
			Label: "d", Count: "4", Name: q("worker-${count.index}"), Path: q("w${count.index}"),
			FilepathMode: "local.modes[count.index]", StateStore: "kratix_state_store.s", Body: extra,
		}.String()
}

// TestAccDestination_lifecycle walks a destination through its life on each kind of store:
// canaries in all four modes with Kratix's exact bytes, drift repaired, init_workloads turned off,
// a label change that writes nothing, then destroy with cleanup "all" and "none".
func TestAccDestination_lifecycle(t *testing.T) {
	t.Parallel()
	onStoresOf(t, storeKinds, func(t *testing.T, kind string) { testDestinationLifecycle(t, kind) })
}

func testDestinationLifecycle(t *testing.T, kind string) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	isGit := strings.HasPrefix(kind, "git")
	var start, beforeRelabel acctest.Mark
	// Creating writes every canary once: one commit per destination on git, one PUT per file on
	// a bucket. The store's own write check writes nothing.
	var canaries []string
	for _, c := range canariesByMode {
		canaries = append(canaries, c.namespace, c.configMap)
	}
	createWrites := puts(canaries...)
	if isGit {
		createWrites = repeat("Update from: kratix-canary", len(canariesByMode))
	}

	// checkCanaries checks that the destinations of canariesByMode numbered present hold both
	// canaries, and the others neither.
	checkCanaries := func(present ...int) []statecheck.StateCheck {
		var checks []statecheck.StateCheck
		for i, c := range canariesByMode {
			if slices.Contains(present, i) {
				checks = append(checks, acctest.FileHolds(ts.view, c.namespace, wantNamespace), acctest.FileHolds(ts.view, c.configMap, wantConfigMap))
			} else {
				checks = append(checks, acctest.FileMissing(ts.view, c.namespace), acctest.FileMissing(ts.view, c.configMap))
			}
		}
		return checks
	}
	// readme is what a new repository holds before the provider writes: git's seed.
	var readme []string
	if isGit {
		readme = []string{"README.md"}
	}
	var filesOfFirst = knownvalue.MapExact(map[string]knownvalue.Check{
		canariesByMode[0].namespace: knownvalue.StringExact(md5Of(wantNamespace)),
		canariesByMode[0].configMap: knownvalue.StringExact(md5Of(wantConfigMap)),
	})

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				// Create: the files are known in the plan, written on apply, nothing else is.
				Config: fourModes(ts, `  labels = { environment = "dev" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_destination.d[0]", plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue("kratix_destination.d[0]", tfjsonpath.New("files"), filesOfFirst),
					plancheck.ExpectKnownValue("kratix_destination.d[3]", tfjsonpath.New("root"), knownvalue.StringExact("w3")),
				}},
				ConfigStateChecks: append(checkCanaries(0, 1, 2, 3),
					statecheck.ExpectKnownValue("kratix_destination.d[0]", tfjsonpath.New("files"), filesOfFirst),
					acctest.FolderHolds(ts.view, "", slices.Concat(readme, canaries)...),
					acctest.WritesSince(ts.journal, &start, createWrites...),
				),
			},
			{
				// Drift: a canary deleted and another edited by hand show in the plan; apply repairs both.
				PreConfig: func() {
					ts.remove(t, canariesByMode[0].namespace)
					ts.put(t, canariesByMode[3].namespace, []byte("kind: Tampered\n"))
				},
				Config: fourModes(ts, `  labels = { environment = "dev" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_destination.d[0]", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kratix_destination.d[3]", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kratix_destination.d[1]", plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: checkCanaries(0, 1, 2, 3),
			},
			{
				// init_workloads = false removes that destination's canaries and nothing else.
				Config: fourModes(ts, `  labels = { environment = "dev" }
  init_workloads = count.index != 1`),
				ConfigStateChecks: append(checkCanaries(0, 2, 3),
					statecheck.ExpectKnownValue("kratix_destination.d[1]", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					acctest.SetMark(ts.journal, &beforeRelabel),
				),
			},
			{
				// Relabelling writes nothing.
				Config: fourModes(ts, `  labels = { environment = "prod" }
  init_workloads = count.index != 1`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_destination.d[0]", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{acctest.NoWritesSince(ts.journal, &beforeRelabel)},
			},
			{
				// cleanup = "all" on every destination but the last, which keeps "none".
				Config: fourModes(ts, `  labels = { environment = "prod" }
  init_workloads = count.index != 1
  cleanup        = count.index == 3 ? "none" : "all"`),
			},
			{
				// Destroy the destinations. Files that other objects would have written inside the
				// owned folders go too; files beside them stay.
				PreConfig: func() {
					for p, c := range map[string]string{
						"w0/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": "kind: List\n",
						"w0/notes.txt":              "not ours\n",
						"w1/app.yaml":               "kind: App\n",
						"w1/.kratix/default-x.yaml": "files:\n- w1/app.yaml\n",
						"w1/keep.yaml":              "not ours\n",
						"w2/aggregated.yaml":        "kind: List\n",
						"w3/resources/01-x.yaml":    "kind: List\n",
					} {
						ts.put(t, p, []byte(c))
					}
				},
				Config: ts.provider + fmt.Sprintf("resource \"kratix_state_store\" \"s\" {\n%s\n}\n", ts.store),
				// After the destroy, the store holds exactly these.
				ConfigStateChecks: []statecheck.StateCheck{acctest.FolderHolds(ts.view, "", slices.Concat(readme, []string{
					"w0/notes.txt", "w1/keep.yaml",
					canariesByMode[3].namespace, canariesByMode[3].configMap, "w3/resources/01-x.yaml",
				})...)},
			},
		},
	})
}
