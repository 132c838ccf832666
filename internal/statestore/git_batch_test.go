package statestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Group commit: Applies queued while a push is in flight go out together, one commit per change,
// in one push. The git server counts the pushes itself: with core.logAllRefUpdates, every ref
// update that receive-pack makes adds a line to the branch's reflog.

// countPushes makes the server's repository log its branch updates from now on; the returned
// function counts the pushes that moved main since.
func countPushes(t *testing.T, bare string) func() int {
	t.Helper()
	gitCmd(t, "", "--git-dir", bare, "config", "core.logAllRefUpdates", "always")
	return func() int {
		t.Helper()
		log, err := os.ReadFile(filepath.Join(bare, "logs", "refs", "heads", "main"))
		if errors.Is(err, os.ErrNotExist) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(log), "\n")
	}
}

// httpRepo is a seeded repository on the package's git server, its path on disk and its store
// config.
func httpRepo(t *testing.T) (bare string, cfg GitConfig) {
	t.Helper()
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	return srv.RepoPath(repo), GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: srv.Password}
}

// authoredStore is a store of pool p on cfg's repository with its own author name.
func authoredStore(t *testing.T, p *Pool, cfg GitConfig, author string) Store {
	t.Helper()
	cfg.AuthorName, cfg.AuthorEmail = author, author+"@example.com"
	s, err := p.Git(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// slowPushHook makes every push wait a while on the server, so that other Applies queue behind it.
const slowPushHook = "[ -n \"$SNEAKY_NESTED\" ] && exit 0\nsleep 0.3\n"

// gitLog is main's history as "hash author subject" lines, newest first, with git's CLI.
func gitLog(t *testing.T, bare string) []string {
	t.Helper()
	return strings.Split(gitCmd(t, "", "--git-dir", bare, "log", "--format=%H %an %s", "main"), "\n")
}

// lastCommitOf is the hash of the last commit of main that touched path.
func lastCommitOf(t *testing.T, bare, path string) string {
	t.Helper()
	return gitCmd(t, "", "--git-dir", bare, "log", "-1", "--format=%H", "main", "--", path)
}

// checkLinear fails unless main's history is one line of commits (no merge) of want commits.
func checkLinear(t *testing.T, bare string, want int) {
	t.Helper()
	if merges := gitCmd(t, "", "--git-dir", bare, "rev-list", "--merges", "--count", "main"); merges != "0" {
		t.Errorf("%s merge commits, want a linear history", merges)
	}
	if got := len(strings.Split(gitCmd(t, "", "--git-dir", bare, "rev-list", "--first-parent", "main"), "\n")); got != want {
		t.Errorf("%d commits along main, want %d", got, want)
	}
}

func TestGitBatchesConcurrentApplies(t *testing.T) {
	ctx := context.Background()
	bare, cfg := httpRepo(t)
	installHook(t, bare, "pre-receive", slowPushHook)
	pushes := countPushes(t, bare)
	p := NewPool()
	const n = 16
	results := make([]Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := authoredStore(t, p, cfg, fmt.Sprintf("author%02d", i))
			results[i], errs[i] = s.Apply(ctx, Change{Message: fmt.Sprintf("Update from: promise/p%02d", i),
				Put: map[string][]byte{fmt.Sprintf("p%02d/promise.yaml", i): fmt.Appendf(nil, "p: %d\n", i)}})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Apply %d: %v", i, err)
		}
	}
	checkLinear(t, bare, 1+n)
	log := gitLog(t, bare)
	for i := range n {
		path := fmt.Sprintf("p%02d/promise.yaml", i)
		if got, ok := show(t, bare, path); !ok || got != fmt.Sprintf("p: %d\n", i) {
			t.Errorf("%s = %q, %v", path, got, ok)
		}
		// Its own commit, with its own message and author, named by its Result.
		want := fmt.Sprintf("%s author%02d Update from: promise/p%02d", results[i].Revision, i, i)
		if !slices.Contains(log, want) {
			t.Errorf("no commit %q in the history:\n%s", want, strings.Join(log, "\n"))
		}
		if got := lastCommitOf(t, bare, path); got != results[i].Revision {
			t.Errorf("%s was written by %s, but Apply %d reported %s", path, got, i, results[i].Revision)
		}
		if !reflect.DeepEqual(results[i].Written, []string{path}) {
			t.Errorf("Apply %d wrote %v", i, results[i].Written)
		}
	}
	got := pushes()
	t.Logf("%d Applies, %d pushes on the server (%d tried by the store)", n, got, repoOf(authoredStore(t, p, cfg, "x")).pushes)
	if got >= n || got < 1 {
		t.Errorf("%d pushes for %d Applies: queued changes should go out together", got, n)
	}
}

// TestGitBatchReappliedAfterLostRace: another writer pushes while a batch of several commits is
// on its way; the whole batch is applied again on its commit, nothing lost, nothing forced.
func TestGitBatchReappliedAfterLostRace(t *testing.T) {
	ctx := context.Background()
	bare, cfg := httpRepo(t)
	// The sneaky writer strikes once, during the first push that carries more than one commit.
	installHook(t, bare, "pre-receive", slowPushHook+`read old new ref
[ "$(git rev-list --count "$old..$new")" -gt 1 ] || exit 0
`+sneakyWriterHook(true))
	pushes := countPushes(t, bare)
	s := authoredStore(t, NewPool(), cfg, "platform-bot")
	r := repoOf(s)
	// Hold the repository until all are queued, so that they go out as one batch.
	if err := r.lock(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Apply(ctx, Change{Message: fmt.Sprintf("Update from: w%d", i),
				Put: map[string][]byte{fmt.Sprintf("w%d.yaml", i): []byte("w\n")}})
		}()
	}
	waitQueued(t, r, n)
	r.unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Apply %d: %v", i, err)
		}
	}
	history := subjects(t, bare)
	if !slices.Contains(history, "sneaky") {
		t.Fatalf("the other writer's commit is not in the history (forced over?): %q", history)
	}
	if history[len(history)-2] != "sneaky" {
		t.Errorf("history %q: the batch should have been applied on top of the other writer's commit", history)
	}
	checkLinear(t, bare, 1+1+n)
	files := lsTree(t, bare)
	if len(files) != 1+1+n {
		t.Errorf("files %v: want README.md, the other writer's file and %d of ours", files, n)
	}
	if r.lostRaces != 1 {
		t.Errorf("%d lost races, want 1", r.lostRaces)
	}
	// The other writer's push and our second; our first, refused, moved nothing.
	if got := pushes(); got != 2 {
		t.Errorf("%d branch updates on the server, want 2 (the other writer's, then our batch once)", got)
	}
	if r.pushes != 2 {
		t.Errorf("the store tried %d pushes, want 2 (refused, then landed)", r.pushes)
	}
}

// waitQueued waits until n Applies wait in r's queue.
func waitQueued(t *testing.T, r *gitRepo, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.qmu.Lock()
		queued := len(r.queue)
		r.qmu.Unlock()
		if queued == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d Applies queued, want %d", queued, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGitBatchFailuresStayAlone: in one batch, a change that cannot be committed fails alone, a
// change that changes nothing returns at once without a commit, and a change whose context ends
// while it waits leaves the queue with its error; the others are committed in queue order and
// go out in one push.
func TestGitBatchFailuresStayAlone(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	bare := srv.RepoPath(repo)
	cfg := GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: srv.Password}
	pushes := countPushes(t, bare)
	p := NewPool()
	s := authoredStore(t, p, cfg, "platform-bot")
	r := repoOf(s)
	if err := r.lock(ctx); err != nil {
		t.Fatal(err)
	}
	changes := []Change{
		{Message: "Update from: first", Put: map[string][]byte{"first.yaml": []byte("1\n")}},
		// README.md is a file: it cannot be a folder too.
		{Message: "Update from: bad", Put: map[string][]byte{"README.md/bad.yaml": []byte("b\n")}},
		{Message: "Update from: same", Put: map[string][]byte{"README.md": []byte("seed\n")}},
		{Message: "Update from: second", Put: map[string][]byte{"second.yaml": []byte("2\n")}, Delete: []string{"README.md"}},
		{Message: "Update from: third", Put: map[string][]byte{"third.yaml": []byte("3\n")}},
	}
	results := make([]Result, len(changes))
	errs := make([]error, len(changes))
	var wg sync.WaitGroup
	for i, c := range changes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = s.Apply(ctx, c)
		}()
		waitQueued(t, r, i+1) // one at a time: the queue order is this order
	}
	// One more, whose deadline passes while it waits.
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err := s.Apply(short, Change{Message: "Update from: late", Put: map[string][]byte{"late.yaml": []byte("l\n")}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Apply queued past its deadline = %v", err)
	}
	waitQueued(t, r, len(changes))
	r.unlock()
	wg.Wait()

	if kindOf(errs[1]) != KindConfig || !strings.Contains(errs[1].Error(), "README.md") {
		t.Errorf("bad change: %v, want kind %q naming README.md", errs[1], KindConfig)
	}
	for _, i := range []int{0, 2, 3, 4} {
		if errs[i] != nil {
			t.Errorf("%s: %v", changes[i].Message, errs[i])
		}
	}
	if results[2].Changed() || results[2].Revision != "" {
		t.Errorf("the change that changes nothing returned %+v", results[2])
	}
	want := []string{"Update from: third", "Update from: second", "Update from: first", "Initial commit"}
	if got := subjects(t, bare); !reflect.DeepEqual(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
	if got := lsTree(t, bare); !reflect.DeepEqual(got, []string{"first.yaml", "second.yaml", "third.yaml"}) {
		t.Errorf("files %v", got)
	}
	if !reflect.DeepEqual(results[3].Deleted, []string{"README.md"}) || results[3].Revision != lastCommitOf(t, bare, "second.yaml") {
		t.Errorf("second change: %+v", results[3])
	}
	if got := pushes(); got != 1 {
		t.Errorf("%d pushes, want 1 for the whole batch", got)
	}
	if r.pushes != 1 {
		t.Errorf("the store tried %d pushes, want 1", r.pushes)
	}
}
