package statestore

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// A server that does not implement conditional PUTs (an older S3-compatible store) answers the
// write's If-None-Match with 501 NotImplemented: the write falls back to plain PUTs, for this file
// and the rest of the process, and every file lands. The server is the real MinIO behind a proxy
// that refuses conditional PUTs the way such a server does; the bucket is read back directly.
func TestBucketWriteWithoutConditionalPuts(t *testing.T) {
	srv := testMinIO(t)
	_, client, bucket := testBucket(t)
	target, err := url.Parse("http://" + srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var refused, passed atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.Header.Get("If-None-Match") != "" {
			refused.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotImplemented)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code>` +
				`<Message>A header you provided implies functionality that is not implemented</Message></Error>`))
			return
		}
		passed.Add(1)
		proxy.ServeHTTP(w, r) // the Host header stays the proxy's, which the client signed
	}))
	defer front.Close()

	st, err := NewPool().Bucket(rootConfig(strings.TrimPrefix(front.URL, "http://"), bucket, srv.AccessKey, srv.SecretKey))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	change := Change{Put: map[string][]byte{"d0/a.yaml": []byte("a\n"), "d1/b.yaml": []byte("b\n"), "d2/c.yaml": []byte("c\n")}}
	if _, err := st.Apply(ctx, change); err != nil {
		t.Fatalf("write through a server without conditional PUTs: %v", err)
	}
	want := map[string]string{"d0/a.yaml": "a\n", "d1/b.yaml": "b\n", "d2/c.yaml": "c\n"}
	if got := objects(t, client, bucket); !maps.Equal(got, want) {
		t.Errorf("the bucket holds\n  %v\nwant\n  %v", got, want)
	}
	if n := refused.Load(); n < 1 || n > 3 {
		t.Errorf("%d conditional PUTs refused; want at least the first and at most one per file in flight", n)
	}
	// The next write of new files asks no more conditions.
	before := refused.Load()
	if _, err := st.Apply(ctx, Change{Put: map[string][]byte{"d3/d.yaml": []byte("d\n")}}); err != nil {
		t.Fatal(err)
	}
	if n := refused.Load() - before; n != 0 {
		t.Errorf("the second write sent %d conditional PUTs after the server refused them", n)
	}
	if got, ok := objects(t, client, bucket)["d3/d.yaml"]; !ok || got != "d\n" {
		t.Errorf("d3/d.yaml = %q, %v after the second write", got, ok)
	}
	if passed.Load() == 0 {
		t.Error("nothing went through the proxy to MinIO")
	}
}
