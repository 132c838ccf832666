package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
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
//
// With plainListings set, it also makes MinIO look like a server whose listings carry no object
// metadata (AWS S3, which ignores MinIO's metadata=true): it removes from listing responses the
// elements MinIO adds to each object (<UserMetadata>, <UserTags>, <Internal>).
type s3Recorder struct {
	endpoint string // host:port to give the provider instead of MinIO's

	// plainListings strips object metadata from listings (see above).
	plainListings atomic.Bool
	// down makes the bucket unreachable: every connection is dropped before a byte is answered.
	down atomic.Bool
	// failDeletes makes MinIO look like a server that cannot delete now: every DELETE of an
	// object and every batch delete is answered 503 SlowDown without reaching MinIO; the rest
	// goes through.
	failDeletes atomic.Bool

	srv      *http.Server
	mu       sync.Mutex
	writes   []string
	probes   []string // the write check's "PUT <key>" and "DELETE <key>"
	requests int      // every request, writes or not
	refused  []string // "<method> <path>" of every request dropped while down, or refused by failDeletes
	kinds    s3Kinds  // every request, by kind
	methods  []string // every request's method, in order
	stripped int      // listing responses that had metadata removed
	// watched keys have the body of each PUT kept in bodies, in the order they arrive.
	watched map[string]bool
	bodies  map[string][]string
}

// watch keeps the body of every PUT of key from now on (see putBodies).
func (r *s3Recorder) watch(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watched == nil {
		r.watched, r.bodies = map[string]bool{}, map[string][]string{}
	}
	r.watched[key] = true
}

// putBodies are the bodies of the PUTs of a watched key, oldest first, as the object's content
// (an aws-chunked body is decoded).
func (r *s3Recorder) putBodies(key string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies[key]...)
}

// keepBody reads the body of a PUT of a watched key and puts it back for the proxy.
func (r *s3Recorder) keepBody(req *http.Request) error {
	_, key, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
	r.mu.Lock()
	watched := req.Method == http.MethodPut && r.watched[key]
	r.mu.Unlock()
	if !watched || req.Body == nil {
		return nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	content := body
	if strings.HasPrefix(req.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
		if content, err = decodeAWSChunked(body); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.bodies[key] = append(r.bodies[key], string(content))
	r.mu.Unlock()
	return nil
}

// decodeAWSChunked returns the data of an aws-chunked body: chunks of "<hex size>[;ext]\r\n<data>\r\n",
// the last of size 0, then optional trailers.
func decodeAWSChunked(body []byte) ([]byte, error) {
	var out []byte
	for {
		line, rest, ok := bytes.Cut(body, []byte("\r\n"))
		if !ok {
			return nil, fmt.Errorf("aws-chunked body: no chunk header in %q", body)
		}
		sizeText, _, _ := bytes.Cut(line, []byte(";"))
		size, err := strconv.ParseInt(string(sizeText), 16, 64)
		if err != nil || int64(len(rest)) < size {
			return nil, fmt.Errorf("aws-chunked body: bad chunk header %q", line)
		}
		if size == 0 {
			return out, nil
		}
		out = append(out, rest[:size]...)
		body = bytes.TrimPrefix(rest[size:], []byte("\r\n"))
	}
}

// s3Kinds counts requests by kind.
type s3Kinds struct {
	Lists, Heads, Gets, Puts, Deletes int
	EncryptionReads                   int // GET ?encryption: the bucket's default encryption
	Other                             int
}

func (k s3Kinds) String() string {
	return fmt.Sprintf("%d LIST, %d HEAD, %d GET, %d PUT, %d DELETE, %d GET ?encryption, %d other",
		k.Lists, k.Heads, k.Gets, k.Puts, k.Deletes, k.EncryptionReads, k.Other)
}

func (k s3Kinds) minus(o s3Kinds) s3Kinds {
	return s3Kinds{Lists: k.Lists - o.Lists, Heads: k.Heads - o.Heads, Gets: k.Gets - o.Gets, Puts: k.Puts - o.Puts,
		Deletes: k.Deletes - o.Deletes, EncryptionReads: k.EncryptionReads - o.EncryptionReads, Other: k.Other - o.Other}
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
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			// Requests are signed (SigV4) for the host the client dialled: MinIO must see that one.
			pr.Out.Host = pr.In.Host
			if r.plainListings.Load() {
				// A compressed body could not be edited; Accept-Encoding is not signed.
				pr.Out.Header.Del("Accept-Encoding")
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			if !r.plainListings.Load() || !testinfra.IsS3Listing(resp.Request) {
				return nil
			}
			stripped, err := testinfra.StripListingMetadata(resp)
			if stripped {
				r.mu.Lock()
				r.stripped++
				r.mu.Unlock()
			}
			return err
		},
	}
	r.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if r.down.Load() {
				r.refuse(req)
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					_ = conn.Close()
				}
				return
			}
			if r.failDeletes.Load() && (req.Method == http.MethodDelete || (req.Method == http.MethodPost && req.URL.Query().Has("delete"))) {
				r.refuse(req)
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
				return
			}
			r.record(req)
			if err := r.keepBody(req); err != nil {
				t.Errorf("S3 recorder: %v", err)
			}
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

// refuse notes a request the recorder did not let through (see refused).
func (r *s3Recorder) refuse(req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refused = append(r.refused, req.Method+" "+req.URL.Path)
}

// refusedSince lists the requests refused after the first n (see refused), in order.
func (r *s3Recorder) refusedSince(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refused[n:]...)
}

func (r *s3Recorder) record(req *http.Request) {
	write := s3Write(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	r.kinds.add(req)
	r.methods = append(r.methods, req.Method)
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

func (k *s3Kinds) add(req *http.Request) {
	_, key, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
	switch {
	case testinfra.IsS3Listing(req):
		k.Lists++
	case req.Method == http.MethodGet && key == "" && req.URL.Query().Has("encryption"):
		k.EncryptionReads++
	case req.Method == http.MethodHead && key != "":
		k.Heads++
	case req.Method == http.MethodGet && key != "":
		k.Gets++
	case req.Method == http.MethodPut && key != "":
		k.Puts++
	case req.Method == http.MethodDelete && key != "":
		k.Deletes++
	default:
		k.Other++
	}
}

// counts returns the requests seen so far by kind, and how many listings had metadata removed.
func (r *s3Recorder) counts() (kinds s3Kinds, stripped int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.kinds, r.stripped
}

// probeName starts the key of the write check's probe object.
const probeName = ".kratix-write-check-"

// probeWrites lists the write checks' PUTs and DELETEs, oldest first.
func (r *s3Recorder) probeWrites() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.probes...)
}

// methodsSince lists the methods of the requests after the first n, in order.
func (r *s3Recorder) methodsSince(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.methods[n:]...)
}

func (r *s3Recorder) snapshot() (writes []string, requests int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...), r.requests
}
