package testinfra

import (
	"errors"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCreateRepoSeedsOneCommit(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "trunk"); err != nil {
		t.Fatal(err)
	}
	if err := g.CreateRepo("state", "trunk"); err == nil {
		t.Fatal("creating the same repository twice succeeded")
	}

	assertCommitCount(t, g, "state", "trunk", 1)
	files, err := g.ListFiles("state", "trunk")
	if err != nil || !reflect.DeepEqual(files, []string{"README.md"}) {
		t.Fatalf("ListFiles = %q, %v; want [README.md]", files, err)
	}
	head := readFile(t, g.RepoPath("state")+"/HEAD")
	if head != "ref: refs/heads/trunk\n" {
		t.Fatalf("HEAD = %q, want the seeded branch", head)
	}
}

func TestReadFileErrors(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	if err := g.PushFile("state", "main", "dir/a.yaml", []byte("a\n"), "Add a"); err != nil {
		t.Fatal(err)
	}

	if _, err := g.ReadFile("state", "main", "absent.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := g.ReadFile("state", "main", "dir/absent.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file in a folder: %v, want fs.ErrNotExist", err)
	}
	// Absent branches and repositories are mistakes in the test, not absent files.
	for what, call := range map[string]func() error{
		"missing branch": func() error { _, err := g.ReadFile("state", "nope", "README.md"); return err },
		"missing repo":   func() error { _, err := g.ReadFile("nope", "main", "README.md"); return err },
		"folder":         func() error { _, err := g.ReadFile("state", "main", "dir"); return err },
	} {
		if err := call(); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want an error that is not fs.ErrNotExist", what, err)
		}
	}
}

func TestPushFileAndDeleteFile(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		path, content, message string
	}{
		{"dependencies/a.yaml", "a: 1\n", "Add a"},
		{"resources/b c.yaml", "b: 2\n", "Add b with a space"},
		{"dependencies/a.yaml", "a: 2\n", "Change a"},
	}
	for _, s := range steps {
		if err := g.PushFile("state", "main", s.path, []byte(s.content), s.message); err != nil {
			t.Fatal(err)
		}
	}
	got, err := g.ReadFile("state", "main", "dependencies/a.yaml")
	if err != nil || string(got) != "a: 2\n" {
		t.Fatalf("ReadFile(dependencies/a.yaml) = %q, %v", got, err)
	}
	if err := g.DeleteFile("state", "main", "README.md", "Remove README"); err != nil {
		t.Fatal(err)
	}

	files, err := g.ListFiles("state", "main")
	if err != nil || !reflect.DeepEqual(files, []string{"dependencies/a.yaml", "resources/b c.yaml"}) {
		t.Fatalf("ListFiles = %q, %v", files, err)
	}
	messages, err := g.CommitMessages("state", "main")
	want := []string{"Remove README", "Change a", "Add b with a space", "Add a", "Initial commit"}
	if err != nil || !reflect.DeepEqual(messages, want) {
		t.Fatalf("CommitMessages = %q, %v; want %q", messages, err, want)
	}
	assertCommitCount(t, g, "state", "main", 5)
	log, err := g.Log("state", "main")
	if err != nil || len(log) != 5 {
		t.Fatalf("Log = %+v, %v; want 5 commits", log, err)
	}
	for i, c := range log {
		if c.Subject != want[i] || c.AuthorName != "kratix-testinfra" || c.AuthorEmail != "testinfra@kratix.invalid" || len(c.Hash) != 40 {
			t.Errorf("commit %d = %+v, want subject %q by kratix-testinfra <testinfra@kratix.invalid>", i, c, want[i])
		}
		if wantParents := min(1, len(log)-1-i); len(c.Parents) != wantParents || (wantParents == 1 && c.Parents[0] != log[i+1].Hash) {
			t.Errorf("commit %d has parents %q, want the next commit of the log", i, c.Parents)
		}
	}

	if err := g.PushFile("state", "main", "../escape.yaml", nil, "x"); err == nil {
		t.Error("PushFile accepted a path outside the repository")
	}
	if err := g.PushFile("state", "main", ".git/config", nil, "x"); err == nil {
		t.Error("PushFile accepted a path inside .git")
	}
}

func TestEmptyRepo(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateEmptyRepo("empty"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.ListFiles("empty", "main"); err == nil {
		t.Fatal("ListFiles on an empty repository succeeded")
	}
	// PushFile starts the branch when there is none.
	if err := g.PushFile("empty", "main", "first.yaml", []byte("x\n"), "First"); err != nil {
		t.Fatal(err)
	}
	assertCommitCount(t, g, "empty", "main", 1)
}

func TestStopRemovesEverything(t *testing.T) {
	g, err := StartGitServer()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	g.Stop()
	g.Stop() // idempotent
	if _, err := os.Stat(g.Root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Root still there after Stop: %v", err)
	}
	if out, err := gitCLI(t, "", nil, "ls-remote", g.HTTPURL("state")); err == nil {
		t.Errorf("HTTP endpoint still answering after Stop:\n%s", out)
	}
}

func TestCreateForeignRepo(t *testing.T) {
	g := startGitServer(t)
	spec := ForeignRepo{Files: 20000, Commits: 1000, FileSize: 3000}
	start := time.Now()
	if err := g.CreateForeignRepo("foreign", "main", spec); err != nil {
		t.Fatal(err)
	}
	t.Logf("created %d files in %d commits in %v", spec.Files, spec.Commits, time.Since(start))
	n, err := g.CommitCount("foreign", "main")
	if err != nil || n != spec.Commits {
		t.Fatalf("%d commits (%v), want %d", n, err, spec.Commits)
	}
	start = time.Now()
	files, err := g.ForeignFilesIntact("foreign", "main", spec)
	if err != nil || files != spec.Files {
		t.Fatalf("%d files (%v), want %d", files, err, spec.Files)
	}
	t.Logf("checked in %v", time.Since(start))
}

func TestSetHookRefusesPushesUntilRemoved(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	if err := g.SetHook("state", "pre-receive", "#!/bin/sh\necho 'frozen by test' >&2\nexit 1\n"); err != nil {
		t.Fatal(err)
	}
	err := g.PushFile("state", "main", "a.yaml", []byte("a\n"), "Add a")
	if err == nil || !strings.Contains(err.Error(), "frozen by test") {
		t.Fatalf("push with the hook installed: %v, want a refusal quoting the hook", err)
	}
	assertCommitCount(t, g, "state", "main", 1)
	if err := g.SetHook("state", "pre-receive", ""); err != nil {
		t.Fatal(err)
	}
	if err := g.PushFile("state", "main", "a.yaml", []byte("a\n"), "Add a"); err != nil {
		t.Fatalf("push after the hook was removed: %v", err)
	}
	assertCommitCount(t, g, "state", "main", 2)
	for _, bad := range []string{"", "../pre-receive", "hooks/pre-receive"} {
		if err := g.SetHook("state", bad, "#!/bin/sh\n"); err == nil {
			t.Errorf("SetHook accepted hook name %q", bad)
		}
	}
	if err := g.SetHook("nope", "pre-receive", "#!/bin/sh\n"); err == nil {
		t.Error("SetHook accepted a missing repository")
	}
}
