package testinfra

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"
)

// GitServer serves the bare repositories under Root over smart HTTP and over SSH.
type GitServer struct {
	// Root is the folder holding the bare repositories, one `name.git` folder each.
	Root string

	// HTTPBase is "http://127.0.0.1:PORT"; a repository is at HTTPBase+"/"+name+".git".
	HTTPBase string
	// Username and Password are the basic-auth credentials every HTTP request must carry.
	Username, Password string

	// SSHBase is "ssh://git@127.0.0.1:PORT"; a repository is at SSHBase+"/"+name+".git".
	SSHBase string
	// SSHPrivateKey is the PEM (OpenSSH format) of the only client key the SSH server accepts.
	SSHPrivateKey string
	// KnownHosts is a known_hosts line for the SSH server's host key.
	KnownHosts string
	// WrongKnownHosts is a well-formed known_hosts line for the same address but another key,
	// for tests that expect host-key verification to fail.
	WrongKnownHosts string

	dir      string // temporary folder holding Root and scratch clones
	http     *http.Server
	ssh      *sshServer
	stopOnce sync.Once
}

// HTTPUser is the fixed basic-auth user of every GitServer.
const HTTPUser = "kratix"

// StartGitServer creates an empty Root and starts the HTTP and SSH endpoints on free loopback
// ports. Call Stop when done.
func StartGitServer() (*GitServer, error) {
	execPath, err := gitExecPath()
	if err != nil {
		return nil, fmt.Errorf("start git server: find git's helper programs: %w", err)
	}
	for _, helper := range []string{"git-http-backend", "git-upload-pack", "git-receive-pack"} {
		if _, err := os.Stat(filepath.Join(execPath, helper)); err != nil {
			return nil, fmt.Errorf("start git server: git helper %s missing: %w", helper, err)
		}
	}

	dir, err := os.MkdirTemp("", "kratix-git-")
	if err != nil {
		return nil, fmt.Errorf("start git server: create temporary folder: %w", err)
	}
	g := &GitServer{Root: filepath.Join(dir, "repos"), dir: dir, Username: HTTPUser, Password: randomHex(16)}
	if err := g.start(execPath); err != nil {
		g.Stop()
		return nil, fmt.Errorf("start git server: %w", err)
	}
	return g, nil
}

func (g *GitServer) start(execPath string) error {
	if err := os.Mkdir(g.Root, 0o755); err != nil {
		return fmt.Errorf("create repository root: %w", err)
	}

	httpListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for HTTP: %w", err)
	}
	g.HTTPBase = "http://" + httpListener.Addr().String()
	g.http = &http.Server{
		Handler:           newGitHTTPHandler(g.Root, filepath.Join(execPath, "git-http-backend"), g.Username, g.Password),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = g.http.Serve(httpListener) }() // returns ErrServerClosed on Stop

	hostKey, _, err := newEd25519Key()
	if err != nil {
		return fmt.Errorf("generate SSH host key: %w", err)
	}
	clientKey, clientPEM, err := newEd25519Key()
	if err != nil {
		return fmt.Errorf("generate SSH client key: %w", err)
	}
	otherHostKey, _, err := newEd25519Key()
	if err != nil {
		return fmt.Errorf("generate second SSH host key: %w", err)
	}
	g.ssh, err = startSSHServer(g.Root, execPath, hostKey, clientKey.PublicKey())
	if err != nil {
		return err
	}
	addr := g.ssh.addr()
	g.SSHBase = "ssh://" + sshUser + "@" + addr
	g.SSHPrivateKey = string(clientPEM)
	host := []string{knownhosts.Normalize(addr)}
	g.KnownHosts = knownhosts.Line(host, hostKey.PublicKey())
	g.WrongKnownHosts = knownhosts.Line(host, otherHostKey.PublicKey())
	return nil
}

// Stop shuts both endpoints down, ends the git processes they started and removes Root. It is
// safe to call more than once.
func (g *GitServer) Stop() {
	g.stopOnce.Do(func() {
		if g.http != nil {
			_ = g.http.Close()
		}
		if g.ssh != nil {
			g.ssh.close()
		}
		_ = os.RemoveAll(g.dir)
	})
}

// HTTPURL is the HTTP clone URL of repository name (without credentials).
func (g *GitServer) HTTPURL(name string) string { return g.HTTPBase + "/" + name + ".git" }

// SSHURL is the SSH clone URL of repository name.
func (g *GitServer) SSHURL(name string) string { return g.SSHBase + "/" + name + ".git" }

// RepoPath is the folder of bare repository name.
func (g *GitServer) RepoPath(name string) string { return filepath.Join(g.Root, name+".git") }
