package statestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

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
	// The writes' listings are told of the probe as of any write (a failure drops them): should
	// the probe stay behind, none may say it is not there.
	b.puts.Add(1)
	info, err := b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(nil), 0,
		minio.PutObjectOptions{DisableMultipart: true})
	b.noteOutcome(key, emptyMD5, false, err)
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
			b.noteWrite(key, "", true)
			return nil
		}
		b.deletes.Add(1)
	}
	err = b.client.RemoveObject(rmCtx, b.cfg.BucketName, key, minio.RemoveObjectOptions{})
	b.noteOutcome(key, "", true, err)
	if err != nil {
		return fmt.Errorf("removing the test object %s (remove it by hand; the credentials must allow deleting objects): %w", key, err)
	}
	return nil
}

// emptyMD5 is the MD5 of no bytes: the probe's content.
const emptyMD5 = "d41d8cd98f00b204e9800998ecf8427e"

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
