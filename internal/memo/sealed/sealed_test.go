package sealed

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pieces are what a caller keeps: a whole text split in pieces, one of them empty.
func pieces(text string) [][]byte {
	return [][]byte{[]byte(text), []byte(text[:len(text)/3]), nil, []byte(text[len(text)/3:])}
}

const text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n"

func TestRoundTrip(t *testing.T) {
	c := Open(t.TempDir(), "kind")
	if c.Dir() == "" {
		t.Fatal("no cache folder opened")
	}
	key := sha256.Sum256([]byte(text))
	if _, ok := c.Load(key); ok {
		t.Fatal("an empty cache answered")
	}
	want := pieces(text)
	c.Store(key, want)
	got, ok := c.Load(key)
	if !ok {
		t.Fatal("the stored entry is not found")
	}
	if len(got) != len(want) {
		t.Fatalf("loaded %d pieces, stored %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("piece %d: loaded %q, stored %q", i, got[i], want[i])
		}
		if cap(got[i]) != len(got[i]) {
			t.Errorf("piece %d: spare capacity %d, which an append by one reader would write into", i, cap(got[i])-len(got[i]))
		}
	}
	if got[2] != nil {
		t.Errorf("the empty piece loaded as %q, want nil", got[2])
	}
}

func TestRefusesDamagedEntries(t *testing.T) {
	c := Open(t.TempDir(), "kind")
	key := sha256.Sum256([]byte(text))
	c.Store(key, pieces(text))
	p := c.Path(key)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, damaged := range map[string][]byte{
		"torn":          b[:len(b)/2],
		"one byte off":  append(append([]byte{}, b[:len(b)-1]...), b[len(b)-1]^1),
		"header only":   b[:len(magic)+12],
		"no magic":      append([]byte("XXXXXXXXX"), b[len(magic):]...),
		"nonce changed": append(append(append([]byte{}, b[:len(magic)]...), b[len(magic)]^1), b[len(magic)+1:]...),
		"empty":         nil,
		"another magic": append([]byte("KRXMAN2\n"), b[len(magic):]...),
	} {
		if err := os.WriteFile(p, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.Load(key); ok {
			t.Errorf("%s: loaded %d pieces from a damaged entry", name, len(got))
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: the damaged entry is still there (%v)", name, err)
		}
	}
}

func TestIsPrivate(t *testing.T) {
	if c := Open("off", "kind"); c.Dir() != "" {
		t.Errorf(`"off" opened %s`, c.Dir())
	}
	shared := t.TempDir()
	if err := os.MkdirAll(filepath.Join(shared, "kind"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(shared, "kind"), 0o777); err != nil {
		t.Fatal(err)
	}
	if c := Open(shared, "kind"); c.Dir() != "" {
		t.Errorf("a folder others can write into was opened: %s", c.Dir())
	}
	c := Open(t.TempDir(), "kind")
	fi, err := os.Stat(c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("the cache folder has mode %o, want 700", perm)
	}
	// Without a folder, nothing is kept and nothing answers.
	var none Cache
	key := sha256.Sum256([]byte(text))
	none.Store(key, pieces(text))
	if _, ok := none.Load(key); ok {
		t.Error("the zero Cache answered")
	}
}

// TestHoldsNothingReadable shows that an entry of a text with a Secret holds neither the secret
// nor any other line of the text in the clear.
func TestHoldsNothingReadable(t *testing.T) {
	c := Open(t.TempDir(), "kind")
	secret := text + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  token: s3cr3t-Value-42\n"
	key := sha256.Sum256([]byte(secret))
	c.Store(key, pieces(secret))
	b, err := os.ReadFile(c.Path(key))
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"s3cr3t-Value-42", "apiVersion", "ConfigMap"} {
		if bytes.Contains(b, []byte(plain)) {
			t.Errorf("the entry holds %q in the clear", plain)
		}
	}
	if got, ok := c.Load(key); !ok || !bytes.Contains(got[0], []byte("s3cr3t-Value-42")) {
		t.Error("the entry does not open with the text's key")
	}
	// Another text's key opens nothing, even planted at this entry's path.
	other := sha256.Sum256([]byte("another text"))
	if err := os.WriteFile(c.Path(other), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Load(other); ok {
		t.Error("an entry opened with another text's key")
	}
}

func TestOtherBuildsMiss(t *testing.T) {
	c := Open(t.TempDir(), "kind")
	key := sha256.Sum256([]byte(text))
	c.Store(key, pieces(text))
	other := c
	other.salt[0] ^= 1 // another executable
	if _, ok := other.Load(key); ok {
		t.Error("an entry of another build was loaded")
	}
}

func TestTrimsOldestFirst(t *testing.T) {
	c := Open(t.TempDir(), "kind")
	var keys []Key
	for i := range Entries + 3 {
		s := text + strings.Repeat(" ", i) // another text
		key := sha256.Sum256([]byte(s))
		keys = append(keys, key)
		c.Store(key, pieces(s))
		if i == 0 {
			continue
		}
		// Keep the first one in use: each store is followed by a load of it.
		if _, ok := c.Load(keys[0]); !ok {
			t.Fatalf("after %d entries the one in use is gone", i+1)
		}
	}
	entries, _ := os.ReadDir(c.Dir())
	if len(entries) != Entries {
		t.Errorf("the folder holds %d entries, want %d", len(entries), Entries)
	}
	if _, ok := c.Load(keys[1]); ok {
		t.Error("the oldest unused entry was kept")
	}
}
