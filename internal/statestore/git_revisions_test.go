package statestore

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// commitFile writes one file in a work clone and pushes it to main as its own commit with the
// git CLI; it returns the commit's id.
func commitFile(t *testing.T, work, path, content string) string {
	t.Helper()
	full := filepath.Join(work, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, work, "add", path)
	gitCmd(t, work, "commit", "--quiet", "-m", "other: "+path)
	gitCmd(t, work, "push", "--quiet", "origin", "HEAD:main")
	return gitCmd(t, work, "rev-parse", "HEAD")
}

// TestGitSameFolder: commit A writes w1/a.yaml, B changes other/x.yaml only, C changes
// w1/a.yaml, each pushed with the git CLI over smart HTTP. The store's first fetch is shallow
// at its tip, so A, older than that tip, is fetched on its own when asked about.
func TestGitSameFolder(t *testing.T) {
	ctx := context.Background()
	bare, cfg, counts := countedRepo(t)
	srv := testGitServer(t)
	other := newServerRepo(t, srv) // seeded as ours is, with the same first commit
	if err := srv.PushFile(other, "main", "w1/a.yaml", []byte("elsewhere\n"), "another repository"); err != nil {
		t.Fatal(err)
	}
	foreign := gitCmd(t, "", "--git-dir", srv.RepoPath(other), "rev-parse", "main")
	work := t.TempDir()
	gitCmd(t, "", "clone", "--quiet", bare, work)
	a := commitFile(t, work, "w1/a.yaml", "health: v1\n")
	b := commitFile(t, work, "other/x.yaml", "x: 1\n")

	type ask struct {
		name             string
		revision, folder string
		same, known      bool
	}
	check := func(s Store, asks []ask) {
		t.Helper()
		for _, q := range asks {
			same, known, err := s.(FolderRevisions).SameFolder(ctx, q.revision, q.folder)
			if err != nil {
				t.Errorf("%s: SameFolder(%q, %q): %v", q.name, q.revision, q.folder, err)
				continue
			}
			if same != q.same || known != q.known {
				t.Errorf("%s: SameFolder(%q, %q) = same %v, known %v; want same %v, known %v",
					q.name, q.revision, q.folder, same, known, q.same, q.known)
			}
		}
	}
	const unknown = "0123456789abcdef0123456789abcdef01234567"

	// A store whose clone starts at B: A is not in it until asked for.
	s, err := NewPool().Git(cfg)
	if err != nil {
		t.Fatal(err)
	}
	check(s, []ask{
		{"an abbreviation of a commit older than the clone", a[:8], "w1/", false, false},
		{"tip B, A's w1 unchanged since", a, "w1/", true, true},
		{"tip B, abbreviation of A, now in the clone", a[:8], "w1/", true, true},
		{"tip B, abbreviation of B", b[:8], "w1", true, true},
		{"tip B, other/ changed since A", a, "other/", false, true},
		{"tip B, the root changed since A", a, "", false, true},
		{"a folder absent in both", a, "nowhere/", true, true},
		{"an unknown commit", unknown, "w1/", false, false},
		{"another repository's commit", foreign, "w1/", false, false},
		{"garbage", "not-a-commit", "w1/", false, false},
		{"too short", a[:6], "w1/", false, false},
	})

	c := commitFile(t, work, "w1/a.yaml", "health: v2\n")
	check(s, []ask{
		{"tip C, A's w1 changed since", a, "w1/", false, true},
		{"tip C, B's w1 changed since", b, "w1/", false, true},
		{"tip C, C itself", c, "w1/", true, true},
		{"tip C, B's other/ unchanged since", b, "other/", true, true},
		{"tip C, A had no other/", a, "other/", false, true},
		{"tip C, an unknown commit", unknown, "w1/", false, false},
	})

	// A fresh store at C asked about A, older than its clone, by full id.
	fresh, err := NewPool().Git(cfg)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := counts()
	check(fresh, []ask{{"fresh store at C, A by full id", a, "w1/", false, true}})
	after, _ := counts()
	t.Logf("fresh store, a commit older than the clone: %d fetch sessions (the tip, then the commit)", after-before)
	if after-before != 2 {
		t.Errorf("%d fetch sessions, want 2: the tip, then the commit", after-before)
	}
	check(fresh, []ask{{"fresh store at C, B by full id", b, "other/", true, true}})

	// Several folders of one revision: one look at the tip for all of them.
	before, _ = counts()
	same, known, err := fresh.(FolderRevisions).SameFolders(ctx, b, []string{"w1/", "other/", "nowhere/", ""})
	after, _ = counts()
	want := map[string]bool{"w1/": false, "other/": true, "nowhere/": true, "": false}
	if err != nil || !known || !maps.Equal(same, want) {
		t.Errorf("SameFolders(B, ...) = %v, known %v, %v; want %v, known", same, known, err, want)
	}
	if after-before != 1 {
		t.Errorf("SameFolders of four folders made %d fetch sessions, want 1 (the tip)", after-before)
	}

	// Real failures are errors: credentials the server refuses.
	cfg.Password = "wrong"
	refused, err := NewPool().Git(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, known, err := refused.(FolderRevisions).SameFolder(ctx, a, "w1/"); err == nil || known {
		t.Errorf("refused credentials: known %v, error %v; want an error", known, err)
	} else if !errors.As(err, new(*Error)) || err.(*Error).Kind != KindAuth {
		t.Errorf("refused credentials: %v; want a %s error", err, KindAuth)
	}
}
