package testinfra

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
)

// gitHTTPHandler puts basic auth in front of git's own smart-HTTP server, git http-backend,
// run as a CGI program for each request.
type gitHTTPHandler struct {
	root, backend, user, password string

	mu      sync.Mutex
	fetched map[string]int64 // bytes of upload-pack answers (fetches), by request path's repository
	// tokenRepos are the repositories, by request path ("/name.git"), that accept only the
	// tokens their function reports valid, as the password of the user x-access-token.
	tokenRepos map[string]func(token string) bool
	// beforePost are called, by request path's repository, before the credentials of a POST
	// (upload-pack or receive-pack, after the client read info/refs) are checked.
	beforePost map[string]func(service string)
}

func newGitHTTPHandler(root, backend, user, password string) *gitHTTPHandler {
	return &gitHTTPHandler{root: root, backend: backend, user: user, password: password, fetched: map[string]int64{},
		tokenRepos: map[string]func(string) bool{}, beforePost: map[string]func(string){}}
}

// fetchedBytes is how many bytes the handler sent in answer to fetches from repository name.
func (h *gitHTTPHandler) fetchedBytes(name string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fetched["/"+name+".git"]
}

// countingWriter counts the bytes of a response body.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func (h *gitHTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		h.mu.Lock()
		var hook func(string)
		for repo, fn := range h.beforePost {
			if strings.HasPrefix(r.URL.Path, repo+"/") {
				hook = fn
			}
		}
		h.mu.Unlock()
		if hook != nil {
			hook(path.Base(r.URL.Path))
		}
	}
	user, password, ok := r.BasicAuth()
	if !ok || !h.authorized(r.URL.Path, user, password) {
		// The challenge is what makes git (and go-git) retry with the credentials it holds.
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
		return
	}

	// net/http/cgi answers 400 to chunked request bodies, and git sends its POST bodies chunked
	// once they exceed http.postBuffer (1 MiB), so a larger push would fail. Buffering the body
	// gives http-backend the CONTENT_LENGTH it wants; test pushes are small enough for memory.
	if slices.Contains(r.TransferEncoding, "chunked") {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, fmt.Sprintf("read request body: %v", err), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.TransferEncoding = nil
	}

	backend := &cgi.Handler{
		Path: h.backend,
		Dir:  h.root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + h.root,
			"GIT_HTTP_EXPORT_ALL=1", // serve every repository, no git-daemon-export-ok needed
			"REMOTE_USER=" + user,   // http-backend only allows receive-pack to known users
			"GIT_CONFIG_NOSYSTEM=1", // the server must not depend on the machine's git setup
			"GIT_CONFIG_GLOBAL=" + os.DevNull,
		},
	}
	repo, isFetch := strings.CutSuffix(r.URL.Path, "/git-upload-pack")
	if !isFetch {
		backend.ServeHTTP(w, r)
		return
	}
	cw := &countingWriter{ResponseWriter: w}
	backend.ServeHTTP(cw, r)
	h.mu.Lock()
	h.fetched[repo] += cw.n
	h.mu.Unlock()
}

// authorized checks the basic-auth credentials of a request for path: the server's user and
// password, or, for a repository that takes App tokens, a currently valid token only.
func (h *gitHTTPHandler) authorized(path, user, password string) bool {
	h.mu.Lock()
	var valid func(string) bool
	for repo, fn := range h.tokenRepos {
		if strings.HasPrefix(path, repo+"/") {
			valid = fn
		}
	}
	h.mu.Unlock()
	if valid != nil {
		return user == appTokenUser && valid(password)
	}
	return equalSecret(user, h.user) && equalSecret(password, h.password)
}

// appTokenUser is the user name git sends with a GitHub App installation token.
const appTokenUser = "x-access-token"

// equalSecret compares in constant time: a habit worth keeping even in a test server.
func equalSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
