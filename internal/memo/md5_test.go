package memo

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"testing"
)

func wantMD5(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

// MD5 of a large content is remembered by content: the same bytes in another slice hit, a
// content that differs in one byte does not, and a slice changed in place after it was hashed
// is hashed afresh. Expected sums come from crypto/md5 directly.
func TestMD5Memo(t *testing.T) {
	big := bytes.Repeat([]byte("apiVersion: v1\nkind: ConfigMap\n"), 4096) // 128 KiB
	if got := MD5(big); got != wantMD5(big) {
		t.Fatalf("MD5 = %s, want %s", got, wantMD5(big))
	}
	if _, there := md5Memo.sums[string(big)]; !there {
		t.Error("a 128 KiB content was not remembered")
	}
	copied := append([]byte(nil), big...)
	if got := MD5(copied); got != wantMD5(big) {
		t.Errorf("the same content in another slice: %s, want %s", got, wantMD5(big))
	}
	other := append([]byte(nil), big...)
	other[len(other)-1] = 'X'
	if got := MD5(other); got != wantMD5(other) || got == wantMD5(big) {
		t.Errorf("a content differing in its last byte: %s, want %s", got, wantMD5(other))
	}
	big[0] = 'Z' // changed in place after it was hashed
	if got := MD5(big); got != wantMD5(big) {
		t.Errorf("a slice changed in place: %s, want %s", got, wantMD5(big))
	}
	if got := MD5([]byte("x")); got != wantMD5([]byte("x")) {
		t.Errorf("a small content: %s, want %s", got, wantMD5([]byte("x")))
	}
}

// The memo holds at most md5MemoMax bytes: past that it starts over, and still answers right.
func TestMD5MemoIsBounded(t *testing.T) {
	chunk := bytes.Repeat([]byte("y"), 8<<20)
	for i := range md5MemoMax/len(chunk) + 3 {
		c := append([]byte{byte(i)}, chunk...)
		if got := MD5(c); got != wantMD5(c) {
			t.Fatalf("content %d: %s, want %s", i, got, wantMD5(c))
		}
		md5Memo.Lock()
		size := md5Memo.size
		md5Memo.Unlock()
		if size > md5MemoMax {
			t.Fatalf("after content %d the memo holds %d bytes, above its bound %d", i, size, md5MemoMax)
		}
	}
}

// One computation's sums are remembered by slice: the same slice, any number of times, and other
// slices (the same bytes or not, shorter views of the same memory) each get their own content's
// MD5. Expected sums come from crypto/md5 directly.
func TestSumsBySlice(t *testing.T) {
	big := bytes.Repeat([]byte("kind: ConfigMap\n"), 8192) // 128 KiB
	other := append([]byte(nil), big...)
	other[0] = 'K'
	var s Sums
	for range 3 {
		for name, b := range map[string][]byte{"big": big, "other": other, "a view of big": big[:len(big)-1], "small": []byte("x")} {
			if got := s.Of(b); got != wantMD5(b) {
				t.Fatalf("%s: %s, want %s", name, got, wantMD5(b))
			}
		}
	}
	if len(s) != 3 {
		t.Errorf("%d slices remembered, want 3 (the small one is not)", len(s))
	}
}
