package statestore

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/s3utils"
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
	// noConditionalPuts: the server answered a PUT with If-None-Match "not implemented"; new
	// files are written with plain PUTs from then on (see putNew).
	noConditionalPuts atomic.Bool
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

	// Shared listings for writes (see Writing), by root, and how many writes each root had.
	wsMu   sync.Mutex
	wsnaps map[string]*writeSnapshot
	wsUses map[string]int
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
		cfg.CACertificate, cfg.Profile, cfg.STSEndpoint, fmt.Sprint(cfg.AssumeRole != nil), fmt.Sprint(cfg.UseDualStack)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	if ar := cfg.AssumeRole; ar != nil {
		for _, s := range []string{ar.RoleARN, ar.ExternalID, ar.SessionName, ar.Duration.String()} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
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

	// Reading the AWS configuration reads local files only; nothing is dialled here.
	creds, err := bucketCredentials(context.Background(), cfg, tr, b.Describe())
	if err != nil {
		return nil, b.fail("configure", KindConfig, err)
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
	// minio-go turns dual-stack on for every Amazon endpoint; Kratix leaves it off unless asked.
	client.SetS3EnableDualstack(cfg.UseDualStack)
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
