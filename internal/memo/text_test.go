package memo

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// TestTextKeyIsTheTextsHash: the remembered keys of large texts are their SHA-256 whatever the
// order of the texts, for texts of the same length and for more texts than are remembered.
func TestTextKeyIsTheTextsHash(t *testing.T) {
	var texts []string
	for i := range 20 {
		texts = append(texts, fmt.Sprintf("%03d", i)+strings.Repeat("x", RecentKeyMin)) // all the same length
	}
	texts = append(texts, "small", "")
	for round := range 3 {
		for i, s := range texts {
			if i%(round+1) != 0 {
				continue
			}
			if got, want := TextKey(s), sha256.Sum256([]byte(s)); got != want {
				t.Fatalf("round %d, text %d: key %x, want %x", round, i, got[:4], want[:4])
			}
			// A copy of the text (other bytes, same content) has the same key.
			c := strings.Clone(s)
			if got, want := TextKey(c), sha256.Sum256([]byte(s)); got != want {
				t.Fatalf("round %d, copy of text %d: key %x, want %x", round, i, got[:4], want[:4])
			}
		}
	}
}
