package testinfra

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshCommand writes the client key and a known_hosts file, as OpenSSH wants them (the key
// must not be readable by others), and returns GIT_SSH_COMMAND for them.
func sshCommand(t *testing.T, g *GitServer, knownHosts string) string {
	t.Helper()
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("OpenSSH client not installed; the go-git tests cover SSH")
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(key, []byte(g.SSHPrivateKey), 0o600); err != nil {
		t.Fatal(err)
	}
	hosts := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(hosts, []byte(knownHosts+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// -F /dev/null and the global file: nothing from the machine's own SSH setup may help.
	return fmt.Sprintf("ssh -F /dev/null -i %s -o UserKnownHostsFile=%s -o GlobalKnownHostsFile=/dev/null"+
		" -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o BatchMode=yes", key, hosts)
}

func TestGitSSHCloneAndPush(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_SSH_COMMAND=" + sshCommand(t, g, g.KnownHosts)}

	work := filepath.Join(t.TempDir(), "clone")
	mustGitCLI(t, "", env, "clone", "-q", g.SSHURL("state"), work)
	if got := readFile(t, filepath.Join(work, "README.md")); got != "seed\n" {
		t.Fatalf("README.md in clone = %q, want %q", got, "seed\n")
	}

	commitFile(t, work, "hello.yaml", []byte("hello: ssh\n"), "Add hello over SSH")
	mustGitCLI(t, work, env, "push", "-q", "origin", "main")
	assertCommitCount(t, g, "state", "main", 2)

	// Protocol v0 too: the server must not depend on clients sending GIT_PROTOCOL.
	mustGitCLI(t, "", env, "-c", "protocol.version=0", "clone", "-q", g.SSHURL("state"), filepath.Join(t.TempDir(), "v0"))
}

func TestGitSSHRejectsWrongHostKey(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_SSH_COMMAND=" + sshCommand(t, g, g.WrongKnownHosts)}
	out, err := gitCLI(t, "", env, "clone", "-q", g.SSHURL("state"), filepath.Join(t.TempDir(), "clone"))
	if err == nil {
		t.Fatalf("clone succeeded although the known host key is wrong:\n%s", out)
	}
	if !strings.Contains(out, "HOST IDENTIFICATION HAS CHANGED") && !strings.Contains(out, "Host key verification failed") {
		t.Fatalf("clone failed, but not on the host key:\n%s", out)
	}
}

func TestGitSSHMissingRepo(t *testing.T) {
	g := startGitServer(t)
	env := []string{"GIT_SSH_COMMAND=" + sshCommand(t, g, g.KnownHosts)}
	out, err := gitCLI(t, "", env, "clone", "-q", g.SSHURL("nothing-here"), filepath.Join(t.TempDir(), "clone"))
	if err == nil || !strings.Contains(out, "does not appear to be a git repository") {
		t.Fatalf("clone of a missing repository: err %v, output:\n%s", err, out)
	}
}

// The server speaks only public-key auth, only to user git with the generated key, and runs
// only the two git commands.
func TestGitSSHAccessControl(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(g.SSHBase, "ssh://git@")
	clientKey, err := ssh.ParsePrivateKey([]byte(g.SSHPrivateKey))
	if err != nil {
		t.Fatalf("SSHPrivateKey does not parse: %v", err)
	}
	otherKey, _, err := newEd25519Key()
	if err != nil {
		t.Fatal(err)
	}
	dial := func(user string, auth ssh.AuthMethod) (*ssh.Client, error) {
		return ssh.Dial("tcp", addr, &ssh.ClientConfig{
			User:            user,
			Auth:            []ssh.AuthMethod{auth},
			HostKeyCallback: ssh.InsecureIgnoreHostKey(), // host keys are another test's business
		})
	}

	for name, attempt := range map[string]struct {
		user string
		auth ssh.AuthMethod
	}{
		"password":      {"git", ssh.Password(g.Password)},
		"unknown key":   {"git", ssh.PublicKeys(otherKey)},
		"other user":    {"root", ssh.PublicKeys(clientKey)},
		"keyboard-int.": {"git", ssh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })},
	} {
		if client, err := dial(attempt.user, attempt.auth); err == nil {
			_ = client.Close()
			t.Errorf("%s: authentication succeeded, want refusal", name)
		}
	}

	client, err := dial("git", ssh.PublicKeys(clientKey))
	if err != nil {
		t.Fatalf("authentication with the client key: %v", err)
	}
	defer func() { _ = client.Close() }()
	for _, command := range []string{"ls /", "git-upload-pack '/../state.git'", "git-upload-pack", "sh -c 'git-upload-pack state.git'"} {
		session, err := client.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if out, err := session.CombinedOutput(command); err == nil {
			t.Errorf("exec %q succeeded, want refusal; output: %s", command, out)
		}
		_ = session.Close()
	}
}

func TestParseGitCommand(t *testing.T) {
	tests := []struct {
		command, service, repo string
	}{
		{"git-upload-pack '/state.git'", "git-upload-pack", "state.git"},
		{"git-receive-pack '/state.git'", "git-receive-pack", "state.git"},
		{"git-upload-pack 'state.git'", "git-upload-pack", "state.git"},
		{"git-upload-pack /state.git", "git-upload-pack", "state.git"},
		{"git-upload-pack state.git", "git-upload-pack", "state.git"},
		{"git-upload-pack '/org/state.git'", "git-upload-pack", "org/state.git"},
		{"git-upload-pack '/../state.git'", "", ""},
		{"git-upload-pack '/a/../../state.git'", "", ""},
		{"git-upload-pack '//etc/passwd'", "", ""},
		{"git-upload-pack ''", "", ""},
		{"git-upload-pack 'a'\\''b.git'", "", ""},
		{"git-upload-pack", "", ""},
		{"git upload-pack '/state.git'", "", ""},
		{"rm -rf /", "", ""},
	}
	for _, tt := range tests {
		service, repo, err := parseGitCommand(tt.command)
		if tt.service == "" {
			if err == nil {
				t.Errorf("parseGitCommand(%q) = %q, %q; want an error", tt.command, service, repo)
			}
			continue
		}
		if err != nil || service != tt.service || repo != tt.repo {
			t.Errorf("parseGitCommand(%q) = %q, %q, %v; want %q, %q", tt.command, service, repo, err, tt.service, tt.repo)
		}
	}
}

// Stop must not wait for clients: a git process waiting for its client is killed.
func TestGitSSHStopWithSessionOpen(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("state", "main"); err != nil {
		t.Fatal(err)
	}
	key, err := ssh.ParsePrivateKey([]byte(g.SSHPrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	client, err := ssh.Dial("tcp", strings.TrimPrefix(g.SSHBase, "ssh://git@"), &ssh.ClientConfig{
		User: "git", Auth: []ssh.AuthMethod{ssh.PublicKeys(key)}, HostKeyCallback: ssh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	session, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := session.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// receive-pack advertises its refs, then waits for commands that never come.
	if err := session.Start("git-receive-pack '/state.git'"); err != nil {
		t.Fatal(err)
	}
	if _, err := stdout.Read(make([]byte, 4)); err != nil {
		t.Fatalf("read ref advertisement: %v", err)
	}

	stopped := make(chan struct{})
	go func() { g.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop still waiting 10s after it was called with a session open")
	}
}
