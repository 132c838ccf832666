package statestore

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// Trees as the git backend edits them: flattened to a map from path to blob, edited, and written
// back as nested tree objects. Blobs are hashed and stored, never read, unless an aggregate needs
// its contributions.

// treeFile is a file entry of a tree: its blob (or, for a submodule, commit) and its mode.
type treeFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// flattenTree lists every file of a tree by path, without reading any blob.
func flattenTree(st storer.EncodedObjectStorer, tree plumbing.Hash) (map[string]treeFile, error) {
	t, err := object.GetTree(st, tree)
	if err != nil {
		return nil, fmt.Errorf("reading tree %s: %w", tree, err)
	}
	files := map[string]treeFile{}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		name, entry, err := w.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("walking tree %s: %w", tree, err)
		}
		if entry.Mode == filemode.Dir {
			continue
		}
		files[name] = treeFile{hash: entry.Hash, mode: entry.Mode}
	}
}

// applyToFiles edits files in place as the change says, storing new blobs, and reports what
// changed.
func applyToFiles(st storer.EncodedObjectStorer, files map[string]treeFile, change Change) (Result, error) {
	var res Result
	// An aggregate someone else wrote, with no part yet: its documents are kept in the remainder
	// part, which the rebuild below trims to what the parts do not hold (see Aggregate).
	seeds := map[string][]byte{}
	for _, a := range change.Aggregates {
		f, ok := files[a.File]
		if !ok || anyUnder(files, a.Dir) {
			continue
		}
		content, err := readBlob(st, f.hash)
		if err != nil {
			return Result{}, err
		}
		if kept := layout.Remainder(content, nil); kept != nil {
			seeds[remainderPath(a)] = kept
		}
	}
	for p, content := range change.Put {
		h := plumbing.ComputeHash(plumbing.BlobObject, content)
		if old, ok := files[p]; ok && old.hash == h {
			continue
		}
		if err := storeBlob(st, content); err != nil {
			return Result{}, err
		}
		mode := filemode.Regular
		old, existed := files[p]
		if existed && old.mode == filemode.Executable {
			mode = old.mode
		}
		files[p] = treeFile{hash: h, mode: mode}
		res.Written = append(res.Written, p)
		if existed {
			res.Replaced = append(res.Replaced, p)
		}
	}
	remove := func(p string) {
		if _, ok := files[p]; ok {
			delete(files, p)
			res.Deleted = append(res.Deleted, p)
		}
	}
	// clearOne removes a file found under a folder the change clears, unless the plan did not see
	// it there.
	clearOne := func(p string) {
		if _, ok := files[p]; !ok {
			return
		}
		if change.Leaves(p) {
			if !slices.Contains(res.Unseen, p) {
				res.Unseen = append(res.Unseen, p)
			}
			return
		}
		remove(p)
	}
	for _, d := range change.Delete {
		if !strings.HasSuffix(d, "/") {
			if _, keep := change.Put[d]; !keep {
				remove(d)
			}
			continue
		}
		for p := range files {
			if _, keep := change.Put[p]; strings.HasPrefix(p, d) && !keep {
				clearOne(p)
			}
		}
	}
	for _, prefix := range change.Prune {
		for p := range files {
			if _, keep := change.Put[p]; strings.HasPrefix(p, prefix) && !keep {
				clearOne(p)
			}
		}
	}
	for _, a := range change.Aggregates {
		if err := rebuildAggregate(st, files, a, seeds[remainderPath(a)], &res); err != nil {
			return Result{}, err
		}
	}
	sort.Strings(res.Written)
	sort.Strings(res.Deleted)
	sort.Strings(res.Replaced)
	sort.Strings(res.Unseen)
	return res, nil
}

// rebuildAggregate makes a.File the join of every file under a.Dir, or removes it; a file that
// holds the join's pieces in another order (as Kratix orders them, by its WorkPlacements' names)
// is left as it is (layout.SameAggregate). seed, when set, is the remainder to start from (the documents of a file found with no part): the
// remainder part keeps what of it, or of the remainder already there, no other part holds, and
// goes once that is nothing.
func rebuildAggregate(st storer.EncodedObjectStorer, files map[string]treeFile, a Aggregate, seed []byte, res *Result) error {
	contributions := map[string][]byte{}
	for p, f := range files {
		if strings.HasPrefix(p, a.Dir) {
			content, err := readBlob(st, f.hash)
			if err != nil {
				return err
			}
			contributions[p] = content
		}
	}
	key := remainderPath(a)
	if seed != nil {
		contributions[key] = seed
	}
	if _, ok := contributions[key]; ok {
		kept := keptRemainder(a, contributions)
		if kept == nil {
			delete(contributions, key)
			if _, ok := files[key]; ok {
				delete(files, key)
				res.Deleted = append(res.Deleted, key)
			}
		} else {
			contributions[key] = kept
			if err := setFile(st, files, key, kept, res); err != nil {
				return err
			}
		}
	}
	if len(contributions) == 0 {
		if _, ok := files[a.File]; ok {
			delete(files, a.File)
			res.Deleted = append(res.Deleted, a.File)
		}
		return nil
	}
	joined := joinContributions(contributions)
	if f, ok := files[a.File]; ok && f.hash != plumbing.ComputeHash(plumbing.BlobObject, joined) {
		current, err := readBlob(st, f.hash)
		if err != nil {
			return err
		}
		if layout.SameAggregate(current, joined) {
			return nil // the parts' pieces in another order (Kratix's): left as it is
		}
	}
	return setFile(st, files, a.File, joined, res)
}

// setFile makes p hold content, unless it already does.
func setFile(st storer.EncodedObjectStorer, files map[string]treeFile, p string, content []byte, res *Result) error {
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if old, ok := files[p]; ok && old.hash == h {
		return nil
	}
	if err := storeBlob(st, content); err != nil {
		return err
	}
	files[p] = treeFile{hash: h, mode: filemode.Regular}
	res.Written = append(res.Written, p)
	return nil
}

// anyUnder reports whether a file is under prefix.
func anyUnder(files map[string]treeFile, prefix string) bool {
	for p := range files {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

func storeBlob(st storer.EncodedObjectStorer, content []byte) error {
	obj := st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return err
	}
	if _, err := w.Write(content); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	_, err = st.SetEncodedObject(obj)
	return err
}

type treeDir struct {
	files map[string]treeFile
	dirs  map[string]*treeDir
}

func newTreeDir() *treeDir {
	return &treeDir{files: map[string]treeFile{}, dirs: map[string]*treeDir{}}
}

// writeTree stores the trees for a set of files and returns the root's hash. Entries are sorted
// the way git sorts them, so an unchanged set of files gives back the same hash.
func writeTree(st storer.EncodedObjectStorer, files map[string]treeFile) (plumbing.Hash, error) {
	root := newTreeDir()
	for p, f := range files {
		if err := root.add(p, f); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return root.write(st)
}

// add places a file in the folder tree. A name cannot be a file and a folder at once; files
// are added in no particular order, so both ways round are checked.
func (d *treeDir) add(p string, f treeFile) error {
	parts := strings.Split(p, "/")
	for i, seg := range parts[:len(parts)-1] {
		if _, isFile := d.files[seg]; isFile {
			return pathConflict(p, strings.Join(parts[:i+1], "/"))
		}
		sub, ok := d.dirs[seg]
		if !ok {
			sub = newTreeDir()
			d.dirs[seg] = sub
		}
		d = sub
	}
	name := parts[len(parts)-1]
	if _, isDir := d.dirs[name]; isDir {
		return pathConflict(p+"/...", p)
	}
	d.files[name] = f
	return nil
}

func pathConflict(p, file string) error {
	return &Error{Kind: KindConfig, Err: fmt.Errorf(
		"cannot have both %s and a file %s: a path in a repository is a file or a folder, not both", p, file)}
}

func (d *treeDir) write(st storer.EncodedObjectStorer) (plumbing.Hash, error) {
	entries := make([]object.TreeEntry, 0, len(d.files)+len(d.dirs))
	for name, sub := range d.dirs {
		h, err := sub.write(st)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	for name, f := range d.files {
		entries = append(entries, object.TreeEntry{Name: name, Mode: f.mode, Hash: f.hash})
	}
	// git compares a folder's name as if it ended in "/".
	sortKey := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return sortKey(entries[i]) < sortKey(entries[j]) })
	obj := st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// readBlob reads a blob's whole content.
func readBlob(st storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	obj, err := st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", h, err)
	}
	defer func() { _ = rd.Close() }()
	content, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", h, err)
	}
	return content, nil
}
