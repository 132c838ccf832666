package testinfra

import (
	"bytes"
	"crypto/rand"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// credentialURL is the HTTP clone URL of repo with user and password in it.
func credentialURL(t *testing.T, g *GitServer, repo, user, password string) string {
	t.Helper()
	u, err := url.Parse(g.HTTPURL(repo))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}

func TestGitHTTPCloneAndPush(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}

	work := filepath.Join(t.TempDir(), "clone")
	mustGitCLI(t, "", nil, "clone", "-q", credentialURL(t, g, "state", g.Username, g.Password), work)
	if got := readFile(t, filepath.Join(work, "README.md")); got != "seed\n" {
		t.Fatalf("README.md in clone = %q, want %q", got, "seed\n")
	}

	commitFile(t, work, "hello.yaml", []byte("hello: world\n"), "Add hello")
	mustGitCLI(t, work, nil, "push", "-q", "origin", "main")

	assertCommitCount(t, g, "state", "main", 2)
	got, err := g.ReadFile("state", "main", "hello.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "hello: world\n" {
		t.Fatalf("pushed hello.yaml = %q", got)
	}
}

// A push bigger than git's http.postBuffer (1 MiB) is sent with a chunked body, which
// net/http/cgi refuses on its own; the handler must buffer it.
func TestGitHTTPLargePush(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("big", "main"); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "clone")
	mustGitCLI(t, "", nil, "clone", "-q", credentialURL(t, g, "big", g.Username, g.Password), work)

	blob := make([]byte, 3<<20)
	_, _ = rand.Read(blob) // random, so compression cannot bring the pack under 1 MiB
	commitFile(t, work, "blob.bin", blob, "Add 3 MiB")
	mustGitCLI(t, work, nil, "push", "-q", "origin", "main")

	got, err := g.ReadFile("big", "main", "blob.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, blob) {
		t.Fatalf("blob.bin read back differs (%d bytes, want %d)", len(got), len(blob))
	}
}

func TestGitHTTPRequiresCredentials(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("private", "main"); err != nil {
		t.Fatal(err)
	}

	for name, cloneURL := range map[string]string{
		"none":           g.HTTPURL("private"),
		"wrong password": credentialURL(t, g, "private", g.Username, "not-"+g.Password),
		"wrong user":     credentialURL(t, g, "private", "someone", g.Password),
	} {
		t.Run(name, func(t *testing.T) {
			out, err := gitCLI(t, "", nil, "clone", "-q", cloneURL, filepath.Join(t.TempDir(), "clone"))
			if err == nil {
				t.Fatalf("clone succeeded without valid credentials:\n%s", out)
			}
			if !strings.Contains(out, "Authentication failed") && !strings.Contains(out, "could not read Username") {
				t.Fatalf("clone failed, but not for authentication:\n%s", out)
			}
		})
	}

	resp, err := http.Get(g.HTTPURL("private") + "/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Basic realm="git"` {
		t.Fatalf("anonymous request: status %d, WWW-Authenticate %q; want 401 and a Basic challenge",
			resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}
