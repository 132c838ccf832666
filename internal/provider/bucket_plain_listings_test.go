package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// TestAccBucketStore_plainListings: the provider in front of a server whose listings carry no
// object metadata, as AWS S3's do (MinIO behind a recorder that strips it). On a bucket that
// encrypts with SSE-KMS, where no ETag is the MD5 of its object, the plan after an apply is
// empty and the next apply writes nothing; a hand edit is still seen and repaired. On an
// unencrypted bucket the same costs listings only: no HEAD, no GET.
func TestAccBucketStore_plainListings(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	srv, err := testinfra.StartMinIOWith(testinfra.MinIOOptions{KMS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	for _, kind := range []string{"SSE-KMS", "unencrypted"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			bucket := randomName("p")
			if err := srv.MakeBucket(ctx, bucket); err != nil {
				t.Fatal(err)
			}
			if kind == "SSE-KMS" {
				if err := srv.EncryptBucket(ctx, bucket, kind); err != nil {
					t.Fatal(err)
				}
			}
			ts := bucketOn(t, srv, bucket, srv.AccessKey, srv.SecretKey, "")
			ts.recorder.plainListings.Store(true)
			cfg := destinationAndPromise(ts)
			files := workerFiles("")
			dep := "worker-1/dependencies/app/5058f/static/app-dependencies.yaml"
			var applied acctest.Mark
			var before s3Kinds
			// since logs and returns the requests made since the last call.
			since := func(what string) s3Kinds {
				now, _ := ts.recorder.counts()
				d := now.minus(before)
				before = now
				t.Logf("%s: %v", what, d)
				return d
			}
			steps := []resource.TestStep{
				{
					Config: cfg,
					Check:  func(*terraform.State) error { since("create"); return nil },
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.HoldsExactly(ts.view, files),
						acctest.SetMark(ts.journal, &applied),
					},
				},
				{
					Config: cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectEmptyPlan(),
					}},
					ConfigStateChecks: []statecheck.StateCheck{acctest.NoWritesSince(ts.journal, &applied)},
					Check: func(*terraform.State) error {
						d := since("refresh, plan and apply with nothing to do")
						// The premise: MinIO sent listing metadata, and the recorder removed it.
						if _, stripped := ts.recorder.counts(); stripped == 0 {
							return fmt.Errorf("no listing had metadata to remove: this test shows nothing")
						}
						switch {
						case d.Puts != 0 || d.Gets != 0:
							return fmt.Errorf("with nothing to do the provider sent %v; want no PUT and no GET", d)
						case kind == "unencrypted" && d.Heads != 0:
							return fmt.Errorf("on an unencrypted bucket the provider sent %v; want no HEAD", d)
						case kind == "SSE-KMS" && d.Heads == 0:
							return fmt.Errorf("on an SSE-KMS bucket the provider sent %v: no HEAD, so where did the MD5s come from?", d)
						}
						return nil
					},
				},
				{
					PreConfig: func() { ts.put(t, dep, []byte("edited by hand\n")); since("between") },
					Config:    cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kratix_destination.d", plancheck.ResourceActionNoop),
					}},
					Check: func(*terraform.State) error { since("repair of a hand edit"); return nil },
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.WritesSince(ts.journal, &applied, puts(dep)...),
						acctest.HoldsExactly(ts.view, files),
					},
				},
				{
					Config: cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectEmptyPlan(),
					}},
				},
			}
			if kind == "SSE-KMS" {
				steps[0].Check = resource.ComposeAggregateTestCheckFunc(steps[0].Check,
					expectEncrypted(srv, bucket, dep, files[dep], kind))
			}
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProviders, Steps: steps})
		})
	}
}
