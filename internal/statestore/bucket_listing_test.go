package statestore

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/encrypt"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// plainListings stands between a store and MinIO and makes MinIO look like a server whose
// listings carry no object metadata (AWS S3, which ignores MinIO's metadata=true): it removes the
// metadata elements MinIO adds to each listed object (<UserMetadata>, <UserTags>, <Internal>).
// Everything else passes untouched. It counts the requests it forwards by kind, on the wire, so
// that tests see what a store asked whatever the store's own counters say.
type plainListings struct {
	endpoint string // host:port to give the store instead of MinIO's

	mu       sync.Mutex
	counts   wireCounts
	stripped int // listing responses that had metadata removed
}

// wireCounts are the requests a store sent, by kind.
type wireCounts struct {
	Lists, Heads, Gets, Puts, Deletes int
	EncryptionReads                   int // GET ?encryption (the bucket's default encryption)
	Other                             int
}

func (c wireCounts) String() string {
	return fmt.Sprintf("%d LIST, %d HEAD, %d GET, %d PUT, %d DELETE, %d GET ?encryption, %d other",
		c.Lists, c.Heads, c.Gets, c.Puts, c.Deletes, c.EncryptionReads, c.Other)
}

// startPlainListings serves plain HTTP on a free loopback port until the test ends, and talks
// to srv as srv serves (HTTPS when srv has a CA certificate).
func startPlainListings(t *testing.T, srv *testinfra.MinIO) *plainListings {
	t.Helper()
	scheme := "http"
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if srv.CACertificate != "" {
		scheme = "https"
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(srv.CACertificate)) {
			t.Fatal("MinIO's CA certificate holds no PEM certificate")
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	upstream, err := url.Parse(scheme + "://" + srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &plainListings{endpoint: l.Addr().String()}
	proxy := &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			// Requests are signed (SigV4) for the host the client dialled: MinIO must see that one.
			pr.Out.Host = pr.In.Host
			// A compressed body could not be edited; Accept-Encoding is not signed.
			pr.Out.Header.Del("Accept-Encoding")
		},
		ModifyResponse: func(resp *http.Response) error {
			if !testinfra.IsS3Listing(resp.Request) {
				return nil
			}
			stripped, err := testinfra.StripListingMetadata(resp)
			if stripped {
				p.mu.Lock()
				p.stripped++
				p.mu.Unlock()
			}
			return err
		},
	}
	front := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			p.count(req)
			proxy.ServeHTTP(w, req)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := front.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("listing proxy: %v", err)
		}
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = front.Shutdown(ctx)
	})
	return p
}

func (p *plainListings) count(req *http.Request) {
	_, key, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case testinfra.IsS3Listing(req):
		p.counts.Lists++
	case req.Method == http.MethodGet && key == "" && req.URL.Query().Has("encryption"):
		p.counts.EncryptionReads++
	case req.Method == http.MethodHead && key != "":
		p.counts.Heads++
	case req.Method == http.MethodGet && key != "":
		p.counts.Gets++
	case req.Method == http.MethodPut && key != "":
		p.counts.Puts++
	case req.Method == http.MethodDelete && key != "":
		p.counts.Deletes++
	default:
		p.counts.Other++
	}
}

// since is what was sent after before was taken.
func (p *plainListings) since(before wireCounts) wireCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	return wireCounts{Lists: c.Lists - before.Lists, Heads: c.Heads - before.Heads, Gets: c.Gets - before.Gets,
		Puts: c.Puts - before.Puts, Deletes: c.Deletes - before.Deletes,
		EncryptionReads: c.EncryptionReads - before.EncryptionReads, Other: c.Other - before.Other}
}

func (p *plainListings) snapshot() wireCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

func (p *plainListings) strippedListings() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stripped
}

// minimalPolicy allows what a store needs on bucket (list, put, get, delete) and nothing more:
// not s3:GetEncryptionConfiguration, so the bucket's default encryption cannot be read.
func minimalPolicy(bucket string) string {
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:PutObject","s3:GetObject","s3:DeleteObject"],"Resource":["arn:aws:s3:::%[1]s/*"]},
  {"Effect":"Allow","Action":["s3:ListBucket"],"Resource":["arn:aws:s3:::%[1]s"]}
]}`, bucket)
}

// TestBucketListingsWithoutMetadata: behind a server whose listings carry no metadata (MinIO
// behind plainListings, as AWS S3 answers), the store still tells each object's MD5 right on a
// bucket that encrypts with SSE-KMS (ETag ≠ MD5): Hashes are the MD5s of the content, an
// unchanged Apply writes nothing, and a hand edit is seen and repaired. It asks the object (HEAD)
// only where the bucket's encryption makes that needed, and downloads only what the HEAD cannot
// tell: on an unencrypted or SSE-S3 bucket a plan costs listings alone.
//
// Each case runs with credentials that may read the bucket's default encryption, and with
// credentials that may not (a policy with only what the store needs to do its job).
func TestBucketListingsWithoutMetadata(t *testing.T) {
	srv := testMinIOKMS(t)
	// The wire counts each case expects: for Hashes of the three files, for an unchanged Apply
	// of them, and for Hashes after a hand edit of one. Two listings each time: w/ (two files)
	// and top.yaml (alone in its folder).
	type counts struct{ hashes, unchanged, edited wireCounts }
	cases := []struct {
		name       string
		encryption string // "" for none
		readable   bool   // whether the credentials may read the bucket's default encryption
		want       counts
	}{
		{name: "SSE-KMS", encryption: "SSE-KMS", readable: true, want: counts{
			// One read of the default encryption per store; then a HEAD per file (its metadata
			// holds the MD5 put stored).
			hashes:    wireCounts{Lists: 2, EncryptionReads: 1, Heads: 3},
			unchanged: wireCounts{Lists: 2, Heads: 3},
			// The edit, made by a client that knows nothing of that metadata, is downloaded.
			edited: wireCounts{Lists: 2, Heads: 3, Gets: 1},
		}},
		{name: "SSE-KMS, default encryption unreadable", encryption: "SSE-KMS", want: counts{
			// The newest object is asked first; it hides its MD5, so the others are asked too.
			hashes: wireCounts{Lists: 2, EncryptionReads: 1, Heads: 3},
			// No ETag is the MD5 of the content: each file is asked.
			unchanged: wireCounts{Lists: 2, Heads: 3},
			edited:    wireCounts{Lists: 2, Heads: 3, Gets: 1},
		}},
		{name: "unencrypted", readable: true, want: counts{
			hashes:    wireCounts{Lists: 2, EncryptionReads: 1},
			unchanged: wireCounts{Lists: 2},
			edited:    wireCounts{Lists: 2},
		}},
		{name: "unencrypted, default encryption unreadable", want: counts{
			// Hashes asks the newest object how it is encrypted; it is not, so the ETags are
			// taken for MD5s.
			hashes: wireCounts{Lists: 2, EncryptionReads: 1, Heads: 1},
			// Apply knows the MD5 it expects: ETags that are that MD5 need no question.
			unchanged: wireCounts{Lists: 2},
			// The edited object is the newest: asked, not encrypted.
			edited: wireCounts{Lists: 2, Heads: 1},
		}},
		{name: "SSE-S3", encryption: "SSE-S3", readable: true, want: counts{
			hashes:    wireCounts{Lists: 2, EncryptionReads: 1},
			unchanged: wireCounts{Lists: 2},
			edited:    wireCounts{Lists: 2},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			bucket := "p-" + randomSuffix()
			if err := srv.MakeBucket(ctx, bucket); err != nil {
				t.Fatal(err)
			}
			if tc.encryption != "" {
				if err := srv.EncryptBucket(ctx, bucket, tc.encryption); err != nil {
					t.Fatal(err)
				}
			}
			key, secret := srv.AccessKey, srv.SecretKey
			if !tc.readable {
				var err error
				if key, secret, err = srv.AddUserWithPolicy(ctx, minimalPolicy(bucket)); err != nil {
					t.Fatal(err)
				}
				// The premise: these credentials may not read the default encryption.
				user, err := minio.New(srv.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(key, secret, ""), Region: "us-east-1"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := user.GetBucketEncryption(ctx, bucket); minio.ToErrorResponse(err).Code != "AccessDenied" {
					t.Fatalf("reading the default encryption with the minimal policy gave %v, want AccessDenied", err)
				}
			}
			client, err := srv.Client()
			if err != nil {
				t.Fatal(err)
			}
			wire := startPlainListings(t, srv)
			s, err := NewPool().Bucket(rootConfig(wire.endpoint, bucket, key, secret))
			if err != nil {
				t.Fatal(err)
			}
			st := s.(*bucketStore)
			files := map[string][]byte{"w/a.yaml": []byte("a: 1\n"), "w/b.yaml": []byte("b: 2\n"), "top.yaml": []byte("t\n")}
			paths := []string{"w/a.yaml", "w/b.yaml", "top.yaml"}
			want := map[string]string{}
			for p, c := range files {
				sum := md5.Sum(c)
				want[p] = hex.EncodeToString(sum[:])
			}
			if _, err := st.Apply(ctx, Change{Put: files}); err != nil {
				t.Fatal(err)
			}

			// The premises, with plain minio-go. Straight to MinIO: the objects are encrypted
			// as the bucket says, and under SSE-KMS no ETag is the MD5 of the content. Through
			// the proxy: a listing that asks for metadata gets none.
			info, err := client.StatObject(ctx, bucket, "w/a.yaml", minio.StatObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wantSSE := map[string]string{"": "", "SSE-S3": "AES256", "SSE-KMS": "aws:kms"}[tc.encryption]
			if got := info.Metadata.Get("X-Amz-Server-Side-Encryption"); got != wantSSE {
				t.Fatalf("w/a.yaml is encrypted with %q, want %q", got, wantSSE)
			}
			if etagIsMD5 := strings.Trim(info.ETag, `"`) == want["w/a.yaml"]; etagIsMD5 == (tc.encryption == "SSE-KMS") {
				t.Fatalf("ETag %s, MD5 %s: not the case this test is about", info.ETag, want["w/a.yaml"])
			}
			viaProxy, err := minio.New(wire.endpoint, &minio.Options{Creds: credentials.NewStaticV4(srv.AccessKey, srv.SecretKey, "")})
			if err != nil {
				t.Fatal(err)
			}
			for o := range viaProxy.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: "w/", WithMetadata: true}) {
				if o.Err != nil {
					t.Fatal(o.Err)
				}
				if len(o.UserMetadata) != 0 {
					t.Fatalf("the listing through the proxy still carries metadata for %s: %v", o.Key, o.UserMetadata)
				}
			}
			if wire.strippedListings() == 0 {
				t.Fatal("the proxy removed no metadata from any listing: MinIO sent none, so this test shows nothing")
			}

			before := wire.snapshot()
			got, err := st.Hashes(ctx, paths)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Hashes = %v, want %v", got, want)
			}
			hashes := wire.since(before)
			t.Logf("Hashes of 3 files: %v", hashes)
			if hashes != tc.want.hashes {
				t.Errorf("Hashes sent %v, want %v", hashes, tc.want.hashes)
			}

			before = wire.snapshot()
			res, err := st.Apply(ctx, Change{Put: files})
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed() {
				t.Errorf("an unchanged Apply wrote %v and deleted %v", res.Written, res.Deleted)
			}
			unchanged := wire.since(before)
			t.Logf("unchanged Apply of 3 files: %v", unchanged)
			if unchanged != tc.want.unchanged {
				t.Errorf("an unchanged Apply sent %v, want %v", unchanged, tc.want.unchanged)
			}

			// A hand edit, by a client that knows nothing of the store's metadata, is seen.
			edited := []byte("a: edited by hand\n")
			if _, err := client.PutObject(ctx, bucket, "w/a.yaml", bytes.NewReader(edited), int64(len(edited)), minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
			sum := md5.Sum(edited)
			before = wire.snapshot()
			got, err = st.Hashes(ctx, paths)
			if err != nil {
				t.Fatal(err)
			}
			if got["w/a.yaml"] != hex.EncodeToString(sum[:]) || got["w/b.yaml"] != want["w/b.yaml"] {
				t.Errorf("after a hand edit of w/a.yaml Hashes = %v; want its MD5 %x, and w/b.yaml's %s", got, sum, want["w/b.yaml"])
			}
			afterEdit := wire.since(before)
			t.Logf("Hashes after a hand edit: %v", afterEdit)
			if afterEdit != tc.want.edited {
				t.Errorf("Hashes after a hand edit sent %v, want %v", afterEdit, tc.want.edited)
			}
			res, err = st.Apply(ctx, Change{Put: files})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Written, []string{"w/a.yaml"}) {
				t.Errorf("the Apply after a hand edit wrote %v, want [w/a.yaml]", res.Written)
			}
			if got := objects(t, client, bucket); got["w/a.yaml"] != "a: 1\n" {
				t.Errorf("w/a.yaml holds %q after the repair", got["w/a.yaml"])
			}
			// Once repaired, nothing more to write.
			before = wire.snapshot()
			if res, err := st.Apply(ctx, Change{Put: files}); err != nil || res.Changed() {
				t.Errorf("the Apply after the repair = %+v, %v; want nothing written", res, err)
			}
			if d := wire.since(before); d.Puts != 0 {
				t.Errorf("the Apply after the repair sent %v", d)
			}
			// List tells the same MD5s.
			if l, err := st.List(ctx, ""); err != nil || !reflect.DeepEqual(l, want) {
				t.Errorf("List = %v, %v; want %v", l, err, want)
			}
		})
	}
}

// TestBucketListingsWithoutMetadataMixed: behind listings without metadata, objects whose
// encryption differs from the bucket's default. Objects written before the bucket was encrypted
// with SSE-KMS keep ETags that are MD5s: an Apply takes them as unchanged without asking them.
// An object someone wrote with SSE-KMS on an unencrypted bucket looks changed and is written
// again, once: then it has the bucket's default and looks as it is.
func TestBucketListingsWithoutMetadataMixed(t *testing.T) {
	srv := testMinIOKMS(t)
	ctx := context.Background()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	wire := startPlainListings(t, srv)
	files := map[string][]byte{"w/a.yaml": []byte("a: 1\n"), "w/b.yaml": []byte("b: 2\n")}
	want := map[string]string{}
	for p, c := range files {
		sum := md5.Sum(c)
		want[p] = hex.EncodeToString(sum[:])
	}
	open := func(bucket string) *bucketStore {
		s, err := NewPool().Bucket(rootConfig(wire.endpoint, bucket, srv.AccessKey, srv.SecretKey))
		if err != nil {
			t.Fatal(err)
		}
		return s.(*bucketStore)
	}

	t.Run("written before SSE-KMS", func(t *testing.T) {
		bucket := "m-" + randomSuffix()
		if err := srv.MakeBucket(ctx, bucket); err != nil {
			t.Fatal(err)
		}
		if _, err := open(bucket).Apply(ctx, Change{Put: files}); err != nil {
			t.Fatal(err)
		}
		if err := srv.EncryptBucket(ctx, bucket, "SSE-KMS"); err != nil {
			t.Fatal(err)
		}
		info, err := client.StatObject(ctx, bucket, "w/a.yaml", minio.StatObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sse := info.Metadata.Get("X-Amz-Server-Side-Encryption"); sse != "" {
			t.Fatalf("w/a.yaml, written before the bucket was encrypted, is encrypted with %s", sse)
		}
		st := open(bucket)
		before := wire.snapshot()
		if res, err := st.Apply(ctx, Change{Put: files}); err != nil || res.Changed() {
			t.Errorf("an unchanged Apply = %+v, %v; want nothing written", res, err)
		}
		d := wire.since(before)
		d.Other = 0 // the new client's look-up of the bucket's region
		if d != (wireCounts{Lists: 1}) {
			t.Errorf("an unchanged Apply sent %v; want one listing only", d)
		}
		before = wire.snapshot()
		if got, err := st.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml"}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Hashes = %v, %v; want %v", got, err, want)
		}
		// The bucket now says SSE-KMS: each object is asked, and answers that it is not.
		if d := wire.since(before); d != (wireCounts{Lists: 1, EncryptionReads: 1, Heads: 2}) {
			t.Errorf("Hashes sent %v; want 1 LIST, 1 GET ?encryption, 2 HEAD", d)
		}
	})

	t.Run("SSE-KMS by hand on an unencrypted bucket", func(t *testing.T) {
		bucket := "m-" + randomSuffix()
		if err := srv.MakeBucket(ctx, bucket); err != nil {
			t.Fatal(err)
		}
		st := open(bucket)
		if _, err := st.Apply(ctx, Change{Put: files}); err != nil {
			t.Fatal(err)
		}
		kms, err := encrypt.NewSSEKMS(srv.KMSKeyName, nil)
		if err != nil {
			t.Fatal(err)
		}
		same := files["w/a.yaml"]
		if _, err := client.PutObject(ctx, bucket, "w/a.yaml", bytes.NewReader(same), int64(len(same)),
			minio.PutObjectOptions{ServerSideEncryption: kms}); err != nil {
			t.Fatal(err)
		}
		info, err := client.StatObject(ctx, bucket, "w/a.yaml", minio.StatObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if info.Metadata.Get("X-Amz-Server-Side-Encryption") != "aws:kms" || strings.Trim(info.ETag, `"`) == want["w/a.yaml"] {
			t.Fatalf("the hand-written object is not SSE-KMS with an ETag other than its MD5: %v, %s", info.Metadata, info.ETag)
		}
		// Its ETag is taken for its MD5: it looks changed (never the other way).
		got, err := st.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		if got["w/a.yaml"] == want["w/a.yaml"] || got["w/b.yaml"] != want["w/b.yaml"] {
			t.Errorf("Hashes = %v; want w/a.yaml to look changed and w/b.yaml as %s", got, want["w/b.yaml"])
		}
		res, err := st.Apply(ctx, Change{Put: files})
		if err != nil || !reflect.DeepEqual(res.Written, []string{"w/a.yaml"}) {
			t.Errorf("the Apply = %+v, %v; want w/a.yaml written again", res, err)
		}
		if got, err := st.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml"}); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Hashes after it was written again = %v, %v; want %v", got, err, want)
		}
		if res, err := st.Apply(ctx, Change{Put: files}); err != nil || res.Changed() {
			t.Errorf("the next Apply = %+v, %v; want nothing written", res, err)
		}
	})
}

// TestBucketListingsWithoutMetadataSSEC: behind listings without metadata, on an SSE-KMS bucket,
// an object someone wrote with SSE-C (a key the store has not) answers the store's HEAD with 400.
// It looks changed, is written again with the bucket's default, and then looks as it is; the
// other objects are told right meanwhile.
func TestBucketListingsWithoutMetadataSSEC(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	srv, err := testinfra.StartMinIOWith(testinfra.MinIOOptions{KMS: true, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	ctx := context.Background()
	bucket := "c-" + randomSuffix()
	if err := srv.MakeBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	if err := srv.EncryptBucket(ctx, bucket, "SSE-KMS"); err != nil {
		t.Fatal(err)
	}
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	wire := startPlainListings(t, srv)
	s, err := NewPool().Bucket(rootConfig(wire.endpoint, bucket, srv.AccessKey, srv.SecretKey))
	if err != nil {
		t.Fatal(err)
	}
	st := s.(*bucketStore)
	files := map[string][]byte{"w/a.yaml": []byte("a: 1\n"), "w/b.yaml": []byte("b: 2\n")}
	want := map[string]string{}
	for p, c := range files {
		sum := md5.Sum(c)
		want[p] = hex.EncodeToString(sum[:])
	}
	if _, err := st.Apply(ctx, Change{Put: files}); err != nil {
		t.Fatal(err)
	}
	ssec, err := encrypt.NewSSEC(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	same := files["w/a.yaml"]
	if _, err := client.PutObject(ctx, bucket, "w/a.yaml", bytes.NewReader(same), int64(len(same)),
		minio.PutObjectOptions{ServerSideEncryption: ssec}); err != nil {
		t.Fatal(err)
	}
	// The premise, with plain minio-go: a HEAD without the key is refused with 400.
	_, err = client.StatObject(ctx, bucket, "w/a.yaml", minio.StatObjectOptions{})
	if resp := minio.ToErrorResponse(err); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a HEAD of the SSE-C object without its key gave %v (status %d), want 400", err, resp.StatusCode)
	}

	before := wire.snapshot()
	got, err := st.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml"})
	if err != nil {
		t.Fatalf("Hashes with an SSE-C object: %v", err)
	}
	if got["w/a.yaml"] == want["w/a.yaml"] || got["w/b.yaml"] != want["w/b.yaml"] {
		t.Errorf("Hashes = %v; want w/a.yaml to look changed and w/b.yaml as %s", got, want["w/b.yaml"])
	}
	t.Logf("Hashes with an SSE-C object: %v", wire.since(before))
	res, err := st.Apply(ctx, Change{Put: files})
	if err != nil || !reflect.DeepEqual(res.Written, []string{"w/a.yaml"}) {
		t.Errorf("the Apply = %+v, %v; want w/a.yaml written again", res, err)
	}
	if got, err := st.Hashes(ctx, []string{"w/a.yaml", "w/b.yaml"}); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Hashes after it was written again = %v, %v; want %v", got, err, want)
	}
	if res, err := st.Apply(ctx, Change{Put: files}); err != nil || res.Changed() {
		t.Errorf("the next Apply = %+v, %v; want nothing written", res, err)
	}
}
