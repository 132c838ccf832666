package testinfra

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PushFile acts as another client of the repository: it clones branch (over the file system,
// with the git CLI), writes content to path (slash-separated, parents created), commits with
// message and pushes. A missing branch is created. The commit is made even if content is
// unchanged, so each call adds exactly one commit. A push that is not a fast-forward (someone
// pushed in between) fails, as it would for any client.
func (g *GitServer) PushFile(name, branch, path string, content []byte, message string) error {
	if err := checkFilePath(path); err != nil {
		return fmt.Errorf("push to %s@%s: %w", name, branch, err)
	}
	return g.pushChange(name, branch, message, func(work string) error {
		file := filepath.Join(work, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, content, 0o644); err != nil {
			return err
		}
		_, err := runGit(work, nil, "--literal-pathspecs", "add", "--", path)
		return err
	})
}

// DeleteFile is PushFile's counterpart: it removes path from branch in a new pushed commit.
// The path must exist.
func (g *GitServer) DeleteFile(name, branch, path, message string) error {
	if err := checkFilePath(path); err != nil {
		return fmt.Errorf("push to %s@%s: %w", name, branch, err)
	}
	return g.pushChange(name, branch, message, func(work string) error {
		_, err := runGit(work, nil, "--literal-pathspecs", "rm", "--quiet", "--", path)
		return err
	})
}

// pushChange clones branch of repository name into a scratch folder (or starts a fresh history
// if the branch does not exist), lets change edit and stage files there, then commits and
// pushes back.
func (g *GitServer) pushChange(name, branch, message string, change func(work string) error) error {
	what := fmt.Sprintf("push to %s@%s", name, branch)
	repo, err := g.existingRepo(name)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	work, err := os.MkdirTemp(g.dir, "push-")
	if err != nil {
		return fmt.Errorf("%s: create scratch folder: %w", what, err)
	}
	defer func() { _ = os.RemoveAll(work) }()

	_, exists, err := lookupBranch(repo, branch)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if exists {
		_, err = runGit("", nil, "clone", "--quiet", "--no-tags", "--single-branch", "--branch", branch, repo, work)
	} else {
		_, err = runGit("", nil, "init", "--quiet", "--initial-branch="+branch, work)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}

	if err := change(work); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := runGit(work, nil, "commit", "--quiet", "--allow-empty", "-m", message); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := runGit(work, nil, "push", "--quiet", repo, "HEAD:refs/heads/"+branch); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// checkFilePath rejects paths that would leave the scratch clone (or land in its .git folder).
func checkFilePath(path string) error {
	local := filepath.FromSlash(path)
	if !filepath.IsLocal(local) || strings.SplitN(filepath.ToSlash(filepath.Clean(local)), "/", 2)[0] == ".git" {
		return fmt.Errorf("file path %q: must be relative, inside the repository and outside .git", path)
	}
	return nil
}
