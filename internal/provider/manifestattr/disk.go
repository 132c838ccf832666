package manifestattr

import (
	"crypto/sha256"
	"os"
	"sync"

	"github.com/promise-platform/terraform-provider-kratix/internal/memo/sealed"
)

// The manifest disk cache: Read's canonical serialisations kept between provider
// processes, in the sealed cache (internal/memo/sealed says how entries are named and sealed).
// Only texts that parse and are large (at least diskMin), where a second read costs, are
// kept. KRATIX_CACHE_DIR names another folder than the user's cache; "off" turns the cache off.

const (
	// CacheDirEnv names the environment variable of the cache's folder.
	CacheDirEnv = "KRATIX_CACHE_DIR"
	diskMin     = 64 << 10
)

var disk = sync.OnceValue(func() sealed.Cache { return sealed.Open(os.Getenv(CacheDirEnv), "manifests") })

// load returns the entry of a text, or nil.
func load(c sealed.Cache, key [sha256.Size]byte) *Parsed {
	pieces, ok := c.Load(key)
	if !ok || len(pieces) != 3 {
		return nil
	}
	return &Parsed{All: pieces[0], CRDs: pieces[1], Others: pieces[2]}
}

// store keeps the entry of a text. Small texts, which cost little to read again, and
// texts that do not parse are not kept.
func store(c sealed.Cache, key [sha256.Size]byte, r *Parsed) {
	if r.Err != nil || len(r.All) < diskMin {
		return
	}
	c.Store(key, [][]byte{r.All, r.CRDs, r.Others})
}
