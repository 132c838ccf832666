package placement_test

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// MD5 of a large content is remembered by content: the same bytes in another slice hit, a
// content that differs in one byte does not, and a slice changed in place after it was hashed
// is hashed afresh. Expected sums come from crypto/md5 directly.
func TestMD5Memo(t *testing.T) {
	big := bytes.Repeat([]byte("apiVersion: v1\nkind: ConfigMap\n"), 4096) // 128 KiB
	want := func(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }
	if got := placement.MD5(big); got != want(big) {
		t.Fatalf("MD5 = %s, want %s", got, want(big))
	}
	copied := append([]byte(nil), big...)
	if got := placement.MD5(copied); got != want(big) {
		t.Errorf("the same content in another slice: %s, want %s", got, want(big))
	}
	other := append([]byte(nil), big...)
	other[len(other)-1] = 'X'
	if got := placement.MD5(other); got != want(other) || got == want(big) {
		t.Errorf("a content differing in its last byte: %s, want %s", got, want(other))
	}
	big[0] = 'Z' // changed in place after it was hashed
	if got := placement.MD5(big); got != want(big) {
		t.Errorf("a slice changed in place: %s, want %s", got, want(big))
	}
}
