package memo

import (
	"crypto/sha256"
	"sync"
	"unsafe"
)

// TextKey is the SHA-256 of s. One request hands the same text to several readers (validation,
// semantic equality, the layout of a plan or an apply), each of which asks for its key, and
// hashing 1.9 MiB takes about a millisecond: so the keys of the last large texts seen are kept by
// the address of their bytes. An entry holds its text, so that the address cannot be reused by
// another text while the entry stands.
func TextKey(s string) [sha256.Size]byte {
	if len(s) < RecentKeyMin {
		return sha256.Sum256([]byte(s))
	}
	id := textID{unsafe.StringData(s), len(s)}
	recentKeys.Lock()
	defer recentKeys.Unlock()
	for _, k := range recentKeys.entries {
		if k.id == id {
			return k.key
		}
	}
	// The text's own bytes are hashed, not a copy: sha256 only reads them.
	key := sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s)))
	recentKeys.entries[recentKeys.next] = recentKey{id: id, text: s, key: key}
	recentKeys.next = (recentKeys.next + 1) % len(recentKeys.entries)
	return key
}

// RecentKeyMin is the size below which hashing costs less than remembering.
const RecentKeyMin = 64 << 10

type textID struct {
	data *byte
	n    int
}

type recentKey struct {
	id   textID
	text string // keeps id.data from being reused while the entry stands
	key  [sha256.Size]byte
}

var recentKeys struct {
	sync.Mutex
	entries [8]recentKey
	next    int
}
