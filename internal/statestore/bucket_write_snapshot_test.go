package statestore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"golang.org/x/sync/errgroup"
)

// Writes through Writing(root) share one listing of root, taken by the first: a fleet's writes
// cost one listing, not one per folder, and still skip what is current, replace what is not,
// and prune what a folder no longer holds, this process's own earlier writes included. The
// bucket is read back with the independent client after every step; the expected contents are
// written out here.
func TestBucketWritesShareOneListing(t *testing.T) {
	b, client, bucket := testBucket(t)
	ctx := context.Background()
	w := b.Writing("kratix/")
	putObject(t, client, bucket, "kratix/other-team/keep.yaml", "theirs\n")
	putObject(t, client, bucket, "kratix/d0/dependencies/p/stale.yaml", "left by an earlier run\n")

	// folderChange is promise p's files on destinations d0..n-1, each folder pruned.
	folderChange := func(n int, content string) Change {
		c := Change{Put: map[string][]byte{}}
		for i := range n {
			c.Put[fmt.Sprintf("kratix/d%d/dependencies/p/deps.yaml", i)] = []byte(content)
			c.Prune = append(c.Prune, fmt.Sprintf("kratix/d%d/dependencies/p/", i))
		}
		return c
	}
	want := func(n int, content string) map[string]string {
		out := map[string]string{"kratix/other-team/keep.yaml": "theirs\n"}
		for i := range n {
			out[fmt.Sprintf("kratix/d%d/dependencies/p/deps.yaml", i)] = content
		}
		return out
	}
	step := func(name string, c Change, wantPuts, wantDeletes, wantLists int64, wantFiles map[string]string) {
		t.Helper()
		before := b.Stats()
		if _, err := w.Apply(ctx, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := delta(before, b.Stats())
		if d.Puts != wantPuts || d.Deletes != wantDeletes || d.Lists != wantLists {
			t.Errorf("%s: %d PUT, %d DELETE, %d LIST; want %d PUT, %d DELETE, %d LIST", name, d.Puts, d.Deletes, d.Lists, wantPuts, wantDeletes, wantLists)
		}
		if got := objects(t, client, bucket); !maps.Equal(got, wantFiles) {
			t.Errorf("%s: the bucket holds\n  %v\nwant\n  %v", name, got, wantFiles)
		}
	}

	step("first write: one listing of kratix/, for this write and the next", folderChange(1, "v1\n"), 1, 1, 1, want(1, "v1\n"))
	step("second write: no listing", folderChange(2, "v1\n"), 1, 0, 0, want(2, "v1\n"))
	step("third write, 50 folders: no listing", folderChange(50, "v1\n"), 48, 0, 0, want(50, "v1\n"))
	step("nothing changed: no listing, nothing written", folderChange(50, "v1\n"), 0, 0, 0, want(50, "v1\n"))
	step("a new content everywhere", folderChange(50, "v2\n"), 50, 0, 0, want(50, "v2\n"))
	step("the fleet shrinks: the other folders are pruned", Change{Delete: []string{"kratix/d49/dependencies/p/"}}, 0, 1, 0, want(49, "v2\n"))
}

// A write whose outcome is not known drops the shared listing: the next write lists again.
func TestBucketWriteSnapshotDroppedOnFailure(t *testing.T) {
	b, _, _ := testBucket(t)
	ctx := context.Background()
	w := b.Writing("")
	for i := range writeSnapshotAfter {
		if _, err := w.Apply(ctx, Change{Put: map[string][]byte{fmt.Sprintf("f%d.yaml", i): []byte("x\n")}}); err != nil {
			t.Fatal(err)
		}
	}
	b.wsMu.Lock()
	taken := b.wsnaps[""] != nil
	b.wsMu.Unlock()
	if !taken {
		t.Fatal("no shared listing after the third write")
	}
	b.noteOutcome("f0.yaml", "", false, fmt.Errorf("connection reset"))
	b.wsMu.Lock()
	kept := b.wsnaps[""] != nil
	b.wsMu.Unlock()
	if kept {
		t.Error("the shared listing survived a write whose outcome is not known")
	}
}

// On a root holding more than one page of objects (other teams' files), the first write lists
// one page, finds the root crowded and lists its own folders, as does the second; the third
// lists the root whole for itself and every later write. Each write's outcome is read back with
// the independent client.
func TestBucketWritesOnACrowdedRoot(t *testing.T) {
	b, client, bucket := testBucket(t)
	ctx := context.Background()
	others := map[string]string{}
	for i := range 1000 {
		others[fmt.Sprintf("other-team/f%04d.yaml", i)] = "theirs\n"
	}
	putObjects(t, client, bucket, others)
	w := b.Writing("")

	want := maps.Clone(others)
	for i, n := range []int{1, 2, 50, 50} {
		c := Change{Put: map[string][]byte{}}
		for j := range n {
			key := fmt.Sprintf("d%d/dependencies/p/deps.yaml", j)
			c.Put[key] = []byte("v1\n")
			c.Prune = append(c.Prune, parentDir(key))
			want[key] = "v1\n"
		}
		before := b.Stats()
		if _, err := w.Apply(ctx, c); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
		d := delta(before, b.Stats())
		// The first: one page of the root, then its folder; the second: its two folders; the
		// third: the whole root; the fourth: nothing.
		if wantLists := []int64{2, 2, 1, 0}[i]; d.Lists != wantLists {
			t.Errorf("write %d of %d folders: %d LIST; want %d", i+1, n, d.Lists, wantLists)
		}
		if got := objects(t, client, bucket); !maps.Equal(got, want) {
			t.Fatalf("after write %d the bucket holds %d objects, want %d", i+1, len(got), len(want))
		}
	}
}

// TestBucketWideWriteListsTheRootAtOnce: on a root of 1,000 other objects, a first write that
// spans 20 folders (a promise over 20 destinations) lists the whole root in one listing, rather than
// one page and then its 20 folders one by one; the writes after it list nothing.
func TestBucketWideWriteListsTheRootAtOnce(t *testing.T) {
	b, client, bucket := testBucket(t)
	ctx := context.Background()
	others := map[string]string{}
	for i := range 1000 {
		others[fmt.Sprintf("other-team/f%04d.yaml", i)] = "theirs\n"
	}
	putObjects(t, client, bucket, others)
	w := b.Writing("")
	want := maps.Clone(others)
	for i, n := range []int{20, 1, 20} {
		c := Change{Put: map[string][]byte{}}
		for j := range n {
			key := fmt.Sprintf("d%d/dependencies/p%d/deps.yaml", j, i)
			c.Put[key] = []byte("v1\n")
			c.Prune = append(c.Prune, parentDir(key))
			want[key] = "v1\n"
		}
		before := b.Stats()
		if _, err := w.Apply(ctx, c); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
		if d, wantLists := delta(before, b.Stats()), []int64{1, 0, 0}[i]; d.Lists != wantLists {
			t.Errorf("write %d of %d folders: %d LIST; want %d", i+1, n, d.Lists, wantLists)
		}
		if got := objects(t, client, bucket); !maps.Equal(got, want) {
			t.Fatalf("after write %d the bucket holds %d objects, want %d", i+1, len(got), len(want))
		}
	}
}

// putObjects stores files (key => content) with the independent client, several at a time.
func putObjects(t *testing.T, c *minio.Client, bucket string, files map[string]string) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(16)
	for key, content := range files {
		g.Go(func() error {
			_, err := c.PutObject(context.Background(), bucket, key, strings.NewReader(content), int64(len(content)), minio.PutObjectOptions{})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// A store checked before it is written (a new kratix_state_store, then its destinations, in one
// apply): the check's listing of the store path is the writes' listing, and the write probe keeps
// it up to date, so the check, the probe and 20 writes list once in all. The bucket is read back
// with the independent client.
func TestBucketCheckReadSeedsTheWrites(t *testing.T) {
	b, client, bucket := testBucket(t)
	ctx := context.Background()
	putObject(t, client, bucket, "team/d0/dependencies/p/stale.yaml", "left by an earlier run\n")
	before := b.Stats()
	if err := b.CheckRead(ctx, "team/"); err != nil {
		t.Fatal(err)
	}
	if err := b.CheckUnder(ctx, "team/"); err != nil {
		t.Fatal(err)
	}
	w := b.Writing("team/")
	want := map[string]string{}
	for i := range 20 {
		key := fmt.Sprintf("team/d%d/dependencies/p/deps.yaml", i)
		if _, err := w.Apply(ctx, Change{Put: map[string][]byte{key: []byte("v1\n")}, Prune: []string{parentDir(key)}}); err != nil {
			t.Fatal(err)
		}
		want[key] = "v1\n"
	}
	if d := delta(before, b.Stats()); d.Lists != 1 {
		t.Errorf("the check, the probe and 20 writes made %d LIST, want 1", d.Lists)
	}
	if got := objects(t, client, bucket); !maps.Equal(got, want) {
		t.Errorf("the bucket holds\n  %v\nwant\n  %v", got, want)
	}
}

// A file another writer creates after the write looked (here, after the shared listing was taken)
// is not replaced unnoticed: the write's PUT is conditional on the key being absent, and on
// finding it present the write replaces it all the same and reports it in Result.Replaced, or,
// when it already holds the same content, leaves it and reports nothing. Read back with the
// independent client.
func TestBucketWriteNoticesAFileCreatedSinceItLooked(t *testing.T) {
	b, client, bucket := testBucket(t)
	ctx := context.Background()
	w := b.Writing("kratix/")
	if _, err := w.Apply(ctx, Change{Put: map[string][]byte{"kratix/d0/a.yaml": []byte("a\n")}}); err != nil {
		t.Fatal(err) // takes the listing: kratix/d1/ is empty in it
	}
	putObject(t, client, bucket, "kratix/d1/theirs.yaml", "theirs\n")
	putObject(t, client, bucket, "kratix/d1/same.yaml", "ours\n")

	res, err := w.Apply(ctx, Change{Put: map[string][]byte{
		"kratix/d1/theirs.yaml": []byte("ours\n"),
		"kratix/d1/same.yaml":   []byte("ours\n"),
		"kratix/d1/new.yaml":    []byte("ours\n"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"kratix/d1/theirs.yaml"}; !slices.Equal(res.Replaced, want) {
		t.Errorf("Replaced = %v, want %v", res.Replaced, want)
	}
	want := map[string]string{"kratix/d0/a.yaml": "a\n", "kratix/d1/theirs.yaml": "ours\n", "kratix/d1/same.yaml": "ours\n", "kratix/d1/new.yaml": "ours\n"}
	if got := objects(t, client, bucket); !maps.Equal(got, want) {
		t.Errorf("the bucket holds\n  %v\nwant\n  %v", got, want)
	}
}
