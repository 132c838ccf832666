package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// gitCommandTimeout bounds one git CLI command of the floor.
const gitCommandTimeout = 2 * time.Minute

// benchGit is B3: the same 100-destination write to a git repository over smart HTTP,
// through the provider's store against the git CLI, then end to end through terraform apply.
func benchGit(ctx context.Context, e *env, opts options) ([]row, error) {
	puts, err := dependencyPuts("pipelines", e.depsCanonical, b2Destinations)
	if err != nil {
		return nil, err
	}
	store, err := benchGitStore(ctx, e, opts.runs, puts)
	if err != nil {
		return nil, err
	}
	apply, err := benchGitApply(ctx, e, opts.e2eRuns, puts)
	if err != nil {
		return []row{store}, err
	}
	return append([]row{store}, apply...), nil
}

func benchGitStore(ctx context.Context, e *env, runs int, puts map[string][]byte) (row, error) {
	// One unmeasured round first, as in B2: the first git processes and pack writes of the run
	// would otherwise land on one side only.
	if _, err := gitStoreRun(ctx, e, "b3-store-warm", puts); err != nil {
		return row{}, err
	}
	if _, err := gitCLIFloorRun(ctx, e, "b3-floor-warm", puts); err != nil {
		return row{}, err
	}
	measured := &series{run: timed(func(i int) (time.Duration, error) {
		return gitStoreRun(ctx, e, fmt.Sprintf("b3-store-%d", i), puts)
	})}
	floor := &series{run: timed(func(i int) (time.Duration, error) {
		return gitCLIFloorRun(ctx, e, fmt.Sprintf("b3-floor-%d", i), puts)
	})}
	if err := measure(runs, measured, floor); err != nil {
		return row{}, err
	}
	r, rs := ratio(measured.median(), floor.median())
	return row{
		scenario: fmt.Sprintf("B3 store: %s to %d destinations on git (smart HTTP), Pool.Git(...).Apply, fresh repository", e.depsName, b2Destinations),
		measured: fmtDuration(measured.median()),
		floor:    fmtDuration(floor.median()) + " (git clone, add -A, commit, push)",
		ratio:    rs, goal: "<= 1.5x", met: yesNo(r <= 1.5),
		notes: fmt.Sprintf("exactly 1 commit on the seed in every run, both sides (checked with git rev-list); runs: store %s / floor %s",
			measured.times(), floor.times()),
	}, nil
}

// gitStoreRun writes puts as one Change through a fresh Pool into a fresh repository: the
// timing includes the store's first fetch, as a fresh provider process pays it.
func gitStoreRun(ctx context.Context, e *env, repo string, puts map[string][]byte) (time.Duration, error) {
	if err := e.git.CreateRepo(repo, "main"); err != nil {
		return 0, fmt.Errorf("creating repository %s: %w", repo, err)
	}
	store, err := statestore.NewPool().Git(statestore.GitConfig{
		URL: e.git.HTTPURL(repo), Username: e.git.Username, Password: e.git.Password,
	})
	if err != nil {
		return 0, fmt.Errorf("opening repository %s: %w", repo, err)
	}
	ctx, cancel := context.WithTimeout(ctx, storeOpTimeout)
	defer cancel()
	start := time.Now()
	res, err := store.Apply(ctx, statestore.Change{Message: "Update from: promise/pipelines", Put: puts})
	took := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("store Apply to repository %s: %w", repo, err)
	}
	if len(res.Written) != len(puts) || res.Revision == "" {
		return 0, fmt.Errorf("store Apply to repository %s wrote %d files (revision %q), want %d", repo, len(res.Written), res.Revision, len(puts))
	}
	return took, e.expectWritten(ctx, repo, e.gitRef(repo), len(puts))
}

// gitCLIFloorRun is the floor: what a script with the git CLI does for the same result. It
// clones the fresh repository, writes the files, and adds, commits and pushes them in one commit.
func gitCLIFloorRun(ctx context.Context, e *env, repo string, puts map[string][]byte) (time.Duration, error) {
	if err := e.git.CreateRepo(repo, "main"); err != nil {
		return 0, fmt.Errorf("creating repository %s: %w", repo, err)
	}
	took, err := gitCLICommit(ctx, e, repo, puts)
	if err != nil {
		return 0, err
	}
	return took, e.expectWritten(ctx, repo, e.gitRef(repo), len(puts))
}

// gitCLICommit times a clone of repo (with extra clone flags), the files written, added,
// committed and pushed in one commit with the git CLI.
func gitCLICommit(ctx context.Context, e *env, repo string, puts map[string][]byte, cloneFlags ...string) (time.Duration, error) {
	work := filepath.Join(e.dir, repo)
	defer func() { _ = os.RemoveAll(work) }()
	remote, err := url.Parse(e.git.HTTPURL(repo))
	if err != nil {
		return 0, fmt.Errorf("repository URL: %w", err)
	}
	remote.User = url.UserPassword(e.git.Username, e.git.Password)

	start := time.Now()
	clone := append(append([]string{"clone", "--quiet"}, cloneFlags...), remote.String(), work)
	if err := gitCLI(ctx, "", clone...); err != nil {
		return 0, err
	}
	if err := writeFiles(work, puts); err != nil {
		return 0, err
	}
	for _, args := range [][]string{
		{"add", "-A"},
		{"commit", "--quiet", "-m", "Update from: promise/pipelines"},
		{"push", "--quiet", "origin", "main"},
	} {
		if err := gitCLI(ctx, work, args...); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

func writeFiles(root string, files map[string][]byte) error {
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("floor: creating the folder of %s: %w", p, err)
		}
		if err := os.WriteFile(full, content, 0o644); err != nil {
			return fmt.Errorf("floor: writing %s: %w", p, err)
		}
	}
	return nil
}

// gitCLI runs git with no system or user configuration (nothing of this machine's setup may
// change the floor) and a fixed identity.
func gitCLI(ctx context.Context, dir string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, gitCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@kratix.invalid",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@kratix.invalid",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %w\n%s", args[0], err, out)
	}
	return nil
}

// benchGitApply is B3 end to end: terraform apply of the promise to 100 destinations in a fresh
// repository, against its physical floor (the git CLI's clone, commit and push of the same files)
// and, with a selector matching nothing, against its fair floor.
func benchGitApply(ctx context.Context, e *env, runs int, puts map[string][]byte) ([]row, error) {
	raw := func(repo string) (time.Duration, error) { return gitCLIFloorRun(ctx, e, repo, puts) }
	return benchDepsApply(ctx, e, runs, "b3", e.gitRef, raw,
		fmt.Sprintf("B3 e2e: terraform apply, a promise of %s to %d destinations on git (init_workloads = false)", e.depsName, b2Destinations),
		"git CLI clone, add -A, commit and push of the same files",
		fmt.Sprintf("exactly 1 commit per apply (0 when nothing matches), %d files checked", b2Destinations))
}
