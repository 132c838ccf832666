package statestore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// testMinIOKMS starts a MinIO server holding a static KMS key, for this test alone.
func testMinIOKMS(t *testing.T) *testinfra.MinIO {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	srv, err := testinfra.StartMinIOWith(testinfra.MinIOOptions{KMS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// teamPolicy allows what a store needs (list, put, get, delete), under prefix team/ only.
func teamPolicy(bucket string) string {
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:PutObject","s3:GetObject","s3:DeleteObject"],"Resource":["arn:aws:s3:::%[1]s/team/*"]},
  {"Effect":"Allow","Action":["s3:ListBucket"],"Resource":["arn:aws:s3:::%[1]s"],"Condition":{"StringLike":{"s3:prefix":["team/*"]}}}
]}`, bucket)
}

// TestBucketCheckUnderPrefix: credentials limited to team/* pass the check under team/ and fail
// it at the root; the check leaves no object, version or upload behind.
func TestBucketCheckUnderPrefix(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	_, client, bucket := testBucket(t)
	key, secret, err := srv.AddUserWithPolicy(ctx, teamPolicy(bucket))
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewPool().Bucket(rootConfig(srv.Endpoint, bucket, key, secret))
	if err != nil {
		t.Fatal(err)
	}
	// The premise, with plain minio-go: the user may write under team/ and nowhere else.
	user, err := minio.New(srv.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(key, secret, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := user.PutObject(ctx, bucket, "other/x.yaml", strings.NewReader("x"), 1, minio.PutObjectOptions{}); minio.ToErrorResponse(err).Code != "AccessDenied" {
		t.Fatalf("writing outside team/ gave %v, want AccessDenied: the user is not limited", err)
	}
	if _, err := user.PutObject(ctx, bucket, "team/x.yaml", strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatalf("writing under team/: %v", err)
	}
	if err := user.RemoveObject(ctx, bucket, "team/x.yaml", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	probe := st.(BucketProbe)
	if err := probe.CheckUnder(ctx, "team/"); err != nil {
		t.Errorf("CheckUnder(team/) with rights on team/*: %v", err)
	}
	if err := st.Check(ctx); kindOf(err) != KindAccessDenied {
		t.Errorf("Check at the root with rights on team/* only = %v, want access denied", err)
	}
	if ok, err := probe.BucketExists(ctx, "team/"); !ok || err != nil {
		t.Errorf("BucketExists(team/) = %v, %v; want true", ok, err)
	}
	if err := probe.CheckUnder(ctx, "team"); kindOf(err) != KindConfig {
		t.Errorf("CheckUnder of a prefix without its slash = %v, want a configuration error", err)
	}
	if got := objects(t, client, bucket); len(got) != 0 {
		t.Errorf("the checks left %v behind", got)
	}

	// On a versioned bucket the probe's version goes too: no version, no delete marker.
	if err := client.EnableVersioning(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	root, err := NewPool().Bucket(rootConfig(srv.Endpoint, bucket, srv.AccessKey, srv.SecretKey))
	if err != nil {
		t.Fatal(err)
	}
	if err := root.(BucketProbe).CheckUnder(ctx, "team/"); err != nil {
		t.Fatalf("CheckUnder on a versioned bucket: %v", err)
	}
	for v := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true, WithVersions: true}) {
		if v.Err != nil {
			t.Fatal(v.Err)
		}
		t.Errorf("the check on a versioned bucket left %s (version %s, delete marker %v)", v.Key, v.VersionID, v.IsDeleteMarker)
	}
}

// TestBucketDeleted: once the bucket is deleted, reads find no files (the files went with it),
// BucketExists says so, a write fails with "bucket does not exist", and a check with
// CreateBucket brings the bucket back.
func TestBucketDeleted(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	st, client, bucket := testBucket(t)
	if _, err := st.Apply(ctx, Change{Put: map[string][]byte{"d/a.yaml": []byte("a"), "d/b.yaml": []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"d/a.yaml", "d/b.yaml"} {
		if err := client.RemoveObject(ctx, bucket, k, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.RemoveBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}

	if ok, err := st.BucketExists(ctx, "d/"); ok || err != nil {
		t.Errorf("BucketExists after the bucket was deleted = %v, %v; want false, no error", ok, err)
	}
	if h, err := st.Hashes(ctx, []string{"d/a.yaml", "d/b.yaml"}); err != nil || len(h) != 0 {
		t.Errorf("Hashes = %v, %v; want no files", h, err)
	}
	if l, err := st.List(ctx, "d/"); err != nil || len(l) != 0 {
		t.Errorf("List = %v, %v; want no files", l, err)
	}
	if _, err := st.Read(ctx, "d/a.yaml"); !IsNotFound(err) {
		t.Errorf("Read = %v; want not found", err)
	}
	if _, err := st.Apply(ctx, Change{Put: map[string][]byte{"d/a.yaml": []byte("a")}}); kindOf(err) != KindMissingBucket {
		t.Errorf("Apply to a deleted bucket = %v, want kind %q", err, KindMissingBucket)
	}

	// Wrong credentials on the deleted bucket: an error, never "gone".
	wrong, err := NewPool().Bucket(rootConfig(srv.Endpoint, bucket, srv.AccessKey, "wrong-secret"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := wrong.(BucketProbe).BucketExists(ctx, "d/"); ok || kindOf(err) != KindAuth {
		t.Errorf("BucketExists with a wrong secret = %v, %v; want an authentication error", ok, err)
	}

	cfg := rootConfig(srv.Endpoint, bucket, srv.AccessKey, srv.SecretKey)
	cfg.CreateBucket = true
	again, err := NewPool().Bucket(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.(BucketProbe).CheckUnder(ctx, "d/"); err != nil {
		t.Fatalf("CheckUnder with CreateBucket: %v", err)
	}
	if ok, err := client.BucketExists(ctx, bucket); !ok || err != nil {
		t.Errorf("the check did not create the bucket again: %v, %v", ok, err)
	}
	if got := objects(t, client, bucket); len(got) != 0 {
		t.Errorf("the check left %v behind", got)
	}
}

// TestBucketEncrypted: on buckets that encrypt by default (SSE-S3, and SSE-KMS, whose ETags are
// not MD5s), hashes come from listings without downloads, an unchanged Apply writes nothing, and
// a hand edit is seen.
func TestBucketEncrypted(t *testing.T) {
	srv := testMinIOKMS(t)
	for _, kind := range []string{"SSE-S3", "SSE-KMS"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			bucket := "e-" + randomSuffix()
			if err := srv.MakeBucket(ctx, bucket); err != nil {
				t.Fatal(err)
			}
			if err := srv.EncryptBucket(ctx, bucket, kind); err != nil {
				t.Fatal(err)
			}
			client, err := srv.Client()
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewPool().Bucket(rootConfig(srv.Endpoint, bucket, srv.AccessKey, srv.SecretKey))
			if err != nil {
				t.Fatal(err)
			}
			st := s.(*bucketStore)
			files := map[string][]byte{"w/a.yaml": []byte("a: 1\n"), "w/b.yaml": []byte("b: 2\n"), "top.yaml": []byte("t\n")}
			want := map[string]string{}
			for p, c := range files {
				sum := md5.Sum(c)
				want[p] = hex.EncodeToString(sum[:])
			}
			agg := Aggregate{File: "w/all.yaml", Dir: "w/parts/"}
			change := Change{Put: files, Aggregates: []Aggregate{agg}}
			change.Put["w/parts/1.yaml"] = []byte("one")
			change.Put["w/parts/2.yaml"] = []byte("two")
			if _, err := st.Apply(ctx, change); err != nil {
				t.Fatal(err)
			}

			// The premise, read with plain minio-go: objects are encrypted, and under SSE-KMS
			// their ETags are not the MD5 of their content.
			info, err := client.StatObject(ctx, bucket, "w/a.yaml", minio.StatObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if info.Metadata.Get("X-Amz-Server-Side-Encryption") == "" {
				t.Fatalf("w/a.yaml is not encrypted: %v", info.Metadata)
			}
			if etag := strings.Trim(info.ETag, `"`); (etag == want["w/a.yaml"]) != (kind == "SSE-S3") {
				t.Fatalf("%s: ETag %s, MD5 %s: not what this test is about", kind, etag, want["w/a.yaml"])
			}

			before := st.Stats()
			got, err := st.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml", "top.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Hashes = %v, want %v", got, want)
			}
			res, err := st.Apply(ctx, change)
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed() {
				t.Errorf("an unchanged Apply wrote %v and deleted %v", res.Written, res.Deleted)
			}
			if d := delta(before, st.Stats()); d.Puts != 0 || d.Gets != 2 {
				// The aggregate's two parts are read to rebuild it; nothing else is downloaded.
				t.Errorf("hashing and an unchanged Apply cost %+v; want no PUT and only the aggregate's 2 GETs", d)
			}

			// A hand edit (by a client that knows nothing of the provider's metadata) is seen.
			edited := []byte("a: edited by hand\n")
			if _, err := client.PutObject(ctx, bucket, "w/a.yaml", bytes.NewReader(edited), int64(len(edited)), minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
			sum := md5.Sum(edited)
			got, err = st.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			if got["w/a.yaml"] != hex.EncodeToString(sum[:]) {
				t.Errorf("after a hand edit Hashes gives %s, want the edit's MD5 %x", got["w/a.yaml"], sum)
			}
			res, err = st.Apply(ctx, change)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Written, []string{"w/a.yaml"}) {
				t.Errorf("the Apply after a hand edit wrote %v, want [w/a.yaml]", res.Written)
			}
			if got := objects(t, client, bucket)["w/a.yaml"]; got != "a: 1\n" {
				t.Errorf("w/a.yaml holds %q after the repair", got)
			}
		})
	}
}
