package testinfra

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// The provider talks to Git with go-git, so the servers must work with go-git as well as with
// the git CLI. These tests clone, commit and push with go-git over both transports.

func TestGoGitHTTP(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	goGitRoundTrip(t, g, g.HTTPURL("state"), &githttp.BasicAuth{Username: g.Username, Password: g.Password})

	_, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: g.HTTPURL("state")})
	if err == nil || !strings.Contains(err.Error(), "authentication required") {
		t.Fatalf("go-git clone without credentials: %v, want authentication required", err)
	}
}

func TestGoGitSSH(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	goGitRoundTrip(t, g, g.SSHURL("state"), goGitSSHAuth(t, g, g.KnownHosts))

	_, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{
		URL:  g.SSHURL("state"),
		Auth: goGitSSHAuth(t, g, g.WrongKnownHosts),
	})
	if err == nil || !strings.Contains(err.Error(), "key mismatch") {
		t.Fatalf("go-git clone with the wrong known host: %v, want a key mismatch", err)
	}
}

func goGitSSHAuth(t *testing.T, g *GitServer, knownHostsLine string) transport.AuthMethod {
	t.Helper()
	auth, err := gitssh.NewPublicKeys("git", []byte(g.SSHPrivateKey), "")
	if err != nil {
		t.Fatalf("go-git cannot use SSHPrivateKey: %v", err)
	}
	file := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(file, []byte(knownHostsLine+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	auth.HostKeyCallback, err = knownhosts.New(file)
	if err != nil {
		t.Fatalf("known_hosts line %q does not parse: %v", knownHostsLine, err)
	}
	return auth
}

// goGitRoundTrip clones url with go-git, checks the seed, commits a file and pushes it.
func goGitRoundTrip(t *testing.T, g *GitServer, url string, auth transport.AuthMethod) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainClone(dir, false, &git.CloneOptions{URL: url, Auth: auth})
	if err != nil {
		t.Fatalf("go-git clone %s: %v", url, err)
	}
	if got := readFile(t, filepath.Join(dir, "README.md")); got != "seed\n" {
		t.Fatalf("README.md in go-git clone = %q", got)
	}

	if err := os.WriteFile(filepath.Join(dir, "go-git.yaml"), []byte("by: go-git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.Add("go-git.yaml"); err != nil {
		t.Fatal(err)
	}
	signature := &object.Signature{Name: "go-git", Email: "go-git@kratix.invalid", When: time.Now()}
	if _, err := tree.Commit("Add go-git.yaml", &git.CommitOptions{Author: signature}); err != nil {
		t.Fatal(err)
	}
	if err := repo.Push(&git.PushOptions{Auth: auth}); err != nil {
		t.Fatalf("go-git push to %s: %v", url, err)
	}

	messages, err := g.CommitMessages("state", "main")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(messages, "|") != "Add go-git.yaml|Initial commit" {
		t.Fatalf("commit messages after go-git push = %q", messages)
	}
}
