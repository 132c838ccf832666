package statestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// The git CLI is the independent reader and the "other writer" of these tests.

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=other", "-c", "user.email=other@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// bareRepo makes a bare repository; seeded, it has one commit on main holding README.md.
func bareRepo(t *testing.T, seeded bool) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "repo.git")
	gitCmd(t, "", "init", "--quiet", "--bare", "-b", "main", bare)
	if seeded {
		pushFile(t, bare, "README.md", "seed\n")
	}
	return bare
}

// pushFile commits one file to main as another client would.
func pushFile(t *testing.T, bare, path, content string) {
	t.Helper()
	work := t.TempDir()
	gitCmd(t, "", "clone", "--quiet", bare, work)
	gitCmd(t, work, "checkout", "--quiet", "-B", "main")
	if err := os.MkdirAll(filepath.Dir(filepath.Join(work, path)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, work, "add", path)
	gitCmd(t, work, "commit", "--quiet", "-m", "other: "+path)
	gitCmd(t, work, "push", "--quiet", "origin", "main")
}

func show(t *testing.T, bare, path string) (string, bool) {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "show", "main:"+path).Output()
	if err != nil {
		return "", false
	}
	return string(out), true
}

func lsTree(t *testing.T, bare string) []string {
	t.Helper()
	out := gitCmd(t, "", "--git-dir", bare, "ls-tree", "-r", "--name-only", "main")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func commits(t *testing.T, bare string) int {
	t.Helper()
	var n int
	_, _ = fmt.Sscanf(gitCmd(t, "", "--git-dir", bare, "rev-list", "--count", "main"), "%d", &n)
	return n
}

func fileStore(t *testing.T, p *Pool, bare string) Store {
	t.Helper()
	s, err := p.Git(GitConfig{URL: "file://" + bare, AuthorName: "platform-bot", AuthorEmail: "bot@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func kindOf(err error) Kind {
	var se *Error
	if errors.As(err, &se) {
		return se.Kind
	}
	return ""
}

func TestGitApply(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)

	res, err := s.Apply(ctx, Change{Message: "Update from: promise/jenkins", Put: map[string][]byte{
		"dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": []byte("kind: A\n"),
		"dev/dependencies/jenkins/5058f/static/extra.yaml":                []byte("kind: B\n"),
		"dev/notes.txt": []byte("beside\n"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 3 || res.Revision == "" {
		t.Errorf("result = %+v", res)
	}
	if got := gitCmd(t, "", "--git-dir", bare, "log", "-1", "--format=%an <%ae>|%s", "main"); got != "platform-bot <bot@example.com>|Update from: promise/jenkins" {
		t.Errorf("last commit = %q", got)
	}
	if c, _ := show(t, bare, "dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml"); c != "kind: A\n" {
		t.Errorf("content = %q", c)
	}

	// The same again: no commit.
	n := commits(t, bare)
	res, err = s.Apply(ctx, Change{Message: "Update from: promise/jenkins", Put: map[string][]byte{
		"dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": []byte("kind: A\n"),
	}})
	if err != nil || res.Changed() || commits(t, bare) != n {
		t.Errorf("a no-op Apply gave %+v, %v and %d new commits", res, err, commits(t, bare)-n)
	}

	// Prune the owned folder: extra.yaml goes, notes.txt beside it stays.
	res, err = s.Apply(ctx, Change{Message: "Update from: promise/jenkins",
		Put:   map[string][]byte{"dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": []byte("kind: A2\n")},
		Prune: []string{"dev/dependencies/jenkins/5058f/"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Deleted, []string{"dev/dependencies/jenkins/5058f/static/extra.yaml"}) {
		t.Errorf("Deleted = %v", res.Deleted)
	}
	want := []string{"README.md", "dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml", "dev/notes.txt"}
	if got := lsTree(t, bare); !reflect.DeepEqual(got, want) {
		t.Errorf("tree = %v, want %v", got, want)
	}

	// Delete a prefix: one commit, README and notes stay.
	if _, err := s.Apply(ctx, Change{Message: "Delete from: promise/jenkins", Delete: []string{"dev/dependencies/"}}); err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, bare); !reflect.DeepEqual(got, []string{"README.md", "dev/notes.txt"}) {
		t.Errorf("after delete the tree = %v", got)
	}
}

func TestGitBuildsOnOtherWriters(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	if _, err := s.Apply(ctx, Change{Message: "one", Put: map[string][]byte{"a.yaml": []byte("a\n")}}); err != nil {
		t.Fatal(err)
	}
	pushFile(t, bare, "other.yaml", "theirs\n")
	if _, err := s.Apply(ctx, Change{Message: "two", Put: map[string][]byte{"b.yaml": []byte("b\n")}}); err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, bare); !reflect.DeepEqual(got, []string{"README.md", "a.yaml", "b.yaml", "other.yaml"}) {
		t.Errorf("tree = %v: another writer's file was lost", got)
	}
}

func TestGitConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	// Two pools are two provider processes: their pushes race and must be retried, not lost.
	pools := []*Pool{NewPool(), NewPool()}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := fileStore(t, pools[i%2], bare)
			_, err := s.Apply(ctx, Change{Message: fmt.Sprintf("Update from: destination/w%d", i),
				Put: map[string][]byte{fmt.Sprintf("w%02d/kratix-canary.yaml", i): []byte("x\n")}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := len(lsTree(t, bare)); got != 21 {
		t.Errorf("%d files, want 21: a write was lost", got)
	}
	if n := commits(t, bare); n != 21 {
		t.Errorf("%d commits, want 21 (seed + one per write)", n)
	}
}

func TestGitEmptyRepositoryAndMissingBranch(t *testing.T) {
	ctx := context.Background()
	empty := bareRepo(t, false)
	s := fileStore(t, NewPool(), empty)
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check on an empty repository: %v", err)
	}
	if _, err := s.Apply(ctx, Change{Message: "first", Put: map[string][]byte{"a.yaml": []byte("a\n")}}); err != nil {
		t.Fatalf("first Apply on an empty repository: %v", err)
	}
	if commits(t, empty) != 1 {
		t.Error("the first Apply did not create main with one commit")
	}

	seeded := bareRepo(t, true)
	other, err := NewPool().Git(GitConfig{URL: "file://" + seeded, Branch: "nope"})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Check(ctx); kindOf(err) != KindMissingBranch {
		t.Errorf("Check of a missing branch: %v", err)
	}
	if _, err := other.Apply(ctx, Change{Put: map[string][]byte{"a": nil}}); kindOf(err) != KindMissingBranch {
		t.Errorf("Apply to a missing branch: %v", err)
	}
}

func TestGitReads(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	if _, err := s.Apply(ctx, Change{Message: "w", Put: map[string][]byte{"a/x.yaml": []byte("x"), "a/b/y.yaml": []byte("y")}}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Hashes(ctx, []string{"a/x.yaml", "a/missing.yaml"})
	if err != nil || !reflect.DeepEqual(h, map[string]string{"a/x.yaml": md5Hex([]byte("x"))}) {
		t.Errorf("Hashes = %v, %v", h, err)
	}
	pushFile(t, bare, "a/x.yaml", "edited")
	if h, _ := s.Hashes(ctx, []string{"a/x.yaml"}); h["a/x.yaml"] != md5Hex([]byte("edited")) {
		t.Error("Hashes did not see an edit pushed by someone else")
	}
	l, err := s.List(ctx, "a/")
	if err != nil || len(l) != 2 {
		t.Errorf("List = %v, %v", l, err)
	}
	if b, err := s.Read(ctx, "a/b/y.yaml"); err != nil || string(b) != "y" {
		t.Errorf("Read = %q, %v", b, err)
	}
	if _, err := s.Read(ctx, "nope.yaml"); !IsNotFound(err) {
		t.Errorf("Read of a missing file: %v", err)
	}
}
