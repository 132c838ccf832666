package testinfra

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// parseCA returns the certificate in caPEM, which must hold exactly one.
func parseCA(t *testing.T, caPEM string) *x509.Certificate {
	t.Helper()
	block, rest := pem.Decode([]byte(caPEM))
	if block == nil || block.Type != "CERTIFICATE" || len(rest) != 0 {
		t.Fatalf("CACertificate is not exactly one PEM certificate:\n%s", caPEM)
	}
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.IsCA || ca.PublicKeyAlgorithm != x509.ECDSA {
		t.Fatalf("CACertificate: IsCA %v, key %v; want an ECDSA CA", ca.IsCA, ca.PublicKeyAlgorithm)
	}
	return ca
}

// onlyCAClient is an HTTP client whose only trusted root is ca; serverName, if not empty, is
// the name the certificate is checked against instead of the URL's host.
func onlyCAClient(t *testing.T, ca *x509.Certificate, serverName string) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// systemRootsClient is an HTTP client that trusts the machine's roots, as a client that was
// given no CA does.
func systemRootsClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// getVerified GETs url with client (basic auth if user is set), wants status, and checks that
// the server presented a certificate for 127.0.0.1 and localhost that chains to ca.
func getVerified(t *testing.T, client *http.Client, url, user, password string, ca *x509.Certificate, status int) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s trusting only the CA: %v", url, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != status {
		t.Fatalf("GET %s: status %d, want %d", url, resp.StatusCode, status)
	}
	if resp.TLS == nil || len(resp.TLS.VerifiedChains) == 0 {
		t.Fatalf("GET %s: no verified TLS chain", url)
	}
	chain := resp.TLS.VerifiedChains[0]
	leaf, root := chain[0], chain[len(chain)-1]
	if len(chain) != 2 || !root.Equal(ca) {
		t.Fatalf("GET %s: verified chain of %d certificates ending in %q, want leaf and the CA %q",
			url, len(chain), root.Subject, ca.Subject)
	}
	if !slices.Contains(leaf.DNSNames, "localhost") || !slices.ContainsFunc(leaf.IPAddresses, func(ip net.IP) bool {
		return ip.Equal(net.IPv4(127, 0, 0, 1))
	}) {
		t.Fatalf("server certificate names %v %v, want localhost and 127.0.0.1", leaf.DNSNames, leaf.IPAddresses)
	}
}

// assertUntrusted checks that a GET of url with client fails because the certificate's
// authority is unknown.
func assertUntrusted(t *testing.T, client *http.Client, url string) {
	t.Helper()
	resp, err := client.Get(url)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("GET %s trusting the system roots succeeded (%s); the server's CA must be unknown to them", url, resp.Status)
	}
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Fatalf("GET %s trusting the system roots: %v; want x509.UnknownAuthorityError", url, err)
	}
}

func TestGitHTTPS(t *testing.T) {
	g := startGitServer(t)
	if err := g.CreateRepo("secure", "main"); err != nil {
		t.Fatal(err)
	}
	ca := parseCA(t, g.CACertificate)
	refs := g.HTTPSURL("secure") + "/info/refs?service=git-upload-pack"

	t.Run("trusting only the CA", func(t *testing.T) {
		getVerified(t, onlyCAClient(t, ca, ""), refs, g.Username, g.Password, ca, http.StatusOK)
	})
	t.Run("as localhost", func(t *testing.T) {
		getVerified(t, onlyCAClient(t, ca, "localhost"), refs, g.Username, g.Password, ca, http.StatusOK)
	})
	t.Run("same basic auth", func(t *testing.T) {
		getVerified(t, onlyCAClient(t, ca, ""), refs, "", "", ca, http.StatusUnauthorized)
		getVerified(t, onlyCAClient(t, ca, ""), refs, g.Username, "not-"+g.Password, ca, http.StatusUnauthorized)
	})
	t.Run("trusting the system roots", func(t *testing.T) {
		assertUntrusted(t, systemRootsClient(t), refs)
	})

	// The git CLI clones and pushes over HTTPS when given the CA, and refuses without it.
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(g.CACertificate), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(g.HTTPSURL("secure"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(g.Username, g.Password)
	cloneURL := u.String()
	out, err := gitCLI(t, "", nil, "clone", "-q", cloneURL, filepath.Join(t.TempDir(), "refused"))
	if err == nil {
		t.Fatalf("git clone over HTTPS without the CA succeeded:\n%s", out)
	}
	if !strings.Contains(out, "certificate") {
		t.Fatalf("git clone over HTTPS without the CA failed, but not for the certificate:\n%s", out)
	}
	work := filepath.Join(t.TempDir(), "clone")
	mustGitCLI(t, "", nil, "-c", "http.sslCAInfo="+caFile, "clone", "-q", cloneURL, work)
	mustGitCLI(t, work, nil, "config", "http.sslCAInfo", caFile)
	commitFile(t, work, "tls.yaml", []byte("tls: true\n"), "Add over HTTPS")
	mustGitCLI(t, work, nil, "push", "-q", "origin", "main")
	got, err := g.ReadFile("secure", "main", "tls.yaml")
	if err != nil || string(got) != "tls: true\n" {
		t.Fatalf("tls.yaml pushed over HTTPS = %q, %v", got, err)
	}
}

func TestMinIOTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MinIO server, built on first use; skipped with -short")
	}
	m, err := StartMinIOTLS()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	ca := parseCA(t, m.CACertificate)
	live := "https://" + m.Endpoint + "/minio/health/live"

	getVerified(t, onlyCAClient(t, ca, ""), live, "", "", ca, http.StatusOK)
	getVerified(t, onlyCAClient(t, ca, "localhost"), live, "", "", ca, http.StatusOK)
	assertUntrusted(t, systemRootsClient(t), live)

	// The root credentials work over HTTPS with the package's own client.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.MakeBucket(ctx, "kratix"); err != nil {
		t.Fatal(err)
	}
	client, err := m.Client()
	if err != nil {
		t.Fatal(err)
	}
	if client.EndpointURL().Scheme != "https" {
		t.Fatalf("client endpoint %s, want https", client.EndpointURL())
	}
	if ok, err := client.BucketExists(ctx, "kratix"); err != nil || !ok {
		t.Fatalf("BucketExists over HTTPS = %v, %v", ok, err)
	}
}
