package layout

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// FileKeyError is one refused key of a resource request's `files`. Message is a sentence a
// Terraform user can act on ("File key \"a/\" ends in ...; name a file instead, ...") and names
// the key, so it can stand alone as a diagnostic's detail.
type FileKeyError struct {
	Key     string
	Message string
}

func (e FileKeyError) Error() string { return e.Message }

// NormaliseFileKey checks that a request's file key names a file inside the pipeline's output
// folder and returns it cleaned ("./a.yaml" and "a//b/./c" become "a.yaml" and "a/b/c"), so that
// two spellings of one file can be told apart from two files. It refuses what could never be
// written as a file there: an empty key, the folder itself, a folder (trailing "/"), backslashes
// (a store path separates folders with "/" only), and paths that leave the folder.
func NormaliseFileKey(key string) (string, error) {
	switch {
	case key == "":
		return "", errors.New(`file key "" is empty; name a file relative to the pipeline's output folder, such as "app.yaml"`)
	case namesTheFolder(key):
		return "", fmt.Errorf(`file key %q names the output folder itself, not a file; name a file in it, such as "app.yaml"`, key)
	case strings.HasSuffix(key, "/"):
		return "", fmt.Errorf(`file key %q ends in "/", so it names a folder; name a file instead, such as %q`, key, key+"app.yaml")
	case strings.Contains(key, `\`):
		return "", fmt.Errorf(`file key %q contains a backslash; separate folders with "/", as in %q`, key, strings.ReplaceAll(key, `\`, "/"))
	}
	if err := CheckRelative(key); err != nil {
		switch {
		case strings.HasPrefix(key, "/"):
			return "", fmt.Errorf(`file key %q starts with "/"; give it relative to the pipeline's output folder, as in %q`, key, strings.TrimLeft(key, "/"))
		case slices.Contains(strings.Split(key, "/"), ".."):
			return "", fmt.Errorf(`file key %q contains ".." that leads outside its folder; a request's files must stay inside its own folder`, key)
		}
		return "", fmt.Errorf("file key %q: %w", key, err)
	}
	clean := path.Clean(key)
	if clean == "." {
		// "a/.." and the like: inside the folder, but the folder itself.
		return "", fmt.Errorf(`file key %q names the output folder itself, not a file; name a file in it, such as "app.yaml"`, key)
	}
	return clean, nil
}

// namesTheFolder reports whether a key is only "." and "/" segments (".", "/", "./", "/."), all of
// which mean the output folder itself.
func namesTheFolder(key string) bool {
	for _, seg := range strings.Split(key, "/") {
		if seg != "" && seg != "." {
			return false
		}
	}
	return true
}

// CheckRequestFiles checks every key of a request's `files` and returns the refused ones sorted
// by key, at most one error per key. Beyond NormaliseFileKey's rules it refuses keys that name
// the same file once cleaned (both keys named), and keys onto files the provider writes for
// others (see reservedFileKey). Those names are refused in every filepath mode, because the mode
// belongs to the chosen destination, which can change without the request changing.
func CheckRequestFiles(keys []string) []FileKeyError {
	var errs []FileKeyError
	byFile := map[string][]string{}
	for _, key := range dedupe(keys) {
		file, err := NormaliseFileKey(key)
		if err == nil {
			err = reservedFileKey(key, file)
		}
		if err != nil {
			errs = append(errs, FileKeyError{Key: key, Message: sentence(err)})
			continue
		}
		byFile[file] = append(byFile[file], key)
	}
	for file, same := range byFile {
		errs = append(errs, collisions(file, same)...)
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Key < errs[j].Key })
	return errs
}

// collisions reports every key of a group that names one file, except the one to keep (see
// others).
func collisions(file string, keys []string) []FileKeyError {
	var errs []FileKeyError
	keep, rest := others(file, keys)
	for _, k := range rest {
		errs = append(errs, FileKeyError{Key: k, Message: fmt.Sprintf(
			"File key %q names the same file as %q (both mean %q); keep only one of them.", k, keep, file)})
	}
	return errs
}

// others splits spellings that all mean clean into the one to keep and the rest, sorted: the one
// already spelled cleanly if there is one (the others are the odd spellings to fix), otherwise
// the first in order. With fewer than two spellings there is nothing to report.
func others(clean string, spellings []string) (keep string, rest []string) {
	if len(spellings) < 2 {
		return "", nil
	}
	sort.Strings(spellings)
	keep = spellings[0]
	if slices.Contains(spellings, clean) {
		keep = clean
	}
	for _, s := range spellings {
		if s != keep {
			rest = append(rest, s)
		}
	}
	return keep, rest
}

// reservedFileKey refuses a cleaned key that would land on a file another writer owns when the
// request's files go straight under a destination's root (filepath mode none): index files,
// canaries, a promise's dependencies and splitByKind's files. A ".git" folder is refused too:
// at the root of a git store it is the repository's own metadata, and git refuses it elsewhere.
func reservedFileKey(key, file string) error {
	for _, seg := range strings.Split(file, "/") {
		if seg == IndexDir {
			return fmt.Errorf("file key %q reaches %q, the folder where Kratix records what each placement wrote; choose another folder", key, IndexDir+"/")
		}
		if seg == AggregatesDir {
			return fmt.Errorf("file key %q reaches %q, the folder of the parts aggregatedYAML files are rebuilt from; choose another folder", key, AggregatesDir+"/")
		}
		if strings.EqualFold(seg, ".git") {
			return fmt.Errorf(`file key %q reaches ".git", which git keeps for a repository's own data; choose another folder`, key)
		}
	}
	if canaryFiles()[file] {
		return fmt.Errorf("file key %q is the name of a Kratix canary file (written when a destination is registered); choose another name", key)
	}
	dir, name := path.Split(file)
	switch {
	case dir == "static/" && between(name, "", "-dependencies.yaml"):
		return fmt.Errorf("file key %q is where a promise's dependencies go (static/<promise>-dependencies.yaml); choose another name", key)
	case dir == "crds/" && between(name, "00-", "-crds.yaml"):
		return fmt.Errorf("file key %q is where splitByKind puts a placement's CustomResourceDefinitions (crds/00-<work>-crds.yaml); choose another name", key)
	case dir == "resources/" && between(name, "01-", "-resources.yaml"):
		return fmt.Errorf("file key %q is where splitByKind puts a placement's documents (resources/01-<work>-resources.yaml); choose another name", key)
	}
	return nil
}

// between reports whether name is prefix, then at least one character, then suffix: the shape of
// a generated file name whose middle (a promise or Work name) is never empty.
func between(name, prefix, suffix string) bool {
	return len(name) > len(prefix)+len(suffix) && strings.HasPrefix(name, prefix) && strings.HasSuffix(name, suffix)
}

// canaryFiles is the set of canary paths, relative to a destination's root, of every mode, taken
// from canaryPaths so that the two never disagree.
func canaryFiles() map[string]bool {
	out := map[string]bool{}
	for _, m := range Modes {
		ns, cm := canaryPaths(m)
		out[ns], out[cm] = true, true
	}
	return out
}

// sentence turns a Go error string (lower case, no final stop) into a diagnostic's sentence.
func sentence(err error) string {
	msg := err.Error()
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

func dedupe(keys []string) []string {
	seen := make(map[string]bool, len(keys))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
