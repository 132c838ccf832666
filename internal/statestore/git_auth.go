package statestore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
)

// gitAuth builds the credentials for a repository from its URL's transport.
func gitAuth(cfg GitConfig) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(cfg.URL)
	if err != nil {
		return nil, invalidURL(cfg.URL, err)
	}
	if cfg.GitHubApp.Set() {
		return nil, appAuthConfig(cfg, ep.Protocol)
	}
	switch ep.Protocol {
	case "http", "https":
		if cfg.Username == "" && cfg.Password == "" {
			return nil, nil
		}
		user := cfg.Username
		if user == "" {
			user = "git" // hosts accept any user name with a token
		}
		return &githttp.BasicAuth{Username: user, Password: cfg.Password}, nil
	case "ssh":
		return sshAuthFor(cfg, ep)
	case "file":
		return nil, nil
	}
	return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("unsupported protocol %q", ep.Protocol)}
}

// appAuthConfig checks that a store with a GitHub App uses nothing else to authenticate, over
// HTTP(S): its token is the store's only credential, fetched per operation (see transportAuth).
func appAuthConfig(cfg GitConfig, protocol string) error {
	switch {
	case protocol != "http" && protocol != "https":
		return &Error{Kind: KindConfig, Err: fmt.Errorf("GitHub App %s authenticates over HTTPS only, and the URL uses %s: "+
			"use the repository's https:// URL", cfg.GitHubApp.AppID, protocol)}
	case cfg.Password != "" || cfg.Username != "":
		return &Error{Kind: KindConfig, Err: fmt.Errorf("the store's secret holds both username/password and GitHub App %s: "+
			"keep one of them", cfg.GitHubApp.AppID)}
	}
	return nil
}

// transportAuth is the store's credentials for one operation: a GitHub App's current token, or
// the fixed credentials built with the store.
func (s *gitStore) transportAuth(ctx context.Context) (transport.AuthMethod, error) {
	if s.app == nil {
		return s.auth, nil
	}
	token, err := s.app.Token(ctx)
	if err != nil {
		return nil, err
	}
	return &githttp.BasicAuth{Username: GitHubAppUser, Password: token}, nil
}

// withAuth runs a remote operation with the store's credentials. When git refuses a GitHub App
// token that the cache still holds (revoked, or expired before its time), the token is dropped
// and the operation tried once more with a new one: the refusal happens when the session
// starts, before anything was sent.
func (s *gitStore) withAuth(ctx context.Context, op func(transport.AuthMethod) error) error {
	auth, err := s.transportAuth(ctx)
	if err != nil {
		return err
	}
	err = op(auth)
	if err == nil || s.app == nil || classifyGitError(err) != KindAuth {
		return err
	}
	if basic, ok := auth.(*githttp.BasicAuth); ok {
		s.app.forget(basic.Password)
	}
	if auth, err = s.transportAuth(ctx); err != nil {
		return err
	}
	if err = op(auth); err != nil && classifyGitError(err) == KindAuth {
		return appTokenRefused(err)
	}
	return err
}

// refusedMidExchange is git's refusal of the credentials on a pack request (the POST of a fetch)
// after the advertisement of the same exchange accepted them: a GitHub App token that expired,
// or was revoked, in between. token is the App token that was current then.
type refusedMidExchange struct {
	error
	token string
}

func (e refusedMidExchange) Unwrap() error { return e.error }

// midExchange marks err, a pack request's failure, as a refusal of credentials the exchange's
// advertisement accepted, when it is one and the store uses a GitHub App.
func (s *gitStore) midExchange(err error) error {
	if err == nil || s.app == nil || classifyGitError(err) != KindAuth {
		return err
	}
	return refusedMidExchange{error: err, token: s.app.current()}
}

// againWithNewToken runs a fetch, and when git refused its GitHub App token on the pack request
// after accepting it for the advertisement, drops that token and runs the fetch once more with a
// new one. A refusal at the advertisement is withAuth's to retry; a push is retried whole there
// (its advertisement and pack request are one call), so this is for fetches only.
func againWithNewToken[T any](s *gitStore, fetch func() (T, error)) (T, error) {
	v, err := fetch()
	var mid refusedMidExchange
	if err == nil || s.app == nil || !errors.As(err, &mid) {
		return v, err
	}
	s.app.forget(mid.token)
	if v, err = fetch(); err != nil && errors.As(err, &mid) {
		return v, appTokenRefused(err)
	}
	return v, err
}

// sshDialTimeout bounds the TCP connection on its own, however long the operation's limit: an
// unreachable host is reported as such after it rather than when the operation runs out of time.
// The operation's context bounds the dial, the handshake and the session besides (see
// sshOperation).
const sshDialTimeout = 30 * time.Second

// sshPublicKeys completes go-git's key auth with what it only does for its own known_hosts files:
// it asks the server for a host key type that known_hosts can check (a server offering ed25519
// first would otherwise fail against an RSA entry), and it bounds the dial.
type sshPublicKeys struct {
	*gitssh.PublicKeys
	algorithms []string // nil: the SSH library's defaults
}

func (a *sshPublicKeys) ClientConfig() (*ssh.ClientConfig, error) {
	c, err := a.PublicKeys.ClientConfig()
	if err != nil {
		return nil, err
	}
	c.HostKeyAlgorithms = a.algorithms
	c.Timeout = sshDialTimeout
	return c, nil
}

func sshAuthFor(cfg GitConfig, ep *transport.Endpoint) (transport.AuthMethod, error) {
	if cfg.SSHPrivateKey == "" {
		return nil, &Error{Kind: KindAuth, Err: errors.New("an SSH URL needs ssh_private_key in the store's secret")}
	}
	user := ep.User
	if user == "" {
		user = "git"
	}
	keys, err := gitssh.NewPublicKeys(user, []byte(cfg.SSHPrivateKey), "")
	if err != nil {
		// The parser's message never quotes the key.
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("ssh_private_key cannot be used: %w", err)}
	}
	if cfg.InsecureIgnoreHostKey {
		keys.HostKeyCallback = ssh.InsecureIgnoreHostKey() //nolint:gosec // the user asked for it explicitly
		return &sshPublicKeys{PublicKeys: keys}, nil
	}
	if strings.TrimSpace(cfg.KnownHosts) == "" {
		return nil, &Error{Kind: KindHostKey, Err: errors.New(
			"known_hosts is required to verify the SSH server's host key, and the store's secret has none")}
	}
	db, err := knownHostsDB(cfg.KnownHosts)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("known_hosts cannot be parsed: %w", err)}
	}
	keys.HostKeyCallback = db.HostKeyCallback()
	port := ep.Port
	if port == 0 {
		port = 22
	}
	hostPort := net.JoinHostPort(ep.Host, strconv.Itoa(port))
	return &sshPublicKeys{PublicKeys: keys, algorithms: db.HostKeyAlgorithms(hostPort)}, nil
}

// knownHostsDB parses known_hosts content. The parser reads files, so the content lives in a
// private temporary file only as long as it takes to read it.
func knownHostsDB(content string) (*knownhosts.HostKeyDB, error) {
	f, err := os.CreateTemp("", "kratix-known-hosts-*")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.Remove(f.Name()) }()
	if _, err := f.WriteString(content + "\n"); err != nil {
		_ = f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return knownhosts.NewDB(f.Name())
}
