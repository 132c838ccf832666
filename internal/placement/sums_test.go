package placement

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"testing"
)

// One computation's sums are remembered by slice: the same slice, any number of times, and other
// slices (the same bytes or not, shorter views of the same memory) each get their own content's
// MD5. Expected sums come from crypto/md5 directly.
func TestSumsBySlice(t *testing.T) {
	want := func(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }
	big := bytes.Repeat([]byte("kind: ConfigMap\n"), 8192) // 128 KiB
	other := append([]byte(nil), big...)
	other[0] = 'K'
	var s Sums
	for range 3 {
		for name, b := range map[string][]byte{"big": big, "other": other, "a view of big": big[:len(big)-1], "small": []byte("x")} {
			if got := s.Of(b); got != want(b) {
				t.Fatalf("%s: %s, want %s", name, got, want(b))
			}
		}
	}
	if len(s) != 3 {
		t.Errorf("%d slices remembered, want 3 (the small one is not)", len(s))
	}
}
