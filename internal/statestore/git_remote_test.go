package statestore

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// These tests talk to real git servers (git's http-backend behind basic auth, and an SSH server
// running git's receive-pack) from internal/testinfra, and read back with the git CLI.

// newServerRepo creates a repository with one commit on main and returns its name.
func newServerRepo(t *testing.T, srv *testinfra.GitServer) string {
	t.Helper()
	repo := "r-" + randomSuffix()
	if err := srv.CreateRepo(repo, "main"); err != nil {
		t.Fatal(err)
	}
	return repo
}

func commitCount(t *testing.T, srv *testinfra.GitServer, repo string) int {
	t.Helper()
	n, err := srv.CommitCount(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGitOverHTTPAndSSH(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	hostField, keyFields, _ := strings.Cut(srv.KnownHosts, " ")
	_, wrongKey, _ := strings.Cut(srv.WrongKnownHosts, " ")
	hashedKnownHosts := knownhosts.HashHostname(hostField) + " " + keyFields
	manyKnownHosts := "# comment\ngithub.com " + wrongKey + "\n\n" + srv.KnownHosts + "\n"

	tests := []struct {
		name string
		cfg  func(repo string) GitConfig
		want Kind // "" for success
	}{
		{"http", func(r string) GitConfig {
			return GitConfig{URL: srv.HTTPURL(r), Username: srv.Username, Password: srv.Password}
		}, ""},
		{"http credentials in the URL", func(r string) GitConfig {
			u, _ := url.Parse(srv.HTTPURL(r))
			u.User = url.UserPassword(srv.Username, srv.Password)
			return GitConfig{URL: u.String()}
		}, ""},
		{"http wrong password", func(r string) GitConfig {
			return GitConfig{URL: srv.HTTPURL(r), Username: srv.Username, Password: "wrong-password"}
		}, KindAuth},
		{"http token without user name", func(r string) GitConfig {
			return GitConfig{URL: srv.HTTPURL(r), Password: srv.Password} // sent as user "git"
		}, KindAuth},
		{"http no credentials", func(r string) GitConfig { return GitConfig{URL: srv.HTTPURL(r)} }, KindAuth},
		{"ssh", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: srv.KnownHosts}
		}, ""},
		{"ssh hashed known_hosts", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: hashedKnownHosts}
		}, ""},
		{"ssh known_hosts with other hosts and comments", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: manyKnownHosts}
		}, ""},
		{"ssh wrong host key", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: srv.WrongKnownHosts}
		}, KindHostKey},
		{"ssh host missing from known_hosts", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: "github.com " + wrongKey}
		}, KindHostKey},
		{"ssh no known_hosts", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey}
		}, KindHostKey},
		{"ssh host key ignored on request", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: srv.SSHPrivateKey, InsecureIgnoreHostKey: true}
		}, ""},
		{"ssh key the server does not accept", func(r string) GitConfig {
			return GitConfig{URL: srv.SSHURL(r), SSHPrivateKey: otherSSHKey(t), KnownHosts: srv.KnownHosts}
		}, KindAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newServerRepo(t, srv)
			s, err := NewPool().Git(tt.cfg(repo))
			if err != nil {
				t.Fatal(err)
			}
			checkErr := s.Check(ctx)
			if n := commitCount(t, srv, repo); n != 1 {
				t.Fatalf("Check left %d commits, want 1: it must not write", n)
			}
			_, applyErr := s.Apply(ctx, Change{Message: "Update from: kratix-canary", Put: map[string][]byte{"w/a.yaml": []byte("a\n")}})
			content, readErr := srv.ReadFile(repo, "main", "w/a.yaml")
			if tt.want == "" {
				if checkErr != nil || applyErr != nil || readErr != nil || string(content) != "a\n" {
					t.Fatalf("check %v, apply %v, read back %q %v", checkErr, applyErr, content, readErr)
				}
				if h, err := s.Hashes(ctx, []string{"w/a.yaml"}); err != nil || h["w/a.yaml"] != md5Hex([]byte("a\n")) {
					t.Errorf("Hashes = %v, %v", h, err)
				}
				return
			}
			t.Logf("check: %v\napply: %v", checkErr, applyErr)
			if kindOf(checkErr) != tt.want || kindOf(applyErr) != tt.want {
				t.Errorf("check gave %v, apply gave %v; want kind %q from both", checkErr, applyErr, tt.want)
			}
			if !errors.Is(readErr, fs.ErrNotExist) {
				t.Errorf("a failed store wrote the file (read back: %v)", readErr)
			}
			for _, secret := range []string{srv.Password, srv.SSHPrivateKey} {
				if strings.Contains(fmt.Sprint(checkErr, applyErr), secret) {
					t.Errorf("an error shows a credential: %v / %v", checkErr, applyErr)
				}
			}
		})
	}
}

// otherSSHKey is a valid private key that the server does not know.
func otherSSHKey(t *testing.T) string {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(block))
}

// TestGitOverHTTPStoresShareCloneNotCredentials: two stores for one repository share the clone,
// and each operation authenticates as its own store.
func TestGitOverHTTPStoresShareCloneNotCredentials(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	p := NewPool()
	good, err := p.Git(GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := p.Git(GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.repos) != 1 {
		t.Fatalf("%d clones, want 1", len(p.repos))
	}
	if _, err := good.Apply(ctx, Change{Message: "Update from: good", Put: map[string][]byte{"g.yaml": []byte("g")}}); err != nil {
		t.Fatal(err)
	}
	// The clone is warm now; the bad store must still be refused, for reads and writes.
	if _, err := bad.Apply(ctx, Change{Message: "Update from: bad", Put: map[string][]byte{"b.yaml": []byte("b")}}); kindOf(err) != KindAuth {
		t.Errorf("Apply with a wrong password on a warm clone = %v", err)
	}
	if _, err := bad.Read(ctx, "g.yaml"); kindOf(err) != KindAuth {
		t.Errorf("Read with a wrong password on a warm clone = %v", err)
	}
	if _, err := good.Apply(ctx, Change{Message: "Update from: good", Put: map[string][]byte{"g2.yaml": []byte("g")}}); err != nil {
		t.Fatal(err)
	}
	files, _ := srv.ListFiles(repo, "main")
	if want := []string{"README.md", "g.yaml", "g2.yaml"}; !sameSet(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
}

func TestGitOverHTTPEmptyRepository(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	repo := "empty-" + randomSuffix()
	if err := srv.CreateEmptyRepo(repo); err != nil {
		t.Fatal(err)
	}
	s, err := NewPool().Git(GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("Check of an empty repository: %v", err)
	}
	if _, err := s.Apply(ctx, Change{Message: "Update from: first", Put: map[string][]byte{"a.yaml": []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	if n := commitCount(t, srv, repo); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
	other, err := NewPool().Git(GitConfig{URL: srv.HTTPURL(repo), Branch: "dev", Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Check(ctx); kindOf(err) != KindMissingBranch {
		t.Errorf("Check of a missing branch once main exists: %v", err)
	}
}

// TestGitOverHTTPConcurrentProcesses races two provider processes through git's http-backend.
func TestGitOverHTTPConcurrentProcesses(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	cfg := GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: srv.Password}
	var stores []Store
	for range 2 {
		s, err := NewPool().Git(cfg)
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	for _, err := range applyConcurrently(ctx, 10, func(i int) Store { return stores[i%2] }) {
		if err != nil {
			t.Error(err)
		}
	}
	if n := commitCount(t, srv, repo); n != 11 {
		t.Errorf("%d commits, want 11", n)
	}
	if files, _ := srv.ListFiles(repo, "main"); len(files) != 11 {
		t.Errorf("%d files, want 11: %v", len(files), files)
	}
	t.Logf("pushes retried after losing a race: %d and %d", repoOf(stores[0]).lostRaces, repoOf(stores[1]).lostRaces)
}

// TestGitOverHTTPS puts a TLS proxy with its own CA in front of the HTTP server: the CA given as
// ca_certificate makes it trusted; without it the store fails with KindTLS.
func TestGitOverHTTPS(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	backend, err := url.Parse(srv.HTTPBase)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(backend))
	proxy.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	proxy.StartTLS()
	t.Cleanup(proxy.Close)
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: proxy.Certificate().Raw}))
	repo := newServerRepo(t, srv)
	repoURL := proxy.URL + "/" + repo + ".git"

	untrusted, err := NewPool().Git(GitConfig{URL: repoURL, Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	if err := untrusted.Check(ctx); kindOf(err) != KindTLS {
		t.Errorf("Check without the CA = %v, want kind %q", err, KindTLS)
	}
	if _, err := untrusted.Apply(ctx, Change{Put: map[string][]byte{"a.yaml": nil}}); kindOf(err) != KindTLS {
		t.Errorf("Apply without the CA = %v, want kind %q", err, KindTLS)
	}

	trusted, err := NewPool().Git(GitConfig{URL: repoURL, Username: srv.Username, Password: srv.Password, CACertificate: ca})
	if err != nil {
		t.Fatal(err)
	}
	if err := trusted.Check(ctx); err != nil {
		t.Fatalf("Check with the CA: %v", err)
	}
	if _, err := trusted.Apply(ctx, Change{Message: "Update from: tls", Put: map[string][]byte{"a.yaml": []byte("a")}}); err != nil {
		t.Fatalf("Apply with the CA: %v", err)
	}
	if b, err := srv.ReadFile(repo, "main", "a.yaml"); err != nil || string(b) != "a" {
		t.Errorf("read back %q, %v", b, err)
	}
}

// TestGitHTTPSAgainstPlainHTTP: an https URL whose server speaks plain HTTP (the test's git
// server, reached with the scheme changed) fails with KindPlainHTTP and advice about the scheme,
// not with KindTLS and advice about ca_certificate, on the check (the advertisement), on a read
// and on a write.
func TestGitHTTPSAgainstPlainHTTP(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	plain := srv.HTTPURL(repo)
	if !strings.HasPrefix(plain, "http://") {
		t.Fatalf("the test server's URL %q is not plain HTTP", plain)
	}
	s, err := NewPool().Git(GitConfig{URL: "https://" + strings.TrimPrefix(plain, "http://"), Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	_, applyErr := s.Apply(ctx, Change{Put: map[string][]byte{"a.yaml": nil}})
	_, readErr := s.Read(ctx, "a.yaml")
	for name, err := range map[string]error{"Check": s.Check(ctx), "Apply": applyErr, "Read": readErr} {
		if kindOf(err) != KindPlainHTTP {
			t.Errorf("%s = %v (kind %q), want kind %q", name, err, kindOf(err), KindPlainHTTP)
			continue
		}
		var se *Error
		if errors.As(err, &se) && (!strings.Contains(se.Advice(), "http://") || strings.Contains(se.Advice(), "ca_certificate")) {
			t.Errorf("%s: advice %q should name http:// and not ca_certificate", name, se.Advice())
		}
	}
	if n := commitCount(t, srv, repo); n != 1 {
		t.Errorf("the repository has %d commits, want 1", n)
	}
}

// TestHTTPSAgainstAnHTTP09Server: a server that answers a TLS ClientHello with a bare HTML error
// page (Python's http.server, and others that speak HTTP/0.9) is a plain HTTP server too: the
// advice is the scheme, not a CA certificate. Before, only an answer starting "HTTP/" (Go's and
// most servers') was recognised, and this one got ca_certificate's advice.
func TestHTTPSAgainstAnHTTP09Server(t *testing.T) {
	ctx := context.Background()
	addr := testinfra.HTTP09Server(t)
	g, err := NewPool().Git(GitConfig{URL: "https://" + addr + "/org/gitops.git"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewPool().Bucket(BucketConfig{Endpoint: addr, BucketName: "kratix", AccessKeyID: "k", SecretAccessKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{"git": g.Check(ctx), "bucket": b.Check(ctx)} {
		if kindOf(err) != KindPlainHTTP {
			t.Errorf("%s = %v (kind %q), want kind %q", name, err, kindOf(err), KindPlainHTTP)
			continue
		}
		var se *Error
		if errors.As(err, &se) && (!strings.Contains(se.Advice(), "http://") || strings.Contains(se.Advice(), "ca_certificate")) {
			t.Errorf("%s: advice %q should name http:// and not ca_certificate", name, se.Advice())
		}
	}
}
