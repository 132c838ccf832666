package statestore

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// DefaultBucketConcurrency bounds the requests one bucket operation has in flight.
const DefaultBucketConcurrency = 8

// BucketStats counts the requests a bucket store made, so that benchmarks and tests can show
// what an operation cost (a plan with nothing to do should make no PUT and no GET).
type BucketStats struct {
	Puts, Gets, Heads, Lists, Deletes int64
}

// StatsReporter is implemented by stores that count their requests.
type StatsReporter interface {
	Stats() BucketStats
}

type bucketStore struct {
	cfg      BucketConfig
	client   *minio.Client
	core     *minio.Core
	inFlight int

	puts, gets, heads, lists, deletes atomic.Int64

	aggMu    sync.Mutex
	aggLocks map[string]*sync.Mutex
}

var _ Store = (*bucketStore)(nil)

// Bucket returns the store for a bucket. Clients are reused for the life of the Pool: one per
// endpoint, bucket and credentials. Nothing is dialled until the first operation.
func (p *Pool) Bucket(cfg BucketConfig) (Store, error) {
	key := bucketKey(cfg)
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.buckets[key]; ok {
		return s, nil
	}
	s, err := newBucketStore(cfg)
	if err != nil {
		return nil, err
	}
	p.buckets[key] = s
	return s, nil
}

// bucketKey identifies a client without keeping credentials in clear in memory longer than the
// client itself does.
func bucketKey(cfg BucketConfig) string {
	h := sha256.New()
	for _, s := range []string{cfg.Endpoint, cfg.BucketName, cfg.Region, fmt.Sprint(cfg.Insecure), cfg.AuthMethod,
		fmt.Sprint(cfg.CreateBucket), cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken, cfg.CACertificate} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newBucketStore(cfg BucketConfig) (*bucketStore, error) {
	b := &bucketStore{cfg: cfg, inFlight: DefaultBucketConcurrency}
	// A transport of our own: never mutate http.DefaultTransport, which other code shares.
	tr, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, b.fail("configure", KindConfig, errors.New("the default HTTP transport is not an *http.Transport"))
	}
	tr = tr.Clone()
	tr.MaxIdleConnsPerHost = DefaultBucketConcurrency * 2
	if cfg.CACertificate != "" {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM([]byte(cfg.CACertificate)) {
			return nil, b.fail("configure", KindConfig, errors.New("ca_certificate holds no PEM certificate"))
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	var creds *credentials.Credentials
	switch cfg.AuthMethod {
	case "", "accessKey":
		creds = credentials.NewStaticV4(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken)
	case "IAM":
		// The standard chain: environment variables first, then web identity and instance
		// profiles, as Kratix's IAM method does.
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.EnvMinio{}, &credentials.IAM{},
		})
	default:
		return nil, b.fail("configure", KindConfig, fmt.Errorf("unknown auth_method %q", cfg.AuthMethod))
	}
	opts := &minio.Options{
		Creds:     creds,
		Secure:    !cfg.Insecure,
		Region:    cfg.Region,
		Transport: tr,
		// minio-go retries network failures ten times by default; a user waiting on a plan wants
		// to hear about an unreachable endpoint in seconds.
		MaxRetries: 3,
	}
	core, err := minio.NewCore(cfg.Endpoint, opts)
	if err != nil {
		return nil, b.fail("configure", KindConfig, err)
	}
	b.core = core
	b.client = core.Client
	return b, nil
}

func (b *bucketStore) Describe() string {
	return fmt.Sprintf("bucket %q at %s", b.cfg.BucketName, b.cfg.Endpoint)
}

// Stats returns the requests made so far.
func (b *bucketStore) Stats() BucketStats {
	return BucketStats{Puts: b.puts.Load(), Gets: b.gets.Load(), Heads: b.heads.Load(), Lists: b.lists.Load(), Deletes: b.deletes.Load()}
}

// Check proves write access: the bucket exists (or is created when asked), and a multipart
// upload can be started; it is aborted at once, so nothing is left behind.
func (b *bucketStore) Check(ctx context.Context) error {
	exists, err := b.client.BucketExists(ctx, b.cfg.BucketName)
	if err != nil {
		return b.fail("check", classifyBucketError(err), err)
	}
	if !exists {
		if !b.cfg.CreateBucket {
			return b.fail("check", KindMissingBucket, errors.New("the bucket does not exist"))
		}
		if err := b.client.MakeBucket(ctx, b.cfg.BucketName, minio.MakeBucketOptions{Region: b.cfg.Region}); err != nil {
			return b.fail("check", classifyBucketError(err), fmt.Errorf("creating the bucket: %w", err))
		}
	}
	key := ".kratix-write-check-" + randomSuffix()
	id, err := b.core.NewMultipartUpload(ctx, b.cfg.BucketName, key, minio.PutObjectOptions{})
	if err != nil {
		return b.fail("check", classifyBucketError(err), fmt.Errorf("starting a test upload: %w", err))
	}
	if err := b.core.AbortMultipartUpload(ctx, b.cfg.BucketName, key, id); err != nil {
		return b.fail("check", classifyBucketError(err), fmt.Errorf("aborting the test upload %s: %w", key, err))
	}
	return nil
}

func (b *bucketStore) Apply(ctx context.Context, change Change) (Result, error) {
	if err := checkChangePaths(change); err != nil {
		return Result{}, b.fail("write", KindConfig, err)
	}
	// One listing per pruned or deleted prefix gives the ETags of everything under it.
	listed := map[string]string{}
	var covered []string
	for _, prefix := range append(append([]string{}, change.Prune...), prefixesOf(change.Delete)...) {
		objs, err := b.List(ctx, prefix)
		if err != nil {
			return Result{}, err
		}
		for k, v := range objs {
			listed[k] = v
		}
		covered = append(covered, prefix)
	}
	// Files outside those prefixes are looked up one by one.
	var lookups []string
	for p := range change.Put {
		if !underAny(p, covered) {
			lookups = append(lookups, p)
		}
	}
	for _, p := range change.Delete {
		if !strings.HasSuffix(p, "/") && !underAny(p, covered) {
			lookups = append(lookups, p)
		}
	}
	existing, err := b.stat(ctx, lookups)
	if err != nil {
		return Result{}, err
	}
	for k, v := range listed {
		existing[k] = v
	}

	var toPut, toDelete []string
	for p, content := range change.Put {
		if existing[p] != md5Hex(content) {
			toPut = append(toPut, p)
		}
	}
	doomed := map[string]bool{}
	for _, p := range change.Delete {
		if strings.HasSuffix(p, "/") {
			for k := range listed {
				if strings.HasPrefix(k, p) {
					doomed[k] = true
				}
			}
		} else if _, ok := existing[p]; ok {
			doomed[p] = true
		}
	}
	for _, prefix := range change.Prune {
		for k := range listed {
			if _, keep := change.Put[k]; strings.HasPrefix(k, prefix) && !keep {
				doomed[k] = true
			}
		}
	}
	for k := range doomed {
		if _, keep := change.Put[k]; !keep {
			toDelete = append(toDelete, k)
		}
	}
	sort.Strings(toPut)
	sort.Strings(toDelete)

	err = b.parallel(ctx, toPut, func(ctx context.Context, p string) error {
		content := change.Put[p]
		b.puts.Add(1)
		_, err := b.client.PutObject(ctx, b.cfg.BucketName, p, bytes.NewReader(content), int64(len(content)),
			minio.PutObjectOptions{ContentType: contentType(p), DisableMultipart: true, SendContentMd5: true})
		return err
	})
	if err != nil {
		return Result{}, b.fail("write", classifyBucketError(err), err)
	}
	err = b.parallel(ctx, toDelete, func(ctx context.Context, p string) error {
		b.deletes.Add(1)
		return b.client.RemoveObject(ctx, b.cfg.BucketName, p, minio.RemoveObjectOptions{})
	})
	if err != nil {
		return Result{Written: toPut}, b.fail("write", classifyBucketError(err), err)
	}
	res := Result{Written: toPut, Deleted: toDelete}
	for _, a := range change.Aggregates {
		if err := b.rebuildAggregate(ctx, a, &res); err != nil {
			return res, err
		}
	}
	sort.Strings(res.Written)
	sort.Strings(res.Deleted)
	return res, nil
}

// rebuildAggregate makes a.File the join of every object under a.Dir, or removes it. Rebuilds
// of one file take turns within the process; across processes the last writer wins, as with
// Kratix's own bucket writer.
func (b *bucketStore) rebuildAggregate(ctx context.Context, a Aggregate, res *Result) error {
	unlock := b.lockAggregate(a.File)
	defer unlock()
	listed, err := b.List(ctx, a.Dir)
	if err != nil {
		return err
	}
	contributions := map[string][]byte{}
	for p := range listed {
		content, err := b.Read(ctx, p)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		contributions[p] = content
	}
	existing, err := b.stat(ctx, []string{a.File})
	if err != nil {
		return err
	}
	if len(contributions) == 0 {
		if _, ok := existing[a.File]; !ok {
			return nil
		}
		b.deletes.Add(1)
		if err := b.client.RemoveObject(ctx, b.cfg.BucketName, a.File, minio.RemoveObjectOptions{}); err != nil {
			return b.fail("write", classifyBucketError(err), err)
		}
		res.Deleted = append(res.Deleted, a.File)
		return nil
	}
	content := joinContributions(contributions)
	if existing[a.File] == md5Hex(content) {
		return nil
	}
	b.puts.Add(1)
	if _, err := b.client.PutObject(ctx, b.cfg.BucketName, a.File, bytes.NewReader(content), int64(len(content)),
		minio.PutObjectOptions{ContentType: contentType(a.File), DisableMultipart: true, SendContentMd5: true}); err != nil {
		return b.fail("write", classifyBucketError(err), err)
	}
	res.Written = append(res.Written, a.File)
	return nil
}

func (b *bucketStore) lockAggregate(file string) func() {
	b.aggMu.Lock()
	if b.aggLocks == nil {
		b.aggLocks = map[string]*sync.Mutex{}
	}
	m, ok := b.aggLocks[file]
	if !ok {
		m = &sync.Mutex{}
		b.aggLocks[file] = m
	}
	b.aggMu.Unlock()
	m.Lock()
	return m.Unlock
}

// parallel runs fn for every path with at most inFlight running; it returns the first failure
// with the count of failures.
func (b *bucketStore) parallel(ctx context.Context, paths []string, fn func(context.Context, string) error) error {
	if len(paths) == 0 {
		return nil
	}
	sem := make(chan struct{}, b.inFlight)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		first    error
		failures int
	)
	for _, p := range paths {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, p); err != nil {
				mu.Lock()
				failures++
				if first == nil {
					first = fmt.Errorf("%s: %w", p, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if failures > 1 {
		return fmt.Errorf("%d of %d requests failed; the first: %w", failures, len(paths), first)
	}
	return first
}

// stat returns the MD5 of each named object that exists, with one HEAD each, in parallel.
func (b *bucketStore) stat(ctx context.Context, paths []string) (map[string]string, error) {
	out := map[string]string{}
	var mu sync.Mutex
	err := b.parallel(ctx, paths, func(ctx context.Context, p string) error {
		b.heads.Add(1)
		info, err := b.client.StatObject(ctx, b.cfg.BucketName, p, minio.StatObjectOptions{})
		if err != nil {
			if classifyBucketError(err) == KindNotFound {
				return nil
			}
			return err
		}
		sum, err := b.objectMD5(ctx, p, info.ETag)
		if err != nil {
			return err
		}
		mu.Lock()
		out[p] = sum
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, b.fail("read", classifyBucketError(err), err)
	}
	return out, nil
}

// Hashes lists the folders the paths are in (one request for many files) rather than asking for
// each file; drift detection therefore costs listings, not downloads.
func (b *bucketStore) Hashes(ctx context.Context, paths []string) (map[string]string, error) {
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, b.fail("read", KindConfig, err)
		}
	}
	dirs := map[string][]string{}
	for _, p := range paths {
		dir := path.Dir(p)
		if dir == "." {
			dir = ""
		} else {
			dir += "/"
		}
		dirs[dir] = append(dirs[dir], p)
	}
	out := map[string]string{}
	for dir, files := range dirs {
		found, err := b.list(ctx, dir, false)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if sum, ok := found[f]; ok {
				out[f] = sum
			}
		}
	}
	return out, nil
}

func (b *bucketStore) List(ctx context.Context, prefix string) (map[string]string, error) {
	return b.list(ctx, prefix, true)
}

func (b *bucketStore) list(ctx context.Context, prefix string, recursive bool) (map[string]string, error) {
	b.lists.Add(1)
	out := map[string]string{}
	for obj := range b.client.ListObjects(ctx, b.cfg.BucketName, minio.ListObjectsOptions{Prefix: prefix, Recursive: recursive}) {
		if obj.Err != nil {
			return nil, b.fail("list", classifyBucketError(obj.Err), obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue // a common prefix (sub-folder) of a non-recursive listing
		}
		sum, err := b.objectMD5(ctx, obj.Key, obj.ETag)
		if err != nil {
			return nil, b.fail("read", classifyBucketError(err), err)
		}
		out[obj.Key] = sum
	}
	return out, nil
}

// objectMD5 is the object's ETag when that is an MD5 (a single-part upload); otherwise the
// content is downloaded and hashed.
func (b *bucketStore) objectMD5(ctx context.Context, key, etag string) (string, error) {
	etag = strings.Trim(etag, `"`)
	if len(etag) == 32 && !strings.Contains(etag, "-") {
		return etag, nil
	}
	content, err := b.Read(ctx, key)
	if err != nil {
		return "", err
	}
	return md5Hex(content), nil
}

func (b *bucketStore) Read(ctx context.Context, p string) ([]byte, error) {
	if err := checkPath(p); err != nil {
		return nil, b.fail("read", KindConfig, err)
	}
	b.gets.Add(1)
	obj, err := b.client.GetObject(ctx, b.cfg.BucketName, p, minio.GetObjectOptions{})
	if err != nil {
		return nil, b.fail("read", classifyBucketError(err), err)
	}
	defer func() { _ = obj.Close() }()
	content, err := io.ReadAll(obj)
	if err != nil {
		return nil, b.fail("read", classifyBucketError(err), fmt.Errorf("%s: %w", p, err))
	}
	return content, nil
}

func (b *bucketStore) fail(op string, kind Kind, err error) error {
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	return &Error{Store: b.Describe(), Op: op, Kind: kind, Err: err}
}

// classifyBucketError tells the failures apart that users act on differently. 404 means gone;
// 403 never does.
func classifyBucketError(err error) Kind {
	var se *Error
	if errors.As(err, &se) {
		return se.Kind
	}
	resp := minio.ToErrorResponse(err)
	switch resp.Code {
	case "NoSuchKey":
		return KindNotFound
	case "NoSuchBucket":
		return KindMissingBucket
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "InvalidClientTokenId":
		return KindAuth
	case "AccessDenied", "AllAccessDisabled":
		return KindAccessDenied
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return KindAuth
	case http.StatusForbidden:
		return KindAccessDenied
	}
	return classifyTransportError(err)
}

// classifyTransportError recognises TLS and network failures.
func classifyTransportError(err error) Kind {
	var (
		unknownCA *x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		certErr   *tls.CertificateVerificationError
		recordErr tls.RecordHeaderError
		netErr    net.Error
		dnsErr    *net.DNSError
		opErr     *net.OpError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &certErr), errors.As(err, &recordErr),
		strings.Contains(msg, "x509:"), strings.Contains(msg, "tls:"), strings.Contains(msg, "HTTP response to HTTPS client"):
		return KindTLS
	case errors.As(err, &dnsErr), errors.As(err, &opErr), errors.As(err, &netErr),
		strings.Contains(msg, "connection refused"), strings.Contains(msg, "no such host"), strings.Contains(msg, "i/o timeout"):
		return KindNetwork
	}
	return KindOther
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".yaml", ".yml":
		return "application/yaml"
	}
	return ""
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

func prefixesOf(paths []string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasSuffix(p, "/") {
			out = append(out, p)
		}
	}
	return out
}

func underAny(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
