package provider

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// storeWide reports whether err says the whole store cannot be read (unreachable, refused
// credentials or certificates, plain HTTP where TLS was expected, no such bucket, repository or branch), as opposed to a failure
// of one path.
func storeWide(err error) bool {
	var se *statestore.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Kind {
	case statestore.KindNetwork, statestore.KindTimeout, statestore.KindAuth, statestore.KindTLS,
		statestore.KindHostKey, statestore.KindPlainHTTP, statestore.KindMissingBucket, statestore.KindMissingBranch,
		statestore.KindMissingRepo:
		return true
	}
	return false
}

// outageLabel names an object that could not be refreshed, with its destinations on the store
// unless it is a destination itself.
func outageLabel(kind, who string, dests []string) string {
	if kind == "Destination" {
		return who
	}
	sorted := append([]string(nil), dests...)
	sort.Strings(sorted)
	return fmt.Sprintf("%s (on %s)", who, strings.Join(sorted, ", "))
}
