package placement

import (
	"crypto/md5"
	"encoding/hex"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Member is a destination of a pool: its name and labels for scheduling, where its folder is
// (store location and root), and its layout.
type Member struct {
	scheduling.Destination
	// Store is the name of the store resource, for messages and state only.
	Store    string
	Location Location
	Target   layout.Target
	// Instance is the destination's instance_id: new each time it is created (a replacement
	// whose cleanup may have emptied the folder), "" when not known yet. Placements on a new
	// instance are written again (see Unchanged).
	Instance string
}

// Folder identifies a member's folder across store resources: two members with equal folders
// write to the same place whatever their stores are called.
func (m Member) Folder() string { return m.Location.String() + "|" + m.Target.Root }

// sameTarget reports whether two members lay out files in the same place the same way.
func sameTarget(a, b Member) bool {
	return a.Folder() == b.Folder() && mode(a.Target) == mode(b.Target) &&
		aggregateName(a.Target) == aggregateName(b.Target) && a.Target.StorePath == b.Target.StorePath
}

func mode(t layout.Target) layout.Mode {
	if t.Mode == "" {
		return layout.ModeNestedByMetadata
	}
	return t.Mode
}

func aggregateName(t layout.Target) string {
	if mode(t) != layout.ModeAggregatedYAML {
		return ""
	}
	return layout.AggregateOf(t).File
}

// Destinations returns the scheduling view of a pool.
func Destinations(pool []Member) []scheduling.Destination {
	out := make([]scheduling.Destination, len(pool))
	for i, m := range pool {
		out[i] = m.Destination
	}
	return out
}

// AggregateMark prefixes the value recorded for an aggregatedYAML file: the file holds every
// placement's part, so its own hash depends on other writers (other resources, other
// workspaces). A placement records instead that the file is current and holds its part,
// "part:<md5 of the part>", or Stale when it is missing, edited, or out of date.
const AggregateMark = "part:"

// Stale is recorded for an aggregate that does not hold what its parts say.
const Stale = "stale"

// Hashes records files as path => hex MD5, and an aggregate as AggregateMark + the MD5 of this
// placement's part.
func Hashes(f layout.Files) map[string]string { return hashesWith(f, MD5) }

func hashesWith(f layout.Files, sum func([]byte) string) map[string]string {
	out := make(map[string]string, len(f.Put)+1)
	for p, b := range f.Put {
		out[p] = sum(b)
	}
	if f.Aggregate != nil {
		for p, b := range f.Put {
			if strings.HasPrefix(p, f.Aggregate.Dir) {
				out[f.Aggregate.File] = AggregateMark + sum(b)
			}
		}
	}
	return out
}

// Sums remembers the MD5s of one computation by where each content is. One plan lays the same
// dependencies out on every destination, in one slice; looking it up in MD5's memo hashes all of
// it each time, a few times per destination. Within one call of this package nothing changes the
// contents it lays out, so the same slice has the same sum; MD5's memo, by content, still serves
// across calls.
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

// MD5 is the hex MD5 of content, as bucket ETags and state record it.
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
