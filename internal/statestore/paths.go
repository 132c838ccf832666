package statestore

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
)

// checkPath rejects a file path that is not a clean path relative to the store root: the rules
// of fs.ValidPath (slash-separated, no empty, "." or ".." segment, no leading or trailing
// slash), without the root itself (".").
func checkPath(p string) error {
	if p == "." || !fs.ValidPath(p) {
		return fmt.Errorf("%q is not a clean file path relative to the store root", p)
	}
	return nil
}

// checkPrefix rejects a folder prefix that is not "<relative path>/". The store root itself is
// refused: no operation may own, and so empty, a whole bucket or repository.
func checkPrefix(p string) error {
	if !strings.HasSuffix(p, "/") {
		return fmt.Errorf("prefix %q does not end in \"/\"", p)
	}
	if err := checkPath(strings.TrimSuffix(p, "/")); err != nil {
		return fmt.Errorf("prefix %w", err)
	}
	return nil
}

// checkChangePaths validates every path of a change before anything is written.
func checkChangePaths(c Change) error {
	for p := range c.Put {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	for _, p := range c.Delete {
		check := checkPath
		if strings.HasSuffix(p, "/") {
			check = checkPrefix
		}
		if err := check(p); err != nil {
			return err
		}
	}
	for _, p := range c.Prune {
		if err := checkPrefix(p); err != nil {
			return err
		}
	}
	for p := range c.Guards {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	for _, a := range c.Aggregates {
		if err := checkPath(a.File); err != nil {
			return err
		}
		if err := checkPrefix(a.Dir); err != nil {
			return err
		}
		if strings.HasPrefix(a.File, a.Dir) {
			return fmt.Errorf("aggregate %q is inside the folder %q it is built from", a.File, a.Dir)
		}
	}
	return nil
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
