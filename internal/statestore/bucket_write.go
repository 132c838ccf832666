package statestore

import (
	"bytes"
	"context"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
)

// Apply writes what changed and removes what is no longer wanted. Existing objects are found
// first, in one parallel pass of listings; a file whose stored content already has the MD5 of
// its new content (see md5s) is not written again. PUTs go out in parallel, then DELETEs, so
// that a reader never sees a folder emptied before it is refilled.
func (b *bucketStore) Apply(ctx context.Context, change Change) (_ Result, err error) {
	return b.apply(ctx, change, nil)
}

// apply is Apply, with its lookups under snap's root answered by snap when it is not nil.
func (b *bucketStore) apply(ctx context.Context, change Change, snap *writeSnapshot) (_ Result, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	// Reads after this write list the store again (see Observed).
	b.dropSnapshots()
	defer b.dropSnapshots()
	if err := checkChangePaths(change); err != nil {
		return Result{}, b.fail("write", KindConfig, err)
	}
	var guarded Result
	if change, err = b.guard(ctx, change, &guarded); err != nil {
		return Result{}, err
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
	var once memo.Sums // a promise's dependencies go to every destination in one slice
	for p, content := range change.Put {
		files[p] = true
		sums[p] = once.Of(content)
	}
	existing, err := b.surveyWith(ctx, "write", prefixes, files, sums, snap)
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
	var unseen []string
	for k := range existing {
		if _, keep := change.Put[k]; !keep && underAny(k, prefixes) {
			if doomed[k] || !change.Leaves(k) {
				doomed[k] = true
			} else {
				unseen = append(unseen, k)
			}
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

	res := Result{Unseen: unseen, Written: guarded.Written, Replaced: guarded.Replaced}
	for _, a := range change.Aggregates {
		if err := b.seedRemainder(ctx, a, partsUnder(change.Put, a.Dir), &res); err != nil {
			sortResult(&res)
			return res, err
		}
	}
	var racedMu sync.Mutex
	raced := map[string]bool{} // created by another writer since the survey, with other content
	errs := b.parallel(ctx, len(toPut), func(ctx context.Context, i int) error {
		p := toPut[i]
		if _, ok := existing[p]; ok {
			return b.put(ctx, p, change.Put[p], sums[p])
		}
		replaced, err := b.putNew(ctx, p, change.Put[p], sums[p])
		if replaced {
			racedMu.Lock()
			raced[p] = true
			racedMu.Unlock()
		}
		return err
	})
	written, err := b.outcome("write", "writes", toPut, errs)
	res.Written = append(res.Written, written...) // after a remainder part seeded above
	for _, p := range written {
		if _, ok := existing[p]; ok || raced[p] {
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
	sort.Strings(res.Unseen)
}

// put writes content (whose MD5 is sum) in a single PUT, so that the stored ETag is its MD5 on
// an unencrypted or SSE-S3 bucket, and records sum in the object's metadata for buckets that
// encrypt with SSE-KMS, whose ETags are not MD5s: either way the next Apply can skip it. No
// Content-MD5 header: the signed payload hash (plain HTTP) or TLS already protects the body, and
// hashing every body twice more cost a third of the time of a large write.
func (b *bucketStore) put(ctx context.Context, key string, content []byte, sum string) error {
	b.puts.Add(1)
	_, err := b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(content), int64(len(content)), putOptions(key, sum))
	b.noteOutcome(key, sum, false, err)
	return err
}

// putNew is put for a key the write found absent: the PUT is made only while the key is still
// absent (If-None-Match), so that a file another writer created since the write looked (two
// workspaces' first applies at one moment) is not replaced unnoticed. Such a file is then
// replaced all the same, as the write replaces what it finds, and reported (replaced) when it held
// other content. A server that does not take the condition gets a plain PUT.
func (b *bucketStore) putNew(ctx context.Context, key string, content []byte, sum string) (replaced bool, err error) {
	if b.noConditionalPuts.Load() {
		return false, b.put(ctx, key, content, sum)
	}
	opts := putOptions(key, sum)
	opts.SetMatchETagExcept("*")
	b.puts.Add(1)
	_, err = b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(content), int64(len(content)), opts)
	switch minio.ToErrorResponse(err).Code {
	case "PreconditionFailed", "ConditionalRequestConflict":
		found, err := b.Hashes(ctx, []string{key})
		if err != nil {
			return false, err
		}
		if there, ok := found[key]; ok && there == sum {
			b.noteWrite(key, sum, false)
			return false, nil // the other writer wrote the same content
		}
		return true, b.put(ctx, key, content, sum)
	case "NotImplemented":
		b.noConditionalPuts.Store(true)
		return false, b.put(ctx, key, content, sum)
	}
	b.noteOutcome(key, sum, false, err)
	return false, err
}

// putOptions are the options of every PUT of a file whose content has MD5 sum: one request (no
// multipart, so that the ETag is the MD5 where the bucket does not encrypt with SSE-KMS) and the
// MD5 in the metadata for buckets that do.
func putOptions(key, sum string) minio.PutObjectOptions {
	return minio.PutObjectOptions{ContentType: contentType(key), DisableMultipart: true,
		UserMetadata: map[string]string{md5MetaKey: sum}}
}

// noteOutcome tells the write snapshots what a PUT or DELETE of key did; after a failure the
// key's content is not known, and they are dropped.
func (b *bucketStore) noteOutcome(key, sum string, removed bool, err error) {
	if err != nil {
		b.dropWriteSnapshots()
		return
	}
	b.noteWrite(key, sum, removed)
}

// remove deletes one object; S3 answers a delete of a missing key with success.
func (b *bucketStore) remove(ctx context.Context, key string) error {
	b.deletes.Add(1)
	err := b.client.RemoveObject(ctx, b.cfg.BucketName, key, minio.RemoveObjectOptions{})
	b.noteOutcome(key, "", true, err)
	return err
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".yaml", ".yml":
		return "application/yaml"
	}
	return "" // minio-go's default, application/octet-stream
}
