package scheduling

import (
	"crypto/sha256"
	"encoding/binary"
)

// Choose picks one destination for a key by rendezvous (highest random weight) hashing: every
// candidate gets a weight from hash(key, name) and the heaviest wins. The choice is the same on
// every machine and in every plan, does not depend on the candidates' order, spreads keys evenly,
// and when a candidate joins it takes only the keys it now wins. Ties go to the smaller name.
func Choose(key string, candidates []string) (string, bool) {
	var best string
	var bestWeight uint64
	found := false
	for _, c := range candidates {
		w := weight(key, c)
		if !found || w > bestWeight || w == bestWeight && c < best {
			best, bestWeight, found = c, w, true
		}
	}
	return best, found
}

// weight is the first 8 bytes, big-endian, of SHA-256 over the key, a zero byte and the name.
// Short inputs are hashed from a buffer on the stack, so that ranking a large pool does not
// allocate per candidate.
func weight(key, name string) uint64 {
	var buf [256]byte
	in := append(append(append(buf[:0], key...), 0), name...)
	sum := sha256.Sum256(in)
	return binary.BigEndian.Uint64(sum[:8])
}
