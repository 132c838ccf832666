package statestore

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

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
	opts := putOptions(a.File, contentSum)
	if exists {
		opts.SetMatchETag(etag)
	} else {
		opts.SetMatchETagExcept("*")
	}
	b.puts.Add(1)
	_, err = b.client.PutObject(ctx, b.cfg.BucketName, a.File, bytes.NewReader(content), int64(len(content)), opts)
	b.noteOutcome(a.File, contentSum, false, err)
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
	opts := putOptions(key, sum)
	opts.SetMatchETagExcept("*")
	b.puts.Add(1)
	_, err = b.client.PutObject(ctx, b.cfg.BucketName, key, bytes.NewReader(kept), int64(len(kept)), opts)
	b.noteOutcome(key, sum, false, err)
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
