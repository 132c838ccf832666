package testinfra

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"os"
	"slices"
)

// gitHTTPHandler puts basic auth in front of git's own smart-HTTP server, git http-backend,
// run as a CGI program for each request.
type gitHTTPHandler struct {
	root, backend, user, password string
}

func newGitHTTPHandler(root, backend, user, password string) *gitHTTPHandler {
	return &gitHTTPHandler{root: root, backend: backend, user: user, password: password}
}

func (h *gitHTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	user, password, ok := r.BasicAuth()
	if !ok || !equalSecret(user, h.user) || !equalSecret(password, h.password) {
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
	backend.ServeHTTP(w, r)
}

// equalSecret compares in constant time: a habit worth keeping even in a test server.
func equalSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
