package statestore

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// A Git store over HTTPS may authenticate as a GitHub App installation instead of with a
// password: the provider signs a short JWT with the App's private key, exchanges it at GitHub's
// API for an installation token (valid one hour), and gives git that token as the password of
// the user x-access-token. Tokens are cached for the life of the process, one per App
// installation and key, and replaced shortly before they expire or when git refuses them.

// DefaultGitHubAPIURL is the API of github.com; GitHub Enterprise Server serves its own at
// https://HOST/api/v3.
const DefaultGitHubAPIURL = "https://api.github.com"

// GitHubAppUser is the user name git sends with an installation token.
const GitHubAppUser = "x-access-token"

const (
	// appTokenMargin is how long before its expiry a cached token is replaced: an operation
	// that starts with it must not see it expire half-way.
	appTokenMargin = 5 * time.Minute
	// appJWTBackdate and appJWTLifetime place the JWT's iat and exp as GitHub asks: iat a
	// minute in the past against clock drift, exp at most ten minutes after it is issued.
	appJWTBackdate = 60 * time.Second
	appJWTLifetime = 9 * time.Minute
	// appTokenTimeout bounds one call to the token endpoint.
	appTokenTimeout = 30 * time.Second
)

// GitHubApp is a GitHub App installation whose tokens authenticate a Git store over HTTPS. The
// zero value means none.
type GitHubApp struct {
	AppID          string // the App's numeric id (or its client id): the JWT's issuer
	InstallationID string // the installation on the repository's owner
	PrivateKey     string // PEM of the App's RSA private key, PKCS#1 or PKCS#8
	APIURL         string // empty for DefaultGitHubAPIURL
}

// Set reports whether any of the App's settings is given.
func (a GitHubApp) Set() bool {
	return a.AppID != "" || a.InstallationID != "" || a.PrivateKey != ""
}

func (a GitHubApp) apiURL() string {
	if a.APIURL == "" {
		return DefaultGitHubAPIURL
	}
	return strings.TrimSuffix(a.APIURL, "/")
}

// ParseGitHubAppKey reads an App's private key. Its errors never quote the key.
func ParseGitHubAppKey(pemText string) (*rsa.PrivateKey, error) {
	key, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(pemText))
	if err != nil {
		return nil, errors.New("it is not a PEM-encoded RSA private key (PKCS#1 \"BEGIN RSA PRIVATE KEY\" or " +
			"PKCS#8 \"BEGIN PRIVATE KEY\"), as GitHub generates for an App")
	}
	return key, nil
}

// appTokenSource mints and caches the installation tokens of one App installation and key.
type appTokenSource struct {
	app    GitHubApp
	key    *rsa.PrivateKey
	client *http.Client
	now    func() time.Time

	// sem lets one caller mint at a time, and a cancelled caller stop waiting; the others find
	// its token in the cache.
	sem chan struct{}

	mu      sync.Mutex // guards token and expires
	token   string
	expires time.Time
}

// appTokens holds the process's token sources, so that every store of one App installation
// shares one token.
var appTokens = struct {
	mu      sync.Mutex
	sources map[string]*appTokenSource
}{sources: map[string]*appTokenSource{}}

// appTokenSourceFor returns the process's token source for the App of cfg, creating it on first
// use. caPEM, when set, is trusted besides the system roots (GitHub Enterprise Server with a
// private CA).
func appTokenSourceFor(app GitHubApp, caPEM string) (*appTokenSource, error) {
	key, err := ParseGitHubAppKey(app.PrivateKey)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("github_app_private_key of GitHub App %s cannot be used: %w", app.AppID, err)}
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("github_app_private_key of GitHub App %s: %w", app.AppID, err)}
	}
	sum := sha256.Sum256(append(der, caPEM...))
	id := strings.Join([]string{app.apiURL(), app.AppID, app.InstallationID, hex.EncodeToString(sum[:])}, " ")

	appTokens.mu.Lock()
	defer appTokens.mu.Unlock()
	if src, ok := appTokens.sources[id]; ok {
		return src, nil
	}
	client, err := appHTTPClient(caPEM)
	if err != nil {
		return nil, err
	}
	src := newAppTokenSource(app, key, client, time.Now)
	appTokens.sources[id] = src
	return src, nil
}

func newAppTokenSource(app GitHubApp, key *rsa.PrivateKey, client *http.Client, now func() time.Time) *appTokenSource {
	return &appTokenSource{app: app, key: key, client: client, now: now, sem: make(chan struct{}, 1)}
}

// appHTTPClient is the client for the token endpoint, trusting caPEM besides the system roots.
func appHTTPClient(caPEM string) (*http.Client, error) {
	base, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		base = &http.Transport{Proxy: http.ProxyFromEnvironment}
	}
	tr := base.Clone()
	if caPEM != "" {
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM([]byte(caPEM)) {
			return nil, &Error{Kind: KindConfig, Err: errors.New("ca_certificate holds no PEM certificate")}
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, Timeout: appTokenTimeout}, nil
}

// Token returns a token that stays valid for at least appTokenMargin, minting one when the
// cache has none. Concurrent callers share one mint.
func (t *appTokenSource) Token(ctx context.Context) (string, error) {
	if tok, ok := t.cached(); ok {
		return tok, nil
	}
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for a GitHub App token: %w", ctx.Err())
	}
	defer func() { <-t.sem }()
	if tok, ok := t.cached(); ok {
		return tok, nil // minted by the caller we waited for
	}
	tok, expires, err := t.mint(ctx)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	t.token, t.expires = tok, expires
	t.mu.Unlock()
	return tok, nil
}

func (t *appTokenSource) cached() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token == "" || !t.now().Add(appTokenMargin).Before(t.expires) {
		return "", false
	}
	return t.token, true
}

// current is the cached token, valid or not, for redaction.
func (t *appTokenSource) current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

// forget drops token from the cache, when it is still the cached one: git refused it (revoked,
// or expired early), and the next Token mints another.
func (t *appTokenSource) forget(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token == token {
		t.token, t.expires = "", time.Time{}
	}
}

// appJWT signs the JWT that authenticates the App itself.
func (t *appTokenSource) appJWT() (string, error) {
	now := t.now()
	claims := jwt.RegisteredClaims{
		Issuer:    t.app.AppID,
		IssuedAt:  jwt.NewNumericDate(now.Add(-appJWTBackdate)),
		ExpiresAt: jwt.NewNumericDate(now.Add(appJWTLifetime)),
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(t.key)
	if err != nil {
		return "", &Error{Kind: KindConfig, Err: fmt.Errorf("signing the JWT of GitHub App %s: %w", t.app.AppID, err)}
	}
	return signed, nil
}

// mint asks GitHub for a new installation token. Its errors never hold the JWT nor a token.
func (t *appTokenSource) mint(ctx context.Context) (string, time.Time, error) {
	signed, err := t.appJWT()
	if err != nil {
		return "", time.Time{}, err
	}
	endpoint := t.app.apiURL() + "/app/installations/" + url.PathEscape(t.app.InstallationID) + "/access_tokens"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, http.NoBody)
	if err != nil {
		return "", time.Time{}, &Error{Kind: KindConfig, Err: fmt.Errorf("GitHub API URL %s: %w", RedactURL(t.app.apiURL()), err)}
	}
	req.Header.Set("Authorization", "Bearer "+signed)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "terraform-provider-kratix")
	resp, err := t.client.Do(req)
	if err != nil {
		return "", time.Time{}, &Error{Kind: classifyTransportError(err),
			Err: fmt.Errorf("asking %s for a token of GitHub App %s: %w", RedactURL(t.app.apiURL()), t.app.AppID, err)}
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", time.Time{}, &Error{Kind: classifyTransportError(err),
			Err: fmt.Errorf("reading the token of GitHub App %s: %w", t.app.AppID, err)}
	}
	if resp.StatusCode != http.StatusCreated {
		return "", time.Time{}, t.refusal(resp.StatusCode, body, signed)
	}
	var answer struct {
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.Token == "" || answer.ExpiresAt.IsZero() {
		return "", time.Time{}, &Error{Kind: KindOther, Err: fmt.Errorf(
			"%s answered the token request of GitHub App %s without a token and its expiry; is github_app_api_url the API "+
				"(https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server)?", RedactURL(t.app.apiURL()), t.app.AppID)}
	}
	return answer.Token, answer.ExpiresAt, nil
}

// refusal explains an answer other than 201 from the token endpoint, with GitHub's message (the
// JWT removed, should a server echo it) and what to check.
func (t *appTokenSource) refusal(status int, body []byte, signed string) error {
	var answer struct {
		Message string `json:"message"`
	}
	said := ""
	if json.Unmarshal(body, &answer) == nil && answer.Message != "" {
		said = strings.ReplaceAll(strings.Join(strings.Fields(answer.Message), " "), signed, "[redacted]")
		said = fmt.Sprintf(" (%q)", said)
	}
	what := fmt.Sprintf("GitHub App %s could not get a token for installation %s from %s: HTTP %d%s",
		t.app.AppID, t.app.InstallationID, RedactURL(t.app.apiURL()), status, said)
	var advice string
	kind := KindAuth
	switch status {
	case http.StatusUnauthorized:
		advice = "GitHub did not accept the App's signed JWT: check that github_app_private_key is a current private key of " +
			"this App (the App's settings list its keys), that github_app_id is the App's id or client id, and that this " +
			"machine's clock is right"
	case http.StatusForbidden:
		advice = "the App may not create tokens for this installation: check that the installation is not suspended and " +
			"that the App has the Contents permission (read and write)"
	case http.StatusNotFound:
		advice = "check github_app_installation_id (the number at the end of the installation's settings URL) and that " +
			"the App is installed on the repository's owner; on GitHub Enterprise Server, github_app_api_url must be " +
			"https://HOST/api/v3"
	default:
		kind = KindOther
		advice = "see GitHub's status, then try again"
	}
	return &Error{Kind: kind, Err: errors.New(what + "; " + advice)}
}

// appTokenRefused adds advice to git's refusal of an App token that GitHub issued moments ago.
func appTokenRefused(err error) error {
	msg := strings.TrimSpace(err.Error()) + "; the GitHub App's installation token was refused: check that the " +
		"installation includes this repository and grants Contents read and write"
	return &Error{Kind: KindAuth, Err: &reworded{msg: msg, err: err}}
}

// appSecrets lists what an App adds to a store's secrets, for redaction.
func (t *appTokenSource) appSecrets() []string {
	if t == nil {
		return nil
	}
	var out []string
	if tok := t.current(); tok != "" {
		out = append(out, tok)
	}
	return append(out, strings.TrimSpace(t.app.PrivateKey))
}
