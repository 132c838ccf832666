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
	"strings"
	"syscall"

	"github.com/minio/minio-go/v7"
)

// fail wraps err as the store's *Error, unless it already is one. Messages never carry the
// secret key or session token, even when a server echoes them back.
func (b *bucketStore) fail(op string, kind Kind, err error) error {
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	return &Error{Store: b.Describe(), Op: op, Kind: kind, Err: b.redact(err), Credentials: b.credentialSource()}
}

// credentialSource says, for the advice on a refused request, where the store's credentials
// come from when it is not the provider's secrets ("" then).
func (b *bucketStore) credentialSource() string {
	var from string
	switch {
	case b.cfg.AuthMethod != "IAM":
	case b.cfg.Profile != "":
		from = fmt.Sprintf("the credentials of AWS profile %q (the store's profile, in the shared config and credentials files)", b.cfg.Profile)
	default:
		from = "the credentials the AWS credential chain finds (environment variables, AWS_PROFILE's profile, an SSO session, a web identity token, or the container or instance role)"
	}
	if b.cfg.AssumeRole != nil {
		if from == "" {
			from = "the credentials in the provider's secrets"
		}
		from += ", and that they may assume the store's assume_role.role_arn"
	}
	return from
}

// redact replaces the store's secrets in err's text; the chain stays intact for errors.As.
func (b *bucketStore) redact(err error) error {
	msg := err.Error()
	clean := msg
	for _, secret := range []string{b.cfg.SecretAccessKey, b.cfg.SessionToken} {
		if len(secret) >= 4 {
			clean = strings.ReplaceAll(clean, secret, "[redacted]")
		}
	}
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// outcome turns the per-item results of a parallel batch into the items that succeeded and, if
// any failed, one *Error that says how many did and gives the first cause.
func (b *bucketStore) outcome(op, what string, items []string, errs []error) ([]string, error) {
	var (
		done      []string
		first     error
		firstItem string
		failed    int
	)
	for i, err := range errs {
		if err == nil {
			done = append(done, items[i])
			continue
		}
		failed++
		if first == nil {
			first, firstItem = err, items[i]
		}
	}
	if first == nil {
		return done, nil
	}
	cause := fmt.Errorf("%s: %w", firstItem, first)
	if len(items) > 1 {
		cause = fmt.Errorf("%d of %d %s failed; the first, %s: %w", failed, len(items), what, firstItem, first)
	}
	return done, b.fail(op, classifyBucketError(first), cause)
}

// classifyBucketError tells apart the failures that users act on differently. 404 means gone;
// 403 never does.
//
// minio.ToErrorResponse only recognises an unwrapped minio.ErrorResponse, so errors.As is used
// instead: the store adds context with %w before classifying.
func classifyBucketError(err error) Kind {
	if err == nil {
		return "" // no failure, no kind
	}
	var se *Error
	if errors.As(err, &se) {
		return se.Kind
	}
	var resp minio.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.Code {
		case minio.NoSuchKey:
			return KindNotFound
		case minio.NoSuchBucket:
			return KindMissingBucket
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken",
			"InvalidClientTokenId", "TokenRefreshRequired", "MissingSecurityHeader":
			return KindAuth
		case minio.AccessDenied, "AllAccessDisabled", "AccountProblem":
			return KindAccessDenied
		case "InvalidBucketName", "AuthorizationHeaderMalformed", "InvalidRegion", "PermanentRedirect":
			return KindConfig
		}
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return KindAuth
		case http.StatusForbidden:
			return KindAccessDenied
		case http.StatusNotFound:
			return KindNotFound
		}
		if resp.StatusCode != 0 {
			return KindOther // the server answered: not a transport failure
		}
	}
	return classifyTransportError(err)
}

// classifyTransportError recognises failures below the protocol by the types the standard
// library gives them (never by their words, which a server's message may also contain); the git
// backend uses it too. A server that answers an HTTPS client in plain HTTP has a kind of its own,
// since its fix is the scheme, not a CA.
func classifyTransportError(err error) Kind {
	switch {
	case speaksPlainHTTP(err):
		return KindPlainHTTP
	case isTLSFailure(err):
		return KindTLS
	case errors.Is(err, context.DeadlineExceeded):
		return KindNetwork
	case errors.Is(err, context.Canceled):
		return KindOther
	case isNetworkFailure(err):
		return KindNetwork
	}
	return KindOther
}

// speaksPlainHTTP reports an HTTPS client answered in plain HTTP: net/http's ErrSchemeMismatch,
// or a first record that is text rather than TLS: an HTTP response ("HTTP/"), or the bare
// error page a server that also speaks HTTP/0.9 sends to a line it cannot read (Python's
// http.server: "<!DOC"). A TLS record starts with a content type byte below 0x20, never text.
// An SSH server's banner ("SSH-") is text too, but its fix is not http://, so it stays a TLS
// failure.
func speaksPlainHTTP(err error) bool {
	var recordErr tls.RecordHeaderError
	if errors.Is(err, http.ErrSchemeMismatch) {
		return true
	}
	if !errors.As(err, &recordErr) {
		return false
	}
	h := recordErr.RecordHeader[:]
	if string(h) == "HTTP/" {
		return true
	}
	if string(h[:4]) == "SSH-" {
		return false
	}
	for _, c := range h {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// isTLSFailure reports a certificate that does not verify, a handshake the server refused, or a
// server that does not speak TLS.
func isTLSFailure(err error) bool {
	var (
		unknownCA *x509.UnknownAuthorityError
		unknownCV x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		hostPtr   *x509.HostnameError
		invalid   x509.CertificateInvalidError
		rootsErr  x509.SystemRootsError
		certErr   *tls.CertificateVerificationError
		recordErr tls.RecordHeaderError
		alert     tls.AlertError
	)
	return errors.As(err, &unknownCA) || errors.As(err, &unknownCV) || errors.As(err, &hostErr) ||
		errors.As(err, &hostPtr) || errors.As(err, &invalid) || errors.As(err, &rootsErr) ||
		errors.As(err, &certErr) || errors.As(err, &recordErr) || errors.As(err, &alert)
}

// isNetworkFailure reports a failure to reach the server or to keep talking to it: a name that
// does not resolve, a dial or a read that failed (refused, reset, unreachable, timed out), or a
// connection closed before the answer came.
func isNetworkFailure(err error) bool {
	var (
		dnsErr  *net.DNSError
		opErr   *net.OpError
		addrErr *net.AddrError
		netErr  net.Error
		urlErr  *url.Error
	)
	switch {
	case errors.As(err, &dnsErr), errors.As(err, &opErr), errors.As(err, &addrErr),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EPIPE),
		errors.Is(err, os.ErrDeadlineExceeded):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	case errors.As(err, &urlErr) && (errors.Is(urlErr.Err, io.EOF) || errors.Is(urlErr.Err, io.ErrUnexpectedEOF)):
		return true // the server closed the connection before it answered
	}
	return false
}
