package statestore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

func sumOf(content string) string {
	s := md5.Sum([]byte(content))
	return hex.EncodeToString(s[:])
}

// TestBucketObservedSharesOneListing: reads through Observed(root) list root once for every
// folder and file asked under it, with the MD5 rules of List and Hashes (a multipart object is
// downloaded); files outside root are read as before. A write of the process drops the listing,
// so the next read sees the store as it is; so does a listing older than snapshotMaxAge.
func TestBucketObservedSharesOneListing(t *testing.T) {
	s, client, bucket := testBucket(t)
	ctx := context.Background()
	putObject(t, client, bucket, "kratix/a/x.yaml", "x")
	putObject(t, client, bucket, "kratix/a/y.yaml", "y")
	putMultipart(t, client, bucket, "kratix/b/m.yaml", "m")
	putObject(t, client, bucket, "kratix-other/a/x.yaml", "not under the root")
	putObject(t, client, bucket, "other/q.yaml", "q")
	// Keys that sort just before and just after kratix/a/'s range, which is found by binary search.
	putObject(t, client, bucket, "kratix/a.yaml", "before")
	putObject(t, client, bucket, "kratix/ab/z.yaml", "after")

	v := s.Observed("kratix/")
	before := s.Stats()
	a, err := v.List(ctx, "kratix/a/")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"kratix/a/x.yaml": sumOf("x"), "kratix/a/y.yaml": sumOf("y")}; !reflect.DeepEqual(a, want) {
		t.Fatalf("List(kratix/a/) = %v, want %v", a, want)
	}
	b, err := v.List(ctx, "kratix/b/")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"kratix/b/m.yaml": sumOf("m")}; !reflect.DeepEqual(b, want) {
		t.Fatalf("List(kratix/b/) = %v, want %v", b, want)
	}
	h, err := v.Hashes(ctx, []string{"kratix/a/x.yaml", "kratix/a/none.yaml", "other/q.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"kratix/a/x.yaml": sumOf("x"), "other/q.yaml": sumOf("q")}; !reflect.DeepEqual(h, want) {
		t.Fatalf("Hashes = %v, want %v", h, want)
	}
	// One listing of kratix/, one of other/q.yaml (outside the root); one GET for the multipart.
	if d := delta(before, s.Stats()); d != (BucketStats{Lists: 2, Gets: 1}) {
		t.Fatalf("the reads cost %+v, want 2 listings and 1 GET", d)
	}

	// A hand edit is not seen within the listing's life: the reads of one plan share it.
	putObject(t, client, bucket, "kratix/a/x.yaml", "edited")
	if a, _ := v.List(ctx, "kratix/a/"); a["kratix/a/x.yaml"] != sumOf("x") {
		t.Fatalf("the shared listing changed before any write: %v", a)
	}
	// A write of this process drops it.
	if _, err := s.Apply(ctx, Change{Put: map[string][]byte{"kratix/c/new.yaml": []byte("new")}}); err != nil {
		t.Fatal(err)
	}
	before = s.Stats()
	a, err = v.List(ctx, "kratix/")
	if err != nil {
		t.Fatal(err)
	}
	if a["kratix/a/x.yaml"] != sumOf("edited") || a["kratix/c/new.yaml"] != sumOf("new") || len(a) != 6 {
		t.Fatalf("after a write, List(kratix/) = %v, want the hand edit and the new file", a)
	}
	if d := delta(before, s.Stats()); d.Lists != 1 {
		t.Fatalf("after a write the read made %d listings, want 1", d.Lists)
	}
	// An old listing is not used.
	putObject(t, client, bucket, "kratix/a/x.yaml", "edited again")
	s.snapMu.Lock()
	s.snaps["kratix/"].taken = time.Now().Add(-snapshotMaxAge)
	s.snapMu.Unlock()
	if a, _ := v.List(ctx, "kratix/a/"); a["kratix/a/x.yaml"] != sumOf("edited again") {
		t.Fatalf("a listing older than %s answered: %v", snapshotMaxAge, a)
	}
}

// TestBucketObservedConcurrentReadsListOnce: reads that arrive together wait for one listing.
func TestBucketObservedConcurrentReadsListOnce(t *testing.T) {
	s, client, bucket := testBucket(t)
	putObject(t, client, bucket, "a/x.yaml", "x")
	v := s.Observed("")
	before := s.Stats()
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			got, err := v.List(context.Background(), "a/")
			if err == nil && got["a/x.yaml"] != sumOf("x") {
				t.Errorf("List = %v", got)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if d := delta(before, s.Stats()); d.Lists != 1 {
		t.Fatalf("16 concurrent reads made %d listings, want 1", d.Lists)
	}
}

// TestBucketObservedFailuresAndLargeRoots: a failed listing is not kept (the next read lists
// again), and a root holding more objects than the cap is read folder by folder.
func TestBucketObservedFailuresAndLargeRoots(t *testing.T) {
	s, client, bucket := testBucket(t)
	putObject(t, client, bucket, "a/x.yaml", "x")
	putObject(t, client, bucket, "b/y.yaml", "y")
	putObject(t, client, bucket, "b/z.yaml", "z")
	v := s.Observed("")

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.List(cancelled, "a/"); err == nil {
		t.Fatal("a read with an ended context succeeded")
	}
	got, err := v.List(context.Background(), "a/")
	if err != nil || got["a/x.yaml"] != sumOf("x") {
		t.Fatalf("after a failed listing, List = %v, %v", got, err)
	}

	s.dropSnapshots()
	s.snapLimit = 2
	before := s.Stats()
	for range 2 {
		got, err := v.List(context.Background(), "b/")
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"b/y.yaml": sumOf("y"), "b/z.yaml": sumOf("z")}; !reflect.DeepEqual(got, want) {
			t.Fatalf("List(b/) = %v, want %v", got, want)
		}
	}
	// One capped listing of the root, kept as too large, then one listing of b/ per read.
	if d := delta(before, s.Stats()); d.Lists != 3 {
		t.Fatalf("reads of a root over the cap made %d listings, want 3", d.Lists)
	}
}

// TestBucketObservedBucketExists: the existence check shares the listing of the reads, and a
// bucket removed since reads as gone once a write of the process dropped that listing.
func TestBucketObservedBucketExists(t *testing.T) {
	s, client, bucket := testBucket(t)
	ctx := context.Background()
	putObject(t, client, bucket, "team/a/x.yaml", "x")
	v := s.Observed("team/").(BucketProbe)
	before := s.Stats()
	if ok, err := v.BucketExists(ctx, "team/"); !ok || err != nil {
		t.Fatalf("BucketExists(team/) = %v, %v; want true", ok, err)
	}
	if _, err := s.Observed("team/").List(ctx, "team/a/"); err != nil {
		t.Fatal(err)
	}
	if d := delta(before, s.Stats()); d.Lists != 1 {
		t.Fatalf("an existence check and a read made %d listings, want 1", d.Lists)
	}
	if err := client.RemoveObject(ctx, bucket, "team/a/x.yaml", minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.RemoveBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	s.dropSnapshots()
	if ok, err := v.BucketExists(ctx, "team/"); ok || err != nil {
		t.Fatalf("BucketExists(team/) of a removed bucket = %v, %v; want false", ok, err)
	}
}
