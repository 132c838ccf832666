package layout

import (
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
)

// RemainderPart is the name, in an aggregate's parts folder, of the part that keeps the documents
// of an aggregatedYAML file someone else wrote (Kratix keeps no parts) until parts of this
// provider hold them: the first rebuild would otherwise make the file from this provider's parts
// alone, and every document not yet taken over would drop out of it. No placement's part has
// this name: placement names hold a "." (see PlacementName).
const RemainderPart = "kratix-remainder" + ContributionExt

// aggregateSeparator joins the parts of an aggregatedYAML file, as Kratix joins its
// WorkPlacements.
const aggregateSeparator = "\n---\n"

// Remainder returns the documents of an aggregate (content) that none of parts holds, in their
// order and with their text, joined as an aggregate's parts are; nil when every document is held
// (or there is none). The content is cut on the separator Kratix joins its WorkPlacements with,
// and each piece is compared by meaning (see DocumentKeys): a piece is held when every document
// of it is among the documents of the parts. A piece only partly held is kept whole: a document
// shown twice is repaired by a later rebuild, a document lost is not.
func Remainder(content []byte, parts [][]byte) []byte {
	held := map[string]bool{}
	for _, p := range parts {
		for _, k := range AggregateKeys(p) {
			held[k] = true
		}
	}
	var kept []string
	for _, piece := range strings.Split(string(content), aggregateSeparator) {
		keys := DocumentKeys([]byte(piece))
		if len(keys) == 0 {
			continue // nothing but blanks
		}
		all := true
		for _, k := range keys {
			all = all && held[k]
		}
		if !all {
			kept = append(kept, piece)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return []byte(strings.Join(kept, aggregateSeparator))
}

// AggregateKeys are the keys (see DocumentKeys) of every document of an aggregate or a part: of
// the whole, and of each piece between the separators that Kratix joins its WorkPlacements with,
// so that a piece that does not parse does not hide the others.
func AggregateKeys(content []byte) []string {
	keys := DocumentKeys(content)
	for _, piece := range strings.Split(string(content), aggregateSeparator) {
		keys = append(keys, DocumentKeys([]byte(piece))...)
	}
	return keys
}

// DocumentKeys are the canonical forms of the documents of a stream (manifest.Canonical), so
// that Kratix's serialisation of the same objects compares equal, or its trimmed text when it
// is not a stream of Kubernetes objects. Blank content has no key.
func DocumentKeys(content []byte) []string {
	if docs, err := manifest.Parse(content); err == nil && len(docs) > 0 {
		keys := make([]string, len(docs))
		for i, d := range docs {
			keys[i] = "yaml:" + string(manifest.Canonical([]manifest.Document{d}))
		}
		return keys
	}
	if s := strings.TrimSpace(string(content)); s != "" {
		return []string{"text:" + s}
	}
	return nil
}

// SameAggregate reports whether an aggregatedYAML file's content (current) holds exactly the
// pieces of the join of its parts (joined), in any order: the same bytes, or the same multiset
// of pieces between the separators Kratix joins its WorkPlacements with, each compared as exact
// text. Kratix orders the pieces by its WorkPlacements' names, which are not this provider's
// part names; a file Kratix wrote with the parts' documents is therefore up to date as it is,
// and no writer rewrites it only to change the order.
func SameAggregate(current, joined []byte) bool {
	if string(current) == string(joined) {
		return true
	}
	if len(current) != len(joined) {
		return false // a reordering keeps the length
	}
	want := strings.Split(string(joined), aggregateSeparator)
	have := strings.Split(string(current), aggregateSeparator)
	if len(have) != len(want) {
		return false
	}
	count := make(map[string]int, len(want))
	for _, piece := range want {
		count[piece]++
	}
	for _, piece := range have {
		if count[piece] == 0 {
			return false
		}
		count[piece]--
	}
	return true // as many pieces, each one matched: the same multiset
}
