package statestore

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// healthFixture is what an agent and its neighbours left in a store: three records of w1, one of
// w2 a folder deeper, a note beside w1's records that the caller does not want, and two files
// outside health/ ("healthy/" only shares its first letters).
var healthFixture = map[string]string{
	"health/w1/a.yaml":     "a: 1\n",
	"health/w1/b.yaml":     "b: 2\n",
	"health/w1/c.yaml":     "c: 3\n",
	"health/w2/sub/d.yaml": "d: 4\n",
	"health/w1/notes.txt":  "not a record\n",
	"healthy/x.yaml":       "outside\n",
	"other/y.yaml":         "outside too\n",
}

// wantedRecords is what ReadUnder("health/", isYAML) must return from healthFixture, written out.
var wantedRecords = map[string][]byte{
	"health/w1/a.yaml":     []byte("a: 1\n"),
	"health/w1/b.yaml":     []byte("b: 2\n"),
	"health/w1/c.yaml":     []byte("c: 3\n"),
	"health/w2/sub/d.yaml": []byte("d: 4\n"),
}

func isYAML(p string) bool { return strings.HasSuffix(p, ".yaml") }

// TestBucketReadUnder: the records under health/ come back whole, from one listing and one GET
// per wanted file, counted on the wire by a proxy in front of MinIO.
func TestBucketReadUnder(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	bucket := "r-" + randomSuffix()
	if err := srv.MakeBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	putObjects(t, client, bucket, healthFixture)
	wire := startPlainListings(t, srv)
	s, err := NewPool().Bucket(rootConfig(wire.endpoint, bucket, srv.AccessKey, srv.SecretKey))
	if err != nil {
		t.Fatal(err)
	}

	read := func(name, prefix string, want func(string) bool, wantFiles map[string][]byte, wantLists, wantGets int) {
		t.Helper()
		before := wire.snapshot()
		got, err := s.ReadUnder(ctx, prefix, want)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, wantFiles) {
			t.Errorf("%s: got %q, want %q", name, got, wantFiles)
		}
		d := wire.since(before)
		t.Logf("%s: %v", name, d)
		if d.Lists != wantLists || d.Gets != wantGets || d.Heads != 0 {
			t.Errorf("%s: sent %v; want %d LIST, %d GET, no HEAD", name, d, wantLists, wantGets)
		}
	}
	read("records under health/", "health/", isYAML, wantedRecords, 1, 4)
	read("everything under health/w1/", "health/w1/", nil, map[string][]byte{
		"health/w1/a.yaml":    []byte("a: 1\n"),
		"health/w1/b.yaml":    []byte("b: 2\n"),
		"health/w1/c.yaml":    []byte("c: 3\n"),
		"health/w1/notes.txt": []byte("not a record\n"),
	}, 1, 4)
	read("an empty folder", "nothing/", nil, map[string][]byte{}, 1, 0)

	// Through the shared view of health/: the view's List (what a store resource's read and the
	// drift reads use) and ReadUnder share one listing.
	view := s.(SharedReader).Observed("health/")
	before := wire.snapshot()
	if _, err := view.List(ctx, "health/"); err != nil {
		t.Fatal(err)
	}
	got, err := view.ReadUnder(ctx, "health/", isYAML)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, wantedRecords) {
		t.Errorf("shared view: got %q, want %q", got, wantedRecords)
	}
	if d := wire.since(before); d.Lists != 1 || d.Gets != 4 || d.Heads != 0 {
		t.Errorf("shared view, List then ReadUnder: sent %v; want 1 LIST, 4 GET, no HEAD", d)
	}

	gone, err := NewPool().Bucket(rootConfig(srv.Endpoint, "missing-"+randomSuffix(), srv.AccessKey, srv.SecretKey))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := gone.ReadUnder(ctx, "health/", nil); err != nil || len(got) != 0 {
		t.Errorf("a missing bucket: got %q, %v; want no files and no error", got, err)
	}
	if _, err := s.ReadUnder(ctx, "../up/", nil); err == nil || !strings.Contains(err.Error(), s.Describe()) {
		t.Errorf("a prefix that leaves the root: got %v, want a configuration error naming the store", err)
	}
}

// TestGitReadUnder: the same fixture, committed with the git CLI, read back over smart HTTP from
// the tip: one fetch of the tip and one of the wanted blobs, counted by a proxy. A submodule
// entry under the prefix has no content and is skipped.
func TestGitReadUnder(t *testing.T) {
	ctx := context.Background()
	bare, cfg, counts := countedRepo(t)
	work := t.TempDir()
	gitCmd(t, "", "clone", "--quiet", bare, work)
	for p, content := range healthFixture {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCmd(t, work, "add", ".")
	seed := gitCmd(t, work, "rev-parse", "HEAD")
	gitCmd(t, work, "update-index", "--add", "--cacheinfo", "160000,"+seed+",health/w1/module.yaml")
	gitCmd(t, work, "commit", "--quiet", "-m", "health records")
	gitCmd(t, work, "push", "--quiet", "origin", "HEAD:main")

	s, err := NewPool().Git(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fetches0, _ := counts()
	got, err := s.ReadUnder(ctx, "health/", isYAML)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, wantedRecords) {
		t.Errorf("got %q, want %q", got, wantedRecords)
	}
	fetches1, _ := counts()
	t.Logf("records under health/: %d fetch sessions (the tip, then the blobs)", fetches1-fetches0)
	if fetches1-fetches0 != 2 {
		t.Errorf("%d fetch sessions, want 2: the tip, then the wanted blobs", fetches1-fetches0)
	}

	got, err = s.ReadUnder(ctx, "health/w2/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]byte{"health/w2/sub/d.yaml": []byte("d: 4\n")}; !reflect.DeepEqual(got, want) {
		t.Errorf("health/w2/: got %q, want %q", got, want)
	}
	got, err = s.ReadUnder(ctx, "nothing/", nil)
	if err != nil || len(got) != 0 {
		t.Errorf("an empty folder: got %q, %v; want no files and no error", got, err)
	}
}
