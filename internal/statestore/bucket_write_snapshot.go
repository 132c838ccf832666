package statestore

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
)

// SharedWriter is implemented by stores whose writes can find what they replace from one
// listing shared by the writes of the process, instead of listing the folders of each write. A
// git store needs none: its tree is in memory.
type SharedWriter interface {
	// Writing returns the store with Apply answering its lookups under root ("" for the root,
	// else ending in "/") from one recursive listing of root, taken at the process's first write
	// under root (at its writeSnapshotAfter-th on a root too crowded for one page) and kept up to
	// date by the process's own writes (a failed write drops it).
	Writing(root string) Store
}

var _ SharedWriter = (*bucketStore)(nil)

const (
	// firstListCap is how many objects the first write's listing of a root may find: one page of
	// a listing (1,000 keys) holds them all, so the first write costs one request however crowded
	// the root. A root that holds more (a store path of "" on a bucket of other teams' files) is
	// listed whole only at the writeSnapshotAfter-th write: one or two small writes, such as a
	// destination's canaries, list their own folders rather than the whole store, and a fleet's
	// writes still share one listing.
	firstListCap       = 999
	writeSnapshotAfter = 3
	// wideWrite is how many folders a write may span before it lists the whole root at once,
	// whatever came before: listing its folders one by one would cost more requests than the
	// pages of a crowded root (a promise over a fleet of 250 destinations is 250 folders; 13,000
	// objects are 13 pages).
	wideWrite = 16
)

// writeSnapshot is what the process knows a root holds, for its writes: one listing, then
// every PUT and DELETE of the process under the root.
type writeSnapshot struct {
	root  string
	ready chan struct{} // closed once the listing is over
	// unusable: the listing failed or root holds more than snapshotMaxObjects objects; the
	// writes list their folders as if there were no snapshot.
	unusable bool

	mu      sync.Mutex
	listed  bool                        // the listing is in objects
	pending []writeNote                 // writes made while the listing was in flight
	objects map[string]minio.ObjectInfo // as listed; entries of this process's writes in sums
	sums    map[string]string           // what this process wrote: key => MD5 of the content
	keys    []string                    // of objects, sorted when !stale
	stale   bool
}

// writeNote is one write of the process: key now holds content with MD5 sum, or is gone.
type writeNote struct {
	key, sum string
	removed  bool
}

// apply records n; s.mu is held.
func (s *writeSnapshot) apply(n writeNote) {
	if n.removed {
		delete(s.objects, n.key)
		delete(s.sums, n.key)
	} else {
		s.objects[n.key] = minio.ObjectInfo{Key: n.key, ETag: n.sum}
		s.sums[n.key] = n.sum
	}
	s.stale = true
}

// writingBucket is a bucket store whose Apply looks up what it replaces under root in the
// shared write snapshot.
type writingBucket struct {
	*bucketStore
	root string
}

// Writing implements SharedWriter.
func (b *bucketStore) Writing(root string) Store {
	return writingBucket{bucketStore: b, root: root}
}

// Hashes answers from the writes' listing of root, taking it as a wide write would when the
// process has none yet: a plan that asks what its writes would replace (the provider's take-over
// warning) then costs no listing of its own, and the writes that follow in the same process use
// that listing. A root the listing cannot hold is asked file by file, as Hashes does.
func (w writingBucket) Hashes(ctx context.Context, paths []string) (map[string]string, error) {
	snap, err := w.writeSnapshot(ctx, w.root, true)
	if err != nil {
		snap = nil // ask the store itself; it tells the same failure
	}
	return w.hashesWith(ctx, paths, snap)
}

func (w writingBucket) Apply(ctx context.Context, change Change) (Result, error) {
	snap, err := w.writeSnapshot(ctx, w.root, changeFolders(change) >= wideWrite)
	if err != nil {
		snap = nil // list the folders of this write instead; they tell the same failure
	}
	return w.apply(ctx, change, snap)
}

// writeSnapshot returns root's shared listing, taking it at the first write under root, or at the
// writeSnapshotAfter-th when the first found more than firstListCap objects, or at the first
// wide write (one spanning wideWrite folders or more) whatever came before; nil before that, or
// when it cannot be used. Concurrent writes wait for the one listing in flight.
//
// The listing lasts as long as the process, which serves one Terraform operation: unlike a
// plan's reads, which must report what the store holds (bucket_snapshot.go), it only decides
// what a write may skip or must remove, and the process's own writes keep it current. What
// another writer changes meanwhile in a folder of ours is what the next plan's refresh repairs;
// a file they add there is kept, not removed.
func (b *bucketStore) writeSnapshot(ctx context.Context, root string, wide bool) (*writeSnapshot, error) {
	b.wsMu.Lock()
	if b.wsUses == nil {
		b.wsUses, b.wsnaps = map[string]int{}, map[string]*writeSnapshot{}
	}
	b.wsUses[root]++
	uses, s := b.wsUses[root], b.wsnaps[root]
	limit := b.snapLimit
	if limit == 0 {
		limit = snapshotMaxObjects
	}
	switch {
	case s != nil:
		b.wsMu.Unlock()
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if s.unusable {
			return nil, nil
		}
		return s, nil
	case wide:
	case uses == 1:
		limit = min(limit, firstListCap)
	case uses < writeSnapshotAfter:
		b.wsMu.Unlock()
		return nil, nil
	}
	s = &writeSnapshot{root: root, ready: make(chan struct{}), sums: map[string]string{}}
	b.wsnaps[root] = s
	b.wsMu.Unlock()

	objects, err := b.listCapped(ctx, root, true, limit)
	s.mu.Lock()
	s.unusable = err != nil || objects == nil
	if !s.unusable {
		// The writes of the process since the listing began are its latest word on their keys,
		// whether or not the listing saw them.
		s.objects, s.listed = objects, true
		for _, n := range s.pending {
			s.apply(n)
		}
		s.stale = true
	}
	s.pending = nil
	s.mu.Unlock()
	// A failed listing is never kept; nor is a first one that found the root crowded, so that
	// the writeSnapshotAfter-th write lists it whole.
	if err != nil || (objects == nil && uses == 1 && !wide) {
		b.dropWriteSnapshot(s)
	}
	close(s.ready)
	if s.unusable {
		return nil, err
	}
	return s, nil
}

// seedWriteSnapshot makes objects, a whole listing of root taken just now, the writes' listing of
// root, unless they have one.
func (b *bucketStore) seedWriteSnapshot(root string, objects map[string]minio.ObjectInfo) {
	b.wsMu.Lock()
	defer b.wsMu.Unlock()
	if b.wsUses == nil {
		b.wsUses, b.wsnaps = map[string]int{}, map[string]*writeSnapshot{}
	}
	if b.wsnaps[root] != nil {
		return
	}
	s := &writeSnapshot{root: root, ready: make(chan struct{}), sums: map[string]string{}, objects: objects, listed: true, stale: true}
	close(s.ready)
	b.wsnaps[root] = s
}

// dropWriteSnapshot forgets s: the next write under its root lists again.
func (b *bucketStore) dropWriteSnapshot(s *writeSnapshot) {
	b.wsMu.Lock()
	defer b.wsMu.Unlock()
	if b.wsnaps[s.root] == s {
		delete(b.wsnaps, s.root)
	}
}

// dropWriteSnapshots forgets every write snapshot: called after a write whose outcome is not
// known (it failed) or that does not go through put and remove.
func (b *bucketStore) dropWriteSnapshots() {
	b.wsMu.Lock()
	defer b.wsMu.Unlock()
	clear(b.wsnaps)
}

// noteWrite records in the write snapshots that key now holds content with MD5 sum (removed:
// that it is gone).
func (b *bucketStore) noteWrite(key, sum string, removed bool) {
	b.wsMu.Lock()
	snaps := slices.Collect(maps.Values(b.wsnaps))
	b.wsMu.Unlock()
	n := writeNote{key: key, sum: sum, removed: removed}
	for _, s := range snaps {
		if !strings.HasPrefix(key, s.root) {
			continue
		}
		s.mu.Lock()
		if s.listed {
			s.apply(n)
		} else {
			s.pending = append(s.pending, n)
		}
		s.mu.Unlock()
	}
}

// under returns the objects whose keys start with prefix, and the MD5s the process knows of
// those it wrote.
func (s *writeSnapshot) under(prefix string) (map[string]minio.ObjectInfo, map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stale {
		s.keys = slices.Sorted(maps.Keys(s.objects))
		s.stale = false
	}
	objects, sums := map[string]minio.ObjectInfo{}, map[string]string{}
	for i := sort.SearchStrings(s.keys, prefix); i < len(s.keys) && strings.HasPrefix(s.keys[i], prefix); i++ {
		k := s.keys[i]
		objects[k] = s.objects[k]
		if sum, ok := s.sums[k]; ok {
			sums[k] = sum
		}
	}
	return objects, sums
}

// changeFolders counts the folders a change puts files in, deletes from or prunes.
func changeFolders(c Change) int {
	folders := map[string]bool{}
	for p := range c.Put {
		folders[parentDir(p)] = true
	}
	for _, p := range c.Delete {
		folders[parentDir(p)] = true
	}
	for _, p := range c.Prune {
		folders[p] = true
	}
	return len(folders)
}
