package statestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"testing"

	"github.com/minio/minio-go/v7"
)

// testBucket makes a fresh bucket and returns a store for it and a plain minio-go client as the
// independent reader.
func testBucket(t *testing.T) (*bucketStore, *minio.Client, string) {
	t.Helper()
	srv := testMinIO(t)
	name := "b-" + randomSuffix()
	if err := srv.MakeBucket(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	s, err := NewPool().Bucket(BucketConfig{
		Endpoint: srv.Endpoint, BucketName: name, Insecure: true,
		AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	return s.(*bucketStore), client, name
}

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

func TestBucketApply(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	if _, err := client.PutObject(ctx, bucket, "beside.txt", bytes.NewReader([]byte("keep")), 4, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}

	res, err := s.Apply(ctx, Change{Put: map[string][]byte{
		"d/a/5058f/one.yaml": []byte("one\n"),
		"d/a/5058f/two.yaml": []byte("two\n"),
		"d/b/x.yaml":         []byte("x\n"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"d/a/5058f/one.yaml", "d/a/5058f/two.yaml", "d/b/x.yaml"}; !reflect.DeepEqual(res.Written, want) {
		t.Errorf("Written = %v, want %v", res.Written, want)
	}

	// The same content again: no PUT at all.
	before := s.Stats()
	res, err = s.Apply(ctx, Change{Put: map[string][]byte{"d/a/5058f/one.yaml": []byte("one\n"), "d/b/x.yaml": []byte("x\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed() || s.Stats().Puts != before.Puts {
		t.Errorf("re-applying the same content changed %+v with %d PUTs", res, s.Stats().Puts-before.Puts)
	}

	// Prune replaces the owned folder's content; the file beside it stays.
	res, err = s.Apply(ctx, Change{Put: map[string][]byte{"d/a/5058f/one.yaml": []byte("one v2\n")}, Prune: []string{"d/a/5058f/"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Deleted, []string{"d/a/5058f/two.yaml"}) || !reflect.DeepEqual(res.Written, []string{"d/a/5058f/one.yaml"}) {
		t.Errorf("prune result = %+v", res)
	}
	want := map[string]string{"beside.txt": "keep", "d/a/5058f/one.yaml": "one v2\n", "d/b/x.yaml": "x\n"}
	if got := objects(t, client, bucket); !reflect.DeepEqual(got, want) {
		t.Errorf("bucket holds %v, want %v", got, want)
	}

	// Delete: a prefix and a missing file.
	res, err = s.Apply(ctx, Change{Delete: []string{"d/", "missing.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Deleted, []string{"d/a/5058f/one.yaml", "d/b/x.yaml"}) {
		t.Errorf("Deleted = %v", res.Deleted)
	}
	if got := objects(t, client, bucket); !reflect.DeepEqual(got, map[string]string{"beside.txt": "keep"}) {
		t.Errorf("after delete the bucket holds %v", got)
	}
}

func TestBucketReadHashesList(t *testing.T) {
	ctx := context.Background()
	s, _, _ := testBucket(t)
	if _, err := s.Apply(ctx, Change{Put: map[string][]byte{"a/x.yaml": []byte("x"), "a/b/y.yaml": []byte("y"), "top.yaml": []byte("t")}}); err != nil {
		t.Fatal(err)
	}
	gets := s.Stats().Gets
	h, err := s.Hashes(ctx, []string{"a/x.yaml", "a/b/y.yaml", "top.yaml", "a/missing.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/x.yaml": md5Hex([]byte("x")), "a/b/y.yaml": md5Hex([]byte("y")), "top.yaml": md5Hex([]byte("t"))}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("Hashes = %v, want %v", h, want)
	}
	if s.Stats().Gets != gets {
		t.Errorf("Hashes downloaded %d objects; ETags should do", s.Stats().Gets-gets)
	}
	l, err := s.List(ctx, "a/")
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, []string{"a/b/y.yaml", "a/x.yaml"}) {
		t.Errorf("List(a/) = %v", keys)
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
	if got := objects(t, client, bucket); len(got) != 0 {
		t.Errorf("Check left %v behind", got)
	}
	for up := range client.ListIncompleteUploads(ctx, bucket, "", true) {
		t.Errorf("Check left an incomplete upload behind: %+v", up)
	}

	kindOf := func(err error) Kind {
		var se *Error
		if errors.As(err, &se) {
			return se.Kind
		}
		return ""
	}
	tests := []struct {
		name string
		cfg  BucketConfig
		want Kind
	}{
		{"wrong secret key", BucketConfig{Endpoint: srv.Endpoint, BucketName: bucket, Insecure: true, AccessKeyID: srv.AccessKey, SecretAccessKey: "wrong"}, KindAuth},
		{"unknown access key", BucketConfig{Endpoint: srv.Endpoint, BucketName: bucket, Insecure: true, AccessKeyID: "nobody", SecretAccessKey: "wrong"}, KindAuth},
		{"missing bucket", BucketConfig{Endpoint: srv.Endpoint, BucketName: "missing-" + randomSuffix(), Insecure: true, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey}, KindMissingBucket},
		{"TLS against plain HTTP", BucketConfig{Endpoint: srv.Endpoint, BucketName: bucket, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey}, KindTLS},
		{"nothing listening", BucketConfig{Endpoint: "127.0.0.1:1", BucketName: bucket, Insecure: true, AccessKeyID: "a", SecretAccessKey: "b"}, KindNetwork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := NewPool().Bucket(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = st.Check(ctx)
			if kindOf(err) != tt.want {
				t.Fatalf("Check error = %v (kind %q), want kind %q", err, kindOf(err), tt.want)
			}
			if _, err := st.Apply(ctx, Change{Put: map[string][]byte{"x.yaml": []byte("x")}}); err == nil && tt.want != KindMissingBucket {
				t.Error("Apply succeeded with a store that failed its check")
			}
		})
	}
	if got := objects(t, client, bucket); len(got) != 0 {
		t.Errorf("failed checks wrote %v", got)
	}

	created := "new-" + randomSuffix()
	st, _ := NewPool().Bucket(BucketConfig{Endpoint: srv.Endpoint, BucketName: created, Insecure: true, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, CreateBucket: true})
	if err := st.Check(ctx); err != nil {
		t.Fatalf("Check with CreateBucket: %v", err)
	}
	if ok, err := client.BucketExists(ctx, created); err != nil || !ok {
		t.Errorf("CreateBucket did not create %s: %v", created, err)
	}
}

func TestBucketParallelWrites(t *testing.T) {
	ctx := context.Background()
	s, client, bucket := testBucket(t)
	put := map[string][]byte{}
	for i := 0; i < 100; i++ {
		put[fmt.Sprintf("dest-%03d/dependencies/p/5058f/static/p-dependencies.yaml", i)] = []byte(fmt.Sprintf("n: %d\n", i))
	}
	res, err := s.Apply(ctx, Change{Put: put})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 100 || len(objects(t, client, bucket)) != 100 {
		t.Errorf("wrote %d, bucket holds %d; want 100", len(res.Written), len(objects(t, client, bucket)))
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
