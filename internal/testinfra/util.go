package testinfra

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// randomHex returns n random bytes, hex-encoded: passwords and secrets for the servers.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// tail returns at most the last n bytes of b, for quoting logs in errors.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
