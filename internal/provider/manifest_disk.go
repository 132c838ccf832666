package provider

import (
	"crypto/sha256"
	"os"
	"sync"

	"github.com/promise-platform/terraform-provider-kratix/internal/memo/sealed"
)

// The manifest disk cache: readManifests's canonical serialisations kept between provider
// processes, in the sealed cache (internal/memo/sealed says how entries are named and sealed).
// Only texts that parse and are large (at least manifestDiskMin), where a second read costs, are
// kept. KRATIX_CACHE_DIR names another folder than the user's cache; "off" turns the cache off.

const (
	cacheDirEnv     = "KRATIX_CACHE_DIR"
	manifestDiskMin = 64 << 10
)

var manifestDisk = sync.OnceValue(func() sealed.Cache { return sealed.Open(os.Getenv(cacheDirEnv), "manifests") })

// loadManifests returns the entry of a text, or nil.
func loadManifests(c sealed.Cache, key [sha256.Size]byte) *manifests {
	pieces, ok := c.Load(key)
	if !ok || len(pieces) != 3 {
		return nil
	}
	return &manifests{all: pieces[0], crds: pieces[1], others: pieces[2]}
}

// storeManifests keeps the entry of a text. Small texts, which cost little to read again, and
// texts that do not parse are not kept.
func storeManifests(c sealed.Cache, key [sha256.Size]byte, r *manifests) {
	if r.err != nil || len(r.all) < manifestDiskMin {
		return
	}
	c.Store(key, [][]byte{r.all, r.crds, r.others})
}
