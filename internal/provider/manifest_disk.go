package provider

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
	"sync"
	"time"
)

// The manifest disk cache: canonical serialisations kept between provider processes.
//
// Terraform starts a provider process to validate, another to plan and another to apply, and
// each used to parse and serialise every promise's dependencies again: for a release the size of
// Tekton's, about 0.15 s per process, on the critical path of an apply. The first process now
// writes what it read into a folder of the user's cache, and the others load it.
//
// An entry is named after the text's SHA-256 mixed with this executable's identity (path, size,
// modification time and module version), so another build of the provider, which might serialise
// differently, never reads it. It holds the three serialisations sealed with AES-GCM under a key
// derived from the text itself: a dependency may be a Kubernetes Secret, and what state holds
// must not lie readable in a folder beside it. Only a process that has the text can open its
// entry, and a torn or corrupted file fails to open: a miss, never wrong bytes. Only texts that
// parse and are large (at least manifestDiskMin), where a second read costs, are kept. The folder
// is created private to the user (0700) and is not used when others can write into it. It keeps
// the entries used most recently, at most manifestDiskEntries of them and manifestDiskBytes in all.
//
// KRATIX_CACHE_DIR names another folder; "off" turns the cache off. Without a cache folder
// (os.UserCacheDir fails, the folder cannot be created) the provider works as before.

const (
	cacheDirEnv         = "KRATIX_CACHE_DIR"
	manifestDiskEntries = 64
	manifestDiskBytes   = 256 << 20
	manifestDiskMin     = 64 << 10
	manifestDiskMagic   = "KRXMAN2\n"
)

// manifestFiles is the folder of the manifest cache, or the zero value when there is none.
type manifestFiles struct {
	dir  string
	salt [sha256.Size]byte // this executable's identity
}

var manifestDisk = sync.OnceValue(func() manifestFiles { return openManifestFiles(os.Getenv(cacheDirEnv)) })

// openManifestFiles opens the cache folder that setting names ("" for the default, "off" for none).
func openManifestFiles(setting string) manifestFiles {
	if setting == "off" {
		return manifestFiles{}
	}
	dir := setting
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return manifestFiles{}
		}
		dir = filepath.Join(base, "terraform-provider-kratix")
	}
	dir = filepath.Join(dir, "manifests")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return manifestFiles{}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return manifestFiles{} // someone else could plant entries
	}
	salt, ok := executableIdentity()
	if !ok {
		return manifestFiles{}
	}
	return manifestFiles{dir: dir, salt: salt}
}

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
	h.Write([]byte(manifestDiskMagic + exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)))
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Write([]byte("\x00" + bi.Main.Path + "@" + bi.Main.Version))
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out, true
}

// path is where the entry of the text with SHA-256 key is: a name from which neither the text
// nor its sealing key can be found.
func (c manifestFiles) path(key [sha256.Size]byte) string {
	name := sha256.Sum256(append(append([]byte("name\x00"), c.salt[:]...), key[:]...))
	return filepath.Join(c.dir, hex.EncodeToString(name[:]))
}

// aead seals the entry of the text with SHA-256 key.
func (c manifestFiles) aead(key [sha256.Size]byte) cipher.AEAD {
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

// load returns the entry of a text, or nil.
func (c manifestFiles) load(key [sha256.Size]byte) *manifests {
	if c.dir == "" {
		return nil
	}
	p := c.path(key)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	r, ok := c.open(key, b)
	if !ok {
		_ = os.Remove(p)
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // most recently used
	return r
}

// store writes the entry of a text, replacing the file whole, then trims the folder. Small texts,
// which cost little to read again, are not kept.
func (c manifestFiles) store(key [sha256.Size]byte, r *manifests) {
	if c.dir == "" || r.err != nil || len(r.all) < manifestDiskMin {
		return
	}
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(c.seal(key, r))
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), c.path(key)) != nil {
		_ = os.Remove(f.Name())
		return
	}
	c.trim()
}

// trim removes the least recently used entries beyond the folder's limits, and temporary files
// a killed process left behind.
func (c manifestFiles) trim() {
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
		if i >= manifestDiskEntries || total > manifestDiskBytes {
			_ = os.Remove(filepath.Join(c.dir, e.name))
		}
	}
}

// seal is the file of an entry: the magic, a random nonce, then the three lengths and the three
// serialisations (all, crds, others), sealed.
func (c manifestFiles) seal(key [sha256.Size]byte, r *manifests) []byte {
	g := c.aead(key)
	plain := make([]byte, 3*8, 3*8+len(r.all)+len(r.crds)+len(r.others))
	for i, part := range [][]byte{r.all, r.crds, r.others} {
		binary.BigEndian.PutUint64(plain[8*i:], uint64(len(part)))
	}
	plain = append(append(append(plain, r.all...), r.crds...), r.others...)
	out := make([]byte, len(manifestDiskMagic)+g.NonceSize(), len(manifestDiskMagic)+g.NonceSize()+len(plain)+g.Overhead())
	copy(out, manifestDiskMagic)
	if _, err := rand.Read(out[len(manifestDiskMagic):]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return g.Seal(out, out[len(manifestDiskMagic):], plain, []byte(manifestDiskMagic))
}

// open reads a file of seal; ok is false for anything else.
func (c manifestFiles) open(key [sha256.Size]byte, b []byte) (*manifests, bool) {
	g := c.aead(key)
	head := len(manifestDiskMagic) + g.NonceSize()
	if len(b) < head || !bytes.HasPrefix(b, []byte(manifestDiskMagic)) {
		return nil, false
	}
	plain, err := g.Open(b[head:head], b[len(manifestDiskMagic):head], b[head:], []byte(manifestDiskMagic))
	if err != nil || len(plain) < 3*8 {
		return nil, false
	}
	payload := plain[3*8:]
	var lens [3]uint64
	var total uint64
	for i := range lens {
		lens[i] = binary.BigEndian.Uint64(plain[8*i:])
		if lens[i] > uint64(len(payload)) {
			return nil, false
		}
		total += lens[i]
	}
	if total != uint64(len(payload)) {
		return nil, false
	}
	// Three separate slices with no spare capacity: an append by a reader copies.
	part := func(from, n uint64) []byte {
		if n == 0 {
			return nil
		}
		return slices.Clip(payload[from : from+n])
	}
	return &manifests{
		all:    part(0, lens[0]),
		crds:   part(lens[0], lens[1]),
		others: part(lens[0]+lens[1], lens[2]),
	}, true
}
