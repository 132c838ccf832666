package main

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// b8Repo is the repository of B8: 20,000 files of other teams (about 3 KB of YAML each) under
// teams/, added over 1,000 commits, outside the folders the provider writes.
var b8Repo = testinfra.ForeignRepo{Files: 20000, Commits: 1000, FileSize: 3000}

// b8MaxRuns bounds B8's runs: each builds a repository of 20,000 files first.
const b8MaxRuns = 3

// b8PeakGoalMiB is the goal for the provider's peak memory.
const b8PeakGoalMiB = 200

// benchLargeRepo is B8: terraform apply of one destination and one promise with small
// dependencies into a repository that other teams fill. The provider must read what it owns
// only: the measured figures are the apply (the first write) against its fair floor, the
// provider's peak RSS against the goal, and the bytes the server sent to it.
func benchLargeRepo(ctx context.Context, e *env, runs int) ([]row, error) {
	runs = min(runs, b8MaxRuns)
	puts, err := largeRepoPuts()
	if err != nil {
		return nil, err
	}
	measured := &series{run: func(i int) (sample, error) {
		res, n, err := largeRepoRun(ctx, e, fmt.Sprintf("b8-%d", i))
		return sample{took: res.took, peakMiB: res.peakMiB, note: fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))}, err
	}}
	fair := &series{run: timed(func(i int) (time.Duration, error) {
		repo := fmt.Sprintf("b8-fair-%d", i) // named only: the floor writes to no store
		return e.fairFloorApply(ctx, repo, largeRepoConfig(e, repo), nil)
	})}
	raw := &series{run: timed(func(i int) (time.Duration, error) {
		return largeRepoCLIRun(ctx, e, fmt.Sprintf("b8-raw-%d", i), puts)
	})}
	if err := measure(runs, measured, fair, raw); err != nil {
		return nil, err
	}
	peak := measured.peakMiB()
	physical := fair.median() + raw.median()
	r, rs := ratio(measured.median(), physical)
	cfg := largeRepoConfig(e, "b8")
	return []row{{
		scenario: fmt.Sprintf("B8 terraform apply: 1 destination + 1 promise (small dependencies) into a git repository holding %d files of other teams and %d commits (smart HTTP)",
			b8Repo.Files, b8Repo.Commits),
		measured: fmtDuration(measured.median()),
		floor:    fmt.Sprintf("%s (physical: fair %s + raw store %s)", fmtDuration(physical), fmtDuration(fair.median()), fmtDuration(raw.median())),
		ratio:    rs,
		floor2:   fmt.Sprintf("%s (fair: apply of %d terraform_data carrying the same values)", fmtDuration(fair.median()), cfg.resources()),
		ratio2:   ratioText(measured.median(), fair.median()),
		goal:     fmt.Sprintf("<= 1.3x physical floor; provider peak RSS <= %d MiB", b8PeakGoalMiB),
		met:      yesNo(r > 0 && r <= 1.3 && peak <= b8PeakGoalMiB),
		notes: fmt.Sprintf("%d runs; provider peak RSS %.0f MiB; fetched from the server per run (upload-pack answers): %s; checked with the git CLI: the %d files of other teams unchanged, ours present, %d+ commits; raw store: git CLI shallow clone (--depth 1), add, commit and push of the same %d files into a fresh copy of the same repository; runs: %s / fair %s / raw store %s",
			runs, peak, measured.notes(), b8Repo.Files, b8Repo.Commits+1, len(puts), measured.times(), fair.times(), raw.times()),
	}}, nil
}

// largeRepoConfig is the B8 configuration writing to repository repo.
func largeRepoConfig(e *env, repo string) kratixConfig {
	return kratixConfig{
		store:         e.gitRef(repo),
		destinations:  1,
		initWorkloads: true,
		promises:      []promiseSpec{{name: "p", dependencies: `"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"`}},
	}
}

// largeRepoPuts are the files B8's apply writes: the promise's dependencies and the destination's
// two canaries, laid out as the provider lays them out.
func largeRepoPuts() (map[string][]byte, error) {
	docs, err := manifest.Parse([]byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"))
	if err != nil {
		return nil, err
	}
	puts, err := dependencyPuts("p", manifest.Canonical(docs), 1)
	if err != nil {
		return nil, err
	}
	maps.Copy(puts, layout.Canaries(layout.ModeNestedByMetadata, destinationName(0)))
	return puts, nil
}

// largeRepoCLIRun is B8's raw store floor: in a fresh copy of the repository of other teams, a
// shallow clone with the git CLI, the same files written, added, committed and pushed.
func largeRepoCLIRun(ctx context.Context, e *env, repo string, puts map[string][]byte) (time.Duration, error) {
	if err := e.git.CreateForeignRepo(repo, "main", b8Repo); err != nil {
		return 0, err
	}
	took, err := gitCLICommit(ctx, e, repo, puts, "--depth", "1", "--single-branch")
	if err != nil {
		return 0, err
	}
	files, err := e.git.ForeignFilesIntact(repo, "main", b8Repo)
	if err != nil {
		return 0, err
	}
	if want := b8Repo.Files + len(puts); files != want {
		return 0, fmt.Errorf("raw store floor: repository %s holds %d files, want %d", repo, files, want)
	}
	return took, nil
}

// largeRepoRun builds the repository of other teams, applies the B8 configuration to it with the
// provider's memory watched, and checks the result with the git CLI. It also returns how many
// bytes the server sent in answer to the provider's fetches.
func largeRepoRun(ctx context.Context, e *env, repo string) (tfResult, int64, error) {
	if err := e.git.CreateForeignRepo(repo, "main", b8Repo); err != nil {
		return tfResult{}, 0, err
	}
	cfg := largeRepoConfig(e, repo)
	ws, err := e.newWorkspace(repo, map[string][]byte{"main.tf": []byte(cfg.String())})
	if err != nil {
		return tfResult{}, 0, err
	}
	defer ws.remove()
	res, err := ws.apply(ctx, true)
	fetched := e.git.FetchedBytes(repo)
	if err != nil {
		return res, fetched, err
	}
	files, err := e.git.ForeignFilesIntact(repo, "main", b8Repo)
	if err != nil {
		return res, fetched, err
	}
	// Ours: the destination's two canaries and the promise's dependencies file.
	if want := b8Repo.Files + 3; files != want {
		return res, fetched, fmt.Errorf("repository %s holds %d files, want %d (the other teams' and 3 of ours)", repo, files, want)
	}
	n, err := e.git.CommitCount(repo, "main")
	if err != nil {
		return res, fetched, err
	}
	if n <= b8Repo.Commits {
		return res, fetched, fmt.Errorf("repository %s has %d commits, want the %d of other teams and ours", repo, n, b8Repo.Commits)
	}
	return res, fetched, nil
}
