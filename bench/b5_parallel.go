package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
)

// parallelSize is the B5 configuration: promises, each to every destination, all in one
// repository, applied with Terraform running `parallelism` resources at a time.
type parallelSize struct{ destinations, promises, parallelism int }

var (
	fullB5  = parallelSize{destinations: 20, promises: 50, parallelism: 10}
	quickB5 = parallelSize{destinations: 5, promises: 10, parallelism: 10}
)

// benchParallelGit is B5: many promises writing to one repository at once. The provider
// serialises them on its one clone, and the writes that queue while a push is in flight go out
// together in the next push (group commit), so every push must succeed (apply exits 0) and each
// promise must be exactly one commit; the notes give the pushes the server saw. The goal is at
// most 1.5x the fair floor. The floor is the apply of its fair floor (the same configuration as
// terraform_data resources carrying the same values) with the same parallelism; the second floor
// the apply of as many bare terraform_data resources. The notes also give the physical floor: the
// fair floor plus the git CLI's clone, commit and push of the same files.
func benchParallelGit(ctx context.Context, e *env, runs int, size parallelSize) ([]row, error) {
	puts, err := namespacePuts(size.promises, size.destinations)
	if err != nil {
		return nil, err
	}
	measured := &series{run: func(i int) (sample, error) {
		res, n, err := parallelGitRun(ctx, e, fmt.Sprintf("b5-%d", i), size)
		return sample{took: res.took, peakMiB: res.peakMiB, note: strconv.Itoa(n)}, err
	}}
	fair := &series{run: timed(func(i int) (time.Duration, error) {
		repo := fmt.Sprintf("b5-fair-%d", i) // named only: the floor writes to no store
		return e.fairFloorApply(ctx, repo, parallelConfig(e, repo, size), nil, "-parallelism="+strconv.Itoa(size.parallelism))
	})}
	bare := &series{run: timed(func(int) (time.Duration, error) { return parallelDataRun(ctx, e, size) })}
	raw := &series{run: timed(func(i int) (time.Duration, error) {
		return gitCLIFloorRun(ctx, e, fmt.Sprintf("b5-raw-%d", i), puts)
	})}
	if err := measure(runs, measured, fair, bare, raw); err != nil {
		return nil, err
	}
	r, rs := ratio(measured.median(), fair.median())
	_, rs2 := ratio(measured.median(), bare.median())
	physical := fair.median() + raw.median()
	resources := parallelConfig(e, "b5", size).resources()
	return []row{{
		scenario: fmt.Sprintf("B5 terraform apply -parallelism=%d: %d promises x %d destinations, one git repository (smart HTTP)", size.parallelism, size.promises, size.destinations),
		measured: fmtDuration(measured.median()),
		floor:    fmt.Sprintf("%s (fair: apply of %d terraform_data carrying the same values, same parallelism)", fmtDuration(fair.median()), resources),
		ratio:    rs,
		floor2:   fmt.Sprintf("%s (apply of %d bare terraform_data, same parallelism)", fmtDuration(bare.median()), resources),
		ratio2:   rs2,
		// Exit 0 and one commit per promise are checked every run (a miss fails the scenario);
		// the time is what met weighs.
		goal: "<= 1.5x fair floor; exit 0, 1 commit per promise", met: yesNo(r > 0 && r <= 1.5),
		notes: fmt.Sprintf("%d runs; apply exit 0 every run (no failed push); commits = 1 seed + %d, one per promise (init_workloads = false), %d files checked; pushes that moved the branch (server reflog) per run: %s for %d commits; physical floor (fair + raw store: git CLI clone, add, one commit and push of the same %d files) %s, ratio %s; provider peak RSS %.0f MiB; runs: %s / fair %s / bare %s / raw store %s",
			runs, size.promises, size.promises*size.destinations, measured.notes(), size.promises, len(puts), fmtDuration(physical), ratioText(measured.median(), physical), measured.peakMiB(), measured.times(), fair.times(), bare.times(), raw.times()),
	}}, nil
}

// namespacePuts are the files promises p-0, p-1, ... of smallNamespace write to every one of
// destinations destinations (B5, B7), laid out as the provider lays them out.
func namespacePuts(promises, destinations int) (map[string][]byte, error) {
	puts := map[string][]byte{}
	for i := range promises {
		docs, err := manifest.Parse(fmt.Appendf(nil, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-%d\n", i))
		if err != nil {
			return nil, err
		}
		files, err := dependencyPuts(fmt.Sprintf("p-%d", i), manifest.Canonical(docs), destinations)
		if err != nil {
			return nil, err
		}
		maps.Copy(puts, files)
	}
	return puts, nil
}

// parallelConfig is the B5 configuration writing to repository repo.
func parallelConfig(e *env, repo string, size parallelSize) kratixConfig {
	return kratixConfig{
		store:        e.gitRef(repo),
		destinations: size.destinations,
		promises:     []promiseSpec{{name: "p", count: size.promises, dependencies: smallNamespace}},
	}
}

// parallelGitRun applies the B5 configuration to a fresh repository and checks the history. It
// also returns how many pushes moved the branch, as the server's reflog counts them.
func parallelGitRun(ctx context.Context, e *env, repo string, size parallelSize) (tfResult, int, error) {
	if err := e.git.CreateRepo(repo, "main"); err != nil {
		return tfResult{}, 0, fmt.Errorf("creating repository %s: %w", repo, err)
	}
	bare := e.git.RepoPath(repo)
	// From now on, every ref update receive-pack makes adds a line to the branch's reflog.
	if out, err := exec.CommandContext(ctx, "git", "--git-dir", bare, "config", "core.logAllRefUpdates", "always").CombinedOutput(); err != nil {
		return tfResult{}, 0, fmt.Errorf("turning on the reflog of %s: %w: %s", repo, err, out)
	}
	cfg := parallelConfig(e, repo, size)
	ws, err := e.newWorkspace(repo, map[string][]byte{"main.tf": []byte(cfg.String())})
	if err != nil {
		return tfResult{}, 0, err
	}
	defer ws.remove()
	res, err := ws.apply(ctx, true, "-parallelism="+strconv.Itoa(size.parallelism))
	if err != nil {
		return res, 0, err
	}
	log, err := os.ReadFile(filepath.Join(bare, "logs", "refs", "heads", "main"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, 0, fmt.Errorf("reading the reflog of %s: %w", repo, err)
	}
	pushes := strings.Count(string(log), "\n")
	files, err := e.git.ListFiles(repo, "main")
	if err != nil {
		return res, pushes, err
	}
	if want := size.promises*size.destinations + 1; len(files) != want {
		return res, pushes, fmt.Errorf("repository %s holds %d files, want %d (with README.md)", repo, len(files), want)
	}
	return res, pushes, e.expectCommits(repo, 1+size.promises)
}

// parallelDataRun applies the bare terraform_data floor in a fresh workspace.
func parallelDataRun(ctx context.Context, e *env, size parallelSize) (time.Duration, error) {
	ws, err := e.newWorkspace("b5-data", map[string][]byte{"main.tf": []byte(bareDataConfig(size.destinations, size.promises))})
	if err != nil {
		return 0, err
	}
	defer ws.remove()
	res, err := ws.apply(ctx, false, "-parallelism="+strconv.Itoa(size.parallelism))
	return res.took, err
}
