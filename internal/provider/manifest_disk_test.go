package provider

import (
	"bytes"
	"crypto/sha256"
	"os"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo/sealed"
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

// The three serialisations of a release come back from the disk as they went: the whole, the
// CRDs and the rest, each its own piece of the whole.
func TestManifestDiskRoundTrip(t *testing.T) {
	t.Parallel()
	c := sealed.Open(t.TempDir(), "manifests")
	text := bigManifests(t)
	key := sha256.Sum256([]byte(text))
	want := parseManifests(text)
	if len(want.crds) == 0 || len(want.others) == 0 {
		t.Fatal("the release should hold CRDs and other documents")
	}
	if loadManifests(c, key) != nil {
		t.Fatal("an empty cache answered")
	}
	storeManifests(c, key, want)
	got := loadManifests(c, key)
	if got == nil {
		t.Fatal("the stored entry is not found")
	}
	for name, pair := range map[string][2][]byte{"all": {got.all, want.all}, "crds": {got.crds, want.crds}, "others": {got.others, want.others}} {
		if !bytes.Equal(pair[0], pair[1]) {
			t.Errorf("%s: loaded %d bytes, stored %d", name, len(pair[0]), len(pair[1]))
		}
	}
	// The whole is the documents in their order: CRDs and the rest are separate pieces of it.
	if len(got.all) != len(got.crds)+len(got.others)+len("---\n") {
		t.Errorf("all is %d bytes; crds %d and others %d with one separator between", len(got.all), len(got.crds), len(got.others))
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
		storeManifests(c, key, parseManifests(text))
		if got := loadManifests(c, key); got != nil {
			t.Errorf("%s: kept on disk", name)
		}
	}
	entries, _ := os.ReadDir(c.Dir())
	if len(entries) != 0 {
		t.Errorf("the folder holds %d files, want none", len(entries))
	}
}

// TestReadManifestsLoadsFromDisk shows a provider process answering from an entry another
// process wrote: the entry, planted here with bytes no parse would give, is what readManifests
// returns, and a text whose entry is damaged is read again.
func TestReadManifestsLoadsFromDisk(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(cacheDirEnv, dir)
	c := sealed.Open(dir, "manifests")
	text := bigManifests(t) + "\n# a text no other test reads\n"
	key := sha256.Sum256([]byte(text))
	planted := &manifests{all: bytes.Repeat([]byte("x"), manifestDiskMin)}
	storeManifests(c, key, planted)

	old := manifestDisk
	manifestDisk = func() sealed.Cache { return c }
	t.Cleanup(func() { manifestDisk = old; manifestCache.Clear() })
	manifestCache.Clear()

	if got := readManifests(text); !bytes.Equal(got.all, planted.all) {
		t.Fatalf("readManifests gave %d bytes starting %q, not the entry on disk", len(got.all), got.all[:min(len(got.all), 20)])
	}
	manifestCache.Clear()
	if err := os.WriteFile(c.Path(key), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := readManifests(text)
	if bytes.Equal(got.all, planted.all) || !bytes.HasPrefix(got.all, []byte("apiVersion: ")) {
		t.Fatalf("with the entry damaged, readManifests gave %q..., want the release read again", got.all[:min(len(got.all), 20)])
	}
}
