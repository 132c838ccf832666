package testinfra

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// FakeGitHub is a loopback stand-in for GitHub's API as far as GitHub Apps go: it issues
// installation tokens for one App installation at POST /app/installations/{id}/access_tokens,
// after checking the App's JWT as GitHub documents it (RS256 signed by the App's key, iss the
// App's id, iat and exp present and at most ten minutes apart, exp in the future). Its JWT check
// is written here, independently of the library the provider signs with.
type FakeGitHub struct {
	// URL is the API's base, to give as github_app_api_url.
	URL string
	// AppID and InstallationID are the only App and installation it knows.
	AppID, InstallationID string
	// PrivateKey is the PEM (PKCS#1) of the App's key; OtherPrivateKey is another RSA key, which
	// the server refuses.
	PrivateKey, OtherPrivateKey string

	public *rsa.PublicKey
	srv    *httptest.Server

	mu       sync.Mutex
	lifetime time.Duration
	tokens   map[string]time.Time // issued token -> expiry
	mints    int
	jwts     []string // every JWT received, valid or not
}

// StartFakeGitHub starts the server with a new App key; tokens live one hour, as GitHub's do.
func StartFakeGitHub() (*FakeGitHub, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate the App's key: %w", err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate a second key: %w", err)
	}
	f := &FakeGitHub{
		AppID:           "424242",
		InstallationID:  "31337",
		PrivateKey:      rsaPEM(key),
		OtherPrivateKey: rsaPEM(other),
		public:          &key.PublicKey,
		lifetime:        time.Hour,
		tokens:          map[string]time.Time{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /app/installations/{id}/access_tokens", f.accessTokens)
	f.srv = httptest.NewServer(mux)
	f.URL = f.srv.URL
	return f, nil
}

func rsaPEM(key *rsa.PrivateKey) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
}

// Close stops the server.
func (f *FakeGitHub) Close() { f.srv.Close() }

// Mints is how many tokens the server has issued.
func (f *FakeGitHub) Mints() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mints
}

// Tokens lists the tokens issued so far, expired or not, for tests that search for them.
func (f *FakeGitHub) Tokens() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.tokens))
	for t := range f.tokens {
		out = append(out, t)
	}
	return out
}

// JWTs lists the App JWTs the server received, for tests that search for them.
func (f *FakeGitHub) JWTs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.jwts...)
}

// SetTokenLifetime sets the lifetime of the tokens issued from now on.
func (f *FakeGitHub) SetTokenLifetime(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lifetime = d
}

// ExpireTokens makes every token issued so far expire now: ValidToken refuses them.
func (f *FakeGitHub) ExpireTokens() {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	for t := range f.tokens {
		f.tokens[t] = now
	}
}

// ValidToken reports whether token was issued by the server and has not expired.
func (f *FakeGitHub) ValidToken(token string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	exp, ok := f.tokens[token]
	return ok && time.Now().Before(exp)
}

// githubError answers as GitHub does: a JSON message and a documentation link.
func githubError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{
		"message": msg, "documentation_url": "https://docs.github.com/rest",
	})
}

func (f *FakeGitHub) accessTokens(w http.ResponseWriter, r *http.Request) {
	jwt, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		githubError(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
		return
	}
	f.mu.Lock()
	f.jwts = append(f.jwts, jwt)
	f.mu.Unlock()
	if err := f.checkJWT(jwt, time.Now()); err != nil {
		githubError(w, http.StatusUnauthorized, "A JSON web token could not be decoded: "+err.Error())
		return
	}
	if r.PathValue("id") != f.InstallationID {
		githubError(w, http.StatusNotFound, "Not Found")
		return
	}
	f.mu.Lock()
	token := "ghs_" + randomHex(18)
	expires := time.Now().Add(f.lifetime).UTC().Truncate(time.Second)
	f.tokens[token] = expires
	f.mints++
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token": token, "expires_at": expires.Format(time.RFC3339),
		"permissions": map[string]string{"contents": "write", "metadata": "read"}, "repository_selection": "all",
	})
}

// checkJWT verifies an App JWT: an RS256 signature by the App's key, and its claims.
func (f *FakeGitHub) checkJWT(token string, now time.Time) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("not three parts")
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if err := decodeJWTPart(parts[0], &header); err != nil || header.Alg != "RS256" {
		return fmt.Errorf("header: alg %q, %v", header.Alg, err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return fmt.Errorf("signature: %w", err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(f.public, crypto.SHA256, digest[:], sig); err != nil {
		return errors.New("signature does not verify against the App's public key")
	}
	var claims struct {
		Iss any   `json:"iss"`
		Iat int64 `json:"iat"`
		Exp int64 `json:"exp"`
	}
	if err := decodeJWTPart(parts[1], &claims); err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	switch {
	case fmt.Sprint(claims.Iss) != f.AppID:
		return fmt.Errorf("iss %v is not the App's id", claims.Iss)
	case claims.Iat == 0 || claims.Exp == 0:
		return errors.New("iat and exp are required")
	case claims.Iat > now.Add(time.Minute).Unix():
		return errors.New("iat is in the future")
	case claims.Exp <= now.Unix():
		return errors.New("exp is in the past")
	case claims.Exp > now.Add(10*time.Minute).Unix():
		return errors.New("exp is more than ten minutes ahead")
	}
	return nil
}

func decodeJWTPart(part string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
