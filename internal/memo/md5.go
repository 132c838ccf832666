package memo

import (
	"crypto/md5"
	"encoding/hex"
	"sync"
	"unsafe"
)

// MD5 is the hex MD5 of content, as bucket ETags and Terraform state record it.
//
// Large contents are remembered, by content, so that a hit is exact: one plan lays the same
// dependencies out on every destination of a fleet, and would otherwise hash a 2 MiB text a few
// hundred times. Looking a content up costs a map hash of it, many times cheaper than MD5.
func MD5(b []byte) string {
	if len(b) < md5MemoMin {
		return md5Hex(b)
	}
	md5Memo.Lock()
	sum, ok := md5Memo.sums[string(b)]
	md5Memo.Unlock()
	if ok {
		return sum
	}
	sum = md5Hex(b)
	md5Memo.Lock()
	defer md5Memo.Unlock()
	if md5Memo.size+len(b) > md5MemoMax {
		md5Memo.sums, md5Memo.size = nil, 0 // a process that saw many large texts starts over
	}
	if md5Memo.sums == nil {
		md5Memo.sums = map[string]string{}
	}
	if _, there := md5Memo.sums[string(b)]; !there {
		md5Memo.sums[string(b)] = sum
		md5Memo.size += len(b)
	}
	return sum
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// md5Memo holds the MD5s of large contents (see MD5): at least md5MemoMin bytes each, at most
// md5MemoMax bytes in all.
var md5Memo struct {
	sync.Mutex
	sums map[string]string
	size int
}

const (
	md5MemoMin = 32 << 10
	md5MemoMax = 64 << 20
)

// Sums remembers the MD5s of one computation by where each content is. One plan lays the same
// dependencies out on every destination, in one slice; looking it up in MD5's memo hashes all of
// it each time, a few times per destination. The computation that owns a Sums must not change the
// contents it sums while it holds it: then the same slice has the same sum. MD5's memo, by
// content, still serves across computations.
type Sums map[sliceAt]string

// sliceAt is where a content is: its first byte and its length.
type sliceAt struct {
	at *byte
	n  int
}

// Of is MD5(b), remembered by slice for the computation that owns s.
func (s *Sums) Of(b []byte) string {
	if len(b) < md5MemoMin {
		return md5Hex(b)
	}
	at := sliceAt{unsafe.SliceData(b), len(b)}
	if sum, ok := (*s)[at]; ok {
		return sum
	}
	sum := MD5(b)
	if *s == nil {
		*s = Sums{}
	}
	(*s)[at] = sum
	return sum
}
