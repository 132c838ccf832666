package statestore

import (
	"errors"
	"fmt"
	"os"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
)

// gitAuth builds the credentials for a repository from its URL's transport.
func gitAuth(cfg GitConfig) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(cfg.URL)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("invalid URL: %w", err)}
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

// sshPublicKeys adds the host key algorithms the known_hosts entries allow, so that the server is
// asked for a key type we can check (go-git only does this for its own known_hosts files).
type sshPublicKeys struct {
	*gitssh.PublicKeys
	algorithms []string
}

func (a *sshPublicKeys) ClientConfig() (*ssh.ClientConfig, error) {
	c, err := a.PublicKeys.ClientConfig()
	if err != nil {
		return nil, err
	}
	c.HostKeyAlgorithms = a.algorithms
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
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("ssh_private_key cannot be used: %w", err)}
	}
	if cfg.InsecureIgnoreHostKey {
		keys.HostKeyCallback = ssh.InsecureIgnoreHostKey() //nolint:gosec // the user asked for it explicitly
		return keys, nil
	}
	if cfg.KnownHosts == "" {
		return nil, &Error{Kind: KindHostKey, Err: errors.New("no known_hosts in the store's secret, and host keys are checked")}
	}
	db, err := knownHostsDB(cfg.KnownHosts)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("known_hosts cannot be read: %w", err)}
	}
	keys.HostKeyCallback = db.HostKeyCallback()
	port := ep.Port
	if port == 0 {
		port = 22
	}
	return &sshPublicKeys{PublicKeys: keys, algorithms: db.HostKeyAlgorithms(fmt.Sprintf("%s:%d", ep.Host, port))}, nil
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

// clientFor returns go-git's transport client for an endpoint.
func clientFor(ep *transport.Endpoint) (transport.Transport, error) {
	return client.NewClient(ep)
}
