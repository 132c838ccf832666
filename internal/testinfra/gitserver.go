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

// GitServer serves the bare repositories under Root over smart HTTP, over smart HTTP with TLS,
// and over SSH.
type GitServer struct {
	// Root is the folder holding the bare repositories, one `name.git` folder each.
	Root string

	// HTTPBase is "http://127.0.0.1:PORT"; a repository is at HTTPBase+"/"+name+".git".
	HTTPBase string
	// Username and Password are the basic-auth credentials every HTTP request must carry, over
	// HTTPS as well.
	Username, Password string

	// HTTPSBase is "https://127.0.0.1:PORT": the same smart-HTTP server behind TLS, with a
	// certificate for 127.0.0.1 and localhost signed by the CA in CACertificate.
	HTTPSBase string
	// CACertificate is the PEM of the throwaway CA generated at start, the only one that trusts
	// the HTTPS endpoint.
	CACertificate string

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
	handler  *gitHTTPHandler
	http     *http.Server
	https    *http.Server
	ssh      *sshServer
	stopOnce sync.Once
}

// HTTPUser is the fixed basic-auth user of every GitServer.
const HTTPUser = "kratix"

// StartGitServer creates an empty Root, generates a CA and a server certificate, and starts the
// HTTP, HTTPS and SSH endpoints on free loopback ports. Call Stop when done.
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
	handler := newGitHTTPHandler(g.Root, filepath.Join(execPath, "git-http-backend"), g.Username, g.Password)
	g.handler = handler
	g.HTTPBase = "http://" + httpListener.Addr().String()
	g.http = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = g.http.Serve(httpListener) }() // returns ErrServerClosed on Stop

	certs, err := newServerTLS()
	if err != nil {
		return fmt.Errorf("generate TLS certificates: %w", err)
	}
	httpsListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for HTTPS: %w", err)
	}
	g.HTTPSBase = "https://" + httpsListener.Addr().String()
	g.CACertificate = string(certs.caPEM)
	g.https = &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         certs.serverConfig(),
		ErrorLog:          quietTLSErrorLog(),
	}
	go func() { _ = g.https.ServeTLS(httpsListener, "", "") }() // the certificate is in TLSConfig

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

// Stop shuts every endpoint down, ends the git processes they started and removes Root. It is
// safe to call more than once.
func (g *GitServer) Stop() {
	g.stopOnce.Do(func() {
		for _, srv := range []*http.Server{g.http, g.https} {
			if srv != nil {
				_ = srv.Close()
			}
		}
		if g.ssh != nil {
			g.ssh.close()
		}
		_ = os.RemoveAll(g.dir)
	})
}

// HTTPURL is the HTTP clone URL of repository name (without credentials).
func (g *GitServer) HTTPURL(name string) string { return g.HTTPBase + "/" + name + ".git" }

// HTTPSURL is the HTTPS clone URL of repository name (without credentials).
func (g *GitServer) HTTPSURL(name string) string { return g.HTTPSBase + "/" + name + ".git" }

// SSHURL is the SSH clone URL of repository name.
func (g *GitServer) SSHURL(name string) string { return g.SSHBase + "/" + name + ".git" }

// FetchedBytes is how many bytes the HTTP and HTTPS endpoints have sent so far in answer to
// fetches (upload-pack requests) from repository name: what clients downloaded from it.
func (g *GitServer) FetchedBytes(name string) int64 { return g.handler.fetchedBytes(name) }

// RequireAppTokens makes repository name accept, over HTTP and HTTPS, only the user
// x-access-token with a password that valid accepts (FakeGitHub.ValidToken), as GitHub does for
// a GitHub App's installation tokens; the server's own password no longer opens it.
func (g *GitServer) RequireAppTokens(name string, valid func(token string) bool) {
	g.handler.mu.Lock()
	defer g.handler.mu.Unlock()
	g.handler.tokenRepos["/"+name+".git"] = valid
}

// BeforePost calls hook with the service ("git-upload-pack" or "git-receive-pack") before the
// credentials of each POST to repository name over HTTP(S) are checked: the moment between a
// client's info/refs and its pack exchange, where a token may expire or be revoked.
func (g *GitServer) BeforePost(name string, hook func(service string)) {
	g.handler.mu.Lock()
	defer g.handler.mu.Unlock()
	g.handler.beforePost["/"+name+".git"] = hook
}

// RepoPath is the folder of bare repository name.
func (g *GitServer) RepoPath(name string) string { return filepath.Join(g.Root, name+".git") }
