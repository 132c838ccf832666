package testinfra

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequireSignedCommits pushes with the git CLI over HTTP: an unsigned commit is refused with
// the hook's text, a commit that git signed with the trusted SSH key lands.
func TestRequireSignedCommits(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("signed", "main"); err != nil {
		t.Fatal(err)
	}
	key, allowed, err := NewSSHSigningKey(t.TempDir(), "bot@example.com", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.RequireSignedCommits("signed", allowed); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	mustGitCLI(t, "", nil, "clone", "--quiet", credentialURL(t, g, "signed", g.Username, g.Password), work)

	mustGitCLI(t, work, nil, "commit", "--quiet", "--allow-empty", "-m", "unsigned")
	out, err := gitCLI(t, work, nil, "push", "origin", "main")
	if err == nil || !strings.Contains(out, SignedCommitsRefusal) {
		t.Fatalf("an unsigned push was not refused by the hook (err %v):\n%s", err, out)
	}

	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	mustGitCLI(t, work, nil, "reset", "--quiet", "--hard", "origin/main")
	mustGitCLI(t, work, nil, "-c", "gpg.format=ssh", "-c", "user.signingkey="+keyFile,
		"commit", "--quiet", "--allow-empty", "-S", "-m", "signed")
	if out, err := gitCLI(t, work, nil, "push", "origin", "main"); err != nil {
		t.Fatalf("a signed push was refused: %v\n%s", err, out)
	}
}
