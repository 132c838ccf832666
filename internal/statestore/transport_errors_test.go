package statestore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/crypto/ssh/knownhosts"
)

// refused is what a dial to a closed port returns.
var refused error = &url.Error{Op: "Get", URL: "http://127.0.0.1:1/", Err: &net.OpError{
	Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED),
}}

// transportCases are failures below the protocol, built as the standard library builds them,
// with the kind each must get. The last ones have the words of a transport failure but none of
// its types: they must not be taken for one (a server's message may say anything).
var transportCases = []struct {
	name string
	err  error
	want Kind
}{
	{"connection refused", refused, KindNetwork},
	{"refused, the bare errno", fmt.Errorf("dialling: %w", syscall.ECONNREFUSED), KindNetwork},
	{"connection reset", &url.Error{Op: "Post", URL: "http://h/", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}, KindNetwork},
	{"no such host", &url.Error{Op: "Get", URL: "https://nowhere.invalid/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}}, KindNetwork},
	{"connection closed before an answer", &url.Error{Op: "Get", URL: "http://h/", Err: io.EOF}, KindNetwork},
	{"deadline", &url.Error{Op: "Get", URL: "http://h/", Err: context.DeadlineExceeded}, KindNetwork},
	{"i/o timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, KindNetwork},
	{"plain HTTP behind https (net/http)", &url.Error{Op: "Get", URL: "https://h/", Err: http.ErrSchemeMismatch}, KindPlainHTTP},
	{"plain HTTP behind https (TLS record)", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake", RecordHeader: [5]byte{'H', 'T', 'T', 'P', '/'}}, KindPlainHTTP},
	{"plain HTTP/0.9 error page behind https", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake", RecordHeader: [5]byte{'<', '!', 'D', 'O', 'C'}}, KindPlainHTTP},
	{"plain text behind https", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake", RecordHeader: [5]byte{'4', '0', '0', ' ', 'B'}}, KindPlainHTTP},
	{"binary, not TLS", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake", RecordHeader: [5]byte{0x00, 0x01, 'a', 0xff, 0x10}}, KindTLS},
	{"not TLS, not HTTP", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake", RecordHeader: [5]byte{'S', 'S', 'H', '-', '2'}}, KindTLS},
	{"unknown authority", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, KindTLS},
	{"wrong host name", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}, KindTLS},
	{"expired", x509.CertificateInvalidError{Reason: x509.Expired}, KindTLS},
	{"TLS alert", &net.OpError{Op: "remote error", Err: tls.AlertError(40)}, KindTLS},
	{"words only: refused", errors.New("the server said: connection refused"), KindOther},
	{"words only: x509", errors.New("x509: certificate signed by unknown authority"), KindOther},
	{"words only: plain HTTP", errors.New("server gave HTTP response to HTTPS client"), KindOther},
}

// TestClassifyGitTransportError: go-git wraps some transport failures in errors that hide their
// cause from errors.As (plumbing.UnexpectedError, plumbing.PermanentError); the kind still comes
// from the cause's type.
func TestClassifyGitTransportError(t *testing.T) {
	for _, tt := range transportCases {
		for _, wrapped := range []error{
			tt.err,
			plumbing.NewUnexpectedError(tt.err),
			fmt.Errorf("pushing to branch main: %w", plumbing.NewPermanentError(fmt.Errorf("x: %w", tt.err))),
		} {
			if got := classifyGitError(wrapped); got != tt.want {
				t.Errorf("%s: classifyGitError(%v) = %q, want %q", tt.name, wrapped, got, tt.want)
			}
		}
	}
}

// TestClassifyGitHostKeyError: an untrusted host key is recognised by knownhosts' types, also
// inside go-git's wrappers; the words alone are not.
func TestClassifyGitHostKeyError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"unknown host", fmt.Errorf("ssh: handshake failed: %w", &knownhosts.KeyError{}), KindHostKey},
		{"key mismatch", fmt.Errorf("ssh: handshake failed: %w", &knownhosts.KeyError{Want: []knownhosts.KnownKey{{Filename: "known_hosts", Line: 1}}}), KindHostKey},
		{"revoked", plumbing.NewUnexpectedError(fmt.Errorf("ssh: handshake failed: %w", &knownhosts.RevokedError{})), KindHostKey},
		{"words only", errors.New("ssh: handshake failed: knownhosts: key mismatch"), KindOther},
	}
	for _, tt := range tests {
		if got := classifyGitError(tt.err); got != tt.want {
			t.Errorf("%s: classifyGitError(%v) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}
