package statestore

import (
	"context"
	"fmt"
	"maps"
	"testing"
)

// Writes through Writing(root) share one listing of root from the third write on: a fleet's
// writes cost one listing, not one per folder, and still skip what is current, replace what is
// not, and prune what a folder no longer holds, this process's own earlier writes included. The
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
	step := func(name string, c Change, wantPuts, wantDeletes, maxLists int64, wantFiles map[string]string) {
		t.Helper()
		before := b.Stats()
		if _, err := w.Apply(ctx, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := delta(before, b.Stats())
		if d.Puts != wantPuts || d.Deletes != wantDeletes || d.Lists > maxLists {
			t.Errorf("%s: %d PUT, %d DELETE, %d LIST; want %d PUT, %d DELETE, at most %d LIST", name, d.Puts, d.Deletes, d.Lists, wantPuts, wantDeletes, maxLists)
		}
		if got := objects(t, client, bucket); !maps.Equal(got, wantFiles) {
			t.Errorf("%s: the bucket holds\n  %v\nwant\n  %v", name, got, wantFiles)
		}
	}

	step("first write, folders listed one by one", folderChange(1, "v1\n"), 1, 1, 1, want(1, "v1\n"))
	step("second write, the same", folderChange(2, "v1\n"), 1, 0, 2, want(2, "v1\n"))
	step("third write: one listing of kratix/ for all 50 folders", folderChange(50, "v1\n"), 48, 0, 1, want(50, "v1\n"))
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
