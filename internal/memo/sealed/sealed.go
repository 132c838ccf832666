// Package sealed keeps results between provider processes: pieces of bytes computed from a text,
// in a folder of the user's cache, sealed so that only a process that has the text can read them.
//
// Terraform starts a provider process to validate, another to plan and another to apply, and
// each used to parse and serialise every promise's dependencies again: for a release the size of
// Tekton's, about 0.15 s per process, on the critical path of an apply. The first process now
// writes what it computed into the cache folder, and the others load it.
//
// An entry is named after the text's SHA-256 mixed with this executable's identity (path, size,
// modification time and module version), so another build of the provider, which might compute
// differently, never reads it. It holds the pieces sealed with AES-GCM under a key derived from
// the text itself: a dependency may be a Kubernetes Secret, and what state holds must not lie
// readable in a folder beside it. Only a process that has the text can open its entry, and a torn
// or corrupted file fails to open: a miss, never wrong bytes. The folder is created private to
// the user (0700) and is not used when others can write into it. It keeps the entries used most
// recently, at most Entries of them and Bytes in all.
//
// Without a cache folder (os.UserCacheDir fails, the folder cannot be created, setting "off")
// every Load misses and every Store does nothing: the caller computes as if there were no cache.
package sealed

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"time"
)

const (
	// Entries and Bytes bound the folder.
	Entries = 64
	Bytes   = 256 << 20
	// magic starts every entry, and names the format: entries of another format never open.
	magic = "KRXSEAL1\n"
)

// Key is the SHA-256 of the text an entry is computed from.
type Key = [sha256.Size]byte

// Cache is a cache folder, or the zero value when there is none.
type Cache struct {
	dir  string
	salt [sha256.Size]byte // this executable's identity
}

// Open opens the cache folder kind under the user's cache ("" for the default folder, a path
// for another one, "off" for none).
func Open(setting, kind string) Cache {
	if setting == "off" {
		return Cache{}
	}
	dir := setting
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return Cache{}
		}
		dir = filepath.Join(base, "terraform-provider-kratix")
	}
	dir = filepath.Join(dir, kind)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Cache{}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return Cache{} // someone else could plant entries
	}
	salt, ok := executableIdentity()
	if !ok {
		return Cache{}
	}
	return Cache{dir: dir, salt: salt}
}

// Dir is the cache's folder, "" when there is none.
func (c Cache) Dir() string { return c.dir }

// executableIdentity names this build of the provider.
func executableIdentity() ([sha256.Size]byte, bool) {
	exe, err := os.Executable()
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	h := sha256.New()
	h.Write([]byte(magic + exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)))
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Write([]byte("\x00" + bi.Main.Path + "@" + bi.Main.Version))
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out, true
}

// Path is where the entry of the text with SHA-256 key is: a name from which neither the text
// nor its sealing key can be found.
func (c Cache) Path(key Key) string {
	name := sha256.Sum256(append(append([]byte("name\x00"), c.salt[:]...), key[:]...))
	return filepath.Join(c.dir, hex.EncodeToString(name[:]))
}

// aead seals the entry of the text with SHA-256 key.
func (c Cache) aead(key Key) cipher.AEAD {
	k := sha256.Sum256(append(append([]byte("seal\x00"), c.salt[:]...), key[:]...))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return g
}

// Load returns the pieces of a text's entry; ok is false when there is none (or it was damaged,
// and is removed).
func (c Cache) Load(key Key) (pieces [][]byte, ok bool) {
	if c.dir == "" {
		return nil, false
	}
	p := c.Path(key)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	pieces, ok = c.open(key, b)
	if !ok {
		_ = os.Remove(p)
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // most recently used
	return pieces, true
}

// Store writes the entry of a text, replacing the file whole, then trims the folder.
func (c Cache) Store(key Key, pieces [][]byte) {
	if c.dir == "" {
		return
	}
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(c.seal(key, pieces))
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), c.Path(key)) != nil {
		_ = os.Remove(f.Name())
		return
	}
	c.trim()
}

// trim removes the least recently used entries beyond the folder's limits, and temporary files
// a killed process left behind.
func (c Cache) trim() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		size int64
		used time.Time
	}
	var kept []entry
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if e.Name()[0] == '.' {
			if time.Since(fi.ModTime()) > time.Hour {
				_ = os.Remove(filepath.Join(c.dir, e.Name()))
			}
			continue
		}
		kept = append(kept, entry{e.Name(), fi.Size(), fi.ModTime()})
	}
	slices.SortFunc(kept, func(a, b entry) int { return b.used.Compare(a.used) }) // newest first
	var total int64
	for i, e := range kept {
		total += e.size
		if i >= Entries || total > Bytes {
			_ = os.Remove(filepath.Join(c.dir, e.name))
		}
	}
}

// seal is the file of an entry: the magic, a random nonce, then, sealed, the number of pieces,
// their lengths and the pieces.
func (c Cache) seal(key Key, pieces [][]byte) []byte {
	g := c.aead(key)
	size := 8 * (1 + len(pieces))
	for _, p := range pieces {
		size += len(p)
	}
	plain := make([]byte, 8*(1+len(pieces)), size)
	binary.BigEndian.PutUint64(plain, uint64(len(pieces)))
	for i, p := range pieces {
		binary.BigEndian.PutUint64(plain[8*(i+1):], uint64(len(p)))
	}
	for _, p := range pieces {
		plain = append(plain, p...)
	}
	out := make([]byte, len(magic)+g.NonceSize(), len(magic)+g.NonceSize()+len(plain)+g.Overhead())
	copy(out, magic)
	if _, err := rand.Read(out[len(magic):]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return g.Seal(out, out[len(magic):], plain, []byte(magic))
}

// open reads a file of seal; ok is false for anything else.
func (c Cache) open(key Key, b []byte) ([][]byte, bool) {
	g := c.aead(key)
	head := len(magic) + g.NonceSize()
	if len(b) < head || !bytes.HasPrefix(b, []byte(magic)) {
		return nil, false
	}
	plain, err := g.Open(b[head:head], b[len(magic):head], b[head:], []byte(magic))
	if err != nil || len(plain) < 8 {
		return nil, false
	}
	n := binary.BigEndian.Uint64(plain)
	if n > uint64(len(plain)-8)/8 {
		return nil, false
	}
	payload := plain[8*(1+n):]
	lens := make([]uint64, n)
	var total uint64
	for i := range lens {
		lens[i] = binary.BigEndian.Uint64(plain[8*(i+1):])
		if lens[i] > uint64(len(payload)) {
			return nil, false
		}
		total += lens[i]
	}
	if total != uint64(len(payload)) {
		return nil, false
	}
	// Separate slices with no spare capacity: an append by a reader copies.
	pieces := make([][]byte, n)
	var from uint64
	for i, l := range lens {
		if l > 0 {
			pieces[i] = slices.Clip(payload[from : from+l])
		}
		from += l
	}
	return pieces, true
}
