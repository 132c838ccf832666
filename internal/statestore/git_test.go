package statestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The git CLI is the independent reader and the "other writer" of these tests: it shares no code
// with go-git, so what it reads back is what any git client would see.

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := runGitCLI(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

func runGitCLI(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "user.name=other", "-c", "user.email=other@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	return string(out), err
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
	pushFiles(t, bare, "other: "+path, map[string]string{path: content}, nil)
}

// pushFiles commits files to main with the git CLI; paths in executable get mode 100755.
func pushFiles(t *testing.T, bare, message string, files map[string]string, executable []string) {
	t.Helper()
	work := t.TempDir()
	gitCmd(t, "", "clone", "--quiet", bare, work)
	gitCmd(t, work, "checkout", "--quiet", "-B", "main")
	for path, content := range files {
		full := filepath.Join(work, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		gitCmd(t, work, "add", path)
	}
	for _, path := range executable {
		gitCmd(t, work, "update-index", "--chmod=+x", path)
	}
	gitCmd(t, work, "commit", "--quiet", "-m", message)
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

func subjects(t *testing.T, bare string) []string {
	t.Helper()
	return strings.Split(gitCmd(t, "", "--git-dir", bare, "log", "--format=%s", "main"), "\n")
}

func fileStore(t *testing.T, p *Pool, bare string) Store {
	t.Helper()
	s, err := p.Git(GitConfig{URL: "file://" + bare, AuthorName: "platform-bot", AuthorEmail: "bot@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// installHook makes script (a POSIX shell body) the bare repository's hook called name.
func installHook(t *testing.T, bare, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(bare, "hooks", name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// sneakyWriterHook is a pre-receive hook that pushes another commit to main while the push that
// ran it waits for its ref update, as a writer elsewhere would: that push is then refused by the
// server ("failed to update ref"). With a marker file name, it does so only once.
func sneakyWriterHook(once bool) string {
	guard := ""
	if once {
		guard = "[ -e sneaked ] && exit 0\ntouch sneaked\n"
	}
	return `[ -n "$SNEAKY_NESTED" ] && exit 0
` + guard + `repo=$(pwd)
work=$(mktemp -d)
n=$(date +%s%N)
env -i PATH="$PATH" HOME="$HOME" SNEAKY_NESTED=1 GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null sh -ec '
git clone -q "$1" "$2"
cd "$2"
echo "$3" > "sneaky-$3.yaml"
git add .
git -c user.name=sneaky -c user.email=s@example.com commit -qm "sneaky"
git push -q origin HEAD:main' _ "$repo" "$work" "$n" >&2
rm -rf "$work"
`
}

func kindOf(err error) Kind {
	var se *Error
	if errors.As(err, &se) {
		return se.Kind
	}
	return ""
}

func repoOf(s Store) *gitRepo { return s.(*gitStore).r }

func TestGitApply(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	put := map[string][]byte{
		"dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml": []byte("kind: A\n"),
		"dev/dependencies/jenkins/5058f/static/extra.yaml":                []byte("kind: B\n"),
		"dev/notes.txt": []byte("beside\n"),
	}

	res, err := s.Apply(ctx, Change{Message: "Update from: promise/jenkins", Put: put})
	if err != nil {
		t.Fatal(err)
	}
	wantWritten := []string{"dev/dependencies/jenkins/5058f/static/extra.yaml",
		"dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml", "dev/notes.txt"}
	if !reflect.DeepEqual(res.Written, wantWritten) || res.Deleted != nil {
		t.Errorf("result = %+v, want Written %v", res, wantWritten)
	}
	tip := gitCmd(t, "", "--git-dir", bare, "rev-parse", "main")
	if res.Revision != tip {
		t.Errorf("Revision = %q, the branch is at %q", res.Revision, tip)
	}
	if got := gitCmd(t, "", "--git-dir", bare, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s|%P", "main"); !strings.HasPrefix(got,
		"platform-bot <bot@example.com>|platform-bot <bot@example.com>|Update from: promise/jenkins|") {
		t.Errorf("last commit = %q", got)
	}
	if n := commits(t, bare); n != 2 {
		t.Errorf("%d commits, want 2 (seed + one for the whole change)", n)
	}
	for p, want := range put {
		if got, _ := show(t, bare, p); got != string(want) {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	gitCmd(t, "", "--git-dir", bare, "fsck", "--strict") // trees sorted, modes right

	// The same content again: no commit, no push, no error.
	res, err = s.Apply(ctx, Change{Message: "Update from: promise/jenkins", Put: put})
	if err != nil || res.Changed() || res.Revision != "" || commits(t, bare) != 2 {
		t.Errorf("a no-op Apply gave %+v, %v and %d commits", res, err, commits(t, bare))
	}
}

// TestGitApplyEdits starts each case from the same files and checks what one Apply leaves.
func TestGitApplyEdits(t *testing.T) {
	seed := map[string]string{
		"README.md":                "seed\n",
		"dev/owned/a/1.yaml":       "1\n",
		"dev/owned/a/2.yaml":       "2\n",
		"dev/owned/b/3.yaml":       "3\n",
		"dev/owned-not/4.yaml":     "4\n", // shares the prefix's spelling, not its folder
		"dev/beside.yaml":          "beside\n",
		"dev/scripts/run.sh":       "#!/bin/sh\n",
		"prod/owned/a/1.yaml":      "1\n",
		"prod/kratix-canary.yaml":  "canary\n",
		"prod/.kratix/keep.yaml":   "keep\n",
		"prod/deep/er/est/x.yaml":  "x\n",
		"prod/deep/er/est/y.yaml":  "y\n",
		"prod/deep/er/other.yaml":  "o\n",
		"prod/deep/sibling-z.yaml": "z\n",
	}
	all := func(except ...string) []string {
		var out []string
		for p := range seed {
			if !contains(except, p) {
				out = append(out, p)
			}
		}
		return out
	}
	tests := []struct {
		name        string
		change      Change
		wantWritten []string
		wantDeleted []string
		wantFiles   []string // files at the tip afterwards, in any order
		wantKind    Kind     // an expected failure
	}{
		{
			name: "prune removes stale files under the owned prefix only",
			change: Change{Put: map[string][]byte{"dev/owned/a/1.yaml": []byte("1\n"), "dev/owned/c/5.yaml": []byte("5\n")},
				Prune: []string{"dev/owned/"}},
			wantWritten: []string{"dev/owned/c/5.yaml"},
			wantDeleted: []string{"dev/owned/a/2.yaml", "dev/owned/b/3.yaml"},
			wantFiles:   append(all("dev/owned/a/2.yaml", "dev/owned/b/3.yaml"), "dev/owned/c/5.yaml"),
		},
		{
			name:        "delete with a trailing slash removes the folder",
			change:      Change{Delete: []string{"prod/deep/er/"}},
			wantDeleted: []string{"prod/deep/er/est/x.yaml", "prod/deep/er/est/y.yaml", "prod/deep/er/other.yaml"},
			wantFiles:   all("prod/deep/er/est/x.yaml", "prod/deep/er/est/y.yaml", "prod/deep/er/other.yaml"),
		},
		{
			name:        "delete exact files; a missing one is no error",
			change:      Change{Delete: []string{"prod/kratix-canary.yaml", "prod/missing.yaml"}},
			wantDeleted: []string{"prod/kratix-canary.yaml"},
			wantFiles:   all("prod/kratix-canary.yaml"),
		},
		{
			name:        "deleting everything under a folder leaves no empty folder behind",
			change:      Change{Delete: []string{"prod/"}},
			wantDeleted: []string{"prod/.kratix/keep.yaml", "prod/deep/er/est/x.yaml", "prod/deep/er/est/y.yaml", "prod/deep/er/other.yaml", "prod/deep/sibling-z.yaml", "prod/kratix-canary.yaml", "prod/owned/a/1.yaml"},
			wantFiles:   all("prod/.kratix/keep.yaml", "prod/deep/er/est/x.yaml", "prod/deep/er/est/y.yaml", "prod/deep/er/other.yaml", "prod/deep/sibling-z.yaml", "prod/kratix-canary.yaml", "prod/owned/a/1.yaml"),
		},
		{
			name:        "an executable keeps its mode when rewritten",
			change:      Change{Put: map[string][]byte{"dev/scripts/run.sh": []byte("#!/bin/sh\necho hi\n")}},
			wantWritten: []string{"dev/scripts/run.sh"},
			wantFiles:   all(),
		},
		{
			name:      "nothing to delete: no commit",
			change:    Change{Delete: []string{"nope/", "nope.yaml"}, Prune: []string{"empty/"}},
			wantFiles: all(),
		},
		{
			name:     "a file where a folder is",
			change:   Change{Put: map[string][]byte{"prod/deep": []byte("x")}},
			wantKind: KindConfig,
		},
		{
			name:     "a folder where a file is",
			change:   Change{Put: map[string][]byte{"dev/beside.yaml/x.yaml": []byte("x")}},
			wantKind: KindConfig,
		},
		{name: "parent path", change: Change{Put: map[string][]byte{"../escape.yaml": nil}}, wantKind: KindConfig},
		{name: "inner parent path", change: Change{Put: map[string][]byte{"dev/../x.yaml": nil}}, wantKind: KindConfig},
		{name: "absolute path", change: Change{Put: map[string][]byte{"/etc/x.yaml": nil}}, wantKind: KindConfig},
		{name: "absolute delete", change: Change{Delete: []string{"/dev/"}}, wantKind: KindConfig},
		{name: "prune of the root", change: Change{Prune: []string{"/"}}, wantKind: KindConfig},
		{name: "prune that escapes", change: Change{Prune: []string{"../"}}, wantKind: KindConfig},
	}
	seeded := bareRepo(t, false)
	pushFiles(t, seeded, "seed", seed, []string{"dev/scripts/run.sh"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bare := filepath.Join(t.TempDir(), "repo.git")
			if err := os.CopyFS(bare, os.DirFS(seeded)); err != nil {
				t.Fatal(err)
			}
			tt.change.Message = "Update from: test"
			res, err := fileStore(t, NewPool(), bare).Apply(context.Background(), tt.change)
			if tt.wantKind != "" {
				if kindOf(err) != tt.wantKind {
					t.Fatalf("Apply = %+v, %v; want kind %q", res, err, tt.wantKind)
				}
				if n := commits(t, bare); n != 1 {
					t.Errorf("%d commits after a refused change, want 1", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Written, tt.wantWritten) || !reflect.DeepEqual(res.Deleted, tt.wantDeleted) {
				t.Errorf("Written %v, Deleted %v; want %v and %v", res.Written, res.Deleted, tt.wantWritten, tt.wantDeleted)
			}
			wantCommits := 1
			if res.Changed() {
				wantCommits = 2
			}
			if n := commits(t, bare); n != wantCommits {
				t.Errorf("%d commits, want %d", n, wantCommits)
			}
			got := lsTree(t, bare)
			if !sameSet(got, tt.wantFiles) {
				t.Errorf("files = %v\nwant %v", got, tt.wantFiles)
			}
			if mode := strings.Fields(gitCmd(t, "", "--git-dir", bare, "ls-tree", "main", "dev/scripts/run.sh")); len(mode) > 0 && mode[0] != "100755" {
				t.Errorf("run.sh has mode %s, want 100755", mode[0])
			}
			gitCmd(t, "", "--git-dir", bare, "fsck", "--strict")
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, v := range a {
		if !contains(b, v) {
			return false
		}
	}
	return true
}

func TestGitBuildsOnOtherWriters(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	if _, err := s.Apply(ctx, Change{Message: "Update from: one", Put: map[string][]byte{"a.yaml": []byte("a\n")}}); err != nil {
		t.Fatal(err)
	}
	pushFile(t, bare, "other.yaml", "theirs\n")
	if _, err := s.Apply(ctx, Change{Message: "Update from: two", Put: map[string][]byte{"b.yaml": []byte("b\n")}}); err != nil {
		t.Fatal(err)
	}
	if got := lsTree(t, bare); !reflect.DeepEqual(got, []string{"README.md", "a.yaml", "b.yaml", "other.yaml"}) {
		t.Errorf("tree = %v: another writer's file was lost", got)
	}
	want := []string{"Update from: two", "other: other.yaml", "Update from: one", "other: README.md"}
	if got := subjects(t, bare); !reflect.DeepEqual(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
	if lost := repoOf(s).lostRaces; lost != 0 {
		t.Errorf("%d lost races: the second Apply should have fetched the other commit first", lost)
	}
}

// TestGitApplyReportsReplaced: a file that held other content is reported as replaced; a new
// file, and one that already held the same content, are not.
func TestGitApplyReportsReplaced(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	pushFiles(t, bare, "other: two files", map[string]string{"taken.yaml": "theirs\n", "same.yaml": "same\n"}, nil)
	s := fileStore(t, NewPool(), bare)
	res, err := s.Apply(ctx, Change{Message: "Update from: p", Put: map[string][]byte{
		"taken.yaml": []byte("ours\n"), "same.yaml": []byte("same\n"), "new.yaml": []byte("new\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Written, []string{"new.yaml", "taken.yaml"}) || !reflect.DeepEqual(res.Replaced, []string{"taken.yaml"}) {
		t.Errorf("Written %v, Replaced %v; want [new.yaml taken.yaml] and [taken.yaml]", res.Written, res.Replaced)
	}
	if got, _ := show(t, bare, "taken.yaml"); got != "ours\n" {
		t.Errorf("taken.yaml = %q", got)
	}
}

func TestGitConcurrentAppliesOnOneStore(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	errs := applyConcurrently(ctx, 10, func(int) Store { return s })
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := len(lsTree(t, bare)); got != 11 {
		t.Errorf("%d files, want 11", got)
	}
	if n := commits(t, bare); n != 11 {
		t.Errorf("%d commits, want 11 (seed + one per Apply)", n)
	}
	if lost := repoOf(s).lostRaces; lost != 0 {
		t.Errorf("%d lost races within one process: its writes should take turns", lost)
	}
}

// TestGitConcurrentProcesses: two pools are two provider processes writing to one repository.
// Their pushes race; the losers apply their change again on the winner's commit.
func TestGitConcurrentProcesses(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	pools := []*Pool{NewPool(), NewPool()}
	stores := []Store{fileStore(t, pools[0], bare), fileStore(t, pools[1], bare)}
	errs := applyConcurrently(ctx, 20, func(i int) Store { return stores[i%2] })
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := len(lsTree(t, bare)); got != 21 {
		t.Errorf("%d files, want 21: a write was lost", got)
	}
	if n := commits(t, bare); n != 21 {
		t.Errorf("%d commits, want 21 (seed + one per Apply)", n)
	}
	t.Logf("pushes retried after losing a race: %d and %d", repoOf(stores[0]).lostRaces, repoOf(stores[1]).lostRaces)
}

// applyConcurrently runs n Applies at once, each writing its own file.
func applyConcurrently(ctx context.Context, n int, store func(i int) Store) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = store(i).Apply(ctx, Change{Message: fmt.Sprintf("Update from: destination/w%02d", i),
				Put: map[string][]byte{fmt.Sprintf("w%02d/kratix-canary.yaml", i): []byte("x\n")}})
		}()
	}
	wg.Wait()
	return errs
}

// TestGitServerRefusesStalePush: the server itself refuses the update ("failed to update ref")
// because another push landed after it advertised the tip. The change is applied again on top.
func TestGitServerRefusesStalePush(t *testing.T) {
	bare := bareRepo(t, true)
	installHook(t, bare, "pre-receive", sneakyWriterHook(true))
	s := fileStore(t, NewPool(), bare)
	res, err := s.Apply(context.Background(), Change{Message: "Update from: mine", Put: map[string][]byte{"mine.yaml": []byte("m\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := subjects(t, bare); !reflect.DeepEqual(got, []string{"Update from: mine", "sneaky", "other: README.md"}) {
		t.Errorf("history = %q", got)
	}
	if !reflect.DeepEqual(res.Written, []string{"mine.yaml"}) || len(lsTree(t, bare)) != 3 {
		t.Errorf("result %+v, files %v", res, lsTree(t, bare))
	}
	if lost := repoOf(s).lostRaces; lost != 1 {
		t.Errorf("%d lost races, want 1", lost)
	}
}

// TestGitRetriesUntilTheDeadline: another writer pushes during every push of ours, so each one
// loses. The store keeps trying, with backoff, until the operation's deadline (not a fixed
// count), and its error tells how many races it lost and whose commits won them.
//
// The deadline passes when the other writer has won enough races, not after a fixed time: on a
// loaded machine one race (a clone, a commit and a push in the hook) can take seconds, and a
// deadline in seconds would end the test after one race. Nothing here depends on speed.
func TestGitRetriesUntilTheDeadline(t *testing.T) {
	bare := bareRepo(t, true)
	// Each push of ours runs the hook once; the hook notes each of its commits once pushed.
	installHook(t, bare, "pre-receive", sneakyWriterHook(false)+"echo pushed >> sneaky-pushes\n")
	s := fileStore(t, NewPool(), bare)
	const races = 3
	ctx := newEventDeadline()
	go func() {
		// The hook's commit number races+1 is pushed during our push number races+1, which is
		// only made after the store has counted the races before it as lost. Expiring once that
		// commit is in (not during the hook) leaves no hook running when the test ends.
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(filepath.Join(bare, "sneaky-pushes")); strings.Count(string(b), "pushed") > races {
				ctx.expire()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err := s.Apply(ctx, Change{Message: "Update from: mine", Put: map[string][]byte{"mine.yaml": []byte("m\n")}})
	t.Logf("gave up: %v", err)
	if ctx.Err() == nil {
		ctx.expire()
		t.Fatalf("Apply returned before its deadline: %v", err)
	}
	// The deadline ends the retries between two attempts (a conflict) or during one (a timeout).
	if k := kindOf(err); k != KindConflict && k != KindTimeout {
		t.Fatalf("Apply = %v, want kind %q or %q", err, KindConflict, KindTimeout)
	}
	lost := repoOf(s).lostRaces
	if lost < races {
		t.Errorf("lost %d races, want at least %d: the store gave up before its deadline", lost, races)
	}
	msg := err.Error()
	// time.Duration's text: "850ms", "3.42s", "1m2.5s".
	if n := len(regexp.MustCompile(fmt.Sprintf(`lost %d races in [0-9][0-9.hms]*`, lost)).FindAllString(msg, -1)); n != 1 {
		t.Errorf("the error counts the %d lost races %d times, want once: %s", lost, n, msg)
	}
	if !regexp.MustCompile(`the branch moved under commits by sneaky <s@example.com> "sneaky" \(and [0-9]+ more\)`).MatchString(msg) {
		t.Errorf("the error does not name the winners of the races: %s", msg)
	}
	// Every sneaky commit is kept (nothing forced) and the refused change is not written.
	if n := commits(t, bare); n < 1+lost {
		t.Errorf("%d commits, want the seed and at least one per lost race (%d)", n, lost)
	}
	if _, ok := show(t, bare, "mine.yaml"); ok {
		t.Error("the refused change was written")
	}
}

// eventDeadline is a context whose deadline passes when the test calls expire rather than at a
// time: Deadline reports a time far ahead, so the store plans to retry until then, and expire
// ends it with context.DeadlineExceeded, as the deadline's timer would. Tests that need "the
// deadline passed after this happened" use it to hold however slow the machine is.
type eventDeadline struct {
	context.Context // Background, for Value
	at              time.Time
	done            chan struct{}
	once            sync.Once
}

func newEventDeadline() *eventDeadline {
	return &eventDeadline{Context: context.Background(), at: time.Now().Add(time.Hour), done: make(chan struct{})}
}

func (c *eventDeadline) Deadline() (time.Time, bool) { return c.at, true }
func (c *eventDeadline) Done() <-chan struct{}       { return c.done }
func (c *eventDeadline) expire()                     { c.once.Do(func() { close(c.done) }) }

func (c *eventDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestGitHookRejection(t *testing.T) {
	bare := bareRepo(t, true)
	installHook(t, bare, "pre-receive", `echo run >> hook-runs
echo "error: writes to main need a review (policy P-7)" >&2
exit 1
`)
	s := fileStore(t, NewPool(), bare)
	_, err := s.Apply(context.Background(), Change{Message: "Update from: mine", Put: map[string][]byte{"mine.yaml": []byte("m\n")}})
	if kindOf(err) != KindRejected || !strings.Contains(err.Error(), "policy P-7") {
		t.Fatalf("Apply = %v, want kind %q quoting the hook", err, KindRejected)
	}
	runs, _ := os.ReadFile(filepath.Join(bare, "hook-runs"))
	if n := strings.Count(string(runs), "run"); n != 1 {
		t.Errorf("the hook ran %d times: a refusal by the server must not be retried", n)
	}
	if commits(t, bare) != 1 {
		t.Error("something was written")
	}
	t.Logf("error: %v", err)
}

func TestGitEmptyRepositoryAndMissingBranch(t *testing.T) {
	ctx := context.Background()
	empty := bareRepo(t, false)
	s := fileStore(t, NewPool(), empty)
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check on an empty repository: %v", err)
	}
	if res, err := s.Apply(ctx, Change{Message: "Delete from: x", Delete: []string{"x/"}}); err != nil || res.Changed() {
		t.Fatalf("a delete on an empty repository gave %+v, %v", res, err)
	}
	if _, err := runGitCLI("", "--git-dir", empty, "rev-parse", "--verify", "main"); err == nil {
		t.Fatal("a change that deletes nothing created the branch")
	}
	if h, err := s.List(ctx, ""); err != nil || len(h) != 0 {
		t.Errorf("List of an empty repository = %v, %v", h, err)
	}
	res, err := s.Apply(ctx, Change{Message: "Update from: first", Put: map[string][]byte{"a.yaml": []byte("a\n")}})
	if err != nil {
		t.Fatalf("first Apply on an empty repository: %v", err)
	}
	if commits(t, empty) != 1 || res.Revision != gitCmd(t, "", "--git-dir", empty, "rev-parse", "main") {
		t.Error("the first Apply did not create main with one root commit")
	}
	if _, err := s.Apply(ctx, Change{Message: "Update from: second", Put: map[string][]byte{"b.yaml": []byte("b\n")}}); err != nil {
		t.Fatal(err)
	}
	if commits(t, empty) != 2 {
		t.Error("the second Apply did not build on the first")
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
	if _, err := other.Hashes(ctx, []string{"a"}); kindOf(err) != KindMissingBranch {
		t.Errorf("Hashes on a missing branch: %v", err)
	}
	if got := gitCmd(t, "", "--git-dir", seeded, "branch", "--list"); got != "* main" && got != "main" {
		t.Errorf("branches = %q: a branch was created", got)
	}
}

func TestGitMissingRepository(t *testing.T) {
	s := fileStore(t, NewPool(), filepath.Join(t.TempDir(), "nope.git"))
	if err := s.Check(context.Background()); kindOf(err) != KindMissingRepo {
		t.Errorf("Check = %v, want kind %q", err, KindMissingRepo)
	}
	if _, err := s.Apply(context.Background(), Change{Put: map[string][]byte{"a": nil}}); kindOf(err) != KindMissingRepo {
		t.Errorf("Apply = %v, want kind %q", err, KindMissingRepo)
	}
}

func TestGitReads(t *testing.T) {
	ctx := context.Background()
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	if _, err := s.Apply(ctx, Change{Message: "w", Put: map[string][]byte{"a/x.yaml": []byte("x"), "a/b/y.yaml": []byte("y"), "ab.yaml": []byte("z")}}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Hashes(ctx, []string{"a/x.yaml", "a/missing.yaml", "a"})
	if err != nil || !reflect.DeepEqual(h, map[string]string{"a/x.yaml": md5Hex([]byte("x"))}) {
		t.Errorf("Hashes = %v, %v", h, err)
	}
	pushFile(t, bare, "a/x.yaml", "edited")
	if h, _ := s.Hashes(ctx, []string{"a/x.yaml"}); h["a/x.yaml"] != md5Hex([]byte("edited")) {
		t.Error("Hashes did not see an edit pushed by someone else")
	}
	l, err := s.List(ctx, "a/")
	want := map[string]string{"a/x.yaml": md5Hex([]byte("edited")), "a/b/y.yaml": md5Hex([]byte("y"))}
	if err != nil || !reflect.DeepEqual(l, want) {
		t.Errorf("List(a/) = %v, %v; want %v", l, err, want)
	}
	if l, err := s.List(ctx, ""); err != nil || len(l) != 4 {
		t.Errorf("List() = %v, %v; want 4 files", l, err)
	}
	if b, err := s.Read(ctx, "a/b/y.yaml"); err != nil || string(b) != "y" {
		t.Errorf("Read = %q, %v", b, err)
	}
	pushFiles(t, bare, "other: rm", map[string]string{"c.yaml": "c"}, nil)
	gitCmd(t, "", "--git-dir", bare, "update-ref", "refs/heads/main", "main~1") // a force-push elsewhere
	if _, err := s.Read(ctx, "c.yaml"); !IsNotFound(err) {
		t.Errorf("Read of a file whose commit was dropped elsewhere: %v", err)
	}
	for _, p := range []string{"nope.yaml", "a"} {
		if _, err := s.Read(ctx, p); !IsNotFound(err) {
			t.Errorf("Read(%q): %v, want not found", p, err)
		}
	}
	for _, p := range []string{"../x", "/a/x.yaml"} {
		if _, err := s.Read(ctx, p); kindOf(err) != KindConfig {
			t.Errorf("Read(%q): %v, want kind %q", p, err, KindConfig)
		}
		if _, err := s.List(ctx, p); kindOf(err) != KindConfig {
			t.Errorf("List(%q): %v, want kind %q", p, err, KindConfig)
		}
	}
}

func TestGitCancelled(t *testing.T) {
	bare := bareRepo(t, true)
	s := fileStore(t, NewPool(), bare)
	change := Change{Message: "Update from: x", Put: map[string][]byte{"x.yaml": []byte("x")}}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Apply(ctx, change); err == nil {
		t.Error("Apply with a cancelled context succeeded")
	}

	// An operation queued behind another gives up when its context ends.
	r := repoOf(s)
	if err := r.lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Apply(ctx, change)
	r.unlock()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Apply queued past its deadline = %v", err)
	}
	if commits(t, bare) != 1 {
		t.Error("a cancelled Apply wrote")
	}
}

func TestGitPoolSharesOneClonePerRepositoryAndBranch(t *testing.T) {
	bare := bareRepo(t, true)
	p := NewPool()
	for _, cfg := range []GitConfig{
		{URL: "file://" + bare},
		{URL: "file://" + bare + "/"},
		{URL: "file://" + strings.TrimSuffix(bare, ".git")},
		{URL: bare, Branch: "main", AuthorName: "someone else"},
		{URL: "file://" + bare, Branch: "other"},
	} {
		if _, err := p.Git(cfg); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.repos) != 2 {
		t.Errorf("%d clones, want 2 (one per branch): %v", len(p.repos), mapsKeys(p.repos))
	}
}

func mapsKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestGitRepoKey(t *testing.T) {
	same := [][]string{
		{"https://github.com/org/repo.git", "https://GitHub.com/org/repo", "https://token@github.com:443/org/repo.git/", "https://u:p@github.com/org/repo"},
		{"ssh://git@github.com/org/repo.git", "ssh://deploy@github.com:22/org/repo"},
		{"git@github.com:org/repo.git", "git@github.com:org/repo"},
	}
	for i, group := range same {
		for _, u := range group {
			if repoKey(u) != repoKey(group[0]) {
				t.Errorf("repoKey(%q) = %q, want %q as for %q", u, repoKey(u), repoKey(group[0]), group[0])
			}
			for j, other := range same {
				if j != i && repoKey(u) == repoKey(other[0]) {
					t.Errorf("repoKey(%q) equals repoKey(%q)", u, other[0])
				}
			}
		}
	}
}

// TestGitDescribeAndErrorsHideCredentials: a store's description shows where credentials were
// (***), never what they were; an SSH user name stays.
func TestGitDescribeAndErrorsHideCredentials(t *testing.T) {
	tests := []struct {
		name, url, password, want string
	}{
		{"password in the URL", "https://user:s3cret-pw@127.0.0.1:1/org/repo.git", "", "repository https://***@127.0.0.1:1/org/repo.git (branch main)"},
		{"token as the URL's user", "https://ghp_tokenAsUser123@127.0.0.1:1/org/repo.git", "", "repository https://***@127.0.0.1:1/org/repo.git (branch main)"},
		{"password in the config", "http://127.0.0.1:1/org/repo.git", "s3cret-pw", "repository http://127.0.0.1:1/org/repo.git (branch main)"},
		{"ssh keeps the user", "ssh://git:s3cret-pw@127.0.0.1:1/org/repo.git", "", "repository ssh://git:***@127.0.0.1:1/org/repo.git (branch main)"},
		{"scp-like", "git@github.com:org/repo.git", "", "repository git@github.com:org/repo.git (branch main)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewPool().Git(GitConfig{URL: tt.url, Password: tt.password, InsecureIgnoreHostKey: true, SSHPrivateKey: "not a key"})
			if err != nil {
				t.Fatal(err)
			}
			if s.Describe() != tt.want {
				t.Errorf("Describe() = %q, want %q", s.Describe(), tt.want)
			}
			if !strings.HasPrefix(tt.url, "http") {
				return
			}
			// A closed port refuses at once; the deadline only keeps a mistake from hanging, and is
			// long enough that a loaded machine does not turn the refusal into a timeout.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err = s.Apply(ctx, Change{Put: map[string][]byte{"a": nil}})
			if kindOf(err) != KindNetwork {
				t.Errorf("Apply to a closed port = %v, want kind %q", err, KindNetwork)
			}
			for _, secret := range []string{"s3cret-pw", "ghp_tokenAsUser123"} {
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows a credential: %v", err)
				}
			}
		})
	}
}
