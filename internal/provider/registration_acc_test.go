package provider

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// ownedBy is a provider block with an owner (and, unless "", an alias) added to it.
func ownedBy(providerBlock, alias, owner string) string {
	extra := "  owner = " + q(owner) + "\n"
	if alias != "" {
		extra = "  alias = " + q(alias) + "\n" + extra
	}
	return strings.Replace(providerBlock, "provider \"kratix\" {\n", "provider \"kratix\" {\n"+extra, 1)
}

// writtenAt matches the time a record says it was written; the tests read it on its own.
var writtenAt = regexp.MustCompile(`(?m)^    terraform\.kratix\.io/written-at: "([^"]+)"$`)

// recordHolds checks that the record at p is want, written out by hand with WRITTEN where the time
// it was written goes, and that this time is between since and now.
func recordHolds(store acctest.Store, p, want string, since *time.Time) statecheck.StateCheck {
	return acctest.FileMatches(store, p, func(content string) error {
		m := writtenAt.FindStringSubmatch(content)
		if m == nil {
			return fmt.Errorf("no written-at annotation in:\n%s", content)
		}
		at, err := time.Parse(time.RFC3339, m[1])
		if err != nil {
			return fmt.Errorf("written-at %q: %v", m[1], err)
		}
		if at.Before(since.Truncate(time.Second)) || at.After(time.Now().Add(time.Second)) {
			return fmt.Errorf("written-at %s is not between %s and now", at, since.UTC())
		}
		if got := strings.Replace(content, m[1], "WRITTEN", 1); got != want {
			return fmt.Errorf("the record is\n%s\nwant\n%s", got, want)
		}
		return nil
	})
}

// registrationIs checks that resource's registration is {p: the MD5 of what the store holds at p}.
func registrationIs(ts *testStore, resource, p string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[resource]
		if !ok {
			return fmt.Errorf("%s is not in state", resource)
		}
		content, found, err := ts.view.Read(context.Background(), p)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%s holds no %s", ts.view, p)
		}
		sum := md5.Sum(content)
		a := rs.Primary.Attributes
		if a["registration.%"] != "1" || a["registration."+p] != hex.EncodeToString(sum[:]) {
			return fmt.Errorf("%s's registration is %v; want {%s = %x}", resource, a, p, sum)
		}
		return nil
	}
}

// TestAccRegistration: a destination's registration record, on a bucket and on git over HTTP,
// with the provider's owner "fleet".
//
//   - create: the record is Kratix's Destination with the extensions in annotations, byte for
//     byte; registration is {path = its MD5}, the path known in the plan;
//   - relabel: the record says the new labels; nothing of the GitOps layout is written;
//   - the record deleted by hand: the next plan updates the destination, its apply writes the
//     record again, and the plan after is empty;
//   - the same name in the same store under owner "platform" is refused at plan, naming both
//     owners, and the store keeps fleet's record;
//   - destroy (cleanup "none"): the record goes, the canaries stay.
func TestAccRegistration(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, testRegistration)
}

func testRegistration(t *testing.T, kind string) {
	ts := newTestStore(t, kind)
	const record = ".kratix-registry/destinations/w1.yaml"
	storeKind := "BucketStateStore"
	if kind != "bucket" {
		storeKind = "GitStateStore"
	}
	var storeName string
	if m := regexp.MustCompile(`name += "([^"]+)"`).FindStringSubmatch(ts.store); m != nil {
		storeName = m[1]
	}
	config := func(env string) string {
		return ownedBy(ts.provider, "", "fleet") + kratixStateStore{Label: "s", Body: ts.store}.String() +
			kratixDestination{Label: "w1", Name: q("w1"), Path: q("w1"), StateStore: "kratix_state_store.s",
				Labels: fmt.Sprintf("{ env = %q }", env),
				Body:   "  weight = 3\n  taints = [{ key = \"maintenance\", effect = \"NoSchedule\" }]",
			}.String()
	}
	want := func(env string) string {
		return `apiVersion: platform.kratix.io/v1alpha1
kind: Destination
metadata:
  annotations:
    terraform.kratix.io/instance-id: INSTANCE
    terraform.kratix.io/owner: fleet
    terraform.kratix.io/taints: '[{"key":"maintenance","effect":"NoSchedule"}]'
    terraform.kratix.io/weight: "3"
    terraform.kratix.io/written-at: "WRITTEN"
  labels:
    env: ` + env + `
  name: w1
spec:
  cleanup: none
  filepath:
    mode: nestedByMetadata
  initWorkloads:
    enabled: true
  path: w1
  stateStoreRef:
    kind: ` + storeKind + `
    name: ` + storeName + `
  strictMatchLabels: false
`
	}
	var instance string
	var since time.Time
	var beforeRelabel acctest.Mark
	markTime := func() { since = time.Now() }
	readInstance := func() statecheck.StateCheck {
		return acctest.FileMatches(ts.view, record, func(content string) error {
			m := regexp.MustCompile(`instance-id: ([0-9a-f]{16})`).FindStringSubmatch(content)
			if m == nil {
				return fmt.Errorf("no instance-id in the record:\n%s", content)
			}
			instance = m[1]
			return nil
		})
	}
	holds := func(env string) statecheck.StateCheck {
		return checkLater(func() statecheck.StateCheck {
			return recordHolds(ts.view, record, strings.Replace(want(env), "INSTANCE", instance, 1), &since)
		})
	}
	// clash is another workspace (its own directory and state, owner "platform") that registers
	// w1 in the same store, at another path.
	clash := func() {
		c := newCLI(t, map[string]string{"main.tf": requiredKratix + ownedBy(ts.provider, "", "platform") + kratixStateStore{Label: "s", Body: ts.store}.String() +
			kratixDestination{Label: "w1", Name: q("w1"), Path: q("elsewhere"), StateStore: "kratix_state_store.s"}.String()})
		out, err := c.run("apply", "-auto-approve")
		flat := strings.Join(strings.Fields(out), " ")
		if err == nil || !strings.Contains(flat, "Destination Registered By Another Owner") ||
			!strings.Contains(flat, `Destination "w1" is registered in`) ||
			!strings.Contains(flat, `by owner "fleet"; this configuration's owner is "platform"`) ||
			!strings.Contains(flat, `with kratix_destination.w1, on main.tf`) {
			t.Errorf("the apply of w1 under owner platform should be refused at plan, naming both owners at name:\n%s", out)
		}
		if strings.Contains(out, "Apply complete") || strings.Contains(out, "Creating...") {
			t.Errorf("the refused plan was applied:\n%s", out)
		}
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: markTime,
				Config:    config("dev"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("kratix_destination.w1", tfjsonpath.New("registration").AtMapKey(record)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{readInstance(), holds("dev"), acctest.SetMark(ts.journal, &beforeRelabel)},
				Check:             registrationIs(ts, "kratix_destination.w1", record),
			},
			{
				PreConfig: markTime,
				Config:    config("prod"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_destination.w1", plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue("kratix_destination.w1", tfjsonpath.New("registration").AtMapKey(record)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{holds("prod"), acctest.NoWritesSince(ts.journal, &beforeRelabel)},
				Check:             registrationIs(ts, "kratix_destination.w1", record),
			},
			{
				PreConfig: func() { ts.remove(t, record); markTime() },
				Config:    config("prod"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_destination.w1", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{holds("prod")},
				Check:             registrationIs(ts, "kratix_destination.w1", record),
			},
			{
				Config: config("prod"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				PreConfig:         clash,
				Config:            config("prod"),
				ConfigStateChecks: []statecheck.StateCheck{holds("prod"), acctest.FileMissing(ts.view, "elsewhere/dependencies/kratix-canary-namespace.yaml")},
			},
			{
				Config: ownedBy(ts.provider, "", "fleet") + kratixStateStore{Label: "s", Body: ts.store}.String(),
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.FileMissing(ts.view, record),
					acctest.FileHolds(ts.view, "w1/dependencies/kratix-canary-namespace.yaml", wantNamespace),
				},
			},
		},
	})
}

// checkLater is a check made when it runs, from values earlier checks set.
func checkLater(build func() statecheck.StateCheck) statecheck.StateCheck { return laterCheck{build} }

type laterCheck struct{ build func() statecheck.StateCheck }

func (l laterCheck) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	l.build().CheckState(ctx, req, resp)
}

// TestAccRegistration_stateBeforeRecords: a destination's state saved before registration
// existed (no `registration`), while the store holds the record this destination would write
// (its owner's, saying the same): the refresh adopts it, the plan is empty, and nothing is
// written. With the record gone too, the plan writes it.
func TestAccRegistration_stateBeforeRecords(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	c := newCLI(t, map[string]string{"main.tf": requiredKratix + ownedBy(ts.provider, "", "fleet") +
		kratixStateStore{Label: "s", Body: ts.store}.String() +
		kratixDestination{Label: "w1", Name: q("w1"), Path: q("w1"), StateStore: "kratix_state_store.s", Labels: `{ env = "dev" }`}.String()})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	// The state as a provider without registration saved it.
	dropRegistration := func() {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
		if err != nil {
			t.Fatal(err)
		}
		var st map[string]any
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		for _, r := range st["resources"].([]any) {
			for _, inst := range r.(map[string]any)["instances"].([]any) {
				delete(inst.(map[string]any)["attributes"].(map[string]any), "registration")
			}
		}
		st["serial"] = st["serial"].(float64) + 1
		out, _ := json.Marshal(st)
		if err := os.WriteFile(filepath.Join(c.dir, "terraform.tfstate"), out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dropRegistration()
	mark := ts.mark(t)
	if out, err := c.run("apply", "-auto-approve"); err != nil || !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
		t.Errorf("with the record in the store, the apply after the upgrade should change nothing: %v\n%s", err, out)
	}
	// The journal itself, records included (WritesAfter would leave them out).
	w, err := ts.journal.Writes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != mark.Writes {
		t.Errorf("the apply after the upgrade wrote %v", w[mark.Writes:])
	}
	if got := stateValues(t, c, "kratix_destination.w1")["registration"]; fmt.Sprint(got) == "<nil>" || fmt.Sprint(got) == "map[]" {
		t.Errorf("registration after the upgrade is %v, want the record's path and MD5", got)
	}
	dropRegistration()
	ts.remove(t, ".kratix-registry/destinations/w1.yaml")
	if out, err := c.run("plan", "-detailed-exitcode"); err == nil || !strings.Contains(out, `".kratix-registry/destinations/w1.yaml" = (known after apply)`) {
		t.Errorf("without the record the plan should write it: %v\n%s", err, out)
	}
}
