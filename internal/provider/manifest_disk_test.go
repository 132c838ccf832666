package provider

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
)

// bigManifests is a text above manifestDiskMin: the generated release.
func bigManifests(t *testing.T) string {
	t.Helper()
	s := string(fixtures.Pipelines())
	if len(s) < manifestDiskMin {
		t.Fatalf("the generated release is %d bytes, below the cache's minimum %d", len(s), manifestDiskMin)
	}
	return s
}

func TestManifestDiskRoundTrip(t *testing.T) {
	c := openManifestFiles(t.TempDir())
	if c.dir == "" {
		t.Fatal("no cache folder opened")
	}
	text := bigManifests(t)
	key := sha256.Sum256([]byte(text))
	want := parseManifests(text)
	if len(want.crds) == 0 || len(want.others) == 0 {
		t.Fatal("the release should hold CRDs and other documents")
	}
	if c.load(key) != nil {
		t.Fatal("an empty cache answered")
	}
	c.store(key, want)
	got := c.load(key)
	if got == nil {
		t.Fatal("the stored entry is not found")
	}
	for name, pair := range map[string][2][]byte{"all": {got.all, want.all}, "crds": {got.crds, want.crds}, "others": {got.others, want.others}} {
		if !bytes.Equal(pair[0], pair[1]) {
			t.Errorf("%s: loaded %d bytes, stored %d", name, len(pair[0]), len(pair[1]))
		}
		if cap(pair[0]) != len(pair[0]) {
			t.Errorf("%s: spare capacity %d, which an append by one reader would write into", name, cap(pair[0])-len(pair[0]))
		}
	}
	// The whole is the documents in their order: CRDs and the rest are separate pieces of it.
	if len(got.all) != len(got.crds)+len(got.others)+len("---\n") {
		t.Errorf("all is %d bytes; crds %d and others %d with one separator between", len(got.all), len(got.crds), len(got.others))
	}
}

func TestManifestDiskRefusesDamagedEntries(t *testing.T) {
	dir := t.TempDir()
	c := openManifestFiles(dir)
	text := bigManifests(t)
	key := sha256.Sum256([]byte(text))
	c.store(key, parseManifests(text))
	p := c.path(key)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, damaged := range map[string][]byte{
		"torn":          b[:len(b)/2],
		"one byte off":  append(append([]byte{}, b[:len(b)-1]...), b[len(b)-1]^1),
		"header only":   b[:len(manifestDiskMagic)+12],
		"no magic":      append([]byte("XXXXXXXX"), b[8:]...),
		"nonce changed": append(append(append([]byte{}, b[:8]...), b[8]^1), b[9:]...),
		"empty":         nil,
		"another magic": append([]byte("KRXMAN1\n"), b[8:]...),
	} {
		if err := os.WriteFile(p, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := c.load(key); got != nil {
			t.Errorf("%s: loaded %d bytes from a damaged entry", name, len(got.all))
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: the damaged entry is still there (%v)", name, err)
		}
	}
}

func TestManifestDiskKeepsOnlyLargeTextsThatParse(t *testing.T) {
	c := openManifestFiles(t.TempDir())
	big := bigManifests(t)
	small := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: small\n"
	broken := big + "\n---\nkind: [\n"
	for name, text := range map[string]string{"small": small, "not parsing": broken} {
		key := sha256.Sum256([]byte(text))
		c.store(key, parseManifests(text))
		if got := c.load(key); got != nil {
			t.Errorf("%s: kept on disk", name)
		}
	}
	entries, _ := os.ReadDir(c.dir)
	if len(entries) != 0 {
		t.Errorf("the folder holds %d files, want none", len(entries))
	}
}

func TestManifestDiskIsPrivate(t *testing.T) {
	if c := openManifestFiles("off"); c.dir != "" {
		t.Errorf(`"off" opened %s`, c.dir)
	}
	shared := t.TempDir()
	if err := os.MkdirAll(filepath.Join(shared, "manifests"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(shared, "manifests"), 0o777); err != nil {
		t.Fatal(err)
	}
	if c := openManifestFiles(shared); c.dir != "" {
		t.Errorf("a folder others can write into was opened: %s", c.dir)
	}
	own := t.TempDir()
	c := openManifestFiles(own)
	fi, err := os.Stat(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("the cache folder has mode %o, want 700", perm)
	}
}

// TestManifestDiskHoldsNothingReadable shows that an entry of a text with a Secret holds neither
// the secret nor any other line of the text in the clear.
func TestManifestDiskHoldsNothingReadable(t *testing.T) {
	c := openManifestFiles(t.TempDir())
	text := bigManifests(t) + "\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  token: s3cr3t-Value-42\n"
	key := sha256.Sum256([]byte(text))
	c.store(key, parseManifests(text))
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"s3cr3t-Value-42", "apiVersion", "CustomResourceDefinition"} {
		if bytes.Contains(b, []byte(plain)) {
			t.Errorf("the entry holds %q in the clear", plain)
		}
	}
	if got := c.load(key); got == nil || !bytes.Contains(got.all, []byte("s3cr3t-Value-42")) {
		t.Error("the entry does not open with the text's key")
	}
}

func TestManifestDiskOtherBuildsMiss(t *testing.T) {
	dir := t.TempDir()
	c := openManifestFiles(dir)
	text := bigManifests(t)
	key := sha256.Sum256([]byte(text))
	c.store(key, parseManifests(text))
	other := c
	other.salt[0] ^= 1 // another executable
	if other.load(key) != nil {
		t.Error("an entry of another build was loaded")
	}
}

func TestManifestDiskTrimsOldestFirst(t *testing.T) {
	c := openManifestFiles(t.TempDir())
	base := bigManifests(t)
	r := parseManifests(base)
	var keys [][sha256.Size]byte
	for i := range manifestDiskEntries + 3 {
		text := base + strings.Repeat(" ", i) // the same documents, another text
		key := sha256.Sum256([]byte(text))
		keys = append(keys, key)
		c.store(key, r)
		if i == 0 {
			continue
		}
		// Keep the first one in use: each store is followed by a load of it.
		if c.load(keys[0]) == nil {
			t.Fatalf("after %d entries the one in use is gone", i+1)
		}
	}
	entries, _ := os.ReadDir(c.dir)
	if len(entries) != manifestDiskEntries {
		t.Errorf("the folder holds %d entries, want %d", len(entries), manifestDiskEntries)
	}
	if c.load(keys[1]) != nil {
		t.Error("the oldest unused entry was kept")
	}
}

// TestReadManifestsLoadsFromDisk shows a provider process answering from an entry another
// process wrote: the entry, planted here with bytes no parse would give, is what readManifests
// returns, and a text whose entry is damaged is read again.
func TestReadManifestsLoadsFromDisk(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(cacheDirEnv, dir)
	c := openManifestFiles(dir)
	text := bigManifests(t) + "\n# a text no other test reads\n"
	key := sha256.Sum256([]byte(text))
	planted := &manifests{all: bytes.Repeat([]byte("x"), manifestDiskMin)}
	c.store(key, planted)

	old := manifestDisk
	manifestDisk = func() manifestFiles { return c }
	t.Cleanup(func() { manifestDisk = old; manifestCache.Clear() })
	manifestCache.Clear()

	if got := readManifests(text); !bytes.Equal(got.all, planted.all) {
		t.Fatalf("readManifests gave %d bytes starting %q, not the entry on disk", len(got.all), got.all[:min(len(got.all), 20)])
	}
	manifestCache.Clear()
	if err := os.WriteFile(c.path(key), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := readManifests(text)
	if bytes.Equal(got.all, planted.all) || !bytes.HasPrefix(got.all, []byte("apiVersion: ")) {
		t.Fatalf("with the entry damaged, readManifests gave %q..., want the release read again", got.all[:min(len(got.all), 20)])
	}
}
