package statestore

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// These tests run the bucket store against a real MinIO (testinfra) and read back what it did
// through a plain minio-go client of their own.

// testBucket makes a fresh bucket and returns a store for it and a plain minio-go client as the
// independent reader.
func testBucket(t *testing.T) (*bucketStore, *minio.Client, string) {
	t.Helper()
	srv := testMinIO(t)
	name := "b-" + randomSuffix()
	if err := srv.MakeBucket(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	s, err := NewPool().Bucket(rootConfig(srv.Endpoint, name, srv.AccessKey, srv.SecretKey))
	if err != nil {
		t.Fatal(err)
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	return s.(*bucketStore), client, name
}

func rootConfig(endpoint, bucket, key, secret string) BucketConfig {
	return BucketConfig{Endpoint: endpoint, BucketName: bucket, Insecure: true, AccessKeyID: key, SecretAccessKey: secret}
}

// objects reads every object of a bucket through the independent client.
func objects(t *testing.T, c *minio.Client, bucket string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for o := range c.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		obj, err := c.GetObject(context.Background(), bucket, o.Key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(obj)
		_ = obj.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[o.Key] = string(b)
	}
	return out
}

func putObject(t *testing.T, c *minio.Client, bucket, key, content string) {
	t.Helper()
	if _, err := c.PutObject(context.Background(), bucket, key, strings.NewReader(content), int64(len(content)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
}

// putMultipart stores content as a one-part multipart upload, whose ETag is not an MD5.
func putMultipart(t *testing.T, c *minio.Client, bucket, key, content string) {
	t.Helper()
	ctx := context.Background()
	core := &minio.Core{Client: c}
	id, err := core.NewMultipartUpload(ctx, bucket, key, minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	part, err := core.PutObjectPart(ctx, bucket, key, id, 1, strings.NewReader(content), int64(len(content)), minio.PutObjectPartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := core.CompleteMultipartUpload(ctx, bucket, key, id, []minio.CompletePart{{PartNumber: 1, ETag: part.ETag}}, minio.PutObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info.ETag, "-") {
		t.Fatalf("a multipart upload got ETag %q, want one with a part count", info.ETag)
	}
}

func sortedMapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// delta is what a store did between two Stats.
func delta(before, after BucketStats) BucketStats {
	return BucketStats{Puts: after.Puts - before.Puts, Gets: after.Gets - before.Gets, Heads: after.Heads - before.Heads,
		Lists: after.Lists - before.Lists, Deletes: after.Deletes - before.Deletes}
}

func TestBucketApply(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	putObject(t, client, bucket, "beside.txt", "keep")
	putObject(t, client, bucket, "d/a/5058f-other/x.yaml", "beside the owned folder")

	binary := []byte{0, 1, 2, 0xff, '\n', '-', '-', '-'}
	res, err := s.Apply(ctx, Change{Put: map[string][]byte{
		"d/a/5058f/one.yaml": []byte("one\n"),
		"d/a/5058f/two.yaml": []byte("two\n"),
		"d/b/x.yaml":         []byte("x\n"),
		"d/b/raw.bin":        binary,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"d/a/5058f/one.yaml", "d/a/5058f/two.yaml", "d/b/raw.bin", "d/b/x.yaml"}; !reflect.DeepEqual(res.Written, want) {
		t.Errorf("Written = %v, want %v", res.Written, want)
	}
	got := objects(t, client, bucket)
	if got["d/b/raw.bin"] != string(binary) || got["d/a/5058f/one.yaml"] != "one\n" {
		t.Errorf("the bucket holds %q, not the exact bytes written", got)
	}
	for key, want := range map[string]string{"d/b/x.yaml": "application/yaml", "d/b/raw.bin": "application/octet-stream"} {
		info, err := client.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if info.ContentType != want {
			t.Errorf("%s has content type %q, want %q", key, info.ContentType, want)
		}
		if strings.Contains(info.ETag, "-") {
			t.Errorf("%s was written in parts (ETag %s); its ETag must be its MD5", key, info.ETag)
		}
	}

	// The same content again: no PUT, no GET, nothing changed.
	before := s.Stats()
	res, err = s.Apply(ctx, Change{Put: map[string][]byte{
		"d/a/5058f/one.yaml": []byte("one\n"), "d/a/5058f/two.yaml": []byte("two\n"), "d/b/x.yaml": []byte("x\n"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d := delta(before, s.Stats()); res.Changed() || d.Puts != 0 || d.Gets != 0 || d.Deletes != 0 {
		t.Errorf("re-applying the same content changed %+v with requests %+v", res, d)
	}

	// Prune replaces the owned folder's content; the files beside it stay.
	res, err = s.Apply(ctx, Change{Put: map[string][]byte{"d/a/5058f/one.yaml": []byte("one v2\n")}, Prune: []string{"d/a/5058f/"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Deleted, []string{"d/a/5058f/two.yaml"}) || !reflect.DeepEqual(res.Written, []string{"d/a/5058f/one.yaml"}) {
		t.Errorf("prune result = %+v", res)
	}
	want := map[string]string{
		"beside.txt": "keep", "d/a/5058f-other/x.yaml": "beside the owned folder",
		"d/a/5058f/one.yaml": "one v2\n", "d/b/x.yaml": "x\n", "d/b/raw.bin": string(binary),
	}
	if got := objects(t, client, bucket); !reflect.DeepEqual(got, want) {
		t.Errorf("bucket holds %v, want %v", got, want)
	}

	// Delete: a prefix, an exact key and a missing file; the prefix "d/b/" must not take
	// "d/a/5058f-other/" nor the sibling "d/bb.yaml" with it.
	putObject(t, client, bucket, "d/bb.yaml", "sibling")
	res, err = s.Apply(ctx, Change{Delete: []string{"d/b/", "d/a/5058f/one.yaml", "missing.yaml", "d/a/5058f/missing.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"d/a/5058f/one.yaml", "d/b/raw.bin", "d/b/x.yaml"}; !reflect.DeepEqual(res.Deleted, want) {
		t.Errorf("Deleted = %v, want %v", res.Deleted, want)
	}
	want = map[string]string{"beside.txt": "keep", "d/a/5058f-other/x.yaml": "beside the owned folder", "d/bb.yaml": "sibling"}
	if got := objects(t, client, bucket); !reflect.DeepEqual(got, want) {
		t.Errorf("after delete the bucket holds %v, want %v", got, want)
	}

	// Deleting what is already gone changes nothing and is no error.
	res, err = s.Apply(ctx, Change{Delete: []string{"d/b/", "d/b/x.yaml"}})
	if err != nil || res.Changed() {
		t.Errorf("deleting what is gone: %+v, %v", res, err)
	}
}

// TestBucketApplyRepairsDrift: objects edited or deleted by hand are put back; an object written
// in parts (ETag not an MD5) is compared by content, and not rewritten when it matches.
func TestBucketApplyRepairsDrift(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	want := map[string][]byte{"w/a.yaml": []byte("a\n"), "w/b.yaml": []byte("b\n"), "w/c.yaml": []byte("c\n"), "solo/d.yaml": []byte("d\n")}
	if _, err := s.Apply(ctx, Change{Put: want}); err != nil {
		t.Fatal(err)
	}
	putObject(t, client, bucket, "w/a.yaml", "edited by hand")
	if err := client.RemoveObject(ctx, bucket, "w/b.yaml", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	putMultipart(t, client, bucket, "w/c.yaml", "c\n")
	putObject(t, client, bucket, "solo/d.yaml", "edited too")

	before := s.Stats()
	res, err := s.Apply(ctx, Change{Put: want})
	if err != nil {
		t.Fatal(err)
	}
	if w := []string{"solo/d.yaml", "w/a.yaml", "w/b.yaml"}; !reflect.DeepEqual(res.Written, w) {
		t.Errorf("Written = %v, want %v", res.Written, w)
	}
	// The two edited by hand held other content; w/b.yaml was gone, so it is created again.
	if r := []string{"solo/d.yaml", "w/a.yaml"}; !reflect.DeepEqual(res.Replaced, r) {
		t.Errorf("Replaced = %v, want %v", res.Replaced, r)
	}
	if d := delta(before, s.Stats()); d.Puts != 3 || d.Gets != 1 {
		t.Errorf("repair made %+v; want 3 PUTs and 1 GET (for the object written in parts)", d)
	}
	got := objects(t, client, bucket)
	for k, v := range want {
		if got[k] != string(v) {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestBucketReadHashesList(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	if _, err := s.Apply(ctx, Change{Put: map[string][]byte{"a/x.yaml": []byte("x"), "a/b/y.yaml": []byte("y"), "top.yaml": []byte("t")}}); err != nil {
		t.Fatal(err)
	}
	putMultipart(t, client, bucket, "a/parts.yaml", "p")
	putObject(t, client, bucket, "ab/not-under-a.yaml", "n")
	putObject(t, client, bucket, "top.yaml.bak", "a key that starts with another")

	before := s.Stats()
	h, err := s.Hashes(ctx, []string{"a/x.yaml", "a/b/y.yaml", "top.yaml", "a/missing.yaml", "gone/missing.yaml", "a/x.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/x.yaml": md5Hex([]byte("x")), "a/b/y.yaml": md5Hex([]byte("y")), "top.yaml": md5Hex([]byte("t"))}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("Hashes = %v, want %v", h, want)
	}
	if d := delta(before, s.Stats()); d.Gets != 0 || d.Puts != 0 {
		t.Errorf("Hashes made %+v; ETags should do, without GETs", d)
	}

	// An ETag that is not an MD5 costs one GET.
	before = s.Stats()
	h, err = s.Hashes(ctx, []string{"a/parts.yaml"})
	if err != nil || h["a/parts.yaml"] != md5Hex([]byte("p")) {
		t.Errorf("Hashes of an object written in parts = %v, %v", h, err)
	}
	if d := delta(before, s.Stats()); d.Gets != 1 {
		t.Errorf("Hashes of an object written in parts made %d GETs, want 1", d.Gets)
	}

	l, err := s.List(ctx, "a/")
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"a/b/y.yaml": md5Hex([]byte("y")), "a/parts.yaml": md5Hex([]byte("p")), "a/x.yaml": md5Hex([]byte("x"))}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("List(a/) = %v, want %v", l, want)
	}
	if l, err := s.List(ctx, "nothing/"); err != nil || len(l) != 0 {
		t.Errorf("List of an empty prefix = %v, %v", l, err)
	}
	if l, err := s.List(ctx, ""); err != nil || len(l) != 6 {
		t.Errorf("List of the whole bucket = %v, %v; want 6 files", sortedMapKeys(l), err)
	}

	// Deleting top.yaml leaves top.yaml.bak, which its lookup also lists.
	res, err := s.Apply(ctx, Change{Delete: []string{"top.yaml"}, Put: map[string][]byte{"top.yaml.new": []byte("n")}})
	if err != nil || !reflect.DeepEqual(res.Deleted, []string{"top.yaml"}) {
		t.Errorf("Apply = %+v, %v; want only top.yaml deleted", res, err)
	}
	if _, err := s.Read(ctx, "top.yaml.bak"); err != nil {
		t.Errorf("top.yaml.bak: %v", err)
	}

	if b, err := s.Read(ctx, "a/x.yaml"); err != nil || string(b) != "x" {
		t.Errorf("Read = %q, %v", b, err)
	}
	if _, err := s.Read(ctx, "a/missing.yaml"); !IsNotFound(err) {
		t.Errorf("Read of a missing file: %v, want not found", err)
	}
}

func TestBucketCheck(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	s, client, bucket := testBucket(t)
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	noTrace := func(t *testing.T) {
		t.Helper()
		if got := objects(t, client, bucket); len(got) != 0 {
			t.Errorf("the bucket holds %v; nothing may be left behind", got)
		}
		for up := range client.ListIncompleteUploads(ctx, bucket, "", true) {
			t.Errorf("an incomplete upload was left behind: %+v", up)
		}
	}
	noTrace(t)

	tests := []struct {
		name string
		cfg  BucketConfig
		want Kind
	}{
		{"wrong secret key", rootConfig(srv.Endpoint, bucket, srv.AccessKey, "wrong-secret"), KindAuth},
		{"unknown access key", rootConfig(srv.Endpoint, bucket, "nobody", "wrong-secret"), KindAuth},
		{"missing bucket", rootConfig(srv.Endpoint, "missing-"+randomSuffix(), srv.AccessKey, srv.SecretKey), KindMissingBucket},
		{"TLS against plain HTTP", BucketConfig{Endpoint: srv.Endpoint, BucketName: bucket, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey}, KindPlainHTTP},
		{"nothing listening", rootConfig("127.0.0.1:1", bucket, "a", "secret-b"), KindNetwork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := NewPool().Bucket(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = st.Check(ctx)
			if kindOf(err) != tt.want {
				t.Fatalf("Check error = %v (kind %q), want kind %q", err, kindOf(err), tt.want)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("Check took %v to fail", took)
			}
			if strings.Contains(err.Error(), tt.cfg.SecretAccessKey) {
				t.Errorf("the error shows the secret key: %v", err)
			}
			_, err = st.Apply(ctx, Change{Put: map[string][]byte{"x.yaml": []byte("x")}})
			if err == nil {
				t.Fatal("Apply succeeded with a store that failed its check")
			}
			if kindOf(err) != tt.want {
				t.Errorf("Apply error = %v (kind %q), want kind %q", err, kindOf(err), tt.want)
			}
			h, err := st.Hashes(ctx, []string{"x.yaml", "y/x.yaml", "y/z.yaml"})
			if tt.want == KindMissingBucket {
				// A deleted bucket took its files with it: they are gone, which a plan shows.
				if err != nil || len(h) != 0 {
					t.Errorf("Hashes in a missing bucket = %v, %v; want no files and no error", h, err)
				}
				return
			}
			if kindOf(err) != tt.want {
				t.Errorf("Hashes error = %v (kind %q), want kind %q: a failure is never \"gone\"", err, kindOf(err), tt.want)
			}
			if ok, err := st.(BucketProbe).BucketExists(ctx, ""); ok || kindOf(err) != tt.want {
				t.Errorf("BucketExists = %v, %v (kind %q), want an error of kind %q: a failure never means the bucket is gone", ok, err, kindOf(err), tt.want)
			}
		})
	}
	noTrace(t)

	created := "new-" + randomSuffix()
	cfg := rootConfig(srv.Endpoint, created, srv.AccessKey, srv.SecretKey)
	cfg.CreateBucket = true
	st, err := NewPool().Bucket(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(ctx); err != nil {
		t.Fatalf("Check with CreateBucket: %v", err)
	}
	if ok, err := client.BucketExists(ctx, created); err != nil || !ok {
		t.Errorf("CreateBucket did not create %s: %v", created, err)
	}
	if err := st.Check(ctx); err != nil {
		t.Errorf("Check with CreateBucket once the bucket exists: %v", err)
	}
}

// TestBucketAccessDenied uses temporary credentials limited to reading: 403s are errors of kind
// access denied, never "not found", and nothing is written.
func TestBucketAccessDenied(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	_, client, bucket := testBucket(t)
	putObject(t, client, bucket, "w/a.yaml", "a")

	readOnly := func(actions ...string) credentials.Value {
		t.Helper()
		policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["%s"],"Resource":["arn:aws:s3:::%s","arn:aws:s3:::%s/*"]}]}`,
			strings.Join(actions, `","`), bucket, bucket)
		creds, err := credentials.NewSTSAssumeRole("http://"+srv.Endpoint, credentials.STSAssumeRoleOptions{
			AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, Policy: policy,
		})
		if err != nil {
			t.Fatal(err)
		}
		v, err := creds.GetWithContext(nil)
		if err != nil {
			// The pinned MinIO serves AssumeRole to its root user; without these credentials the
			// test would prove nothing, so it fails rather than skip.
			t.Fatalf("MinIO gave no temporary credentials limited to %v: %v", actions, err)
		}
		return v
	}
	open := func(v credentials.Value) Store {
		cfg := rootConfig(srv.Endpoint, bucket, v.AccessKeyID, v.SecretAccessKey)
		cfg.SessionToken = v.SessionToken
		st, err := NewPool().Bucket(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	listOnly := readOnly("s3:ListBucket")
	// The premise, checked with plain minio-go: these credentials cannot write.
	plain, err := minio.New(srv.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(listOnly.AccessKeyID, listOnly.SecretAccessKey, listOnly.SessionToken)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.PutObject(ctx, bucket, "w/probe.yaml", strings.NewReader("x"), 1, minio.PutObjectOptions{}); minio.ToErrorResponse(err).Code != "AccessDenied" {
		t.Fatalf("a PUT with list-only credentials gave %v, want AccessDenied: the server does not restrict them", err)
	}

	list := open(listOnly)
	if h, err := list.Hashes(ctx, []string{"w/a.yaml"}); err != nil || h["w/a.yaml"] != md5Hex([]byte("a")) {
		t.Errorf("Hashes with list access = %v, %v", h, err)
	}
	if err := list.Check(ctx); kindOf(err) != KindAccessDenied {
		t.Errorf("Check without write access = %v, want kind %q", err, KindAccessDenied)
	}
	if _, err := list.Apply(ctx, Change{Put: map[string][]byte{"w/a.yaml": []byte("new"), "w/b.yaml": []byte("b")}}); kindOf(err) != KindAccessDenied {
		t.Errorf("Apply without write access = %v, want kind %q", err, KindAccessDenied)
	} else if !strings.Contains(err.Error(), "2 of 2 writes failed") {
		t.Errorf("Apply error %q does not say how many writes failed", err)
	}
	if _, err := list.Read(ctx, "w/a.yaml"); kindOf(err) != KindAccessDenied {
		t.Errorf("Read without read access = %v, want kind %q, never not found", err, KindAccessDenied)
	}

	get := open(readOnly("s3:GetObject"))
	if _, err := get.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml"}); kindOf(err) != KindAccessDenied {
		t.Errorf("Hashes without list access = %v, want kind %q", err, KindAccessDenied)
	}
	if _, err := get.List(ctx, "w/"); kindOf(err) != KindAccessDenied {
		t.Errorf("List without list access = %v, want kind %q", err, KindAccessDenied)
	}

	if got := objects(t, client, bucket); !reflect.DeepEqual(got, map[string]string{"w/a.yaml": "a"}) {
		t.Errorf("the bucket holds %v after denied writes", got)
	}
}

// TestBucketPartialFailure: when some writes fail, the others still happen, and the error says
// how many failed and why.
func TestBucketPartialFailure(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	tooLong := "p/" + strings.Repeat("x", 300) + ".yaml" // longer than a file name MinIO can store
	res, err := s.Apply(ctx, Change{Put: map[string][]byte{"p/a.yaml": []byte("a"), "p/b.yaml": []byte("b"), tooLong: []byte("x")}})
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("Apply with an unstorable key = %v, want an *Error", err)
	}
	if !strings.Contains(err.Error(), "1 of 3 writes failed") || !strings.Contains(err.Error(), tooLong) {
		t.Errorf("error %q does not say how many writes failed and which", err)
	}
	if !reflect.DeepEqual(res.Written, []string{"p/a.yaml", "p/b.yaml"}) {
		t.Errorf("Written = %v, want the two that succeeded", res.Written)
	}
	if got := objects(t, client, bucket); len(got) != 2 {
		t.Errorf("the bucket holds %v, want the two good files", got)
	}
}

func TestBucketParallelWrites(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	put := map[string][]byte{}
	for i := 0; i < 100; i++ {
		put[fmt.Sprintf("dest-%03d/dependencies/p/5058f/static/p-dependencies.yaml", i)] = []byte(fmt.Sprintf("n: %d\n", i))
	}
	for i := 0; i < 50; i++ {
		put[fmt.Sprintf("shared/resources/r-%03d.yaml", i)] = []byte(fmt.Sprintf("r: %d\n", i))
	}
	res, err := s.Apply(ctx, Change{Put: put})
	if err != nil {
		t.Fatal(err)
	}
	got := objects(t, client, bucket)
	if len(res.Written) != len(put) || len(got) != len(put) {
		t.Fatalf("wrote %d, bucket holds %d; want %d", len(res.Written), len(got), len(put))
	}
	for k, v := range put {
		if got[k] != string(v) {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if !sort.StringsAreSorted(res.Written) {
		t.Error("Written is not sorted")
	}

	// A no-op plan: hashes of everything, no PUT and no GET; files that share a folder are found
	// with one listing.
	paths := make([]string, 0, len(put))
	for k := range put {
		paths = append(paths, k)
	}
	before := s.Stats()
	h, err := s.Hashes(ctx, paths)
	if err != nil || len(h) != len(put) {
		t.Fatalf("Hashes found %d of %d: %v", len(h), len(put), err)
	}
	d := delta(before, s.Stats())
	if d.Puts != 0 || d.Gets != 0 {
		t.Errorf("Hashes made %d PUTs and %d GETs; want none", d.Puts, d.Gets)
	}
	if d.Lists != 101 || d.Heads != 0 {
		t.Errorf("Hashes made %d listings and %d HEADs; want 101 listings (one of shared/resources/, one per file alone in its folder)", d.Lists, d.Heads)
	}
}

// TestBucketParallelBound: no more than inFlight requests run at once, and none start once the
// context has ended.
func TestBucketParallelBound(t *testing.T) {
	b := &bucketStore{inFlight: 3}
	var running, peak atomic.Int32
	errs := b.parallel(context.Background(), 40, func(ctx context.Context, i int) error {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		if i == 7 {
			return errors.New("seven")
		}
		return nil
	})
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak concurrency %d, want up to 3", p)
	}
	for i, err := range errs {
		if (err != nil) != (i == 7) {
			t.Errorf("errs[%d] = %v", i, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	errs = b.parallel(ctx, 5, func(context.Context, int) error { calls.Add(1); return nil })
	if calls.Load() != 0 {
		t.Errorf("%d calls started after the context ended", calls.Load())
	}
	for i, err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("errs[%d] = %v after cancel, want context.Canceled", i, err)
		}
	}
}

// TestBucketCancelled: a listing cut short by cancellation is an error, never a short answer
// (which would make files look gone).
func TestBucketCancelled(t *testing.T) {
	s, _, _ := testBucket(t)
	if _, err := s.Apply(context.Background(), Change{Put: map[string][]byte{"c/a.yaml": []byte("a"), "c/b.yaml": []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if l, err := s.List(ctx, "c/"); err == nil {
		t.Errorf("List with a cancelled context = %v, no error", l)
	}
	if h, err := s.Hashes(ctx, []string{"c/a.yaml", "c/b.yaml"}); err == nil {
		t.Errorf("Hashes with a cancelled context = %v, no error", h)
	}
}

func TestBucketRejectsBadPaths(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	for _, c := range []Change{
		{Put: map[string][]byte{"/abs.yaml": []byte("x"), "ok.yaml": []byte("x")}},
		{Put: map[string][]byte{"a/../b.yaml": []byte("x")}},
		{Delete: []string{"../x/"}},
		{Prune: []string{"/"}},
	} {
		if _, err := s.Apply(ctx, c); kindOf(err) != KindConfig {
			t.Errorf("Apply(%+v) = %v, want kind %q", c, err, KindConfig)
		}
	}
	if _, err := s.Read(ctx, "../x.yaml"); kindOf(err) != KindConfig {
		t.Errorf("Read(../x.yaml) = %v", err)
	}
	if _, err := s.Hashes(ctx, []string{"ok.yaml", "/x.yaml"}); kindOf(err) != KindConfig {
		t.Errorf("Hashes(/x.yaml) = %v", err)
	}
	if _, err := s.List(ctx, "a/../"); kindOf(err) != KindConfig {
		t.Errorf("List(a/../) = %v", err)
	}
	if got := objects(t, client, bucket); len(got) != 0 {
		t.Errorf("bad paths wrote %v", got)
	}
}

func TestCheckChangePaths(t *testing.T) {
	bad := []Change{
		{Put: map[string][]byte{"/abs": nil}},
		{Put: map[string][]byte{"a/../b": nil}},
		{Delete: []string{"/"}},
		{Prune: []string{""}},
		{Prune: []string{"no-slash"}},
		{Delete: []string{"../x/"}},
	}
	for _, c := range bad {
		if err := checkChangePaths(c); err == nil {
			t.Errorf("checkChangePaths(%+v) accepted a bad path", c)
		}
	}
	if err := checkChangePaths(Change{Put: map[string][]byte{"a/b.yaml": nil}, Delete: []string{"a/c.yaml", "d/"}, Prune: []string{"a/5058f/"}}); err != nil {
		t.Errorf("good change refused: %v", err)
	}
}

// TestBucketIAM: the IAM method takes credentials from the environment, as on a pod with
// AWS_* variables injected.
func TestBucketIAM(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	_, client, bucket := testBucket(t)
	testinfra.IsolateAWS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	st, err := NewPool().Bucket(BucketConfig{Endpoint: srv.Endpoint, BucketName: bucket, Insecure: true, AuthMethod: "IAM"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(ctx); err != nil {
		t.Fatalf("Check with IAM credentials from the environment: %v", err)
	}
	if _, err := st.Apply(ctx, Change{Put: map[string][]byte{"iam.yaml": []byte("i")}}); err != nil {
		t.Fatal(err)
	}
	if got := objects(t, client, bucket); got["iam.yaml"] != "i" {
		t.Errorf("the bucket holds %v", got)
	}
}

func TestBucketPool(t *testing.T) {
	base := BucketConfig{Endpoint: "127.0.0.1:9000", BucketName: "kratix", Insecure: true, AccessKeyID: "AKID", SecretAccessKey: "s3cr3t-value"}
	p := NewPool()
	a, err := p.Bucket(base)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := p.Bucket(base); again != a {
		t.Error("the same configuration gave a second store; clients must be reused")
	}
	other := base
	other.SecretAccessKey = "another"
	if b, _ := p.Bucket(other); b == a {
		t.Error("other credentials gave the same store")
	}
	for key := range p.buckets {
		if strings.Contains(key, base.SecretAccessKey) || strings.Contains(key, base.AccessKeyID) {
			t.Errorf("pool key %q holds credentials in clear", key)
		}
	}
	if got := a.Describe(); got != `bucket "kratix" at 127.0.0.1:9000` {
		t.Errorf("Describe() = %q", got)
	}

	// A CA of our own goes into the store's transport, never into the shared default one.
	defaultTLS := http.DefaultTransport.(*http.Transport).TLSClientConfig
	withCA := base
	withCA.CACertificate = unrelatedCA(t)
	withCA.Insecure = false
	if _, err := p.Bucket(withCA); err != nil {
		t.Fatal(err)
	}
	if http.DefaultTransport.(*http.Transport).TLSClientConfig != defaultTLS {
		t.Error("configuring a CA changed http.DefaultTransport")
	}

	for name, cfg := range map[string]BucketConfig{
		"scheme":      {Endpoint: "https://s3.example.com", BucketName: "kratix"},
		"no endpoint": {BucketName: "kratix"},
		"bad bucket":  {Endpoint: "s3.example.com", BucketName: "ab"},
		"bad CA":      {Endpoint: "s3.example.com", BucketName: "kratix", CACertificate: "not PEM"},
		"bad auth":    {Endpoint: "s3.example.com", BucketName: "kratix", AuthMethod: "magic"},
	} {
		if _, err := NewPool().Bucket(cfg); kindOf(err) != KindConfig {
			t.Errorf("%s: Bucket() = %v, want kind %q", name, err, KindConfig)
		}
	}
}

func TestClassifyBucketError(t *testing.T) {
	resp := func(status int, code string) error {
		return minio.ErrorResponse{StatusCode: status, Code: code}
	}
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"no such key", resp(404, "NoSuchKey"), KindNotFound},
		{"bare 404", resp(404, "404 Not Found"), KindNotFound},
		{"no such bucket", resp(404, "NoSuchBucket"), KindMissingBucket},
		{"access denied", resp(403, "AccessDenied"), KindAccessDenied},
		{"bare 403 is never not found", resp(403, "403 Forbidden"), KindAccessDenied},
		{"bad signature", resp(403, "SignatureDoesNotMatch"), KindAuth},
		{"unknown key", resp(403, "InvalidAccessKeyId"), KindAuth},
		{"expired token", resp(400, "ExpiredToken"), KindAuth},
		{"server error", resp(500, "InternalError"), KindOther},
		{"wrapped", fmt.Errorf("a/b.yaml: %w", resp(403, "AccessDenied")), KindAccessDenied},
		{"refused", refused, KindNetwork},
		{"deadline", fmt.Errorf("listing: %w", context.DeadlineExceeded), KindNetwork},
		{"cancelled", context.Canceled, KindOther},
		{"x509", &url.Error{Op: "Get", URL: "https://s3", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, KindTLS},
	}
	for _, tt := range append(tests, transportCases...) {
		if got := classifyBucketError(tt.err); got != tt.want {
			t.Errorf("%s: classifyBucketError(%v) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestBucketRedactsSecrets(t *testing.T) {
	b := &bucketStore{cfg: BucketConfig{BucketName: "kratix", Endpoint: "e", SecretAccessKey: "topsecret", SessionToken: "tok-abcdef"}}
	inner := minio.ErrorResponse{StatusCode: 403, Code: "AccessDenied", Message: "key topsecret with token tok-abcdef denied"}
	err := b.fail("write", KindAccessDenied, fmt.Errorf("x.yaml: %w", inner))
	if msg := err.Error(); strings.Contains(msg, "topsecret") || strings.Contains(msg, "tok-abcdef") {
		t.Errorf("error shows a secret: %s", msg)
	}
	var resp minio.ErrorResponse
	if !errors.As(err, &resp) || resp.Code != "AccessDenied" {
		t.Error("redaction broke the error chain")
	}
	if !bytes.Contains([]byte(err.Error()), []byte("[redacted]")) {
		t.Errorf("error %q does not mark what was redacted", err)
	}
}

// TestBucketAggregateRebuildThatLostTheRaceStartsAgain pins the interleaving that loses an
// update without a compare-and-swap: writer A lists the parts (its own only), writer B adds its
// part and rebuilds the file (A and B), then A writes. A's write must not replace B's: the file
// changed since A read it, so A lists again and the file ends with both parts.
func TestBucketAggregateRebuildThatLostTheRaceStartsAgain(t *testing.T) {
	_, c, bucket := testBucket(t)
	srv := testMinIO(t)
	open := func() *bucketStore {
		st, err := NewPool().Bucket(rootConfig(srv.Endpoint, bucket, srv.AccessKey, srv.SecretKey))
		if err != nil {
			t.Fatal(err)
		}
		return st.(*bucketStore)
	}
	agg := Aggregate{File: "w/aggregated.yaml", Dir: ".kratix-aggregates/w/aggregated.yaml/"}
	a, b := open(), open()
	listed, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	a.afterAggregateListing = func() {
		once.Do(func() { close(listed); <-resume }) // only A's first attempt waits
	}
	done := make(chan error, 1)
	go func() {
		_, err := a.Apply(context.Background(), Change{Put: map[string][]byte{agg.Dir + "a.part": []byte("kind: A\n")}, Aggregates: []Aggregate{agg}})
		done <- err
	}()
	<-listed
	if _, err := b.Apply(context.Background(), Change{Put: map[string][]byte{agg.Dir + "b.part": []byte("kind: B\n")}, Aggregates: []Aggregate{agg}}); err != nil {
		t.Fatal(err)
	}
	if got := objects(t, c, bucket)[agg.File]; got != "kind: A\n\n---\nkind: B\n" {
		t.Fatalf("after B: %q", got)
	}
	close(resume)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := objects(t, c, bucket)[agg.File]; got != "kind: A\n\n---\nkind: B\n" {
		t.Fatalf("A's late write replaced B's rebuild: the aggregate holds %q, want both parts", got)
	}
}

// TestBucketAggregateRetriesUntilTheDeadline: another writer rewrites the aggregate between
// every listing and write of ours, so each compare-and-swap fails. The rebuild keeps trying until
// the operation's deadline, never writes over the other writer's file, and its error tells how
// many rebuilds lost. The deadline passes after the other writer's sixth rewrite, not after a
// time (see eventDeadline), so that the count does not depend on the machine's speed.
func TestBucketAggregateRetriesUntilTheDeadline(t *testing.T) {
	s, c, bucket := testBucket(t)
	agg := Aggregate{File: "w/aggregated.yaml", Dir: ".kratix-aggregates/w/aggregated.yaml/"}
	const races = 5
	ctx := newEventDeadline()
	var rewrites atomic.Int64
	s.afterAggregateListing = func() {
		n := rewrites.Add(1)
		putObject(t, c, bucket, agg.File, fmt.Sprintf("kind: Other\nrevision: %d\n", n))
		if n > races {
			ctx.expire()
		}
	}
	_, err := s.Apply(ctx, Change{Put: map[string][]byte{agg.Dir + "a.part": []byte("kind: A\n")}, Aggregates: []Aggregate{agg}})
	t.Logf("gave up: %v", err)
	if ctx.Err() == nil {
		t.Fatalf("Apply returned before its deadline: %v", err)
	}
	if k := kindOf(err); k != KindConflict && k != KindTimeout {
		t.Fatalf("Apply = %v, want kind %q or %q", err, KindConflict, KindTimeout)
	}
	n := rewrites.Load()
	if n != races+1 {
		t.Errorf("%d rebuilds, want %d: the store gave up before its deadline or rebuilt after it", n, races+1)
	}
	// Every rebuild but perhaps the one the deadline cut short lost its compare-and-swap. Cut
	// between two rebuilds, the error names the aggregate; cut during one, it names the write the
	// deadline stopped, after the account of the races.
	m := regexp.MustCompile(`(?:w/aggregated.yaml: |timed out: )lost ([0-9]+) races in [0-9][0-9.hms]*`).FindStringSubmatch(err.Error())
	if m == nil || (m[1] != fmt.Sprint(n) && m[1] != fmt.Sprint(n-1)) {
		t.Errorf("the error does not count the %d rebuilds that lost: %v", n, err)
	}
	if got := objects(t, c, bucket)[agg.File]; got != fmt.Sprintf("kind: Other\nrevision: %d\n", n) {
		t.Errorf("the aggregate holds %q: a rebuild that lost wrote over the other writer's file", got)
	}
}
