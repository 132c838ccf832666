package provider

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
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
	return ts.provider + fmt.Sprintf(`
resource "kratix_state_store" "s" {
%s
}

locals {
  modes = ["nestedByMetadata", "none", "aggregatedYAML", "splitByKind"]
}

resource "kratix_destination" "d" {
  count         = 4
  name          = "worker-${count.index}"
  path          = "w${count.index}"
  filepath_mode = local.modes[count.index]
  state_store   = kratix_state_store.s
%s
}
`, ts.store, extra)
}

// TestAccDestination_lifecycle walks a destination through its life on each kind of store:
// canaries in all four modes with Kratix's exact bytes, drift repaired, init_workloads turned off,
// a label change that writes nothing, then destroy with cleanup "all" and "none".
func TestAccDestination_lifecycle(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) { testDestinationLifecycle(t, kind) })
	}
}

func testDestinationLifecycle(t *testing.T, kind string) {
	requireAcceptance(t)
	ts := newTestStore(t, kind)
	isGit := strings.HasPrefix(kind, "git")
	var start, beforeRelabel storeMark
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

	checkCanaries := func(present ...int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			for i, c := range canariesByMode {
				shouldExist := false
				for _, p := range present {
					shouldExist = shouldExist || p == i
				}
				for path, want := range map[string]string{c.namespace: wantNamespace, c.configMap: wantConfigMap} {
					got, ok := ts.read(t, path)
					switch {
					case shouldExist && !ok:
						return fmt.Errorf("%s (%s): canary %s is missing", kind, c.mode, path)
					case shouldExist && string(got) != want:
						return fmt.Errorf("%s (%s): canary %s holds %q, want %q", kind, c.mode, path, got, want)
					case !shouldExist && ok:
						return fmt.Errorf("%s (%s): canary %s should be gone", kind, c.mode, path)
					}
				}
			}
			return nil
		}
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
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kratix_destination.d[0]", tfjsonpath.New("files"), filesOfFirst),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCanaries(0, 1, 2, 3),
					func(*terraform.State) error {
						want := append([]string(nil), canaries...)
						if isGit {
							want = append(want, "README.md")
						}
						got := ts.list(t)
						if !sameSet(got, want) {
							return fmt.Errorf("the store holds %v, want exactly %v", got, want)
						}
						return nil
					},
					ts.expectWritesSince(t, &start, createWrites),
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
				Check: checkCanaries(0, 1, 2, 3),
			},
			{
				// init_workloads = false removes that destination's canaries and nothing else.
				Config: fourModes(ts, `  labels = { environment = "dev" }
  init_workloads = count.index != 1`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kratix_destination.d[1]", tfjsonpath.New("files"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCanaries(0, 2, 3),
					func(*terraform.State) error { beforeRelabel = ts.mark(t); return nil },
				),
			},
			{
				// Relabelling writes nothing.
				Config: fourModes(ts, `  labels = { environment = "prod" }
  init_workloads = count.index != 1`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_destination.d[0]", plancheck.ResourceActionUpdate),
				}},
				Check: ts.expectNoWritesSince(t, &beforeRelabel),
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
				Check: func(*terraform.State) error {
					want := []string{
						"w0/notes.txt", "w1/keep.yaml",
						canariesByMode[3].namespace, canariesByMode[3].configMap, "w3/resources/01-x.yaml",
					}
					if isGit {
						want = append(want, "README.md")
					}
					if got := ts.list(t); !sameSet(got, want) {
						return fmt.Errorf("after destroy the store holds %v, want exactly %v", got, want)
					}
					return nil
				},
			},
		},
	})
}

func sameSet(got, want []string) bool {
	g := map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	w := map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	return reflect.DeepEqual(g, w)
}
