package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccDayTwo replays the day-two changes that once lost files with a green apply, on a bucket
// and on git over HTTP: a cosmetic store edit, hand edits (a file deleted, a stray file in an
// owned folder, the aggregate edited), a destination moved to another store, a promise emptied
// of documents, and an aggregate renamed. After each apply the stores hold exactly what the plan
// showed, read back with an independent client, and the next plan is empty.
func TestAccDayTwo(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		a, b := newTestStore(t, kind), newTestStore(t, kind)
		seeded := map[string]bool{} // what the store held before (a git repository's first commit)
		for _, p := range a.list(t) {
			seeded[p] = true
		}
		ns := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo\n"
		config := func(storeAPath, w1Store, deps, w2File string) string {
			return a.provider + kratixStateStore{Label: "a", Body: a.store + storeAPath}.String() +
				kratixStateStore{Label: "b", Body: b.store}.String() +
				kratixDestination{
					Label: "w1", Name: q("w1"), Path: q("w1"), Cleanup: q("all"), Labels: `{ env = "dev" }`, StateStore: w1Store,
				}.String() + kratixDestination{
				Label: "w2", Name: q("w2"), Path: q("w2"), FilepathMode: q("aggregatedYAML"), AggregatedFilename: q(w2File),
				Labels: `{ env = "dev" }`, StateStore: "kratix_state_store.a",
			}.String() + kratixPromise{
				Label: "p", Name: q("p"), Destinations: "[kratix_destination.w1, kratix_destination.w2]",
				DestinationSelectors: matchLabels("env", "dev"), Dependencies: q(deps),
			}.String()
		}
		depFile := "w1/dependencies/p/5058f/static/p-dependencies.yaml"
		stray := "w1/dependencies/p/5058f/static/stray.yaml"
		beside := "w1/resources/kustomization.yaml"
		canaries := []string{"w1/dependencies/kratix-canary-namespace.yaml", "w1/resources/kratix-canary-configmap.yaml"}
		w2Canaries := []string{"w2/kratix-canary-configmap.yaml", "w2/kratix-canary-namespace.yaml"}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{
					Config: config("", "kratix_state_store.a", ns, "aggregated.yaml"),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(a.view, depFile, ns),
						acctest.FolderHolds(a.view, "w2/", append([]string{"w2/aggregated.yaml"}, w2Canaries...)...),
						acctest.FileHolds(a.view, "w2/aggregated.yaml", ns),
					},
				},
				{
					// The same place spelled differently: nothing is replaced, nothing moves.
					Config: config("\n  path = \".\"", "kratix_state_store.a", ns, "aggregated.yaml"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_destination.w1", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kratix_destination.w2", plancheck.ResourceActionUpdate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(a.view, depFile, ns),
						acctest.FileHolds(a.view, "w2/aggregated.yaml", ns),
					},
				},
				{
					// Hand edits: the dependencies deleted, a stray file in the promise's folder, a
					// kustomization beside it, the aggregate edited. The apply puts back what the
					// plan shows and removes only the stray file.
					PreConfig: func() {
						a.remove(t, depFile)
						a.put(t, stray, []byte("kind: Stray\n"))
						a.put(t, beside, []byte("resources: []\n"))
						a.put(t, "w2/aggregated.yaml", []byte("edited by hand\n"))
					},
					Config: config("\n  path = \".\"", "kratix_state_store.a", ns, "aggregated.yaml"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(a.view, depFile, ns),
						acctest.FileMissing(a.view, stray),
						acctest.FileHolds(a.view, beside, "resources: []\n"),
						acctest.FileHolds(a.view, "w2/aggregated.yaml", ns),
					},
				},
				{
					// w1 moves to store b: cleanup "all" empties what it owned on a (the hand-written
					// kustomization stays), and the promise's file follows it to b.
					Config: config("\n  path = \".\"", "kratix_state_store.b", ns, "aggregated.yaml"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_destination.w1", plancheck.ResourceActionDestroyBeforeCreate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FolderHolds(a.view, "w1/", beside),
						acctest.FolderHolds(b.view, "w1/", canaries[0], depFile, canaries[1]),
						acctest.FileHolds(b.view, depFile, ns),
					},
				},
				{
					// No document: nothing written, the earlier file and the aggregate removed.
					Config: config("\n  path = \".\"", "kratix_state_store.b", "# none yet\n", "aggregated.yaml"),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FolderHolds(b.view, "w1/", canaries[0], canaries[1]),
						acctest.FolderHolds(a.view, "w2/", w2Canaries...),
					},
				},
				{
					// Documents again, and the aggregate renamed: the new file is built.
					Config: config("\n  path = \".\"", "kratix_state_store.b", ns, "all.yaml"),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FolderHolds(a.view, "w2/", append([]string{"w2/all.yaml"}, w2Canaries...)...),
						acctest.FileHolds(a.view, "w2/all.yaml", ns),
						acctest.FileHolds(b.view, depFile, ns),
					},
				},
			},
		})
		// Nothing of a's was written outside what the steps named.
		for _, p := range a.list(t) {
			if !seeded[p] && !strings.HasPrefix(p, "w1/") && !strings.HasPrefix(p, "w2/") && !strings.HasPrefix(p, ".kratix-aggregates/") {
				t.Errorf("store a holds %s, outside every destination", p)
			}
		}
	})
}
