package provider

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// destinationAndPromise is a store, a destination "worker-1" at path "worker-1" on it and a
// promise with one dependency file.
func destinationAndPromise(ts *testStore) string {
	return storeAndDestination(ts, ts.provider) + `
resource "kratix_promise" "p" {
  name         = "app"
  destinations = [kratix_destination.d]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
}
`
}

// workerFiles are the files of destinationAndPromise under root ("" or "team/"): the two
// canaries and the promise's dependency, spelled by hand from Kratix's layout.
func workerFiles(root string) map[string]string {
	return map[string]string{
		root + "worker-1/dependencies/kratix-canary-namespace.yaml":           wantNamespace,
		root + "worker-1/resources/kratix-canary-configmap.yaml":              wantConfigMap,
		root + "worker-1/dependencies/app/5058f/static/app-dependencies.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n",
	}
}

// TestAccBucketStore_prefixCredentials: credentials whose policy allows only team/* create a
// store with path "team" and a destination and promise on it. The write check ran under team/
// and left nothing; every file is under team/; the next plan is empty.
func TestAccBucketStore_prefixCredentials(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ctx := context.Background()
	bucket := randomName("t")
	if err := minioServer.MakeBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	key, secret, err := minioServer.AddUserWithPolicy(ctx, fmt.Sprintf(`{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:PutObject","s3:GetObject","s3:DeleteObject"],"Resource":["arn:aws:s3:::%[1]s/team/*"]},
  {"Effect":"Allow","Action":["s3:ListBucket"],"Resource":["arn:aws:s3:::%[1]s"],"Condition":{"StringLike":{"s3:prefix":["team/*"]}}}
]}`, bucket))
	if err != nil {
		t.Fatal(err)
	}
	ts := bucketOn(t, minioServer, bucket, key, secret, "team")
	cfg := destinationAndPromise(ts)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check:  func(*terraform.State) error { return expectProbesUnder(ts.recorder.probeWrites(), "team/") },
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.HoldsExactly(ts.view, workerFiles("team/")),
				},
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// deleteBucket empties bucket and deletes it, with the test's own client, as someone working
// outside Terraform would.
func deleteBucket(t *testing.T, srv *testinfra.MinIO, bucket string) {
	t.Helper()
	ctx := context.Background()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	for o := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if err := client.RemoveObject(ctx, bucket, o.Key, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.RemoveBucket(ctx, bucket); err != nil {
		t.Fatalf("deleting bucket %s: %v", bucket, err)
	}
}

// TestAccBucketStore_bucketDeleted: a bucket deleted outside Terraform. Without create_bucket the
// plan does not fail (the files show as gone), the apply fails saying what to do, and setting
// create_bucket repairs everything. With create_bucket the plan re-creates the store, the apply
// makes the bucket and writes every file again, and the next plan is empty.
func TestAccBucketStore_bucketDeleted(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket := randomName("t")
	if err := minioServer.MakeBucket(context.Background(), bucket); err != nil {
		t.Fatal(err)
	}
	keep := bucketOn(t, minioServer, bucket, minioServer.AccessKey, minioServer.SecretKey, "")
	create := *keep
	create.store = strings.Replace(keep.store, "  bucket = {", "  bucket = {\n    create_bucket = true", 1)
	cfgKeep, cfgCreate := destinationAndPromise(keep), destinationAndPromise(&create)
	files := workerFiles("")
	gone := func() { deleteBucket(t, minioServer, bucket) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{Config: cfgKeep, ConfigStateChecks: []statecheck.StateCheck{acctest.HoldsExactly(keep.view, files)}},
			{
				// The plan of every resource reading the missing bucket succeeds and shows the
				// files gone; the store resource stays (with a warning).
				PreConfig: gone, Config: cfgKeep, PlanOnly: true, ExpectNonEmptyPlan: true,
			},
			{
				Config: cfgKeep,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_state_store.s", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("kratix_destination.d", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
				}},
				ExpectError: wrapped(`bucket does not exist[\s\S]*Create the bucket, or set create_bucket = true`),
			},
			{
				// create_bucket set: the store's update makes the bucket before the others write.
				Config: cfgCreate,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_state_store.s", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.HoldsExactly(keep.view, files),
				},
			},
			{
				PreConfig: gone,
				Config:    cfgCreate,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("kratix_state_store.s", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("kratix_destination.d", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.HoldsExactly(keep.view, files),
				},
			},
			{
				Config: cfgCreate,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// TestAccBucketStore_encrypted: on buckets that encrypt every object by default, with SSE-S3 and
// with SSE-KMS (whose ETags are not the MD5 of the content), the plan after an apply is empty and
// the next apply writes nothing, while a hand edit is still seen as drift and repaired.
func TestAccBucketStore_encrypted(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	srv, err := testinfra.StartMinIOWith(testinfra.MinIOOptions{KMS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	for _, kind := range []string{"SSE-S3", "SSE-KMS"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			bucket := randomName("e")
			if err := srv.MakeBucket(ctx, bucket); err != nil {
				t.Fatal(err)
			}
			if err := srv.EncryptBucket(ctx, bucket, kind); err != nil {
				t.Fatal(err)
			}
			ts := bucketOn(t, srv, bucket, srv.AccessKey, srv.SecretKey, "")
			cfg := destinationAndPromise(ts)
			files := workerFiles("")
			dep := "worker-1/dependencies/app/5058f/static/app-dependencies.yaml"
			var applied acctest.Mark
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config: cfg,
						Check:  expectEncrypted(srv, bucket, dep, files[dep], kind),
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
					},
					{
						PreConfig: func() { ts.put(t, dep, []byte("edited by hand\n")) },
						Config:    cfg,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
							plancheck.ExpectResourceAction("kratix_destination.d", plancheck.ResourceActionNoop),
						}},
						ConfigStateChecks: []statecheck.StateCheck{
							acctest.HoldsExactly(ts.view, files),
						},
					},
					{
						Config: cfg,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectEmptyPlan(),
						}},
					},
				},
			})
		})
	}
}

// expectEncrypted checks the premise of an encryption test with plain minio-go: key is encrypted
// as kind says, and under SSE-KMS its ETag is not the MD5 of content (under SSE-S3 it is).
func expectEncrypted(srv *testinfra.MinIO, bucket, key, content, kind string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		client, err := srv.Client()
		if err != nil {
			return err
		}
		info, err := client.StatObject(context.Background(), bucket, key, minio.StatObjectOptions{})
		if err != nil {
			return err
		}
		want := map[string]string{"SSE-S3": "AES256", "SSE-KMS": "aws:kms"}[kind]
		if got := info.Metadata.Get("X-Amz-Server-Side-Encryption"); got != want {
			return fmt.Errorf("%s is encrypted with %q, want %q", key, got, want)
		}
		sum := md5.Sum([]byte(content))
		if isMD5 := strings.Trim(info.ETag, `"`) == hex.EncodeToString(sum[:]); isMD5 != (kind == "SSE-S3") {
			return fmt.Errorf("%s: ETag %s, MD5 %x: not the case this test is about", kind, info.ETag, sum)
		}
		return nil
	}
}
