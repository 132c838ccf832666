package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// bucketOn is a testStore for bucket on srv, reached by the provider through a recorder with the
// credentials accessKey and secretKey; the test's own client is srv's root client. store is the
// body of the kratix_state_store resource with extra lines (path, create_bucket...) in it.
func bucketOn(t *testing.T, srv *testinfra.MinIO, bucket, accessKey, secretKey, extra string) *testStore {
	t.Helper()
	ctx := context.Background()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	recorder := startS3Recorder(t, srv.Endpoint)
	return &testStore{
		kind:     "bucket",
		recorder: recorder,
		provider: fmt.Sprintf(`
provider "kratix" {
  secrets = {
    s = {
      access_key_id     = %q
      secret_access_key = %q
    }
  }
}
`, accessKey, secretKey),
		store: fmt.Sprintf(`
  name       = %q
  secret_ref = "s"
%s
  bucket = {
    endpoint    = %q
    bucket_name = %q
    insecure    = true
  }
`, bucket, extra, recorder.endpoint, bucket),
		read: func(t *testing.T, path string) ([]byte, bool) {
			obj, err := client.GetObject(ctx, bucket, path, minio.GetObjectOptions{})
			if err != nil {
				t.Fatalf("reading %s: %v", path, err)
			}
			defer func() { _ = obj.Close() }()
			b, err := io.ReadAll(obj)
			if code := minio.ToErrorResponse(err).Code; code == "NoSuchKey" || code == "NoSuchBucket" {
				return nil, false
			}
			if err != nil {
				t.Fatalf("reading %s: %v", path, err)
			}
			return b, true
		},
		list: func(t *testing.T) []string {
			var out []string
			for o := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
				if o.Err != nil {
					t.Fatalf("listing %s: %v", bucket, o.Err)
				}
				out = append(out, o.Key)
			}
			sort.Strings(out)
			return out
		},
		put: func(t *testing.T, path string, content []byte) {
			if _, err := client.PutObject(ctx, bucket, path, bytes.NewReader(content), int64(len(content)), minio.PutObjectOptions{}); err != nil {
				t.Fatalf("writing %s: %v", path, err)
			}
		},
		remove: func(t *testing.T, path string) {
			if err := client.RemoveObject(ctx, bucket, path, minio.RemoveObjectOptions{}); err != nil {
				t.Fatalf("removing %s: %v", path, err)
			}
		},
		writes: func(*testing.T) []string {
			w, _ := recorder.snapshot()
			return w
		},
	}
}

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

// expectFiles checks that the bucket holds exactly want (paths and contents), read with the
// test's own client.
func expectFiles(t *testing.T, ts *testStore, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := ts.list(t)
		var keys []string
		for k := range want {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if strings.Join(got, "\n") != strings.Join(keys, "\n") {
			return fmt.Errorf("the bucket holds\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(keys, "\n  "))
		}
		for _, k := range keys {
			if c, _ := ts.read(t, k); string(c) != want[k] {
				return fmt.Errorf("%s holds %q, want %q", k, c, want[k])
			}
		}
		return nil
	}
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
	if minioServer == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
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
	ts := bucketOn(t, minioServer, bucket, key, secret, `  path = "team"`)
	cfg := destinationAndPromise(ts)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					expectFiles(t, ts, workerFiles("team/")),
					func(*terraform.State) error { return expectProbesUnder(ts.recorder.probeWrites(), "team/") },
				),
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
