package provider

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// s3Recorder stands between the provider and MinIO and writes down every request that changes a
// bucket, in the order they arrive: "PUT <key>", "DELETE <key>", "PUT <key> (multipart)",
// "DELETE (batch)", "PUT bucket?<query>". It watches the wire, so it tells what the provider did
// to a bucket whatever the provider's own bookkeeping says, as a git branch's commits do for a
// repository.
//
// Requests that change nothing anyone can read are not writes: a multipart upload started,
// given parts, or aborted leaves no object behind. The store's write check, which puts an empty
// probe object (".kratix-write-check-<random>") and deletes it at once, is recorded apart, in
// probes, so that tests can tell where it ran. A write is recorded when it is sent, whether or
// not MinIO accepts it: a test that expects no writes wants no attempt either.
type s3Recorder struct {
	endpoint string // host:port to give the provider instead of MinIO's

	srv      *http.Server
	mu       sync.Mutex
	writes   []string
	probes   []string // the write check's "PUT <key>" and "DELETE <key>"
	requests int      // every request, writes or not
}

// startS3Recorder serves on a free loopback port until the test ends.
func startS3Recorder(t *testing.T, target string) *s3Recorder {
	t.Helper()
	upstream, err := url.Parse("http://" + target)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &s3Recorder{endpoint: l.Addr().String()}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(upstream)
		// Requests are signed (SigV4) for the host the client dialled: MinIO must see that one.
		pr.Out.Host = pr.In.Host
	}}
	r.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.record(req)
			proxy.ServeHTTP(w, req)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := r.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("S3 recorder: %v", err)
		}
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.srv.Shutdown(ctx)
	})
	return r
}

func (r *s3Recorder) record(req *http.Request) {
	write := s3Write(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	switch {
	case write == "":
	case strings.Contains(write, "/"+probeName) || strings.HasPrefix(write, "PUT "+probeName) || strings.HasPrefix(write, "DELETE "+probeName):
		r.probes = append(r.probes, write)
	default:
		r.writes = append(r.writes, write)
	}
}

// s3Write names the change a path-style S3 request (/bucket/key?query) makes, or "" for one that
// changes nothing readable.
func s3Write(req *http.Request) string {
	_, key, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
	q := req.URL.Query()
	switch req.Method {
	case http.MethodPut:
		switch {
		case key == "":
			return "PUT bucket?" + req.URL.RawQuery
		case q.Has("uploadId"):
			return "" // a part of a multipart upload: nothing to read until it is completed
		}
		return "PUT " + key
	case http.MethodPost:
		switch {
		case q.Has("uploads"):
			return "" // a multipart upload started
		case q.Has("uploadId"):
			return "PUT " + key + " (multipart)"
		case q.Has("delete"):
			return "DELETE (batch)"
		}
		return "POST " + req.URL.Path + "?" + req.URL.RawQuery
	case http.MethodDelete:
		switch {
		case q.Has("uploadId"):
			return "" // a multipart upload aborted
		case key == "":
			return "DELETE bucket"
		}
		return "DELETE " + key
	}
	return ""
}

// probeName starts the key of the write check's probe object.
const probeName = ".kratix-write-check-"

// probeWrites lists the write checks' PUTs and DELETEs, oldest first.
func (r *s3Recorder) probeWrites() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.probes...)
}

func (r *s3Recorder) snapshot() (writes []string, requests int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...), r.requests
}
