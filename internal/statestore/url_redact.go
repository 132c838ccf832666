package statestore

import (
	"net/url"
	"regexp"
	"strings"
)

// The one spelling of a Git URL in messages, logs and a store's description: what counts as a
// credential in it, and the URL without it.

// URLCredentials says which credentials a Git URL carries, or "" when it carries none. What
// counts as a credential: any userinfo of an http(s) or file URL (a user name alone is often a
// token there, as in https://<token>@github.com/...), and a password in any URL. The user name of
// an SSH URL (ssh://git@host/..., git@host:org/repo.git) is not a secret: it picks the account,
// and the key is in the provider's secrets.
func URLCredentials(raw string) string {
	if IsSCPLike(raw) {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return ""
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		return "a user name and password"
	}
	if u.Scheme == "ssh" {
		return ""
	}
	return "a user name or token"
}

// RedactURL is a Git URL as messages and logs may show it: without the credentials of URLCredentials
// (an SSH user name stays). A string that does not parse loses everything before its last "@".
func RedactURL(raw string) string {
	if IsSCPLike(raw) || !strings.Contains(raw, "@") {
		return raw
	}
	u, err := url.Parse(raw)
	if err == nil && u.Opaque == "" {
		if u.User == nil || URLCredentials(raw) == "" {
			return raw
		}
		hidden := "***@"
		if u.Scheme == "ssh" {
			hidden = u.User.Username() + ":***@"
		}
		u.User = nil
		return strings.Replace(u.String(), "://", "://"+hidden, 1)
	}
	at := strings.LastIndex(raw, "@")
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 && i < at {
		start = i + len("://")
	}
	return raw[:start] + "***" + raw[at:]
}

// IsSCPLike reports git's short SSH syntax, user@host:path.
func IsSCPLike(raw string) bool { return scpLike.MatchString(raw) }

var scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/]`)
