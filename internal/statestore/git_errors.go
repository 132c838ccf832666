package statestore

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"golang.org/x/crypto/ssh/knownhosts"
)

// fail makes err an *Error of this store, classifying it unless it already is one, and strips
// every credential of the store from its text.
func (s *gitStore) fail(op string, err error) error {
	var se *Error
	if errors.As(err, &se) {
		out := *se // a copy: an *Error kept in the store (authErr) is shared by every operation
		if out.Store == "" {
			out.Store = s.desc
		}
		if out.Op == "" {
			out.Op = op
		}
		out.Err = s.redact(out.Err)
		return &out
	}
	return &Error{Store: s.desc, Op: op, Kind: classifyGitError(err), Err: s.redact(err)}
}

// classifyGitError tells apart the failures that users act on differently. go-git reports some
// as sentinel errors and passes others through as the server's or the SSH library's words.
func classifyGitError(err error) Kind {
	err = withGoGitCauses(err)
	var (
		keyErr     *knownhosts.KeyError
		revokedErr *knownhosts.RevokedError
	)
	msg := strings.ToLower(err.Error())
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(msg, s) {
				return true
			}
		}
		return false
	}
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, transport.ErrInvalidAuthMethod),
		has("authentication required", "unable to authenticate", "authorization failed", "invalid credentials"):
		return KindAuth
	case errors.As(err, &keyErr), errors.As(err, &revokedErr):
		return KindHostKey
	case errors.Is(err, transport.ErrRepositoryNotFound), has("repository not found"):
		return KindMissingRepo
	case has("permission denied"):
		return KindAccessDenied // a file:// repository this process may not write
	case has("hook declined", "pre-receive", "remote rejected"):
		return KindRejected
	}
	return classifyTransportError(err)
}

// withGoGitCauses makes the causes go-git hides visible to errors.Is and errors.As: its
// plumbing.UnexpectedError and plumbing.PermanentError keep the transport's error in a field,
// without an Unwrap method.
func withGoGitCauses(err error) error {
	var causes []error
	for next := err; next != nil; {
		var (
			unexpected *plumbing.UnexpectedError
			permanent  *plumbing.PermanentError
		)
		switch {
		case errors.As(next, &unexpected) && unexpected.Err != nil:
			next = unexpected.Err
		case errors.As(next, &permanent) && permanent.Err != nil:
			next = permanent.Err
		default:
			next = nil
		}
		if next != nil {
			causes = append(causes, next)
		}
	}
	if len(causes) == 0 {
		return err
	}
	return errors.Join(append([]error{err}, causes...)...)
}

// redact removes the store's credentials from an error's text, and puts it on one line (servers
// end their reasons with newlines). go-git and net/http already hide URL passwords, but not a
// token given as the URL's user name, nor what a server echoes back.
func (s *gitStore) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := strings.Join(strings.Fields(msg), " ")
	hidden := s.hideSecrets(clean)
	switch {
	case hidden != clean:
		// The original is not kept as a cause: printing the chain would print the secret.
		return errors.New(hidden)
	case clean != msg:
		return &reworded{msg: clean, err: err}
	}
	return err
}

// reworded is an error with a tidier text and the same chain, for errors.Is and errors.As.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }
func (e *reworded) Unwrap() error { return e.err }

// hideSecrets replaces each credential of the store in text with "[redacted]".
func (s *gitStore) hideSecrets(text string) string {
	for _, secret := range s.secrets() {
		text = strings.ReplaceAll(text, secret, "[redacted]")
	}
	return text
}

func (s *gitStore) secrets() []string {
	var out []string
	add := func(v string) {
		if v != "" {
			out = append(out, v)
		}
	}
	add(s.cfg.Password)
	add(s.cfg.SSHPrivateKey)
	for _, v := range s.app.appSecrets() {
		add(v)
	}
	if u, err := url.Parse(s.cfg.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			add(pw)
		}
		if u.Scheme != "ssh" {
			// Over HTTPS a user name alone is often a token (https://<token>@github.com/...).
			add(u.User.Username() + "@")
		}
	}
	return out
}

// invalidURL reports a URL go-git cannot read. The parser's error quotes the whole URL, password
// included: it is kept only when the URL has no userinfo.
func invalidURL(raw string, err error) error {
	if strings.Contains(raw, "@") {
		return &Error{Kind: KindConfig, Err: fmt.Errorf("invalid URL %s", RedactURL(raw))}
	}
	return &Error{Kind: KindConfig, Err: fmt.Errorf("invalid URL: %w", err)}
}

// repoKey names a repository whatever the spelling of its URL (user, case of the host, default
// port, trailing ".git" or "/"), so that stores for it share one clone. Spellings that might
// name different repositories keep different keys: scp-like paths are relative to the SSH
// user's home, ssh:// paths absolute.
func repoKey(raw string) string {
	ep, err := transport.NewEndpoint(raw)
	if err != nil {
		return raw
	}
	port := ep.Port
	if defaultPort := map[string]int{"http": 80, "https": 443, "ssh": 22}[ep.Protocol]; port == defaultPort {
		port = 0
	}
	path := strings.TrimSuffix(strings.TrimSuffix(ep.Path, "/"), ".git")
	return fmt.Sprintf("%s://%s:%d %s", ep.Protocol, strings.ToLower(ep.Host), port, path)
}
