package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// s3Counts is what the provider asked of the bucket, by kind of S3 request.
type s3Counts struct {
	Puts, Gets, Heads, Lists, Other int
	// Listings counts the LIST requests that start a listing; the others fetch its next pages
	// (1,000 keys each).
	Listings int
	// OtherKinds names the other requests ("GET ?location"), so that the table says what they were.
	OtherKinds map[string]int
	// Listed counts the listings by bucket and prefix ("b7-fleet-20/health/"), for the rows that
	// say what was listed (String leaves it out).
	Listed map[string]int
}

// listedText is Listed as "2 b7/ + 1 b7/health/", in order.
func (c s3Counts) listedText() string {
	parts := make([]string, 0, len(c.Listed))
	for k, n := range c.Listed {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " + ")
}

func (c s3Counts) String() string {
	s := fmt.Sprintf("%d PUT, %d GET, %d HEAD, %d LIST (%d listings), %d other", c.Puts, c.Gets, c.Heads, c.Lists, c.Listings, c.Other)
	if len(c.OtherKinds) == 0 {
		return s
	}
	kinds := make([]string, 0, len(c.OtherKinds))
	for k, n := range c.OtherKinds {
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	return s + " (" + strings.Join(kinds, ", ") + ")"
}

// countingProxy sits between the provider and MinIO on loopback and counts the S3 requests
// passing through. It counts on the wire, so it sees every request whatever the provider's own
// bookkeeping says.
type countingProxy struct {
	Endpoint string // host:port to give the provider instead of MinIO's

	srv    *http.Server
	mu     sync.Mutex
	counts s3Counts
}

func startCountingProxy(target string) (*countingProxy, error) {
	upstream, err := url.Parse("http://" + target)
	if err != nil {
		return nil, fmt.Errorf("proxy target %q: %w", target, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: listening on loopback: %w", err)
	}
	p := &countingProxy{Endpoint: l.Addr().String()}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(upstream)
		// The request is signed (SigV4) for the Host the client dialled: MinIO must see that one.
		r.Out.Host = r.In.Host
	}}
	p.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.count(r)
			rp.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := p.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("counting proxy: %v", err)
		}
	}()
	return p, nil
}

func (p *countingProxy) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
}

// reset zeroes the counts and returns what they were.
func (p *countingProxy) reset() s3Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	p.counts = s3Counts{}
	return c
}

func (p *countingProxy) count(r *http.Request) {
	kind := classifyS3(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch kind {
	case "PUT":
		p.counts.Puts++
	case "GET":
		p.counts.Gets++
	case "HEAD":
		p.counts.Heads++
	case "LIST":
		p.counts.Lists++
		if !r.URL.Query().Has("continuation-token") && !r.URL.Query().Has("marker") {
			p.counts.Listings++
			if p.counts.Listed == nil {
				p.counts.Listed = map[string]int{}
			}
			bucket, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
			p.counts.Listed[bucket+"/"+r.URL.Query().Get("prefix")]++
		}
	default:
		p.counts.Other++
		if p.counts.OtherKinds == nil {
			p.counts.OtherKinds = map[string]int{}
		}
		p.counts.OtherKinds[describeOther(r)]++
	}
}

// describeOther is the method, whether a key was named, and the query's keys: "GET bucket?location".
func describeOther(r *http.Request) string {
	_, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	what := r.Method + " bucket"
	if key != "" {
		what = r.Method + " object"
	}
	keys := make([]string, 0, len(r.URL.Query()))
	for k := range r.URL.Query() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		what += "?" + strings.Join(keys, "&")
	}
	return what
}

// classifyS3 names a path-style S3 request (/bucket/key?query): PUT and GET of an object (its
// body), HEAD of anything, LIST for a listing; everything else (bucket location, multipart,
// DELETE, bucket-level PUT) is "other".
func classifyS3(r *http.Request) string {
	_, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	listing := q.Has("list-type") || q.Has("prefix") || q.Has("delimiter") || q.Has("continuation-token")
	switch r.Method {
	case http.MethodHead:
		return "HEAD"
	case http.MethodGet:
		switch {
		case listing || (key == "" && len(q) == 0):
			return "LIST"
		case key != "" && !q.Has("uploadId") && !q.Has("tagging") && !q.Has("acl") && !q.Has("retention"):
			return "GET"
		}
	case http.MethodPut:
		// A multipart part (uploadId) carries object bytes too, so it counts as a PUT.
		if key != "" && !q.Has("tagging") && !q.Has("acl") && !q.Has("retention") {
			return "PUT"
		}
	}
	return "other"
}
