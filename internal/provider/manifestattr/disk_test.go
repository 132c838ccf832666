package manifestattr

import (
	"bytes"
	"crypto/sha256"
	"os"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo/sealed"
)

// bigManifests is a text above diskMin: the generated release.
func bigManifests(t *testing.T) string {
	t.Helper()
	s := string(fixtures.Pipelines())
	if len(s) < diskMin {
		t.Fatalf("the generated release is %d bytes, below the cache's minimum %d", len(s), diskMin)
	}
	return s
}

// The three serialisations of a release come back from the disk as they went: the whole, the
// CRDs and the rest, each its own piece of the whole.
func TestManifestDiskRoundTrip(t *testing.T) {
	t.Parallel()
	c := sealed.Open(t.TempDir(), "manifests")
	text := bigManifests(t)
	key := sha256.Sum256([]byte(text))
	want := parse(text)
	if len(want.CRDs) == 0 || len(want.Others) == 0 {
		t.Fatal("the release should hold CRDs and other documents")
	}
	if load(c, key) != nil {
		t.Fatal("an empty cache answered")
	}
	store(c, key, want)
	got := load(c, key)
	if got == nil {
		t.Fatal("the stored entry is not found")
	}
	for name, pair := range map[string][2][]byte{"all": {got.All, want.All}, "crds": {got.CRDs, want.CRDs}, "others": {got.Others, want.Others}} {
		if !bytes.Equal(pair[0], pair[1]) {
			t.Errorf("%s: loaded %d bytes, stored %d", name, len(pair[0]), len(pair[1]))
		}
	}
	// The whole is the documents in their order: CRDs and the rest are separate pieces of it.
	if len(got.All) != len(got.CRDs)+len(got.Others)+len("---\n") {
		t.Errorf("all is %d bytes; crds %d and others %d with one separator between", len(got.All), len(got.CRDs), len(got.Others))
	}
}

func TestManifestDiskKeepsOnlyLargeTextsThatParse(t *testing.T) {
	t.Parallel()
	c := sealed.Open(t.TempDir(), "manifests")
	big := bigManifests(t)
	small := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: small\n"
	broken := big + "\n---\nkind: [\n"
	for name, text := range map[string]string{"small": small, "not parsing": broken} {
		key := sha256.Sum256([]byte(text))
		store(c, key, parse(text))
		if got := load(c, key); got != nil {
			t.Errorf("%s: kept on disk", name)
		}
	}
	entries, _ := os.ReadDir(c.Dir())
	if len(entries) != 0 {
		t.Errorf("the folder holds %d files, want none", len(entries))
	}
}

// TestReadManifestsLoadsFromDisk shows a provider process answering from an entry another
// process wrote: the entry, planted here with bytes no parse would give, is what Read
// returns, and a text whose entry is damaged is read again.
func TestReadManifestsLoadsFromDisk(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(CacheDirEnv, dir)
	c := sealed.Open(dir, "manifests")
	text := bigManifests(t) + "\n# a text no other test reads\n"
	key := sha256.Sum256([]byte(text))
	planted := &Parsed{All: bytes.Repeat([]byte("x"), diskMin)}
	store(c, key, planted)

	old := disk
	disk = func() sealed.Cache { return c }
	t.Cleanup(func() { disk = old; manifestCache.Clear() })
	manifestCache.Clear()

	if got := Read(text); !bytes.Equal(got.All, planted.All) {
		t.Fatalf("Read gave %d bytes starting %q, not the entry on disk", len(got.All), got.All[:min(len(got.All), 20)])
	}
	manifestCache.Clear()
	if err := os.WriteFile(c.Path(key), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := Read(text)
	if bytes.Equal(got.All, planted.All) || !bytes.HasPrefix(got.All, []byte("apiVersion: ")) {
		t.Fatalf("with the entry damaged, Read gave %q..., want the release read again", got.All[:min(len(got.All), 20)])
	}
}
