package statestore

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
)

// Hashes finds the files from listings of the folders they are in (one request for many files)
// and ETags, never from their content unless an ETag is not an MD5; drift detection therefore
// costs listings, not downloads.
func (b *bucketStore) Hashes(ctx context.Context, paths []string) (map[string]string, error) {
	return b.hashesWith(ctx, paths, nil)
}

// hashesWith is Hashes answered, under snap's root, from snap (nil: from the store).
func (b *bucketStore) hashesWith(ctx context.Context, paths []string, snap *writeSnapshot) (_ map[string]string, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, b.fail("read", KindConfig, err)
		}
	}
	files := make(map[string]bool, len(paths))
	for _, p := range paths {
		files[p] = true
	}
	found, err := b.surveyWith(ctx, "read", nil, files, nil, snap)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string]string{}, nil // the bucket is gone, and every file with it
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		if sum, ok := found[p]; ok {
			out[p] = sum
		}
	}
	return out, nil
}

func (b *bucketStore) List(ctx context.Context, prefix string) (_ map[string]string, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return nil, b.fail("list", KindConfig, err)
	}
	found, err := b.list(ctx, prefix, true)
	if classifyBucketError(err) == KindMissingBucket {
		return map[string]string{}, nil // the bucket is gone, and every file with it
	}
	if err != nil {
		return nil, b.fail("list", classifyBucketError(err), err)
	}
	entries := make([]minio.ObjectInfo, 0, len(found))
	for _, e := range found {
		entries = append(entries, e)
	}
	return b.md5s(ctx, "list", entries, nil)
}

func (b *bucketStore) Read(ctx context.Context, p string) (_ []byte, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkPath(p); err != nil {
		return nil, b.fail("read", KindConfig, err)
	}
	content, err := b.get(ctx, p)
	if err != nil {
		kind := classifyBucketError(err)
		if kind == KindMissingBucket {
			kind = KindNotFound // the bucket is gone, and every file with it
		}
		return nil, b.fail("read", kind, fmt.Errorf("%s: %w", p, err))
	}
	return content, nil
}

// survey finds existing objects with listings: every object under each prefix (one recursive
// listing each), and each of files that exists. Files that share a folder are found with one
// listing of that folder; a file alone in its folder with a listing of its own key, which costs
// what a HEAD does but needs only list permission, as drift detection should. All listings go
// out in one bounded parallel pass; then md5s tells the MD5s the listings do not.
//
// files maps each file to whether its MD5 is needed; expected maps files to the MD5 the caller
// would call unchanged (nil when it has none). The result maps each key found to its MD5, or to
// "" where it is not needed (the key exists, its content does not matter: it is about to be
// deleted), so that an object costs a HEAD or a GET only when its hash is needed.
func (b *bucketStore) survey(ctx context.Context, op string, prefixes []string, files map[string]bool, expected map[string]string) (map[string]string, error) {
	return b.surveyWith(ctx, op, prefixes, files, expected, nil)
}

// surveyWith is survey with the lookups under snap's root answered by snap when it is not nil:
// its listing and the process's writes since, whose MD5s it knows.
func (b *bucketStore) surveyWith(ctx context.Context, op string, prefixes []string, files map[string]bool, expected map[string]string, snap *writeSnapshot) (map[string]string, error) {
	type query struct {
		prefix    string
		recursive bool
	}
	var queries []query
	prefixes = outermost(prefixes)
	for _, p := range prefixes {
		queries = append(queries, query{prefix: p, recursive: true})
	}
	byDir := map[string][]string{}
	for f := range files {
		if !underAny(f, prefixes) {
			byDir[parentDir(f)] = append(byDir[parentDir(f)], f)
		}
	}
	for dir, fs := range byDir {
		if len(fs) == 1 {
			// Also lists keys that merely start with this one ("x.yaml.bak"); they are
			// dropped below.
			queries = append(queries, query{prefix: fs[0]})
		} else {
			queries = append(queries, query{prefix: dir})
		}
	}
	sort.Slice(queries, func(i, j int) bool { return queries[i].prefix < queries[j].prefix })

	found := map[string]minio.ObjectInfo{}
	known := map[string]string{} // MD5s of what this process wrote, from snap
	if snap != nil {
		var rest []query
		for _, q := range queries {
			if !strings.HasPrefix(q.prefix, snap.root) {
				rest = append(rest, q)
				continue
			}
			listed, sums := snap.under(q.prefix)
			for k, v := range listed {
				if _, asked := files[k]; q.recursive || asked {
					found[k] = v
					if sum, ok := sums[k]; ok {
						known[k] = sum
					}
				}
			}
		}
		queries = rest
	}
	var mu sync.Mutex
	names := make([]string, len(queries))
	for i, q := range queries {
		names[i] = "listing " + prefixName(q.prefix)
	}
	errs := b.parallel(ctx, len(queries), func(ctx context.Context, i int) error {
		q := queries[i]
		listed, err := b.list(ctx, q.prefix, q.recursive)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for k, v := range listed {
			if _, asked := files[k]; q.recursive || asked {
				found[k] = v
			}
		}
		return nil
	})
	if _, err := b.outcome(op, "lookups", names, errs); err != nil {
		return nil, err
	}

	out := make(map[string]string, len(found))
	var hashed []minio.ObjectInfo
	for k, info := range found {
		switch sum, ok := known[k]; {
		case files[k] && ok:
			out[k] = sum
		case files[k]:
			hashed = append(hashed, info)
		default:
			out[k] = ""
		}
	}
	sums, err := b.md5s(ctx, op, hashed, expected)
	if err != nil {
		return nil, err
	}
	for k, sum := range sums {
		out[k] = sum
	}
	return out, nil
}

// list returns the objects under prefix (without recursive, only those directly in it) as the
// listing describes them.
func (b *bucketStore) list(ctx context.Context, prefix string, recursive bool) (map[string]minio.ObjectInfo, error) {
	return b.listCapped(ctx, prefix, recursive, 0)
}

// listCapped is list that gives up, returning nil and no error, once more than limit objects are
// listed (limit 0: no limit).
func (b *bucketStore) listCapped(ctx context.Context, prefix string, recursive bool, limit int) (map[string]minio.ObjectInfo, error) {
	b.lists.Add(1)
	noOwner := false
	out := map[string]minio.ObjectInfo{}
	for obj := range b.client.ListObjectsIter(ctx, b.cfg.BucketName, minio.ListObjectsOptions{
		Prefix: prefix, Recursive: recursive, FetchOwner: &noOwner,
		// MinIO's extension: each object's metadata (its encryption, the MD5 put stores) comes
		// with the listing, so that encrypted objects need no HEAD. Other servers ignore it.
		WithMetadata: true,
	}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("listing %s: %w", prefixName(prefix), obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue // a sub-folder of a delimited listing, or a folder marker: not a file
		}
		out[obj.Key] = obj
		if limit > 0 && len(out) > limit {
			return nil, nil
		}
	}
	// minio-go ends a listing silently when ctx ends; a partial listing must not pass for a
	// whole one (files would look gone).
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("listing %s: %w", prefixName(prefix), err)
	}
	return out, nil
}

func (b *bucketStore) get(ctx context.Context, key string) ([]byte, error) {
	b.gets.Add(1)
	obj, err := b.client.GetObject(ctx, b.cfg.BucketName, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, err
	}
	defer func() { _ = obj.Close() }()
	// GetObject sends nothing; the request, and its errors, come with the first read.
	return io.ReadAll(obj)
}

// parentDir is the listing prefix of the folder a file is in: "" for the root, else "a/b/".
func parentDir(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i+1]
	}
	return ""
}

func prefixName(prefix string) string {
	if prefix == "" {
		return "the bucket root"
	}
	return prefix
}

// outermost drops duplicate prefixes and those inside another: one listing covers them.
func outermost(prefixes []string) []string {
	sorted := append([]string(nil), prefixes...)
	sort.Strings(sorted)
	var out []string
	for _, p := range sorted {
		if len(out) > 0 && strings.HasPrefix(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func underAny(p string, prefixes []string) bool {
	for _, pre := range prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
