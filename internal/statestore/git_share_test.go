package statestore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

// Reads and writes share the remote's round trips: a read waiting behind a fetch or a push uses
// the tip of the next one instead of fetching again, and a batch commits on the tip this process
// already knows and lets the push prove it. The server side is counted by a proxy in front of
// the git server: each fetch and each push starts with one GET of the references, for
// git-upload-pack and git-receive-pack respectively.

// countedRepo is a seeded repository on the package's git server, reached through a counting
// proxy: its path on disk, the store config, and the fetches and pushes the proxy saw so far.
func countedRepo(t *testing.T) (bare string, cfg GitConfig, counts func() (fetches, pushes int)) {
	t.Helper()
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	target, err := url.Parse(srv.HTTPBase)
	if err != nil {
		t.Fatal(err)
	}
	var fetches, pushes atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			switch r.URL.Query().Get("service") {
			case "git-upload-pack":
				fetches.Add(1)
			case "git-receive-pack":
				pushes.Add(1)
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cfg = GitConfig{URL: front.URL + "/" + repo + ".git", Username: srv.Username, Password: srv.Password}
	return srv.RepoPath(repo), cfg, func() (int, int) { return int(fetches.Load()), int(pushes.Load()) }
}

func md5Of(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestGitReadsShareFetches: 16 operations at once each read, write, then read again, as a
// resource's Create did before writing (it looked for files to take over) and a refresh does
// after. The reads queued behind a fetch or a push share the next one, the writes go out in
// batches, and no read misses a write that had landed before it was asked for.
func TestGitReadsShareFetches(t *testing.T) {
	ctx := context.Background()
	bare, cfg, counts := countedRepo(t)
	installHook(t, bare, "pre-receive", slowPushHook)
	pushes := countPushes(t, bare)
	p := NewPool()
	const n = 16
	paths := make([]string, n)
	for i := range n {
		paths[i] = fmt.Sprintf("p%02d/promise.yaml", i)
	}
	var mu sync.Mutex
	landed := map[string]bool{} // paths whose Apply has returned
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := authoredStore(t, p, cfg, fmt.Sprintf("author%02d", i))
			// read checks that a read finds every write that had landed when it was asked for.
			read := func(what string) error {
				mu.Lock()
				before := make([]string, 0, len(landed))
				for path := range landed {
					before = append(before, path)
				}
				mu.Unlock()
				found, err := s.Hashes(ctx, paths)
				if err != nil {
					return err
				}
				for _, path := range before {
					if found[path] != md5Of(path+"\n") {
						t.Errorf("%s %d: %s had landed before the read was asked for, but it found %q", what, i, path, found[path])
					}
				}
				return nil
			}
			if errs[i] = read("read"); errs[i] != nil {
				return
			}
			_, errs[i] = s.Apply(ctx, Change{Message: "Update from: " + paths[i], Put: map[string][]byte{paths[i]: []byte(paths[i] + "\n")}})
			if errs[i] != nil {
				return
			}
			mu.Lock()
			landed[paths[i]] = true
			mu.Unlock()
			errs[i] = read("read after write") // finds its own write, at least
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("operation %d: %v", i, err)
		}
	}
	checkLinear(t, bare, 1+n)
	if got := lsTree(t, bare); len(got) != 1+n {
		t.Errorf("files %v: want README.md and %d of ours", got, n)
	}
	fetches, tried := counts()
	landedPushes := pushes()
	t.Logf("%d reads and %d writes: %d fetches, %d pushes tried, %d pushes that moved the branch", 2*n, n, fetches, tried, landedPushes)
	if fetches > n/2 {
		t.Errorf("%d fetches for %d reads and %d writes: reads waiting behind a fetch or a push should share the next one", fetches, 2*n, n)
	}
	if landedPushes >= n || tried >= n {
		t.Errorf("%d pushes (%d tried) for %d writes: queued writes should go out together", landedPushes, tried, n)
	}
}

// TestGitSharedTipSeesEditsElsewhere: a write on the tip this process knows fetches nothing
// more; an edit pushed by the git CLI is seen by the next read, built upon by the next write (a
// refused push, then a fetch, not a lost race), and a branch reset to an older commit is not
// undone by a write that still knew the newer one.
func TestGitSharedTipSeesEditsElsewhere(t *testing.T) {
	ctx := context.Background()
	bare, cfg, counts := countedRepo(t)
	s := authoredStore(t, NewPool(), cfg, "platform-bot")
	r := repoOf(s)
	put := func(path, content string) {
		t.Helper()
		if _, err := s.Apply(ctx, Change{Message: "Update from: " + path, Put: map[string][]byte{path: []byte(content)}}); err != nil {
			t.Fatalf("writing %s: %v", path, err)
		}
	}
	hashOf := func(path string) string {
		t.Helper()
		found, err := s.Hashes(ctx, []string{path})
		if err != nil {
			t.Fatal(err)
		}
		return found[path]
	}

	if got := hashOf("a.yaml"); got != "" {
		t.Fatalf("a.yaml found before any write: %s", got)
	}
	fetches, _ := counts()
	put("a.yaml", "a\n")
	if f, _ := counts(); f != fetches {
		t.Errorf("the write after a read fetched %d times, want 0: the read's fetch gave the tip", f-fetches)
	}

	pushFile(t, bare, "a.yaml", "edited by hand\n")
	if got := hashOf("a.yaml"); got != md5Of("edited by hand\n") {
		t.Errorf("the read after an edit by hand found %q, want the edit's MD5", got)
	}
	pushFile(t, bare, "b.yaml", "theirs\n")
	put("c.yaml", "c\n")
	if got := lsTree(t, bare); !reflect.DeepEqual(got, []string{"README.md", "a.yaml", "b.yaml", "c.yaml"}) {
		t.Errorf("files %v after a write on a branch that moved", got)
	}
	if got, _ := show(t, bare, "a.yaml"); got != "edited by hand\n" {
		t.Errorf("a.yaml = %q: the edit by hand was lost", got)
	}
	if r.lostRaces != 0 {
		t.Errorf("%d lost races: a branch that moved before the write is not a race", r.lostRaces)
	}

	// Someone resets the branch to before c.yaml; the next write must build on that.
	parent := gitCmd(t, "", "--git-dir", bare, "rev-parse", "main~1")
	gitCmd(t, "", "--git-dir", bare, "update-ref", "refs/heads/main", parent)
	put("d.yaml", "d\n")
	if got := lsTree(t, bare); !reflect.DeepEqual(got, []string{"README.md", "a.yaml", "b.yaml", "d.yaml"}) {
		t.Errorf("files %v: the write should build on the reset branch, without c.yaml", got)
	}
	if got := gitCmd(t, "", "--git-dir", bare, "rev-parse", "main~1"); got != parent {
		t.Errorf("the write's parent is %s, want the reset tip %s", got, parent)
	}
	if got := hashOf("c.yaml"); got != "" {
		t.Errorf("c.yaml read back after the reset: %s", got)
	}
}
