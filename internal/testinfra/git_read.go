package testinfra

import (
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// The readers below use the git CLI on the bare repository, never go-git, so that a test reads
// back what the provider (which uses go-git) wrote through an independent implementation.
//
// A missing repository or branch is an error that does NOT match fs.ErrNotExist, so that only a
// missing file on an existing branch can satisfy a test asserting absence.

// ReadFile returns the content of path (slash-separated, from the repository root) at the tip of
// branch. If the branch has no such file the error satisfies errors.Is(err, fs.ErrNotExist).
func (g *GitServer) ReadFile(name, branch, path string) ([]byte, error) {
	repo, commit, err := g.branchTip(name, branch)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	// ls-tree prints the entry for exactly this path, or nothing: a clean way to tell "missing"
	// from other failures without parsing git's error messages.
	entry, err := runGit(repo, nil, "--literal-pathspecs", "ls-tree", "-z", commit, "--", path)
	if err != nil {
		return nil, fmt.Errorf("read %s from %s@%s: %w", path, name, branch, err)
	}
	if len(entry) == 0 {
		return nil, fmt.Errorf("read %s from %s@%s: %w", path, name, branch, fs.ErrNotExist)
	}
	// "<mode> SP <type> SP <object> TAB <path> NUL"
	fields := strings.Fields(string(entry[:bytes.IndexByte(entry, '\t')]))
	if len(fields) != 3 || fields[1] != "blob" {
		return nil, fmt.Errorf("read %s from %s@%s: not a file (ls-tree says %q)", path, name, branch, trimNL(entry))
	}
	content, err := runGit(repo, nil, "cat-file", "blob", fields[2])
	if err != nil {
		return nil, fmt.Errorf("read %s from %s@%s: %w", path, name, branch, err)
	}
	return content, nil
}

// ListFiles returns every file path at the tip of branch, recursively, in git's order (sorted).
func (g *GitServer) ListFiles(name, branch string) ([]string, error) {
	repo, commit, err := g.branchTip(name, branch)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	// -z: names come raw, not C-quoted, whatever characters they hold.
	out, err := runGit(repo, nil, "ls-tree", "-r", "-z", "--name-only", commit)
	if err != nil {
		return nil, fmt.Errorf("list files of %s@%s: %w", name, branch, err)
	}
	return splitNUL(out), nil
}

// CommitCount returns the number of commits reachable from branch.
func (g *GitServer) CommitCount(name, branch string) (int, error) {
	repo, commit, err := g.branchTip(name, branch)
	if err != nil {
		return 0, fmt.Errorf("count commits: %w", err)
	}
	out, err := runGit(repo, nil, "rev-list", "--count", commit)
	if err != nil {
		return 0, fmt.Errorf("count commits of %s@%s: %w", name, branch, err)
	}
	n, err := strconv.Atoi(trimNL(out))
	if err != nil {
		return 0, fmt.Errorf("count commits of %s@%s: unexpected rev-list output %q", name, branch, out)
	}
	return n, nil
}

// CommitMessages returns the subject line of every commit reachable from branch, newest first.
func (g *GitServer) CommitMessages(name, branch string) ([]string, error) {
	repo, commit, err := g.branchTip(name, branch)
	if err != nil {
		return nil, fmt.Errorf("read commit messages: %w", err)
	}
	out, err := runGit(repo, nil, "log", "-z", "--format=%s", commit)
	if err != nil {
		return nil, fmt.Errorf("read commit messages of %s@%s: %w", name, branch, err)
	}
	return splitNUL(out), nil
}

// branchTip returns the path of repository name and the commit at the tip of branch.
func (g *GitServer) branchTip(name, branch string) (repo, commit string, err error) {
	repo, err = g.existingRepo(name)
	if err != nil {
		return "", "", err
	}
	commit, err = resolveBranch(repo, branch)
	if err != nil {
		return "", "", err
	}
	return repo, commit, nil
}

// Commit is one commit as the git CLI reads it from the repository.
type Commit struct {
	Hash        string
	Parents     []string
	AuthorName  string
	AuthorEmail string
	Subject     string
}

// Log returns every commit reachable from branch, newest first, with its parents and author: a
// test can tell from it who wrote what, and that the history is linear.
func (g *GitServer) Log(name, branch string) ([]Commit, error) {
	repo, commit, err := g.branchTip(name, branch)
	if err != nil {
		return nil, fmt.Errorf("read the log: %w", err)
	}
	// Fields apart by a unit separator, commits by NUL: neither can be in a subject or a name.
	out, err := runGit(repo, nil, "log", "-z", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%s", commit)
	if err != nil {
		return nil, fmt.Errorf("read the log of %s@%s: %w", name, branch, err)
	}
	var commits []Commit
	for _, entry := range splitNUL(out) {
		f := strings.Split(entry, "\x1f")
		if len(f) != 5 {
			return nil, fmt.Errorf("read the log of %s@%s: unexpected entry %q", name, branch, entry)
		}
		commits = append(commits, Commit{Hash: f[0], Parents: strings.Fields(f[1]), AuthorName: f[2], AuthorEmail: f[3], Subject: f[4]})
	}
	return commits, nil
}

// LayoutCommitMessages is CommitMessages without the commits that change only paths under a
// folder called ignored (".kratix-registry/", at any depth): what a test of a GitOps layout reads
// as the provider's writes when its bookkeeping is checked elsewhere.
func (g *GitServer) LayoutCommitMessages(name, branch, ignored string) ([]string, error) {
	repo, commit, err := g.branchTip(name, branch)
	if err != nil {
		return nil, fmt.Errorf("read commit messages: %w", err)
	}
	out, err := runGit(repo, nil, "log", "-z", "--format=%H %s", commit)
	if err != nil {
		return nil, fmt.Errorf("read commit messages of %s@%s: %w", name, branch, err)
	}
	var messages []string
	for _, line := range splitNUL(out) {
		hash, subject, _ := strings.Cut(line, " ")
		paths, err := runGit(repo, nil, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", "-z", hash)
		if err != nil {
			return nil, fmt.Errorf("read the paths of commit %s: %w", hash, err)
		}
		changed := splitNUL(paths)
		layout := len(changed) == 0
		for _, p := range changed {
			if !strings.Contains("/"+p, "/"+ignored) {
				layout = true
			}
		}
		if layout {
			messages = append(messages, subject)
		}
	}
	return messages, nil
}
