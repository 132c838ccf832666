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
	"net"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// DefaultBucketConcurrency bounds the requests one bucket operation has in flight.
const DefaultBucketConcurrency = 8

// BucketStats counts the requests a bucket store made, so that benchmarks and tests can show
// what an operation cost (a plan with nothing to do makes no PUT and no GET). Lists counts
// listings asked for, not pages. The store finds objects by listing; HEADs are made where a
// listing does not tell an object's MD5 (see md5s) and for aggregate files. EncryptionReads
// counts reads of the bucket's default encryption (at most one per store when it succeeds).
type BucketStats struct {
	Puts, Gets, Heads, Lists, Deletes int64
	EncryptionReads                   int64
}

// StatsReporter is implemented by stores that count their requests.
type StatsReporter interface {
	Stats() BucketStats
}

type bucketStore struct {
	cfg    BucketConfig
	client *minio.Client
	// inFlight bounds the requests of one operation: enough to hide latency, few enough not to
	// trip a server's rate limits.
	inFlight int

	puts, gets, heads, lists, deletes, encryptionReads atomic.Int64
	// afterAggregateListing, when set (tests only), runs between an aggregate rebuild's listing
	// of the parts and its write, where another writer may slip in.
	afterAggregateListing func()

	aggMu    sync.Mutex
	aggLocks map[string]*sync.Mutex

	// The bucket's default encryption, once read (see defaultEncryption).
	encMu   sync.Mutex
	encRead bool
	enc     bucketDefault

	// Shared listings for reads (see Observed), by root; snapGen counts writes, so that a
	// listing a write overtook is not kept.
	snapMu  sync.Mutex
	snapGen uint64
	snaps   map[string]*snapshot
	// snapLimit, when set (tests only), replaces snapshotMaxObjects.
	snapLimit int
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
	client, err := minio.New(cfg.Endpoint, &minio.Options{
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
	b.client = client
	return b, nil
}

func (b *bucketStore) Describe() string {
	return fmt.Sprintf("bucket %q at %s", b.cfg.BucketName, b.cfg.Endpoint)
}

// Stats returns the requests made so far.
func (b *bucketStore) Stats() BucketStats {
	return BucketStats{Puts: b.puts.Load(), Gets: b.gets.Load(), Heads: b.heads.Load(), Lists: b.lists.Load(),
		Deletes: b.deletes.Load(), EncryptionReads: b.encryptionReads.Load()}
}

// BucketProbe is what a bucket store offers beyond Store: a write check confined to the
// store's folder, and a look at whether the bucket still exists. Credentials are often limited
// to a prefix (`bucket/team/*`); both work with exactly the rights the store needs to do its
// job there (list, put, delete under the prefix).
type BucketProbe interface {
	// CheckUnder is Check with its probe under prefix ("" for the root, else ending in "/").
	CheckUnder(ctx context.Context, prefix string) error
	// BucketExists lists at most one key under prefix: false when the server answers that the
	// bucket does not exist (NoSuchBucket), an error for any other failure (a 403 never means
	// the bucket is gone).
	BucketExists(ctx context.Context, prefix string) (bool, error)
}

var _ BucketProbe = (*bucketStore)(nil)

// probePrefix starts the name of the object that Check writes and removes at once.
const probePrefix = ".kratix-write-check-"

// Check proves write access at the bucket root; see CheckUnder.
func (b *bucketStore) Check(ctx context.Context) error { return b.CheckUnder(ctx, "") }

// CheckUnder proves write access under prefix: it writes an empty probe object there and
// removes it at once, so that nothing is left behind. Only the rights the store needs anyway
// are used (PUT and DELETE of objects under the prefix): neither HEAD on the bucket nor
// multipart uploads, whose abort is a right of its own. When the bucket is missing it is created
// if asked, then the probe runs again.
func (b *bucketStore) CheckUnder(ctx context.Context, prefix string) (err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if prefix != "" {
		if err := checkListPrefix(prefix); err != nil || !strings.HasSuffix(prefix, "/") {
			return b.fail("check", KindConfig, fmt.Errorf("check prefix %q must be a folder ending in \"/\"", prefix))
		}
	}
	key := prefix + probePrefix + randomSuffix()
	err = b.probe(ctx, key)
	if classifyBucketError(err) == KindMissingBucket {
		if !b.cfg.CreateBucket {
			return b.fail("check", KindMissingBucket, errors.New("the bucket does not exist"))
		}
		err := b.client.MakeBucket(ctx, b.cfg.BucketName, minio.MakeBucketOptions{Region: b.cfg.Region})
		// Another process may have created it in the meantime; that is as good.
		if err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" {
			return b.fail("check", classifyBucketError(err), fmt.Errorf("creating the bucket: %w", err))
		}
		return b.fail2("check", b.probe(ctx, key))
	}
	return b.fail2("check", err)
}

// fail2 is fail with the kind worked out from err; nil stays nil.
func (b *bucketStore) fail2(op string, err error) error {
	if err == nil {
		return nil
	}
	return b.fail(op, classifyBucketError(err), err)
}

// probe writes an empty object at key and removes it. On a versioned bucket it removes the
// version it wrote, so that no version or delete marker stays; credentials without that right
// fall back to a plain delete.
func (b *bucketStore) probe(ctx context.Context, key string) error {
	b.dropSnapshots() // a listing made meanwhile may hold the probe
	defer b.dropSnapshots()
	b.puts.Add(1)
	info, err := b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(nil), 0,
		minio.PutObjectOptions{DisableMultipart: true})
	if err != nil {
		return fmt.Errorf("writing the test object %s: %w", key, err)
	}
	// Remove even if ctx has just ended, so that the probe is not left behind.
	rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	b.deletes.Add(1)
	if info.VersionID != "" {
		err = b.client.RemoveObject(rmCtx, b.cfg.BucketName, key, minio.RemoveObjectOptions{VersionID: info.VersionID})
		if err == nil {
			return nil
		}
		b.deletes.Add(1)
	}
	if err := b.client.RemoveObject(rmCtx, b.cfg.BucketName, key, minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("removing the test object %s (remove it by hand; the credentials must allow deleting objects): %w", key, err)
	}
	return nil
}

// BucketExists implements BucketProbe.
func (b *bucketStore) BucketExists(ctx context.Context, prefix string) (_ bool, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return false, b.fail("list", KindConfig, err)
	}
	b.lists.Add(1)
	noOwner := false
	for obj := range b.client.ListObjectsIter(ctx, b.cfg.BucketName, minio.ListObjectsOptions{
		Prefix: prefix, MaxKeys: 1, FetchOwner: &noOwner,
	}) {
		err = obj.Err
		break // one answer is enough: the first page has come back
	}
	if err == nil {
		err = ctx.Err() // minio-go ends a listing silently when ctx ends
	}
	switch kind := classifyBucketError(err); {
	case err == nil:
		return true, nil
	case kind == KindMissingBucket:
		return false, nil
	default:
		return false, b.fail("list", kind, fmt.Errorf("listing %s: %w", prefixName(prefix), err))
	}
}

// Apply writes what changed and removes what is no longer wanted. Existing objects are found
// first, in one parallel pass of listings; a file whose stored content already has the MD5 of
// its new content (see md5s) is not written again. PUTs go out in parallel, then DELETEs, so
// that a reader never sees a folder emptied before it is refilled.
func (b *bucketStore) Apply(ctx context.Context, change Change) (_ Result, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	// Reads after this write list the store again (see Observed).
	b.dropSnapshots()
	defer b.dropSnapshots()
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
	sums := make(map[string]string, len(change.Put))
	for p, content := range change.Put {
		files[p] = true
		sums[p] = md5Hex(content)
	}
	existing, err := b.survey(ctx, "write", prefixes, files, sums)
	if err != nil {
		return Result{}, err
	}

	var toPut []string
	for p := range change.Put {
		if sum, ok := existing[p]; !ok || sum != sums[p] {
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
	for _, a := range change.Aggregates {
		if err := b.seedRemainder(ctx, a, partsUnder(change.Put, a.Dir), &res); err != nil {
			sortResult(&res)
			return res, err
		}
	}
	errs := b.parallel(ctx, len(toPut), func(ctx context.Context, i int) error {
		return b.put(ctx, toPut[i], change.Put[toPut[i]], sums[toPut[i]])
	})
	written, err := b.outcome("write", "writes", toPut, errs)
	res.Written = append(res.Written, written...) // after a remainder part seeded above
	for _, p := range written {
		if _, ok := existing[p]; ok {
			res.Replaced = append(res.Replaced, p)
		}
	}
	if err != nil {
		sortResult(&res)
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
	sort.Strings(res.Replaced)
}

// rebuildAggregate makes a.File the join of every object under a.Dir, or removes it; a file that
// holds the join's pieces in another order (as Kratix orders them, by its WorkPlacements' names)
// is left as it is (layout.SameAggregate), and read only when its size allows that. Rebuilds
// of one file take turns within the process; across processes (other workspaces contributing to
// the same destination) the write is a compare-and-swap: the file's ETag is read before the
// parts are listed, and the new content is written only if the file still has it (If-Match, or
// If-None-Match for a new file). A writer that loses starts again from a new listing, until the
// operation's deadline (see retrier), so the last rebuild always holds every part written before
// it.
func (b *bucketStore) rebuildAggregate(ctx context.Context, a Aggregate, res *Result) error {
	unlock := b.lockAggregate(a.File)
	defer unlock()
	rt := newRetrier(ctx)
	for {
		done, err := b.tryRebuildAggregate(ctx, a, res)
		if err != nil {
			return afterRaces(rt, err)
		}
		if done {
			return nil
		}
		tflog.Debug(ctx, "Another writer rebuilt the aggregate first; rebuilding it again from a new listing",
			map[string]any{"store": b.Describe(), "file": a.File, "lost": rt.lost + 1})
		again, err := rt.lostRace(ctx)
		if err != nil {
			return afterRaces(rt, b.fail("write", KindOther, err))
		}
		if !again {
			return b.fail("write", KindConflict, fmt.Errorf("%s: %s, and the operation's time is up: each time, another "+
				"writer rebuilt the file between this rebuild's reading of the parts and its conditional write "+
				"(compare-and-swap on the ETag)", a.File, rt.summary()))
		}
	}
}

// tryRebuildAggregate makes one attempt; done is false when another writer changed the file
// between the listing and the write.
func (b *bucketStore) tryRebuildAggregate(ctx context.Context, a Aggregate, res *Result) (done bool, err error) {
	etag, sum, size, exists, err := b.etag(ctx, a.File)
	if err != nil {
		return false, err
	}
	found, err := b.survey(ctx, "write", []string{a.Dir}, nil, nil)
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
	if err := b.pruneRemainder(ctx, a, contributions, res); err != nil {
		return false, err
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
	contentSum := md5Hex(content)
	if exists && sum == contentSum {
		return true, nil
	}
	if exists && size == int64(len(content)) { // the same pieces in another order keep the size
		if same, err := b.sameAggregate(ctx, a.File, content); err != nil || same {
			return same, err
		}
	}
	opts := minio.PutObjectOptions{ContentType: contentType(a.File), DisableMultipart: true,
		UserMetadata: map[string]string{md5MetaKey: contentSum}}
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

// seedRemainder, before the first parts of an aggregate are written, keeps the documents of a file
// someone else wrote there (Kratix keeps no parts) in the remainder part, so that no rebuild makes
// the file from this provider's parts alone: every document stays in the file until a part holds
// it (pruneRemainder). The remainder holds every document of the file, not only those the new
// parts lack, so that another writer's rebuild between this write and the parts' loses nothing;
// this Apply's rebuild then drops what the parts hold. It is written only if it does not exist
// (If-None-Match), so that two writers seeding at once keep the first seed. Nothing is done when
// the parts folder holds anything: the file is then rebuilt from the parts, a hand edit repaired;
// nor when the parts this Apply writes (parts) hold every document of the file: no rebuild can
// then lose one (a writer that finds no part seeds for itself, one that finds these rebuilds
// with them), and the remainder would be written only for this Apply's own rebuild to delete it
// (git, which seeds in memory, never writes it then).
func (b *bucketStore) seedRemainder(ctx context.Context, a Aggregate, parts [][]byte, res *Result) error {
	b.lists.Add(1)
	noOwner := false
	var err error
	for obj := range b.client.ListObjectsIter(ctx, b.cfg.BucketName, minio.ListObjectsOptions{
		Prefix: a.Dir, Recursive: true, MaxKeys: 1, FetchOwner: &noOwner,
	}) {
		if obj.Err != nil {
			err = obj.Err
			break
		}
		return nil // a part is there
	}
	if err == nil {
		err = ctx.Err() // minio-go ends a listing silently when ctx ends
	}
	if err != nil {
		return b.fail("write", classifyBucketError(err), fmt.Errorf("listing %s: %w", prefixName(a.Dir), err))
	}
	content, err := b.get(ctx, a.File)
	if classifyBucketError(err) == KindNotFound {
		return nil
	}
	if err != nil {
		return b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", a.File, err))
	}
	if layout.Remainder(content, parts) == nil {
		return nil
	}
	kept := layout.Remainder(content, nil)
	if kept == nil {
		return nil
	}
	key := remainderPath(a)
	sum := md5Hex(kept)
	opts := minio.PutObjectOptions{ContentType: contentType(key), DisableMultipart: true,
		UserMetadata: map[string]string{md5MetaKey: sum}}
	opts.SetMatchETagExcept("*")
	b.puts.Add(1)
	_, err = b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(kept), int64(len(kept)), opts)
	if code := minio.ToErrorResponse(err).Code; code == "PreconditionFailed" || code == "ConditionalRequestConflict" {
		return nil // another writer seeded it first
	}
	if err != nil {
		return b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", key, err))
	}
	res.Written = append(res.Written, key)
	return nil
}

// pruneRemainder drops from the remainder part, among the parts read for a rebuild
// (contributions), the documents that another part now holds, and deletes it once it holds
// none; contributions then hold what the remainder holds.
func (b *bucketStore) pruneRemainder(ctx context.Context, a Aggregate, contributions map[string][]byte, res *Result) error {
	key := remainderPath(a)
	old, ok := contributions[key]
	if !ok {
		return nil
	}
	kept := keptRemainder(a, contributions)
	switch {
	case kept == nil:
		delete(contributions, key)
		if err := b.remove(ctx, key); err != nil {
			return b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", key, err))
		}
		res.Deleted = append(res.Deleted, key)
	case !bytes.Equal(kept, old):
		contributions[key] = kept
		if err := b.put(ctx, key, kept, md5Hex(kept)); err != nil {
			return b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", key, err))
		}
		res.Written = append(res.Written, key)
	}
	return nil
}

// etag reads an object's ETag as stored (quotes removed), its size, and the MD5 of its content
// where that is known without downloading it ("" otherwise); exists is false when there is none.
func (b *bucketStore) etag(ctx context.Context, key string) (etag, sum string, size int64, exists bool, err error) {
	info, err := b.head(ctx, key)
	if err != nil {
		if classifyBucketError(err) == KindNotFound {
			return "", "", 0, false, nil
		}
		return "", "", 0, false, b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", key, err))
	}
	return strings.Trim(info.ETag, `"`), knownMD5(info), info.Size, true, nil
}

// sameAggregate reads the aggregate at key and reports whether it holds the same pieces as joined,
// in any order (layout.SameAggregate): a file Kratix wrote in the order of its WorkPlacements'
// names is then left as it is. What is read may be newer than the ETag the rebuild started from:
// it is then another writer's since, and holds what this rebuild would write, or is not the same
// and the conditional write that follows loses and starts again. A file gone since is not the
// same either, for the same reason.
func (b *bucketStore) sameAggregate(ctx context.Context, key string, joined []byte) (bool, error) {
	content, err := b.get(ctx, key)
	if classifyBucketError(err) == KindNotFound {
		return false, nil
	}
	if err != nil {
		return false, b.fail("write", classifyBucketError(err), fmt.Errorf("%s: %w", key, err))
	}
	return layout.SameAggregate(content, joined), nil
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
func (b *bucketStore) Hashes(ctx context.Context, paths []string) (_ map[string]string, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, b.fail("read", KindConfig, err)
		}
	}
	files := make(map[string]bool, len(paths))
	for _, p := range paths {
		files[p] = true
	}
	found, err := b.survey(ctx, "read", nil, files, nil)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string]string{}, nil // the bucket is gone, and every file with it
	}
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

func (b *bucketStore) List(ctx context.Context, prefix string) (_ map[string]string, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return nil, b.fail("list", KindConfig, err)
	}
	found, err := b.list(ctx, prefix, true)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string]string{}, nil // the bucket is gone, and every file with it
	}
	if err != nil {
		return nil, b.fail("list", classifyBucketError(err), err)
	}
	entries := make([]minio.ObjectInfo, 0, len(found))
	for _, e := range found {
		entries = append(entries, e)
	}
	return b.md5s(ctx, "list", entries, nil)
}

func (b *bucketStore) Read(ctx context.Context, p string) (_ []byte, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkPath(p); err != nil {
		return nil, b.fail("read", KindConfig, err)
	}
	content, err := b.get(ctx, p)
	if err != nil {
		kind := classifyBucketError(err)
		if kind == KindMissingBucket {
			kind = KindNotFound // the bucket is gone, and every file with it
		}
		return nil, b.fail("read", kind, fmt.Errorf("%s: %w", p, err))
	}
	return content, nil
}

// survey finds existing objects with listings: every object under each prefix (one recursive
// listing each), and each of files that exists. Files that share a folder are found with one
// listing of that folder; a file alone in its folder with a listing of its own key, which costs
// what a HEAD does but needs only list permission, as drift detection should. All listings go
// out in one bounded parallel pass; then md5s tells the MD5s the listings do not.
//
// files maps each file to whether its MD5 is needed; expected maps files to the MD5 the caller
// would call unchanged (nil when it has none). The result maps each key found to its MD5, or to
// "" where it is not needed (the key exists, its content does not matter: it is about to be
// deleted), so that an object costs a HEAD or a GET only when its hash is needed.
func (b *bucketStore) survey(ctx context.Context, op string, prefixes []string, files map[string]bool, expected map[string]string) (map[string]string, error) {
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

	found := map[string]minio.ObjectInfo{}
	var mu sync.Mutex
	names := make([]string, len(queries))
	for i, q := range queries {
		names[i] = "listing " + prefixName(q.prefix)
	}
	errs := b.parallel(ctx, len(queries), func(ctx context.Context, i int) error {
		q := queries[i]
		listed, err := b.list(ctx, q.prefix, q.recursive)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for k, v := range listed {
			if _, asked := files[k]; q.recursive || asked {
				found[k] = v
			}
		}
		return nil
	})
	if _, err := b.outcome(op, "lookups", names, errs); err != nil {
		return nil, err
	}

	out := make(map[string]string, len(found))
	var hashed []minio.ObjectInfo
	for k, info := range found {
		if files[k] {
			hashed = append(hashed, info)
		} else {
			out[k] = ""
		}
	}
	sums, err := b.md5s(ctx, op, hashed, expected)
	if err != nil {
		return nil, err
	}
	for k, sum := range sums {
		out[k] = sum
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

// list returns the objects under prefix (without recursive, only those directly in it) as the
// listing describes them.
func (b *bucketStore) list(ctx context.Context, prefix string, recursive bool) (map[string]minio.ObjectInfo, error) {
	return b.listCapped(ctx, prefix, recursive, 0)
}

// listCapped is list that gives up, returning nil and no error, once more than limit objects are
// listed (limit 0: no limit).
func (b *bucketStore) listCapped(ctx context.Context, prefix string, recursive bool, limit int) (map[string]minio.ObjectInfo, error) {
	b.lists.Add(1)
	noOwner := false
	out := map[string]minio.ObjectInfo{}
	for obj := range b.client.ListObjectsIter(ctx, b.cfg.BucketName, minio.ListObjectsOptions{
		Prefix: prefix, Recursive: recursive, FetchOwner: &noOwner,
		// MinIO's extension: each object's metadata (its encryption, the MD5 put stores) comes
		// with the listing, so that encrypted objects need no HEAD. Other servers ignore it.
		WithMetadata: true,
	}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("listing %s: %w", prefixName(prefix), obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue // a sub-folder of a delimited listing, or a folder marker: not a file
		}
		out[obj.Key] = obj
		if limit > 0 && len(out) > limit {
			return nil, nil
		}
	}
	// minio-go ends a listing silently when ctx ends; a partial listing must not pass for a
	// whole one (files would look gone).
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("listing %s: %w", prefixName(prefix), err)
	}
	return out, nil
}

// md5s tells the MD5 of each listed object's content, asking the server as little as it can
// without ever taking a changed object for an unchanged one. expected maps keys to the MD5 the
// caller would call unchanged (Apply's new content; nil for Hashes and List). Objects deleted
// since their listing are left out.
//
// Why it asks what it asks. The ETag of an object written in one PUT is the MD5 of its content
// unless the object is encrypted with SSE-KMS or SSE-C; then it is something else, of the same
// shape (32 hex digits). So the ETag alone is enough only where the object's encryption is known:
//
//   - A MinIO listing carries each object's metadata (asked for with WithMetadata): its
//     encryption, and the MD5 put stored in x-amz-meta-kratix-content-md5. knownMD5 decides
//     from the entry alone, with no further request.
//   - Other servers' listings (AWS S3 ignores MinIO's extension) carry only the ETag. Taking it
//     for the MD5 is right on unencrypted and SSE-S3 buckets and wrong on SSE-KMS ones, where
//     every object would then look changed: a plan showing drift forever, and every apply
//     rewriting everything. Taking it for the MD5 is never wrong the other way, though: an
//     encrypted object's ETag is not an MD5 of its content, and matches the MD5 of a content
//     only by a 2^-128 accident. So an ETag that is the MD5 the caller expects always means
//     "unchanged", whatever the encryption, and costs nothing more.
//   - For the rest, the bucket's default encryption says how the objects were written: the
//     store's PUTs send no encryption header, so they get the default. It is read once per
//     store (GetBucketEncryption). No default (ServerSideEncryptionConfigurationNotFoundError)
//     or SSE-S3: ETags are MD5s, and the steady state costs one listing per folder, as before.
//     An object someone wrote with SSE-KMS by hand then looks changed and is written again, now
//     with the default encryption, after which it no longer does. SSE-KMS (or DSSE-KMS): each
//     object is asked (HEAD: its x-amz-server-side-encryption header and its user metadata,
//     where the stored MD5 is), and downloaded only when neither tells its MD5 (a hand edit by
//     a client that knows nothing of that metadata). An object written before the bucket was
//     encrypted answers the HEAD without encryption, and its ETag is then its MD5.
//   - When the default encryption cannot be read (credentials with only the rights the store
//     needs, or a server without the call), an Apply asks each object whose ETag is not the
//     MD5 it expects, since that object is either changed or encrypted. Hashes and List have no
//     expectation; asking every object would make a plan on an unencrypted bucket cost a HEAD
//     per file, so they ask the most recently written object first: the store writes every
//     object with the bucket's default, and the newest one shows that default as it last was.
//     If it hides its MD5, every object is asked; if not, the ETags are taken for MD5s. That
//     costs one HEAD per call; where the guess misleads (the newest object was written with
//     other settings than the default), objects look changed that are not (an Apply then asks
//     them and writes nothing), never the other way.
//
// Credentials that may list but not read objects are refused every HEAD: their ETags are then
// taken for MD5s (see headMD5), which keeps drift detection working with list rights alone; so
// is an SSE-C object written by hand, which answers only a HEAD that brings its key.
// An ETag that is no MD5 at all (an upload in parts, "…-N") is downloaded, as before.
func (b *bucketStore) md5s(ctx context.Context, op string, entries []minio.ObjectInfo, expected map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(entries))
	var fetch, ask, bare []minio.ObjectInfo // download; HEAD; not told by their listing
	for _, e := range entries {
		etag := strings.ToLower(strings.Trim(e.ETag, `"`))
		switch {
		case len(e.UserMetadata) > 0: // a MinIO listing: the entry tells its encryption
			if sum := knownMD5(e); sum != "" {
				out[e.Key] = sum
			} else {
				fetch = append(fetch, e)
			}
		case !isMD5Hex(etag):
			fetch = append(fetch, e)
		case expected[e.Key] == etag:
			out[e.Key] = etag
		default:
			bare = append(bare, e)
		}
	}
	if len(bare) > 0 {
		switch b.defaultEncryption(ctx) {
		case defaultKeepsMD5:
			for _, e := range bare {
				out[e.Key] = strings.ToLower(strings.Trim(e.ETag, `"`))
			}
		case defaultHidesMD5:
			ask = bare
		default:
			var unexpected []minio.ObjectInfo
			for _, e := range bare {
				if _, ok := expected[e.Key]; ok {
					ask = append(ask, e)
				} else {
					unexpected = append(unexpected, e)
				}
			}
			more, err := b.sampleEncryption(ctx, unexpected, out)
			if err != nil {
				return nil, b.fail(op, classifyBucketError(err), err)
			}
			ask = append(ask, more...)
		}
	}

	todo := append(fetch, ask...)
	names := make([]string, len(todo))
	sums := make([]string, len(todo))
	for i, e := range todo {
		names[i] = e.Key
	}
	errs := b.parallel(ctx, len(todo), func(ctx context.Context, i int) error {
		var err error
		if i < len(fetch) {
			sums[i], err = b.contentMD5(ctx, todo[i].Key)
		} else {
			sums[i], err = b.headMD5(ctx, todo[i])
		}
		if classifyBucketError(err) == KindNotFound {
			return nil // deleted since the listing: sums[i] stays ""
		}
		return err
	})
	if _, err := b.outcome(op, "reads", names, errs); err != nil {
		return nil, err
	}
	for i, e := range todo {
		if sums[i] != "" {
			out[e.Key] = sums[i]
		}
	}
	return out, nil
}

// sampleEncryption decides, for listed objects whose ETags may or may not be MD5s on a bucket
// whose default encryption is unknown, which ones must be asked (see md5s): it asks the newest
// and records its MD5 in out; if that one hides its MD5 the others are returned to be asked,
// else their ETags go in out.
func (b *bucketStore) sampleEncryption(ctx context.Context, entries []minio.ObjectInfo, out map[string]string) ([]minio.ObjectInfo, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	newest := 0
	for i, e := range entries {
		n := entries[newest]
		if e.LastModified.After(n.LastModified) || (e.LastModified.Equal(n.LastModified) && e.Key < n.Key) {
			newest = i
		}
	}
	rest := append(append([]minio.ObjectInfo(nil), entries[:newest]...), entries[newest+1:]...)
	info, err := b.head(ctx, entries[newest].Key)
	switch {
	case classifyBucketError(err) == KindNotFound:
		return rest, nil // gone since the listing, and nothing learnt: ask the others
	case classifyBucketError(err) == KindAccessDenied:
		// Credentials that may only list: no object can be asked, ETags are all there is.
		for _, e := range entries {
			out[e.Key] = strings.ToLower(strings.Trim(e.ETag, `"`))
		}
		return nil, nil
	case headRefused(err):
		// An SSE-C object, written by hand with a key the store has not: it looks changed, and
		// tells nothing of the others, which are asked.
		out[entries[newest].Key] = strings.ToLower(strings.Trim(entries[newest].ETag, `"`))
		return rest, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", entries[newest].Key, err)
	}
	hides := sseHidesMD5(info)
	if sum := knownMD5(info); sum != "" {
		out[info.Key] = sum
	} else if sum, err := b.contentMD5(ctx, info.Key); err == nil {
		out[info.Key] = sum
	} else if classifyBucketError(err) != KindNotFound {
		return nil, fmt.Errorf("%s: %w", info.Key, err)
	}
	if hides {
		return rest, nil
	}
	for _, e := range rest {
		out[e.Key] = strings.ToLower(strings.Trim(e.ETag, `"`))
	}
	return nil, nil
}

// headMD5 asks a listed object for its MD5 (HEAD, see knownMD5), and downloads it only when the
// answer does not tell. When the HEAD is refused (see headRefused) the listed ETag is taken for
// the MD5, which at worst shows an unchanged object as changed, never the other way (see md5s).
func (b *bucketStore) headMD5(ctx context.Context, listed minio.ObjectInfo) (string, error) {
	info, err := b.head(ctx, listed.Key)
	if headRefused(err) {
		return strings.ToLower(strings.Trim(listed.ETag, `"`)), nil
	}
	if err != nil {
		return "", err
	}
	if sum := knownMD5(info); sum != "" {
		return sum, nil
	}
	return b.contentMD5(ctx, listed.Key)
}

// headRefused reports whether a HEAD failed in a way that asking again will not mend and that
// says nothing of the object's existence: credentials that may list but not read objects
// (enough to detect drift on unencrypted buckets), or an object encrypted with SSE-C, which
// answers only requests that bring its key (400).
func headRefused(err error) bool {
	var resp minio.ErrorResponse
	return classifyBucketError(err) == KindAccessDenied || errors.As(err, &resp) && resp.StatusCode == http.StatusBadRequest
}

func (b *bucketStore) head(ctx context.Context, key string) (minio.ObjectInfo, error) {
	b.heads.Add(1)
	return b.client.StatObject(ctx, b.cfg.BucketName, key, minio.StatObjectOptions{})
}

// contentMD5 downloads an object and hashes its content.
func (b *bucketStore) contentMD5(ctx context.Context, key string) (string, error) {
	content, err := b.get(ctx, key)
	if err != nil {
		return "", err
	}
	return md5Hex(content), nil
}

// bucketDefault is what a bucket's default encryption says of the ETags of the objects the
// store writes (without encryption headers, so with the default).
type bucketDefault int

const (
	defaultUnknown  bucketDefault = iota // could not be read
	defaultKeepsMD5                      // none or SSE-S3: ETags are MD5s
	defaultHidesMD5                      // SSE-KMS or DSSE-KMS: ETags are not MD5s
)

// defaultEncryption reads the bucket's default encryption once per store. An answer that will
// not change (the configuration, its absence, a refusal) is kept; a network failure is not, so
// that the next operation asks again.
func (b *bucketStore) defaultEncryption(ctx context.Context) bucketDefault {
	b.encMu.Lock()
	defer b.encMu.Unlock()
	if b.encRead {
		return b.enc
	}
	b.encryptionReads.Add(1)
	cfg, err := b.client.GetBucketEncryption(ctx, b.cfg.BucketName)
	switch {
	case err == nil:
		b.enc = defaultKeepsMD5
		for _, r := range cfg.Rules {
			if alg := r.Apply.SSEAlgorithm; alg != "" && !strings.EqualFold(alg, "AES256") {
				b.enc = defaultHidesMD5
			}
		}
	case minio.ToErrorResponse(err).Code == "ServerSideEncryptionConfigurationNotFoundError":
		b.enc = defaultKeepsMD5
	case ctx.Err() != nil || classifyBucketError(err) == KindNetwork || minio.ToErrorResponse(err).StatusCode >= 500 &&
		minio.ToErrorResponse(err).StatusCode != http.StatusNotImplemented:
		return defaultUnknown // maybe passing: ask again next time
	default:
		b.enc = defaultUnknown // access denied, or a server without the call
	}
	b.encRead = true
	return b.enc
}

// md5MetaKey is the user metadata (x-amz-meta-kratix-content-md5) in which put stores the MD5 of
// what it wrote: the ETag is not an MD5 when the server encrypts with SSE-KMS or SSE-C.
const md5MetaKey = "Kratix-Content-Md5"

// knownMD5 is the MD5 of an object's content as its listing entry or HEAD tells it, or "" when
// it does not:
//   - an object encrypted with SSE-KMS or SSE-C has an ETag that is not its MD5 (MinIO and AWS
//     alike), so only the MD5 put stored in its metadata counts;
//   - otherwise (no encryption, or SSE-S3, whose ETag is the MD5) a single-part ETag is the MD5,
//     and is trusted over the metadata, which someone else's write may have copied;
//   - a multipart ETag ("…-N") is no MD5.
//
// A listing tells the encryption only on MinIO (WithMetadata); for entries of other servers'
// listings, md5s decides when the ETag may be taken for the MD5.
func knownMD5(info minio.ObjectInfo) string {
	etag := strings.ToLower(strings.Trim(info.ETag, `"`))
	if sseHidesMD5(info) {
		if sum := strings.ToLower(metaValue(info, "X-Amz-Meta-"+md5MetaKey)); isMD5Hex(sum) {
			return sum
		}
		return ""
	}
	if isMD5Hex(etag) {
		return etag
	}
	return ""
}

// sseHidesMD5 reports whether the object is encrypted in a way that makes its ETag something else
// than the MD5 of its content: SSE-KMS (aws:kms, aws:kms:dsse) or SSE-C.
func sseHidesMD5(info minio.ObjectInfo) bool {
	if metaValue(info, "X-Amz-Server-Side-Encryption-Customer-Algorithm") != "" {
		return true
	}
	enc := metaValue(info, "X-Amz-Server-Side-Encryption")
	return enc != "" && !strings.EqualFold(enc, "AES256")
}

// metaValue finds a header among an object's metadata: a HEAD gives them in Metadata (and the
// user metadata without its prefix in UserMetadata), a MinIO listing in UserMetadata with
// their full names.
func metaValue(info minio.ObjectInfo, header string) string {
	if v := info.Metadata.Get(header); v != "" {
		return v
	}
	for k, v := range info.UserMetadata {
		if strings.EqualFold(k, header) || strings.EqualFold("X-Amz-Meta-"+k, header) {
			return v
		}
	}
	return ""
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

// put writes content (whose MD5 is sum) in a single PUT, so that the stored ETag is its MD5 on
// an unencrypted or SSE-S3 bucket, and records sum in the object's metadata for buckets that
// encrypt with SSE-KMS, whose ETags are not MD5s: either way the next Apply can skip it. No
// Content-MD5 header: the signed payload hash (plain HTTP) or TLS already protects the body, and
// hashing every body twice more cost a third of the time of a large write.
func (b *bucketStore) put(ctx context.Context, key string, content []byte, sum string) error {
	b.puts.Add(1)
	_, err := b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(content), int64(len(content)),
		minio.PutObjectOptions{ContentType: contentType(key), DisableMultipart: true,
			UserMetadata: map[string]string{md5MetaKey: sum}})
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

// partsUnder lists the contents of the files of put under dir (an aggregate's parts), in the
// order of their paths.
func partsUnder(put map[string][]byte, dir string) [][]byte {
	var keys []string
	for k := range put {
		if strings.HasPrefix(k, dir) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = put[k]
	}
	return out
}
