package placement

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// KeyedMark prefixes a keyed hash in a record: "hmac:<hex HMAC-SHA256>". A placement whose
// content came from write-only attributes records no MD5 at all, because an MD5 of a
// low-entropy secret (a password in a Kubernetes Secret) is a guessable copy of it. The keyed
// hash still changes whenever the content does, so drift and changes show, but without the key
// nobody can test a guess against it.
const KeyedMark = "hmac:"

// ContentKey derives the key that hashes one placement's files from the provider's secret, with
// HKDF-SHA256 bound to the placement's identity (a request's <namespace>/<promise>/<name>): the
// same secret in two requests hashes differently, and no record reveals the provider's secret.
func ContentKey(secret []byte, identity string) []byte {
	k, err := hkdf.Key(sha256.New, secret, []byte("kratix-written-files"), "v1 "+identity, sha256.Size)
	if err != nil {
		panic("placement: HKDF-SHA256 refused a 32-byte key: " + err.Error()) // cannot happen
	}
	return k
}

// Keyed is the keyed hash of a file's content at a store path, as a record keeps it. The path is
// part of the message, so that two files with the same content differ.
func Keyed(key []byte, path string, content []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(path))
	mac.Write([]byte{0})
	mac.Write(content)
	return KeyedMark + hex.EncodeToString(mac.Sum(nil))
}

// KeyedHashes is Hashes with keyed hashes: every file as Keyed, an aggregate as AggregateMark +
// the keyed hash of this placement's part.
func KeyedHashes(f layout.Files, key []byte) map[string]string {
	out := make(map[string]string, len(f.Put)+1)
	for p, b := range f.Put {
		out[p] = Keyed(key, p, b)
	}
	if f.Aggregate != nil {
		for p := range f.Put {
			if strings.HasPrefix(p, f.Aggregate.Dir) {
				out[f.Aggregate.File] = AggregateMark + out[p]
			}
		}
	}
	return out
}

// Keyed reports whether a record holds keyed hashes: its content came from write-only
// attributes, and refreshing it must hash what the store holds with the same key.
func (r Record) Keyed() bool {
	for _, v := range r.Files {
		if strings.HasPrefix(strings.TrimPrefix(v, AggregateMark), KeyedMark) {
			return true
		}
	}
	return false
}

// Kept lists the paths of an observation that Refresh keeps in a record: everything found under
// the prefixes, and the single files asked for. A keyed record's refresh hashes exactly these.
func (q Query) Kept(o Observation) []string {
	var out []string
	asked := map[string]bool{}
	for _, p := range q.Files {
		asked[p] = true
	}
	for _, p := range sortedKeys(o.Found) {
		if asked[p] || underAny(p, q.Prefixes) {
			out = append(out, p)
		}
	}
	return out
}
