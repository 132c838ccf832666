package statestore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

// SharedReader is implemented by stores that can answer a refresh's reads from one observation
// of a folder shared by every caller in the process. A git store needs none: its tree is in
// memory.
type SharedReader interface {
	// Observed returns the store with List and Hashes, for paths under root ("" for the root,
	// else ending in "/"), answered from one recursive listing of root shared by every caller of
	// the process. It is for reads that report drift (a plan's refresh), never for deciding what
	// a write may skip: writes have their own listing (SharedWriter), kept up to date by them.
	Observed(root string) Store
}

var _ SharedReader = (*bucketStore)(nil)

const (
	// snapshotMaxAge bounds how long one listing answers later reads. A provider process serves
	// one Terraform operation, whose refresh reads every resource within seconds of the first;
	// the bound keeps a long-lived process (tests, or a plan whose reads take minutes) from
	// reporting what the store held long ago.
	snapshotMaxAge = 60 * time.Second
	// snapshotMaxObjects bounds a shared listing: past it (a store path of "" on a bucket full of
	// other things), reads fall back to listing each folder they ask about.
	snapshotMaxObjects = 100_000
)

// snapshot is one listing of a root, shared by the reads of the process. ready is closed once
// the listing is over; a failed listing is never kept, so the next read lists again.
type snapshot struct {
	ready   chan struct{}
	taken   time.Time
	objects map[string]minio.ObjectInfo
	keys    []string // of objects, sorted: a folder's objects are a range of it
	tooBig  bool     // more than snapshotMaxObjects: read folder by folder instead
}

// under returns the objects whose keys start with prefix, found by binary search: a plan reads
// every destination folder of every resource, so a scan of the whole listing per read would make
// the refresh grow with the square of the fleet.
func (s *snapshot) under(prefix string) []minio.ObjectInfo {
	var out []minio.ObjectInfo
	for i := sort.SearchStrings(s.keys, prefix); i < len(s.keys) && strings.HasPrefix(s.keys[i], prefix); i++ {
		out = append(out, s.objects[s.keys[i]])
	}
	return out
}

// observedBucket is a bucket store whose List and Hashes under root are served from the shared
// snapshot of root; everything else (Apply, Read, Check) is the store's own.
type observedBucket struct {
	*bucketStore
	root string
}

// Observed implements SharedReader.
func (b *bucketStore) Observed(root string) Store {
	return observedBucket{bucketStore: b, root: root}
}

// dropSnapshots forgets every shared listing, and keeps any listing in flight from being kept:
// called before and after each write of this process, so that no read is answered with what the
// store held before it.
func (b *bucketStore) dropSnapshots() {
	b.snapMu.Lock()
	defer b.snapMu.Unlock()
	b.snapGen++
	b.snaps = nil
}

// observe returns the objects under root as one recursive listing told them, made at most once
// per snapshotMaxAge for all callers (concurrent callers wait for the one listing in flight).
// ok is false when root holds more than snapshotMaxObjects objects.
func (b *bucketStore) observe(ctx context.Context, root string) (_ *snapshot, ok bool, err error) {
	for {
		b.snapMu.Lock()
		s := b.snaps[root]
		if s != nil {
			select {
			case <-s.ready:
				if time.Since(s.taken) < snapshotMaxAge {
					b.snapMu.Unlock()
					return s, !s.tooBig, nil
				}
				delete(b.snaps, root)
				s = nil
			default:
			}
		}
		if s != nil { // another caller is listing: wait for its answer
			b.snapMu.Unlock()
			select {
			case <-s.ready:
				continue
			case <-ctx.Done():
				return nil, false, fmt.Errorf("listing %s: %w", prefixName(root), ctx.Err())
			}
		}
		s = &snapshot{ready: make(chan struct{}), taken: time.Now()}
		if b.snaps == nil {
			b.snaps = map[string]*snapshot{}
		}
		b.snaps[root] = s
		gen := b.snapGen
		b.snapMu.Unlock()

		limit := b.snapLimit
		if limit == 0 {
			limit = snapshotMaxObjects
		}
		objects, err := b.listCapped(ctx, root, true, limit)
		s.objects, s.tooBig = objects, err == nil && objects == nil
		s.keys = slices.Sorted(maps.Keys(objects))

		b.snapMu.Lock()
		// A failed listing is not kept, nor one that a write of this process may have overtaken.
		if (err != nil || b.snapGen != gen) && b.snaps[root] == s {
			delete(b.snaps, root)
		}
		close(s.ready)
		b.snapMu.Unlock()
		return s, !s.tooBig, err
	}
}

func (v observedBucket) List(ctx context.Context, prefix string) (_ map[string]string, err error) {
	if !strings.HasPrefix(prefix, v.root) {
		return v.bucketStore.List(ctx, prefix)
	}
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return nil, v.fail("list", KindConfig, err)
	}
	snap, ok, err := v.observe(ctx, v.root)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string]string{}, nil // the bucket is gone, and every file with it
	}
	if err != nil {
		return nil, v.fail("list", classifyBucketError(err), err)
	}
	if !ok {
		return v.bucketStore.List(ctx, prefix)
	}
	return v.md5s(ctx, "list", snap.under(prefix), nil)
}

func (v observedBucket) Hashes(ctx context.Context, paths []string) (_ map[string]string, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	var under, other []string
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, v.fail("read", KindConfig, err)
		}
		if strings.HasPrefix(p, v.root) {
			under = append(under, p)
		} else {
			other = append(other, p)
		}
	}
	if len(under) == 0 {
		return v.bucketStore.Hashes(ctx, paths)
	}
	snap, ok, err := v.observe(ctx, v.root)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string]string{}, nil // the bucket is gone, and every file with it
	}
	if err != nil {
		return nil, v.fail("read", classifyBucketError(err), err)
	}
	if !ok {
		return v.bucketStore.Hashes(ctx, paths)
	}
	var entries []minio.ObjectInfo
	seen := map[string]bool{}
	for _, p := range under {
		if e, found := snap.objects[p]; found && !seen[p] {
			seen[p] = true
			entries = append(entries, e)
		}
	}
	out, err := v.md5s(ctx, "read", entries, nil)
	if err != nil || len(other) == 0 {
		return out, err
	}
	more, err := v.bucketStore.Hashes(ctx, other)
	if err != nil {
		return nil, err
	}
	for p, sum := range more {
		out[p] = sum
	}
	return out, nil
}

// BucketExists answers from the shared listing of the root when prefix is under it: a refresh
// of the store (kratix_state_store's Read) then costs no listing of its own, since the reads of
// its destinations need that listing anyway.
func (v observedBucket) BucketExists(ctx context.Context, prefix string) (_ bool, err error) {
	if !strings.HasPrefix(prefix, v.root) {
		return v.bucketStore.BucketExists(ctx, prefix)
	}
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return false, v.fail("list", KindConfig, err)
	}
	_, _, err = v.observe(ctx, v.root)
	switch kind := classifyBucketError(err); {
	case err == nil:
		return true, nil
	case kind == KindMissingBucket:
		return false, nil
	default:
		return false, v.fail("list", kind, err)
	}
}
