package statestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/minio/minio-go/v7"
)

// Guards make a change conditional (placement.Change.Guards): each guarded path must hold what
// the writer read (content with that MD5, or nothing) when the change is made. An owner record
// is taken this way, so that of two writers that read it at once only one takes it: on a bucket
// the guarded files are written first, each with a conditional PUT (If-None-Match for a file
// read absent, If-Match with the ETag of the content read for one read present); on git the
// guards are checked on the tree each attempt commits on, and the push only lands on the tip
// that tree came from. A guard that fails makes none of the change and returns ErrGuard.

// ErrGuard is the cause of a change refused because a guarded path no longer holds what the
// writer read.
var ErrGuard = errors.New("a guarded file changed since it was read")

func guardFailed(p, want, found string) error {
	say := func(sum string) string {
		if sum == "" {
			return "nothing"
		}
		return "content with MD5 " + sum
	}
	return &Error{Op: opWrite, Kind: KindConflict, Err: fmt.Errorf("%w: %s holds %s, not %s as read", ErrGuard, p, say(found), say(want))}
}

func sortedGuards(g map[string]string) []string {
	out := make([]string, 0, len(g))
	for p := range g {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// guard checks a change's guards on a bucket and makes its guarded puts, before anything else of
// the change; it returns the rest of the change.
func (b *bucketStore) guard(ctx context.Context, change Change, res *Result) (Change, error) {
	if len(change.Guards) == 0 {
		return change, nil
	}
	rest := change
	rest.Put = maps.Clone(change.Put)
	rest.Guards = nil
	for _, p := range sortedGuards(change.Guards) {
		want := change.Guards[p]
		content, put := change.Put[p]
		etag, found := "", ""
		if want != "" || !put || b.noConditionalPuts.Load() {
			// A file read absent and now put needs no read: the conditional PUT is the check.
			var err error
			if etag, found, err = b.current(ctx, p); err != nil {
				return change, err
			}
			if found != want {
				return change, b.fail(opWrite, KindConflict, guardFailed(p, want, found))
			}
		}
		if !put {
			continue
		}
		delete(rest.Put, p)
		sum := md5Hex(content)
		if found == sum {
			continue
		}
		opts := putOptions(p, sum)
		if etag == "" {
			opts.SetMatchETagExcept("*")
		} else {
			opts.SetMatchETag(etag)
		}
		if b.noConditionalPuts.Load() {
			opts = putOptions(p, sum) // the check above is the guard, with a window this server cannot close
		}
		b.puts.Add(1)
		_, err := b.client.PutObject(ctx, b.cfg.BucketName, p, bytes.NewReader(content), int64(len(content)), opts)
		b.noteOutcome(p, sum, false, err)
		switch minio.ToErrorResponse(err).Code {
		case "PreconditionFailed", "ConditionalRequestConflict":
			return change, b.fail(opWrite, KindConflict, guardFailed(p, want, "other content"))
		case "NotImplemented":
			b.noConditionalPuts.Store(true)
			b.puts.Add(1)
			_, err = b.client.PutObject(ctx, b.cfg.BucketName, p, bytes.NewReader(content), int64(len(content)), putOptions(p, sum))
			b.noteOutcome(p, sum, false, err)
		}
		if err != nil {
			return change, b.fail(opWrite, classifyBucketError(err), fmt.Errorf("%s: %w", p, err))
		}
		res.Written = append(res.Written, p)
		if etag != "" {
			res.Replaced = append(res.Replaced, p)
		}
	}
	return rest, nil
}

// current reads what a bucket holds at p: its ETag and the MD5 of its content; "" and "" when
// there is nothing.
func (b *bucketStore) current(ctx context.Context, p string) (etag, sum string, err error) {
	b.gets.Add(1)
	obj, err := b.client.GetObject(ctx, b.cfg.BucketName, p, minio.GetObjectOptions{})
	if err == nil {
		defer func() { _ = obj.Close() }()
		// Read first, then Stat: the ETag comes from the same response. Stat first sends a
		// request of its own, and the read that follows is conditional on its ETag, so another
		// writer's rewrite in between failed the read (412) instead of the guard.
		var content []byte
		if content, err = io.ReadAll(obj); err == nil {
			var info minio.ObjectInfo
			if info, err = obj.Stat(); err == nil {
				return info.ETag, md5Hex(content), nil
			}
		}
	}
	if classifyBucketError(err) == KindNotFound {
		return "", "", nil
	}
	if code := minio.ToErrorResponse(err).Code; code == "PreconditionFailed" || code == "ConditionalRequestConflict" {
		return "", "", b.fail(opWrite, KindConflict, fmt.Errorf("%w: %s changed while it was read", ErrGuard, p))
	}
	return "", "", b.fail(opWrite, classifyBucketError(err), fmt.Errorf("%s: %w", p, err))
}

// checkGuards checks a change's guards on the files of the tree a git attempt commits on.
func (s *gitStore) checkGuards(files map[string]treeFile, guards map[string]string) error {
	for _, p := range sortedGuards(guards) {
		want, found := guards[p], ""
		if f, ok := files[p]; ok {
			sum, err := s.r.blobMD5(f.hash)
			if err != nil {
				return err
			}
			found = sum
		}
		if found != want {
			return guardFailed(p, want, found)
		}
	}
	return nil
}

// guardedBlobs are the blobs of the files the batch's guards read.
func guardedBlobs(files map[string]treeFile, batch []*pendingChange) []plumbing.Hash {
	var out []plumbing.Hash
	for _, p := range batch {
		for path := range p.change.Guards {
			if f, ok := files[path]; ok && isBlob(f.mode) {
				out = append(out, f.hash)
			}
		}
	}
	return out
}
