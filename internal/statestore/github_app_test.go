package statestore

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

func startFakeGitHub(t *testing.T) *testinfra.FakeGitHub {
	t.Helper()
	gh, err := testinfra.StartFakeGitHub()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gh.Close)
	return gh
}

func fakeApp(gh *testinfra.FakeGitHub) GitHubApp {
	return GitHubApp{AppID: gh.AppID, InstallationID: gh.InstallationID, PrivateKey: gh.PrivateKey, APIURL: gh.URL}
}

// jwtRecorder keeps the Authorization headers a client sends.
type jwtRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *jwtRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req.Header.Get("Authorization"))
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// testTokenSource is a token source for app whose clock the test moves.
func testTokenSource(t *testing.T, app GitHubApp, clock *time.Time, rt http.RoundTripper) *appTokenSource {
	t.Helper()
	key, err := ParseGitHubAppKey(app.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	return newAppTokenSource(app, key, &http.Client{Transport: rt}, func() time.Time { return *clock })
}

// TestAppTokenCache checks that a token is reused while it has more than five minutes left and
// replaced once it has less. The server's tokens live 5m50s; the source's clock moves
// less than a minute ahead of the server's, which the server's iat check tolerates.
func TestAppTokenCache(t *testing.T) {
	gh := startFakeGitHub(t)
	gh.SetTokenLifetime(5*time.Minute + 50*time.Second)
	start := time.Now()
	now := start
	src := testTokenSource(t, fakeApp(gh), &now, nil)
	ctx := context.Background()
	first, err := src.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !gh.ValidToken(first) {
		t.Fatalf("the token is not one the server issued")
	}
	now = start.Add(30 * time.Second) // 5m20s left
	again, err := src.Token(ctx)
	if err != nil || again != first || gh.Mints() != 1 {
		t.Fatalf("with 5m20s left: same token %v, mints %d (want 1), err %v", again == first, gh.Mints(), err)
	}
	now = start.Add(55 * time.Second) // 4m55s left
	next, err := src.Token(ctx)
	if err != nil || next == first || gh.Mints() != 2 {
		t.Fatalf("with under 5m left: new token %v, mints %d (want 2), err %v", next != first, gh.Mints(), err)
	}
}

// TestAppTokenConcurrent checks that callers arriving together share one mint.
func TestAppTokenConcurrent(t *testing.T) {
	gh := startFakeGitHub(t)
	now := time.Now()
	src := testTokenSource(t, fakeApp(gh), &now, nil)
	const callers = 20
	tokens := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			tok, err := src.Token(context.Background())
			if err != nil {
				t.Error(err)
			}
			tokens[i] = tok
		})
	}
	wg.Wait()
	if gh.Mints() != 1 {
		t.Fatalf("%d callers minted %d tokens, want 1", callers, gh.Mints())
	}
	for i, tok := range tokens {
		if tok != tokens[0] {
			t.Fatalf("caller %d got another token", i)
		}
	}
}

// TestAppTokenRefusals checks what the token endpoint's refusals say: a kind, advice naming the
// setting to check, and never the JWT.
func TestAppTokenRefusals(t *testing.T) {
	gh := startFakeGitHub(t)
	cases := []struct {
		name   string
		edit   func(*GitHubApp)
		kind   Kind
		advice string
	}{
		{"wrong key", func(a *GitHubApp) { a.PrivateKey = gh.OtherPrivateKey }, KindAuth, "github_app_private_key is a current private key"},
		{"wrong app id", func(a *GitHubApp) { a.AppID = "1" }, KindAuth, "github_app_id is the App's id"},
		{"wrong installation", func(a *GitHubApp) { a.InstallationID = "7" }, KindAuth, "check github_app_installation_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := fakeApp(gh)
			c.edit(&app)
			rec := &jwtRecorder{}
			now := time.Now()
			_, err := testTokenSource(t, app, &now, rec).Token(context.Background())
			var se *Error
			if !errors.As(err, &se) || se.Kind != c.kind {
				t.Fatalf("got %v, want kind %q", err, c.kind)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.advice) || !strings.Contains(msg, "GitHub App "+app.AppID) {
				t.Errorf("%q does not name the App or say %q", msg, c.advice)
			}
			if len(rec.seen) != 1 {
				t.Fatalf("%d requests, want 1", len(rec.seen))
			}
			jwt := strings.TrimPrefix(rec.seen[0], "Bearer ")
			if strings.Contains(msg, jwt) || strings.Contains(msg, strings.Split(jwt, ".")[2]) {
				t.Errorf("the error holds the JWT: %s", msg)
			}
		})
	}
	if gh.Mints() != 0 {
		t.Fatalf("refused requests minted %d tokens", gh.Mints())
	}
}

// TestParseGitHubAppKey checks that PKCS#1 and PKCS#8 keys parse, and that the error for
// anything else does not quote it.
func TestParseGitHubAppKey(t *testing.T) {
	gh := startFakeGitHub(t)
	key, err := ParseGitHubAppKey(gh.PrivateKey)
	if err != nil {
		t.Fatalf("PKCS#1: %v", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if _, err := ParseGitHubAppKey(string(pkcs8)); err != nil {
		t.Fatalf("PKCS#8: %v", err)
	}
	bad := "-----BEGIN RSA PRIVATE KEY-----\nbm90LWEta2V5LXNlY3JldA==\n-----END RSA PRIVATE KEY-----\n"
	_, err = ParseGitHubAppKey(bad)
	if err == nil || strings.Contains(err.Error(), "bm90LWEta2V5") || !strings.Contains(err.Error(), "PKCS#8") {
		t.Fatalf("got %v", err)
	}
}

// TestGitHubAppStore writes through a store whose only credential is a GitHub App, to a
// repository that takes only the App's current tokens: one token serves many operations; once
// the server expires it, the next operation gets a new one; a key the App does not have fails
// with advice.
func TestGitHubAppStore(t *testing.T) {
	g := testGitServer(t)
	gh := startFakeGitHub(t)
	const repo = "app-token"
	if err := g.CreateRepo(repo, "main"); err != nil {
		t.Fatal(err)
	}
	g.RequireAppTokens(repo, gh.ValidToken)
	ctx := context.Background()
	s, err := NewPool().Git(GitConfig{URL: g.HTTPURL(repo), GitHubApp: fakeApp(gh)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		if _, err := s.Apply(ctx, Change{Put: map[string][]byte{f: []byte(f + "\n")}}); err != nil {
			t.Fatal(err)
		}
	}
	if gh.Mints() != 1 {
		t.Fatalf("a check and three writes minted %d tokens, want 1", gh.Mints())
	}
	gh.ExpireTokens()
	if _, err := s.Apply(ctx, Change{Put: map[string][]byte{"d.yaml": []byte("d\n")}}); err != nil {
		t.Fatalf("writing after the token expired: %v", err)
	}
	if gh.Mints() != 2 {
		t.Fatalf("after the token expired, mints %d, want 2", gh.Mints())
	}
	got, err := g.ReadFile(repo, "main", "d.yaml")
	if err != nil || string(got) != "d\n" {
		t.Fatalf("d.yaml on the server: %q, %v", got, err)
	}

	wrong := fakeApp(gh)
	wrong.PrivateKey = gh.OtherPrivateKey
	bad, err := NewPool().Git(GitConfig{URL: g.HTTPURL(repo), GitHubApp: wrong})
	if err != nil {
		t.Fatal(err)
	}
	err = bad.Check(ctx)
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindAuth || !strings.Contains(err.Error(), "github_app_private_key") {
		t.Fatalf("with a key the App does not have: %v", err)
	}
	t.Logf("with a key the App does not have: %v", err)
}

// TestGitHubAppTokenRefusedByGit checks that when git refuses even a token just minted (the
// installation does not include the repository), the store tries one new token, not more, and
// says what to check.
func TestGitHubAppTokenRefusedByGit(t *testing.T) {
	g := testGitServer(t)
	gh := startFakeGitHub(t)
	const repo = "app-token-refused"
	if err := g.CreateRepo(repo, "main"); err != nil {
		t.Fatal(err)
	}
	g.RequireAppTokens(repo, func(string) bool { return false })
	s, err := NewPool().Git(GitConfig{URL: g.HTTPURL(repo), GitHubApp: fakeApp(gh)})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Check(context.Background())
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindAuth || !strings.Contains(err.Error(), "installation includes this repository") {
		t.Fatalf("got %v", err)
	}
	if gh.Mints() != 2 {
		t.Fatalf("%d tokens minted, want 2 (the first, and one retry)", gh.Mints())
	}
	t.Logf("%v", err)
}

// TestGitHubAppTokenRefusedMidExchange: a token GitHub stops accepting between a client's
// info/refs and its POST (it expired during a long operation, or was revoked) is refused on the
// upload-pack or receive-pack request; the store drops it and runs the operation again with a
// new one, as it does when the refusal comes at info/refs.
func TestGitHubAppTokenRefusedMidExchange(t *testing.T) {
	for _, service := range []string{"git-upload-pack", "git-receive-pack"} {
		t.Run(service, func(t *testing.T) {
			g := testGitServer(t)
			gh := startFakeGitHub(t)
			repo := "app-token-mid-" + strings.TrimPrefix(service, "git-")
			if err := g.CreateRepo(repo, "main"); err != nil {
				t.Fatal(err)
			}
			g.RequireAppTokens(repo, gh.ValidToken)
			ctx := context.Background()
			s, err := NewPool().Git(GitConfig{URL: g.HTTPURL(repo), GitHubApp: fakeApp(gh)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Apply(ctx, Change{Put: map[string][]byte{"a.yaml": []byte("a\n")}}); err != nil {
				t.Fatal(err)
			}
			// A new store (the App's tokens are the process's, so it starts with the first one):
			// its first operation fetches (upload-pack), then pushes (receive-pack).
			fresh, err := NewPool().Git(GitConfig{URL: g.HTTPURL(repo), GitHubApp: fakeApp(gh)})
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			g.BeforePost(repo, func(got string) {
				if got == service {
					once.Do(gh.ExpireTokens)
				}
			})
			if _, err = fresh.Apply(ctx, Change{Put: map[string][]byte{"b.yaml": []byte("b\n")}}); err != nil {
				t.Fatalf("writing when the token is refused at %s: %v", service, err)
			}
			if gh.Mints() != 2 {
				t.Errorf("%d tokens minted, want 2 (the first, and the one that replaced it)", gh.Mints())
			}
			for f, want := range map[string]string{"a.yaml": "a\n", "b.yaml": "b\n"} {
				if got, err := g.ReadFile(repo, "main", f); err != nil || string(got) != want {
					t.Errorf("%s on the server: %q, %v", f, got, err)
				}
			}
		})
	}
}
