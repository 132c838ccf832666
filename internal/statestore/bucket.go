package statestore

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// DefaultBucketConcurrency bounds the requests one bucket operation has in flight.
const DefaultBucketConcurrency = 8

// BucketStats counts the requests a bucket store made, so that benchmarks and tests can show
// what an operation cost (a plan with nothing to do makes no PUT and no GET). Lists counts
// listings asked for, not pages. The store finds objects by listing, so Heads stays 0; it is
// kept so that reports compare like with like.
type BucketStats struct {
	Puts, Gets, Heads, Lists, Deletes int64
}

// StatsReporter is implemented by stores that count their requests.
type StatsReporter interface {
	Stats() BucketStats
}

type bucketStore struct {
	cfg    BucketConfig
	client *minio.Client
	core   *minio.Core // for the multipart calls of Check
	// inFlight bounds the requests of one operation: enough to hide latency, few enough not to
	// trip a server's rate limits.
	inFlight int

	puts, gets, heads, lists, deletes atomic.Int64
	// afterAggregateListing, when set (tests only), runs between an aggregate rebuild's listing
	// of the parts and its write, where another writer may slip in.
	afterAggregateListing func()

	aggMu    sync.Mutex
	aggLocks map[string]*sync.Mutex
}

var (
	_ Store         = (*bucketStore)(nil)
	_ StatsReporter = (*bucketStore)(nil)
)

// Bucket returns the store for a bucket. Stores, and so clients and their connections, are
// reused for the life of the Pool: one per endpoint, bucket and credentials. Nothing is dialled
// until the first operation, so a provider can be configured before its endpoint is reachable.
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

// bucketKeySecret makes pool keys useless outside this process: they are keyed hashes, so a key
// that ends up in a log or a dump cannot be tested against guessed credentials.
var bucketKeySecret = func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}()

// bucketKey identifies a store by everything that shapes its client or its behaviour, without
// holding the credentials in clear.
func bucketKey(cfg BucketConfig) string {
	h := hmac.New(sha256.New, bucketKeySecret)
	for _, s := range []string{"bucket", cfg.Endpoint, cfg.BucketName, cfg.Region, fmt.Sprint(cfg.Insecure),
		cfg.AuthMethod, fmt.Sprint(cfg.CreateBucket), cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken,
		cfg.CACertificate} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newBucketStore(cfg BucketConfig) (*bucketStore, error) {
	b := &bucketStore{cfg: cfg, inFlight: DefaultBucketConcurrency}
	switch {
	case cfg.Endpoint == "":
		return nil, b.fail("configure", KindConfig, errors.New("the endpoint is empty"))
	case strings.Contains(cfg.Endpoint, "://") || strings.Contains(cfg.Endpoint, "/"):
		return nil, b.fail("configure", KindConfig, fmt.Errorf(
			"endpoint %q must be host[:port], without a scheme or path; set insecure = true for plain HTTP", cfg.Endpoint))
	}
	if err := s3utils.CheckValidBucketName(cfg.BucketName); err != nil {
		return nil, b.fail("configure", KindConfig, err)
	}

	// A transport of our own: never mutate http.DefaultTransport, which other code shares.
	def, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, b.fail("configure", KindConfig, errors.New("the default HTTP transport is not an *http.Transport"))
	}
	tr := def.Clone()
	tr.MaxIdleConnsPerHost = DefaultBucketConcurrency * 2
	// An endpoint that swallows packets should fail a plan in seconds, not after minutes of
	// retried 30-second dials.
	tr.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	if cfg.CACertificate != "" {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM([]byte(cfg.CACertificate)) {
			return nil, b.fail("configure", KindConfig, errors.New("ca_certificate holds no PEM certificate"))
		}
		// The CA is added to the roots; verification stays on.
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}

	var creds *credentials.Credentials
	switch cfg.AuthMethod {
	case "", "accessKey":
		creds = credentials.NewStaticV4(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken)
	case "IAM":
		// The standard chain: environment variables first, then web identity and instance
		// profiles (what credentials.NewIAM("") provides), as Kratix's IAM method does.
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.EnvMinio{}, &credentials.IAM{},
		})
	default:
		return nil, b.fail("configure", KindConfig, fmt.Errorf("unknown auth_method %q; use \"accessKey\" or \"IAM\"", cfg.AuthMethod))
	}
	core, err := minio.NewCore(cfg.Endpoint, &minio.Options{
		Creds:     creds,
		Secure:    !cfg.Insecure,
		Region:    cfg.Region,
		Transport: tr,
		// minio-go retries network failures ten times by default; a user waiting on a plan wants
		// to hear about an unreachable endpoint in seconds.
		MaxRetries: 3,
	})
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
// upload can be started under a temporary key. The upload is aborted at once and never
// completed, so no object appears, not even for a moment.
func (b *bucketStore) Check(ctx context.Context) error {
	exists, err := b.client.BucketExists(ctx, b.cfg.BucketName)
	if err != nil {
		return b.fail("check", classifyBucketError(err), err)
	}
	if !exists {
		if !b.cfg.CreateBucket {
			return b.fail("check", KindMissingBucket, errors.New("the bucket does not exist"))
		}
		err := b.client.MakeBucket(ctx, b.cfg.BucketName, minio.MakeBucketOptions{Region: b.cfg.Region})
		// Another process may have created it in the meantime; that is as good.
		if err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" {
			return b.fail("check", classifyBucketError(err), fmt.Errorf("creating the bucket: %w", err))
		}
	}
	key := ".kratix-write-check-" + randomSuffix()
	id, err := b.core.NewMultipartUpload(ctx, b.cfg.BucketName, key, minio.PutObjectOptions{})
	if err != nil {
		return b.fail("check", classifyBucketError(err), fmt.Errorf("starting a test upload: %w", err))
	}
	// Abort even if ctx has just ended, so that no pending upload is left behind.
	abortCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := b.core.AbortMultipartUpload(abortCtx, b.cfg.BucketName, key, id); err != nil {
		return b.fail("check", classifyBucketError(err), fmt.Errorf("aborting the test upload %s: %w", key, err))
	}
	return nil
}

// Apply writes what changed and removes what is no longer wanted. Existing objects are found
// first, in one parallel pass of listings (and HEADs for files alone in their folder); a file
// whose stored ETag is already the MD5 of its new content is not written again. PUTs go out in
// parallel, then DELETEs, so that a reader never sees a folder emptied before it is refilled.
func (b *bucketStore) Apply(ctx context.Context, change Change) (Result, error) {
	if err := checkChangePaths(change); err != nil {
		return Result{}, b.fail("write", KindConfig, err)
	}
	prefixes := append([]string(nil), change.Prune...)
	files := map[string]bool{} // file -> whether its MD5 is needed
	for _, p := range change.Delete {
		if strings.HasSuffix(p, "/") {
			prefixes = append(prefixes, p)
		} else {
			files[p] = false
		}
	}
	for p := range change.Put {
		files[p] = true
	}
	existing, err := b.survey(ctx, "write", prefixes, files)
	if err != nil {
		return Result{}, err
	}

	var toPut []string
	for p, content := range change.Put {
		if sum, ok := existing[p]; !ok || sum != md5Hex(content) {
			toPut = append(toPut, p)
		}
	}
	doomed := map[string]bool{}
	for _, p := range change.Delete {
		if !strings.HasSuffix(p, "/") {
			if _, ok := existing[p]; ok {
				doomed[p] = true
			}
		}
	}
	// existing holds everything under each listed prefix, so this finds every file there.
	for k := range existing {
		if underAny(k, prefixes) {
			doomed[k] = true
		}
	}
	var toDelete []string
	for k := range doomed {
		if _, keep := change.Put[k]; !keep {
			toDelete = append(toDelete, k)
		}
	}
	sort.Strings(toPut)
	sort.Strings(toDelete)

	var res Result
	errs := b.parallel(ctx, len(toPut), func(ctx context.Context, i int) error {
		return b.put(ctx, toPut[i], change.Put[toPut[i]])
	})
	res.Written, err = b.outcome("write", "writes", toPut, errs)
	if err != nil {
		return res, err
	}
	errs = b.parallel(ctx, len(toDelete), func(ctx context.Context, i int) error {
		return b.remove(ctx, toDelete[i])
	})
	res.Deleted, err = b.outcome("write", "deletes", toDelete, errs)
	if err != nil {
		return res, err
	}
	for _, a := range change.Aggregates {
		if err := b.rebuildAggregate(ctx, a, &res); err != nil {
			sortResult(&res)
			return res, err
		}
	}
	sortResult(&res)
	return res, nil
}

func sortResult(res *Result) {
	sort.Strings(res.Written)
	sort.Strings(res.Deleted)
}

// rebuildAggregate makes a.File the join of every object under a.Dir, or removes it. Rebuilds
// of one file take turns within the process; across processes (other workspaces contributing to
// the same destination) the write is a compare-and-swap: the file's ETag is read before the
// parts are listed, and the new content is written only if the file still has it (If-Match, or
// If-None-Match for a new file). A writer that loses starts again from a new listing, so the
// last rebuild always holds every part written before it.
func (b *bucketStore) rebuildAggregate(ctx context.Context, a Aggregate, res *Result) error {
	unlock := b.lockAggregate(a.File)
	defer unlock()
	for attempt := 1; ; attempt++ {
		done, err := b.tryRebuildAggregate(ctx, a, res)
		if err != nil || done {
			return err
		}
		if attempt >= aggregateAttempts {
			return b.fail("write", KindConflict, fmt.Errorf("%s: other writers changed it %d times while it was rebuilt", a.File, attempt))
		}
		select {
		case <-ctx.Done():
			return b.fail("write", KindNetwork, ctx.Err())
		case <-time.After(time.Duration(attempt*10+mrand.IntN(20)) * time.Millisecond):
		}
	}
}

// aggregateAttempts bounds the rebuilds of one aggregate that lose to other writers.
const aggregateAttempts = 20

// tryRebuildAggregate makes one attempt; done is false when another writer changed the file
// between the listing and the write.
func (b *bucketStore) tryRebuildAggregate(ctx context.Context, a Aggregate, res *Result) (done bool, err error) {
	etag, exists, err := b.etag(ctx, a.File)
	if err != nil {
		return false, err
	}
	found, err := b.survey(ctx, "write", []string{a.Dir}, nil)
	if err != nil {
		return false, err
	}
	if b.afterAggregateListing != nil {
		b.afterAggregateListing()
	}
	var parts []string
	for p := range found {
		if strings.HasPrefix(p, a.Dir) {
			parts = append(parts, p)
		}
	}
	sort.Strings(parts)
	contents := make([][]byte, len(parts))
	gone := make([]bool, len(parts))
	errs := b.parallel(ctx, len(parts), func(ctx context.Context, i int) error {
		c, err := b.get(ctx, parts[i])
		if err != nil && classifyBucketError(err) == KindNotFound {
			gone[i] = true // removed since the listing: no longer a part
			return nil
		}
		contents[i] = c
		return err
	})
	if _, err := b.outcome("write", "reads", parts, errs); err != nil {
		return false, err
	}
	contributions := map[string][]byte{}
	for i, p := range parts {
		if !gone[i] {
			contributions[p] = contents[i]
		}
	}
	if len(contributions) == 0 {
		if !exists {
			return true, nil
		}
		if err := b.remove(ctx, a.File); err != nil {
			return false, b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", a.File, err))
		}
		res.Deleted = append(res.Deleted, a.File)
		return true, nil
	}
	content := joinContributions(contributions)
	if exists && etag == md5Hex(content) {
		return true, nil
	}
	opts := minio.PutObjectOptions{ContentType: contentType(a.File), DisableMultipart: true}
	if exists {
		opts.SetMatchETag(etag)
	} else {
		opts.SetMatchETagExcept("*")
	}
	b.puts.Add(1)
	_, err = b.client.PutObject(ctx, b.cfg.BucketName, a.File, bytes.NewReader(content), int64(len(content)), opts)
	if code := minio.ToErrorResponse(err).Code; code == "PreconditionFailed" || code == "ConditionalRequestConflict" {
		return false, nil
	}
	if err != nil {
		return false, b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", a.File, err))
	}
	res.Written = append(res.Written, a.File)
	return true, nil
}

// etag reads an object's ETag as stored (quotes removed); exists is false when there is none.
func (b *bucketStore) etag(ctx context.Context, key string) (etag string, exists bool, err error) {
	b.heads.Add(1)
	info, err := b.client.StatObject(ctx, b.cfg.BucketName, key, minio.StatObjectOptions{})
	if err != nil {
		if classifyBucketError(err) == KindNotFound {
			return "", false, nil
		}
		return "", false, b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", key, err))
	}
	return strings.Trim(info.ETag, `"`), true, nil
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

// Hashes finds the files from listings of the folders they are in (one request for many files)
// and ETags, never from their content unless an ETag is not an MD5; drift detection therefore
// costs listings, not downloads.
func (b *bucketStore) Hashes(ctx context.Context, paths []string) (map[string]string, error) {
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, b.fail("read", KindConfig, err)
		}
	}
	files := make(map[string]bool, len(paths))
	for _, p := range paths {
		files[p] = true
	}
	found, err := b.survey(ctx, "read", nil, files)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		if sum, ok := found[p]; ok {
			out[p] = sum
		}
	}
	return out, nil
}

func (b *bucketStore) List(ctx context.Context, prefix string) (map[string]string, error) {
	if err := checkListPrefix(prefix); err != nil {
		return nil, b.fail("list", KindConfig, err)
	}
	out, err := b.list(ctx, prefix, true, func(string) bool { return true })
	if err != nil {
		return nil, b.fail("list", classifyBucketError(err), err)
	}
	return out, nil
}

func (b *bucketStore) Read(ctx context.Context, p string) ([]byte, error) {
	if err := checkPath(p); err != nil {
		return nil, b.fail("read", KindConfig, err)
	}
	content, err := b.get(ctx, p)
	if err != nil {
		return nil, b.fail("read", classifyBucketError(err), fmt.Errorf("%s: %w", p, err))
	}
	return content, nil
}

// survey finds existing objects with listings only: every object under each prefix (one
// recursive listing each), and each of files that exists. Files that share a folder are found
// with one listing of that folder; a file alone in its folder with a listing of its own key,
// which costs what a HEAD does but needs only list permission, as drift detection should. All
// requests go out in one bounded parallel pass.
//
// files maps each file to whether its MD5 is needed. The result maps each key found to its MD5,
// or to "" where it is not needed (the key exists, its content does not matter: it is about to
// be deleted), so that an object written in parts costs a GET only when its hash is needed.
func (b *bucketStore) survey(ctx context.Context, op string, prefixes []string, files map[string]bool) (map[string]string, error) {
	type query struct {
		prefix    string
		recursive bool
	}
	var queries []query
	prefixes = outermost(prefixes)
	for _, p := range prefixes {
		queries = append(queries, query{prefix: p, recursive: true})
	}
	byDir := map[string][]string{}
	for f := range files {
		if !underAny(f, prefixes) {
			byDir[parentDir(f)] = append(byDir[parentDir(f)], f)
		}
	}
	for dir, fs := range byDir {
		if len(fs) == 1 {
			// Also lists keys that merely start with this one ("x.yaml.bak"); they are
			// dropped below.
			queries = append(queries, query{prefix: fs[0]})
		} else {
			queries = append(queries, query{prefix: dir})
		}
	}
	sort.Slice(queries, func(i, j int) bool { return queries[i].prefix < queries[j].prefix })

	out := map[string]string{}
	var mu sync.Mutex
	names := make([]string, len(queries))
	for i, q := range queries {
		names[i] = "listing " + prefixName(q.prefix)
	}
	errs := b.parallel(ctx, len(queries), func(ctx context.Context, i int) error {
		q := queries[i]
		found, err := b.list(ctx, q.prefix, q.recursive, func(key string) bool { return files[key] })
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for k, v := range found {
			if _, asked := files[k]; q.recursive || asked {
				out[k] = v
			}
		}
		return nil
	})
	if _, err := b.outcome(op, "lookups", names, errs); err != nil {
		return nil, err
	}
	return out, nil
}

// parallel calls fn for each i in [0, n) with at most b.inFlight calls running, and returns each
// call's error. Calls not started because ctx ended get ctx's error.
func (b *bucketStore) parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) []error {
	errs := make([]error, n)
	sem := make(chan struct{}, max(b.inFlight, 1))
	var wg sync.WaitGroup
	for i := range n {
		if err := ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			errs[i] = ctx.Err()
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = fn(ctx, i)
		}()
	}
	wg.Wait()
	return errs
}

// list returns the objects under prefix (without recursive, only those directly in it), each
// with its MD5 when hashed(key) is true and "" otherwise.
func (b *bucketStore) list(ctx context.Context, prefix string, recursive bool, hashed func(string) bool) (map[string]string, error) {
	b.lists.Add(1)
	noOwner := false
	out := map[string]string{}
	for obj := range b.client.ListObjectsIter(ctx, b.cfg.BucketName, minio.ListObjectsOptions{
		Prefix: prefix, Recursive: recursive, FetchOwner: &noOwner,
	}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("listing %s: %w", prefixName(prefix), obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue // a sub-folder of a delimited listing, or a folder marker: not a file
		}
		if !hashed(obj.Key) {
			out[obj.Key] = ""
			continue
		}
		sum, err := b.objectMD5(ctx, obj.Key, obj.ETag)
		if err != nil {
			if classifyBucketError(err) == KindNotFound {
				continue // deleted since the listing
			}
			return nil, fmt.Errorf("%s: %w", obj.Key, err)
		}
		out[obj.Key] = sum
	}
	// minio-go ends a listing silently when ctx ends; a partial listing must not pass for a
	// whole one (files would look gone).
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("listing %s: %w", prefixName(prefix), err)
	}
	return out, nil
}

// objectMD5 is the object's ETag when that is an MD5 (a single-part upload without SSE-C or
// KMS); otherwise the content is downloaded and hashed.
func (b *bucketStore) objectMD5(ctx context.Context, key, etag string) (string, error) {
	etag = strings.ToLower(strings.Trim(etag, `"`))
	if isMD5Hex(etag) {
		return etag, nil
	}
	content, err := b.get(ctx, key)
	if err != nil {
		return "", err
	}
	return md5Hex(content), nil
}

func (b *bucketStore) get(ctx context.Context, key string) ([]byte, error) {
	b.gets.Add(1)
	obj, err := b.client.GetObject(ctx, b.cfg.BucketName, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, err
	}
	defer func() { _ = obj.Close() }()
	// GetObject sends nothing; the request, and its errors, come with the first read.
	return io.ReadAll(obj)
}

// put writes content in a single PUT, so that the stored ETag is its MD5 and the next Apply can
// skip it. No Content-MD5 header: the signed payload hash (plain HTTP) or TLS already protects the
// body, and hashing every body twice more cost a third of the time of a large write.
func (b *bucketStore) put(ctx context.Context, key string, content []byte) error {
	b.puts.Add(1)
	_, err := b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(content), int64(len(content)),
		minio.PutObjectOptions{ContentType: contentType(key), DisableMultipart: true})
	return err
}

// remove deletes one object; S3 answers a delete of a missing key with success.
func (b *bucketStore) remove(ctx context.Context, key string) error {
	b.deletes.Add(1)
	return b.client.RemoveObject(ctx, b.cfg.BucketName, key, minio.RemoveObjectOptions{})
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".yaml", ".yml":
		return "application/yaml"
	}
	return "" // minio-go's default, application/octet-stream
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

func isMD5Hex(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// parentDir is the listing prefix of the folder a file is in: "" for the root, else "a/b/".
func parentDir(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i+1]
	}
	return ""
}

func prefixName(prefix string) string {
	if prefix == "" {
		return "the bucket root"
	}
	return prefix
}

// outermost drops duplicate prefixes and those inside another: one listing covers them.
func outermost(prefixes []string) []string {
	sorted := append([]string(nil), prefixes...)
	sort.Strings(sorted)
	var out []string
	for _, p := range sorted {
		if len(out) > 0 && strings.HasPrefix(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
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
