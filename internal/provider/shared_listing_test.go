package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccBucketStore_oneListingPerPlan: 3 promises on 10 destinations of one bucket store. After
// the apply, a plan (with refresh) reads every resource's files from one listing of the store's
// path, made once by the provider process: exactly 1 LIST on the wire, and no changes. A hand
// edit made between plans is seen by the next plan, whose new process lists again.
func TestAccBucketStore_oneListingPerPlan(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts, store := listingStore(t)
	cfg := store + listingFleet

	var before s3Kinds
	mark := func() { before, _ = ts.recorder.counts() }
	// plansListOnce checks that the requests since mark were those of one plan with refresh and
	// one without: one LIST in all (the plan without refresh reads no store), and no write.
	plansListOnce := func(what string) func() {
		return func() {
			now, _ := ts.recorder.counts()
			d := now.minus(before)
			t.Logf("%s: %v", what, d)
			if d.Lists != 1 || d.Puts != 0 || d.Deletes != 0 || d.Gets != 0 {
				t.Errorf("%s sent %v; want exactly 1 LIST (one per store location per plan) and no GET, PUT or DELETE", what, d)
			}
		}
	}
	// edit changes p1's file in d-3 by hand, found with the test's own listing.
	edit := func() {
		var key string
		for _, k := range ts.list(t) {
			if strings.HasPrefix(k, "team/d-3/dependencies/p1/") {
				key = k
			}
		}
		if key == "" {
			t.Fatalf("no file of promise p1 under team/d-3/dependencies/: %v", ts.list(t))
		}
		ts.put(t, key, []byte("edited by hand\n"))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: mark,
				Config:    cfg,
				PlanOnly:  true,
			},
			{
				PreConfig: func() { plansListOnce("a plan and a plan with refresh of 30 placements")(); edit(); mark() },
				Config:    cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_promise.p[1]", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kratix_promise.p[0]", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kratix_promise.p[2]", plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}

// TestAccBucketStore_oneListingPerApply: on a store that exists, one apply creates 10
// destinations (each writing its two canaries) and 3 promises, 50 files in 23 writes. The
// apply's process lists the store's path once, at its first write, and answers every later
// write from that listing kept up to date by its own writes: exactly 1 LIST on the wire between
// the plan and the apply's end. The bucket then holds exactly the 50 files, read back with the
// test's own client.
func TestAccBucketStore_oneListingPerApply(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts, store := listingStore(t)
	fleet := store + listingFleet
	var planned s3Kinds
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{Config: store},
			{
				Config: fleet,
				Check: func(*terraform.State) error {
					var want []string
					for d := range 10 {
						want = append(want, fmt.Sprintf("team/d-%d/dependencies/kratix-canary-namespace.yaml", d),
							fmt.Sprintf("team/d-%d/resources/kratix-canary-configmap.yaml", d))
						for p := range 3 {
							want = append(want, fmt.Sprintf("team/d-%d/dependencies/p%d/", d, p))
						}
					}
					got := ts.list(t)
					if len(got) != 50 {
						t.Errorf("the bucket holds %d files, want 50: %v", len(got), got)
					}
					for _, w := range want {
						if !slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, w) }) {
							t.Errorf("no file at %s in %v", w, got)
						}
					}
					return nil
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{onPlan(func() { planned, _ = ts.recorder.counts() })},
					PostApplyPreRefresh: []plancheck.PlanCheck{onPlan(func() {
						now, _ := ts.recorder.counts()
						d := now.minus(planned)
						t.Logf("the apply of 10 destinations and 3 promises sent %v", d)
						// 50 files, the 10 destinations' registration records and the 3 promises' owner
						// records (issue 39). GETs: each promise's owner record, read by each plan of the
						// step (the plan and the apply's own) and before its write: never one per destination.
						if d.Lists != 1 || d.Puts != 66 || d.Gets > 9 {
							t.Errorf("the apply sent %v; want exactly 1 LIST (one per store location per apply), at most 9 GET (3 promises' owner records, read by 2 plans and a write) and 66 PUT (50 files, 10 registration records, 3 owner records, 3 promise records)", d)
						}
					})},
				},
			},
		},
	})
}

// TestAccBucketStore_oneListingForASetUp: the store, 10 destinations and 3 promises created in
// one apply. The plan lists the store's path once (the new store's read check), and so does the
// apply: the check made again when Terraform plans the store anew is the listing every write of
// the process then uses, kept up to date by the write probe and the writes. 50 files land.
func TestAccBucketStore_oneListingForASetUp(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts, store := listingStore(t)
	cfg := store + listingFleet
	var start, planned s3Kinds
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			PreConfig: func() { start, _ = ts.recorder.counts() },
			Config:    cfg,
			Check: func(*terraform.State) error {
				if got := len(ts.list(t)); got != 50 {
					t.Errorf("the bucket holds %d files, want 50", got)
				}
				return nil
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{onPlan(func() {
					planned, _ = ts.recorder.counts()
					if d := planned.minus(start); d.Lists != 1 || d.Gets > 6 {
						t.Errorf("the plan sent %v; want exactly 1 LIST and at most 6 GET (the owner record of each of 3 promises, looked for by the step's 2 plans)", d)
					}
				})},
				PostApplyPreRefresh: []plancheck.PlanCheck{onPlan(func() {
					now, _ := ts.recorder.counts()
					d := now.minus(planned)
					t.Logf("the set-up apply sent %v", d)
					if d.Lists != 1 || d.Puts != 67 || d.Deletes != 1 || d.Gets > 9 {
						t.Errorf("the apply sent %v; want exactly 1 LIST, at most 9 GET (3 promises' owner records, read by 2 plans and a write), 67 PUT and 1 DELETE (the write probe, 50 files, 10 registration records, 3 owner records and 3 promise records)", d)
					}
				})},
			},
		}},
	})
}

// listingStore is a bucket store at path "team" on a new bucket, with its recorder, and the
// configuration of the provider and the store.
func listingStore(t *testing.T) (*testStore, string) {
	t.Helper()
	bucket := randomName("l")
	if err := minioServer.MakeBucket(context.Background(), bucket); err != nil {
		t.Fatal(err)
	}
	ts := bucketOn(t, minioServer, bucket, minioServer.AccessKey, minioServer.SecretKey, "team")
	return ts, storeConfig(ts)
}

// listingFleet is 10 destinations, each with its two canaries, and 3 promises on all of them:
// 50 files.
const listingFleet = `
resource "kratix_destination" "d" {
  count       = 10
  name        = "d-${count.index}"
  path        = "d-${count.index}"
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  count        = 3
  name         = "p${count.index}"
  destinations = kratix_destination.d
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p${count.index}\n"
}
`

// onPlan is a plan check that runs f: it marks a point between a test step's commands.
type onPlan func()

func (f onPlan) CheckPlan(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse) {
	f()
}
