package testinfra

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"time"
)

// serverTLS is a throwaway certificate authority and one server certificate it signed, valid for
// 127.0.0.1 and localhost. Every server that offers TLS generates its own at start, so that a
// client trusts it only when given CACertificate, never through the machine's roots.
type serverTLS struct {
	caPEM   []byte // the CA certificate, PEM
	certPEM []byte // the server certificate, PEM
	keyPEM  []byte // the server certificate's private key, PKCS #8 PEM
	cert    tls.Certificate
	pool    *x509.CertPool // holds the CA alone
}

// tlsValidity is how long the certificates are valid: long enough for any test run, short
// enough that a leaked one is soon worthless. They are valid from an hour ago, for clocks that
// disagree a little.
const tlsValidity = 7 * 24 * time.Hour

// newServerTLS generates an ECDSA P-256 CA and a server certificate for 127.0.0.1 and localhost
// signed by it.
func newServerTLS() (*serverTLS, error) {
	notBefore := time.Now().Add(-time.Hour)
	notAfter := notBefore.Add(tlsValidity)

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "kratix testinfra CA " + randomHex(4)},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true, // it signs server certificates only
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate server key: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create server certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("marshal server key: %w", err)
	}

	s := &serverTLS{
		caPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		pool:    x509.NewCertPool(),
	}
	s.pool.AddCert(ca)
	if s.cert, err = tls.X509KeyPair(s.certPEM, s.keyPEM); err != nil {
		return nil, fmt.Errorf("load server key pair: %w", err)
	}
	return s, nil
}

// randomSerial is a positive random 128-bit serial number, as RFC 5280 wants them unique.
func randomSerial() *big.Int {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	b[0] &= 0x7f
	b[0] |= 0x40 // never zero, never negative
	return new(big.Int).SetBytes(b)
}

// serverConfig is the TLS configuration of a server presenting the certificate.
func (s *serverTLS) serverConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.cert}, MinVersion: tls.VersionTLS12}
}

// clientConfig trusts the CA and nothing else.
func (s *serverTLS) clientConfig() *tls.Config {
	return &tls.Config{RootCAs: s.pool, MinVersion: tls.VersionTLS12}
}

// httpTransport is a fresh transport that trusts the CA and nothing else.
func (s *serverTLS) httpTransport() (*http.Transport, error) {
	def, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, fmt.Errorf("the default HTTP transport is not an *http.Transport")
	}
	tr := def.Clone()
	tr.TLSClientConfig = s.clientConfig()
	return tr, nil
}

// handshakeErrorFilter drops net/http's "TLS handshake error" log lines, which every test of a
// client that rightly refuses the certificate provokes, and passes every other line on.
type handshakeErrorFilter struct{ w io.Writer }

func (f handshakeErrorFilter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("TLS handshake error")) {
		return len(p), nil
	}
	return f.w.Write(p)
}

// quietTLSErrorLog is an http.Server ErrorLog without the expected handshake failures.
func quietTLSErrorLog() *log.Logger {
	return log.New(handshakeErrorFilter{w: os.Stderr}, "", log.LstdFlags)
}
