package statestore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// ReadUnder serves reads of whole folders whose files are not the provider's own, such as the
// health records agents write: the files are wanted for their content, not their hashes.

// ReadUnder lists prefix once (recursively, every page), then GETs the wanted objects, as many
// at a time as a write sends PUTs.
func (b *bucketStore) ReadUnder(ctx context.Context, prefix string, want func(string) bool) (_ map[string][]byte, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return nil, b.fail(opRead, KindConfig, err)
	}
	listed, err := b.list(ctx, prefix, true)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string][]byte{}, nil // the bucket is gone, and every file with it
	}
	if err != nil {
		return nil, b.fail(opRead, classifyBucketError(err), err)
	}
	return b.readKeys(ctx, prefix, wantedPaths(listed, want))
}

// readKeys reads the objects keys, listed under prefix, in parallel.
func (b *bucketStore) readKeys(ctx context.Context, prefix string, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	var mu sync.Mutex
	errs := b.parallel(ctx, len(keys), func(ctx context.Context, i int) error {
		content, err := b.get(ctx, keys[i])
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		out[keys[i]] = content
		return nil
	})
	if _, err := b.outcome(opRead, "reads under "+prefixName(prefix), keys, errs); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadUnder of the shared view: the files under prefix as the shared listing of root has them
// (one listing for the view's List, Hashes and ReadUnder, and the store resource's own read),
// then one GET per wanted file.
func (v observedBucket) ReadUnder(ctx context.Context, prefix string, want func(string) bool) (_ map[string][]byte, err error) {
	if !strings.HasPrefix(prefix, v.root) {
		return v.bucketStore.ReadUnder(ctx, prefix, want)
	}
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return nil, v.fail(opRead, KindConfig, err)
	}
	snap, ok, err := v.observe(ctx, v.root)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string][]byte{}, nil // the bucket is gone, and every file with it
	}
	if err != nil {
		return nil, v.fail(opRead, classifyBucketError(err), err)
	}
	if !ok {
		return v.bucketStore.ReadUnder(ctx, prefix, want)
	}
	var keys []string
	for _, e := range snap.under(prefix) {
		if want == nil || want(e.Key) {
			keys = append(keys, e.Key)
		}
	}
	return v.readKeys(ctx, prefix, keys)
}

// ReadUnder reads the files under prefix in the remote tip (withTip: one fetch, shared with the
// reads queued beside it), fetching the blobs the clone lacks in one request. Submodule entries
// have no content here and are skipped.
func (s *gitStore) ReadUnder(ctx context.Context, prefix string, want func(string) bool) (map[string][]byte, error) {
	if err := checkListPrefix(prefix); err != nil {
		return nil, s.fail(opRead, &Error{Kind: KindConfig, Err: err})
	}
	out := map[string][]byte{}
	err := s.withTip(ctx, opRead, func(files map[string]treeFile) error {
		blobs := map[string]treeFile{}
		for p, f := range files {
			if strings.HasPrefix(p, prefix) && isBlob(f.mode) {
				blobs[p] = f
			}
		}
		paths := wantedPaths(blobs, want)
		// fetchContents would skip blobs whose MD5 is cached; the content is wanted here, so
		// the clone is asked for each blob itself.
		hashes := make([]plumbing.Hash, 0, len(paths))
		for _, p := range paths {
			hashes = append(hashes, blobs[p].hash)
		}
		if err := s.fetchBlobs(ctx, hashes); err != nil {
			return err
		}
		for _, p := range paths {
			content, err := readBlob(s.r.repo.Storer, blobs[p].hash)
			if err != nil {
				return fmt.Errorf("reading %s: %w", p, err)
			}
			out[p] = content
		}
		return nil
	})
	if err != nil {
		return nil, readingUnder(err, prefix)
	}
	return out, nil
}

// readingUnder names the folder a failed ReadUnder was reading; the store is already named.
func readingUnder(err error, prefix string) error {
	var se *Error
	if !errors.As(err, &se) {
		return fmt.Errorf("reading the files under %s: %w", repoPrefixName(prefix), err)
	}
	out := *se
	out.Err = fmt.Errorf("reading the files under %s: %w", repoPrefixName(prefix), se.Err)
	return &out
}

// wantedPaths is the sorted keys of found that want accepts (all when want is nil).
func wantedPaths[V any](found map[string]V, want func(string) bool) []string {
	paths := make([]string, 0, len(found))
	for p := range found {
		if want == nil || want(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

func repoPrefixName(prefix string) string {
	if prefix == "" {
		return "the repository root"
	}
	return prefix
}
