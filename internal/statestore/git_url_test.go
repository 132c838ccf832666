package statestore

import (
	"strings"
	"testing"
)

// TestInvalidURLHidesCredentials: a URL with a password that go-git cannot parse is reported
// without the password, nor the piece of it the parser quotes.
func TestInvalidURLHidesCredentials(t *testing.T) {
	for _, raw := range []string{
		"https://user:pa#ss@example.com/repo.git", // the parser stops at '#': `invalid port ":pa"`
		"https://user:s3cr3t@exa mple.com/repo.git",
	} {
		_, err := gitAuth(GitConfig{URL: raw})
		if err == nil {
			t.Errorf("gitAuth(%q): want an error", raw)
			continue
		}
		for _, secret := range []string{"pa#ss", ":pa", "s3cr3t"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("gitAuth(%q): the error shows %q: %v", raw, secret, err)
			}
		}
	}
}
