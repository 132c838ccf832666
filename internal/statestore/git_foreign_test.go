package statestore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// foreignSpec is a repository that other teams fill: 20,000 files of about 3 KB under teams/,
// added over 1,000 commits.
var foreignSpec = testinfra.ForeignRepo{Files: 20000, Commits: 1000, FileSize: 3000}

// heapPeak samples the Go heap while fn runs and returns the largest HeapAlloc seen above the
// heap in use before it (after a GC), in bytes.
func heapPeak(fn func()) (peak uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var top atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > top.Load() {
				top.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	end := max(top.Load(), ms.HeapAlloc)
	if end < base {
		return 0
	}
	return end - base
}

// TestGitForeignRepository: the provider writes a destination and a promise's files into a
// repository that holds 20,000 files of other teams and 1,000 commits of history. The first
// write must read what the provider owns, not the repository: the Go heap stays far under the
// 200 MiB the provider may use in all, the other teams' files and the history stay as they were.
func TestGitForeignRepository(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("builds a repository of 20,000 files; skipped with -short and -race")
	}
	g := testGitServer(t)
	name := "foreign-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	if err := g.CreateForeignRepo(name, "main", foreignSpec); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := foreignStore(t, g, name)
	// What a destination and a promise write: canaries, one dependency file, an aggregate.
	change := Change{Message: "Update from: promise/p", Put: map[string][]byte{
		"platform/dest-a/dependencies/kratix-canary-namespace.yaml":       []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\n"),
		"platform/dest-a/resources/kratix-canary-configmap.yaml":          []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kratix-info\n"),
		"platform/dest-a/dependencies/p/5058f/static/p-dependencies.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"),
	}}
	var took time.Duration
	peak := heapPeak(func() {
		start := time.Now()
		res, err := s.Apply(ctx, change)
		took = time.Since(start)
		if err != nil {
			t.Errorf("first Apply: %v", err)
		} else if len(res.Written) != 3 {
			t.Errorf("first Apply wrote %v, want 3 files", res.Written)
		}
	})
	t.Logf("first write into %d files / %d commits: %v, Go heap peak %.1f MiB above the start, %.1f MiB fetched",
		foreignSpec.Files, foreignSpec.Commits, took, float64(peak)/(1<<20), float64(g.FetchedBytes(name))/(1<<20))
	const bound = 64 << 20
	if peak > bound {
		t.Errorf("the first write took the Go heap %.1f MiB up, want at most %d MiB", float64(peak)/(1<<20), bound>>20)
	}

	// Reads of what the provider owns work too, and a second write edits the same subtree.
	got, err := s.Read(ctx, "platform/dest-a/dependencies/p/5058f/static/p-dependencies.yaml")
	if err != nil || string(got) != string(change.Put["platform/dest-a/dependencies/p/5058f/static/p-dependencies.yaml"]) {
		t.Errorf("Read = %q, %v", got, err)
	}
	sums, err := s.List(ctx, "platform/")
	if err != nil || len(sums) != 3 {
		t.Errorf("List(platform/) = %v, %v; want 3 files", sums, err)
	}
	if _, err := s.Apply(ctx, Change{Message: "Update from: promise/p", Delete: []string{"platform/dest-a/dependencies/p/"}}); err != nil {
		t.Errorf("second Apply: %v", err)
	}

	// Another process reads files it did not write, and adds to an aggregate another process
	// wrote: the blobs it needs come by hash, a few KB, not the repository.
	before := g.FetchedBytes(name)
	other := foreignStore(t, g, name)
	readsOthers(ctx, t, s, other, g, name, foreignSpec)
	if got := g.FetchedBytes(name) - before; got > 1<<20 {
		t.Errorf("the second process fetched %.1f MiB to read a few files, want under 1 MiB", float64(got)/(1<<20))
	}

	// The git CLI on the server: every file of the other teams as it was, ours in place, and
	// the whole history under our commits.
	files, err := g.ForeignFilesIntact(name, "main", foreignSpec)
	if err != nil {
		t.Fatal(err)
	}
	if files != foreignSpec.Files+5 {
		t.Errorf("the branch holds %d files, want the %d of other teams, our 2 canaries and 3 aggregate files", files, foreignSpec.Files)
	}
	for p := range change.Put {
		content, err := g.ReadFile(name, "main", p)
		if strings.Contains(p, "/p/") {
			if err == nil {
				t.Errorf("%s still there after the second Apply", p)
			}
			continue
		}
		if err != nil || string(content) != string(change.Put[p]) {
			t.Errorf("%s on the server = %q, %v", p, content, err)
		}
	}
	if n, err := g.CommitCount(name, "main"); err != nil || n != foreignSpec.Commits+4 {
		t.Errorf("%d commits on the branch (%v), want %d", n, err, foreignSpec.Commits+4)
	}
}

// foreignStore opens repository name of g over smart HTTP in a pool of its own: a process of its
// own.
func foreignStore(t *testing.T, g *testinfra.GitServer, name string) Store {
	t.Helper()
	s, err := NewPool().Git(GitConfig{URL: g.HTTPURL(name), Username: g.Username, Password: g.Password,
		AuthorName: "platform-bot", AuthorEmail: "bot@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readsOthers checks, from store other (a process that wrote nothing yet), Read, Hashes and
// List of files of other teams, then an aggregate that first (another process) started and other
// adds to. The expected values are the generator's content and its MD5 by crypto/md5.
func readsOthers(ctx context.Context, t *testing.T, first, other Store, g *testinfra.GitServer, name string, spec testinfra.ForeignRepo) {
	t.Helper()
	last := spec.Files - 1
	got, err := other.Read(ctx, testinfra.ForeignPath(last))
	if err != nil || !bytes.Equal(got, testinfra.ForeignContent(last, spec.FileSize)) {
		t.Errorf("Read(%s) = %d bytes, %v; want the other team's content", testinfra.ForeignPath(last), len(got), err)
	}
	sum := func(i int) string {
		h := md5.Sum(testinfra.ForeignContent(i, spec.FileSize))
		return hex.EncodeToString(h[:])
	}
	hashes, err := other.Hashes(ctx, []string{testinfra.ForeignPath(0), testinfra.ForeignPath(last), "no/such/file"})
	if want := map[string]string{testinfra.ForeignPath(0): sum(0), testinfra.ForeignPath(last): sum(last)}; err != nil || !reflect.DeepEqual(hashes, want) {
		t.Errorf("Hashes = %v, %v; want %v", hashes, err, want)
	}
	listed, err := other.List(ctx, "teams/team-001/app-02/")
	want := map[string]string{}
	for i := 220; i < 230; i++ {
		want[testinfra.ForeignPath(i)] = sum(i)
	}
	if err != nil || !reflect.DeepEqual(listed, want) {
		t.Errorf("List(teams/team-001/app-02/) = %v, %v; want %v", listed, err, want)
	}

	agg := Aggregate{File: "platform/dest-a/aggregated.yaml", Dir: "platform/dest-a/.kratix/aggregated/"}
	for i, s := range []Store{first, other} {
		c := Change{Message: "Update from: promise/agg", Aggregates: []Aggregate{agg},
			Put: map[string][]byte{fmt.Sprintf("%spromise-%d.yaml", agg.Dir, i): fmt.Appendf(nil, "kind: K%d\n", i)}}
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatalf("aggregate write %d: %v", i, err)
		}
	}
	if content, err := g.ReadFile(name, "main", agg.File); err != nil || string(content) != "kind: K0\n\n---\nkind: K1\n" {
		t.Errorf("aggregate on the server = %q, %v", content, err)
	}
}

// TestGitForeignRepositoryWithoutPartialClones: a server that does not serve partial clones gets
// a shallow fetch of the whole tip, and every operation works the same.
func TestGitForeignRepositoryWithoutPartialClones(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the git server; skipped with -short")
	}
	g := testGitServer(t)
	name := "foreign-full"
	spec := testinfra.ForeignRepo{Files: 600, Commits: 30, FileSize: 3000}
	if err := g.CreateForeignRepo(name, "main", spec); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, g.RepoPath(name), "config", "uploadpack.allowFilter", "false")
	ctx := context.Background()
	first := foreignStore(t, g, name)
	if _, err := first.Apply(ctx, Change{Message: "Update from: promise/p",
		Put: map[string][]byte{"platform/dest-a/dependencies/p.yaml": []byte("kind: P\n")}}); err != nil {
		t.Fatal(err)
	}
	// The whole tip's blobs: far more than the trees and our file of a blobless fetch.
	got := g.FetchedBytes(name)
	t.Logf("first write without partial clones: %.1f KiB fetched", float64(got)/1024)
	if got < 256<<10 {
		t.Errorf("fetched %d bytes; a fetch of the whole tip is more than 256 KiB", got)
	}
	readsOthers(ctx, t, first, foreignStore(t, g, name), g, name, spec)
	files, err := g.ForeignFilesIntact(name, "main", spec)
	if err != nil {
		t.Fatal(err)
	}
	if files != spec.Files+4 {
		t.Errorf("the branch holds %d files, want the %d of other teams, our file and 3 aggregate files", files, spec.Files)
	}
	if n, err := g.CommitCount(name, "main"); err != nil || n != spec.Commits+3 {
		t.Errorf("%d commits on the branch (%v), want %d", n, err, spec.Commits+3)
	}
}

// TestGitBranchReplacedByUnrelatedHistory: after the provider's write, someone replaces the
// branch with a history that does not contain the provider's last tip. The next fetch, which
// names that tip as what the clone has, must still bring the new branch whole, and the next
// write builds on it.
func TestGitBranchReplacedByUnrelatedHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the git server; skipped with -short")
	}
	g := testGitServer(t)
	name := "replaced-history"
	if err := g.CreateRepo(name, "main"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := foreignStore(t, g, name)
	if _, err := s.Apply(ctx, Change{Message: "Update from: a", Put: map[string][]byte{"a.yaml": []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	// Two commits with no ancestor in common with the branch, made with git plumbing.
	bare := g.RepoPath(name)
	var parent string
	for i, content := range []string{"one", "two"} {
		cmd := exec.Command("git", "--git-dir", bare, "hash-object", "-w", "--stdin")
		cmd.Stdin = strings.NewReader(content)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		mk := exec.Command("git", "--git-dir", bare, "mktree")
		mk.Stdin = strings.NewReader(fmt.Sprintf("100644 blob %s\tother-%d.yaml\n", strings.TrimSpace(string(out)), i))
		tree, err := mk.Output()
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"--git-dir", bare, "commit-tree", strings.TrimSpace(string(tree)), "-m", "rewritten " + content}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		parent = gitCmd(t, "", args...)
	}
	gitCmd(t, "", "--git-dir", bare, "update-ref", "refs/heads/main", parent)

	if got, err := s.Read(ctx, "other-1.yaml"); err != nil || string(got) != "two" {
		t.Errorf("Read after the rewrite = %q, %v; want the new branch's file", got, err)
	}
	if _, err := s.Read(ctx, "a.yaml"); !IsNotFound(err) {
		t.Errorf("Read of a file the rewrite dropped: %v, want not found", err)
	}
	if _, err := s.Apply(ctx, Change{Message: "Update from: b", Put: map[string][]byte{"b.yaml": []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	files, err := g.ListFiles(name, "main")
	if want := []string{"b.yaml", "other-1.yaml"}; err != nil || !reflect.DeepEqual(files, want) {
		t.Errorf("files = %v, %v; want %v", files, err, want)
	}
	if msgs, err := g.CommitMessages(name, "main"); err != nil || len(msgs) != 3 || msgs[0] != "Update from: b" {
		t.Errorf("history = %q, %v; want our commit on the two rewritten ones", msgs, err)
	}
}
