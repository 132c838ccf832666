package testinfra

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func startGitServer(t *testing.T) *GitServer {
	t.Helper()
	g, err := StartGitServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	return g
}

// gitCLI runs the git CLI as an independent client would: isolated from the machine's
// configuration, with extra environment variables, and returns its combined output.
func gitCLI(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, gitConfigArgs...), args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv(env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGitCLI(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := gitCLI(t, dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// commitFile writes a file in the work tree at dir and commits it.
func commitFile(t *testing.T, dir, name string, content []byte, message string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
		t.Fatal(err)
	}
	mustGitCLI(t, dir, nil, "add", name)
	mustGitCLI(t, dir, nil, "commit", "-q", "-m", message)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func assertCommitCount(t *testing.T, g *GitServer, repo, branch string, want int) {
	t.Helper()
	got, err := g.CommitCount(repo, branch)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("CommitCount(%s, %s) = %d, want %d", repo, branch, got, want)
	}
}
