package testinfra

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// CreateRepo creates bare repository name with one commit on branch, adding README.md ("seed\n").
func (g *GitServer) CreateRepo(name, branch string) error {
	path, err := g.initBare(name, branch)
	if err != nil {
		return err
	}
	// Build the seed commit with plumbing straight into the bare repository: no scratch clone.
	blob, err := runGit(path, []byte("seed\n"), "hash-object", "-w", "--stdin")
	if err != nil {
		return fmt.Errorf("create repository %q: %w", name, err)
	}
	tree, err := runGit(path, fmt.Appendf(nil, "100644 blob %s\tREADME.md\n", trimNL(blob)), "mktree")
	if err != nil {
		return fmt.Errorf("create repository %q: %w", name, err)
	}
	commit, err := runGit(path, nil, "commit-tree", trimNL(tree), "-m", "Initial commit")
	if err != nil {
		return fmt.Errorf("create repository %q: %w", name, err)
	}
	if _, err := runGit(path, nil, "update-ref", "refs/heads/"+branch, trimNL(commit)); err != nil {
		return fmt.Errorf("create repository %q: %w", name, err)
	}
	return nil
}

// CreateEmptyRepo creates bare repository name without any commit. Its HEAD names branch main,
// whatever the machine's init.defaultBranch, so that clones behave the same everywhere.
func (g *GitServer) CreateEmptyRepo(name string) error {
	_, err := g.initBare(name, "main")
	return err
}

func (g *GitServer) initBare(name, branch string) (string, error) {
	if err := checkRepoName(name); err != nil {
		return "", err
	}
	path := g.RepoPath(name)
	if _, err := os.Stat(path); err == nil {
		return "", fmt.Errorf("create repository %q: %s already exists", name, path)
	}
	if _, err := runGit("", nil, "init", "--quiet", "--bare", "--initial-branch="+branch, path); err != nil {
		return "", fmt.Errorf("create repository %q: %w", name, err)
	}
	// http-backend allows pushes from authenticated users anyway (REMOTE_USER is set); the
	// explicit setting keeps pushes working even if that ever changes.
	if _, err := runGit(path, nil, "config", "http.receivepack", "true"); err != nil {
		return "", fmt.Errorf("create repository %q: %w", name, err)
	}
	// Partial clones, as GitHub, GitLab and Gitea serve them: a fetch may leave blobs out
	// (filter blob:none) and ask for them later by hash.
	for _, kv := range [][2]string{{"uploadpack.allowFilter", "true"}, {"uploadpack.allowReachableSHA1InWant", "true"}} {
		if _, err := runGit(path, nil, "config", kv[0], kv[1]); err != nil {
			return "", fmt.Errorf("create repository %q: %w", name, err)
		}
	}
	return path, nil
}

// checkRepoName rejects names that would put a repository outside Root.
func checkRepoName(name string) error {
	if name == "" || !filepath.IsLocal(name) {
		return fmt.Errorf("repository name %q: must be a non-empty relative path inside the server root", name)
	}
	return nil
}

// existingRepo returns the path of repository name, or an error if there is no such repository.
// The error deliberately does not match fs.ErrNotExist: a typo in a repository name must not
// pass for "the file is absent" in ReadFile.
func (g *GitServer) existingRepo(name string) (string, error) {
	if err := checkRepoName(name); err != nil {
		return "", err
	}
	path := g.RepoPath(name)
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		return "", fmt.Errorf("repository %q: no bare repository at %s", name, path)
	}
	return path, nil
}

// resolveBranch returns the commit at the tip of branch in the bare repository at path.
func resolveBranch(path, branch string) (string, error) {
	commit, found, err := lookupBranch(path, branch)
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("branch %q not found in %s", branch, path)
	}
	return commit, nil
}

// lookupBranch returns the commit at the tip of branch, and whether the branch exists.
func lookupBranch(path, branch string) (commit string, found bool, err error) {
	out, err := runGit(path, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}")
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return trimNL(out), true, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 1: // --quiet: 1 means "no such ref"
		return "", false, nil
	default:
		return "", false, err
	}
}

// SetHook installs script as the server-side hook called hookName ("pre-receive", "update") of
// repository name, replacing any hook of that name; an empty script removes it. The script is
// run as an executable file, so it starts with its own "#!" line. Every transport (HTTP, HTTPS
// and SSH) runs it, since they all call git-receive-pack on the same bare repository.
func (g *GitServer) SetHook(name, hookName, script string) error {
	path, err := g.existingRepo(name)
	if err != nil {
		return err
	}
	if hookName == "" || !filepath.IsLocal(hookName) || filepath.Base(hookName) != hookName {
		return fmt.Errorf("hook name %q: must be a plain file name such as pre-receive", hookName)
	}
	hook := filepath.Join(path, "hooks", hookName)
	if script == "" {
		if err := os.Remove(hook); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove hook %s of repository %q: %w", hookName, name, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		return fmt.Errorf("install hook %s in repository %q: %w", hookName, name, err)
	}
	// Written aside and renamed, so that a push running at the same time never executes a
	// half-written script.
	tmp := hook + ".tmp"
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		return fmt.Errorf("install hook %s in repository %q: %w", hookName, name, err)
	}
	if err := os.Rename(tmp, hook); err != nil {
		return fmt.Errorf("install hook %s in repository %q: %w", hookName, name, err)
	}
	return nil
}
