package statestore

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
)

// md5s tells the MD5 of each listed object's content, asking the server as little as it can
// without ever taking a changed object for an unchanged one. expected maps keys to the MD5 the
// caller would call unchanged (Apply's new content; nil for Hashes and List). Objects deleted
// since their listing are left out.
//
// Why it asks what it asks. The ETag of an object written in one PUT is the MD5 of its content
// unless the object is encrypted with SSE-KMS or SSE-C; then it is something else, of the same
// shape (32 hex digits). So the ETag alone is enough only where the object's encryption is known:
//
//   - A MinIO listing carries each object's metadata (asked for with WithMetadata): its
//     encryption, and the MD5 put stored in x-amz-meta-kratix-content-md5. knownMD5 decides
//     from the entry alone, with no further request.
//   - Other servers' listings (AWS S3 ignores MinIO's extension) carry only the ETag. Taking it
//     for the MD5 is right on unencrypted and SSE-S3 buckets and wrong on SSE-KMS ones, where
//     every object would then look changed: a plan showing drift forever, and every apply
//     rewriting everything. Taking it for the MD5 is never wrong the other way, though: an
//     encrypted object's ETag is not an MD5 of its content, and matches the MD5 of a content
//     only by a 2^-128 accident. So an ETag that is the MD5 the caller expects always means
//     "unchanged", whatever the encryption, and costs nothing more.
//   - For the rest, the bucket's default encryption says how the objects were written: the
//     store's PUTs send no encryption header, so they get the default. It is read once per
//     store (GetBucketEncryption). No default (ServerSideEncryptionConfigurationNotFoundError)
//     or SSE-S3: ETags are MD5s, and the steady state costs one listing per folder, as before.
//     An object someone wrote with SSE-KMS by hand then looks changed and is written again, now
//     with the default encryption, after which it no longer does. SSE-KMS (or DSSE-KMS): each
//     object is asked (HEAD: its x-amz-server-side-encryption header and its user metadata,
//     where the stored MD5 is), and downloaded only when neither tells its MD5 (a hand edit by
//     a client that knows nothing of that metadata). An object written before the bucket was
//     encrypted answers the HEAD without encryption, and its ETag is then its MD5.
//   - When the default encryption cannot be read (credentials with only the rights the store
//     needs, or a server without the call), an Apply asks each object whose ETag is not the
//     MD5 it expects, since that object is either changed or encrypted. Hashes and List have no
//     expectation; asking every object would make a plan on an unencrypted bucket cost a HEAD
//     per file, so they ask the most recently written object first: the store writes every
//     object with the bucket's default, and the newest one shows that default as it last was.
//     If it hides its MD5, every object is asked; if not, the ETags are taken for MD5s. That
//     costs one HEAD per call; where the guess misleads (the newest object was written with
//     other settings than the default), objects look changed that are not (an Apply then asks
//     them and writes nothing), never the other way.
//
// Credentials that may list but not read objects are refused every HEAD: their ETags are then
// taken for MD5s (see headMD5), which keeps drift detection working with list rights alone; so
// is an SSE-C object written by hand, which answers only a HEAD that brings its key.
// An ETag that is no MD5 at all (an upload in parts, "…-N") is downloaded, as before.
func (b *bucketStore) md5s(ctx context.Context, op string, entries []minio.ObjectInfo, expected map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(entries))
	var fetch, ask, bare []minio.ObjectInfo // download; HEAD; not told by their listing
	for _, e := range entries {
		etag := strings.ToLower(strings.Trim(e.ETag, `"`))
		switch {
		case len(e.UserMetadata) > 0: // a MinIO listing: the entry tells its encryption
			if sum := knownMD5(e); sum != "" {
				out[e.Key] = sum
			} else {
				fetch = append(fetch, e)
			}
		case !isMD5Hex(etag):
			fetch = append(fetch, e)
		case expected[e.Key] == etag:
			out[e.Key] = etag
		default:
			bare = append(bare, e)
		}
	}
	if len(bare) > 0 {
		switch b.defaultEncryption(ctx) {
		case defaultKeepsMD5:
			for _, e := range bare {
				out[e.Key] = strings.ToLower(strings.Trim(e.ETag, `"`))
			}
		case defaultHidesMD5:
			ask = bare
		default:
			var unexpected []minio.ObjectInfo
			for _, e := range bare {
				if _, ok := expected[e.Key]; ok {
					ask = append(ask, e)
				} else {
					unexpected = append(unexpected, e)
				}
			}
			more, err := b.sampleEncryption(ctx, unexpected, out)
			if err != nil {
				return nil, b.fail(op, classifyBucketError(err), err)
			}
			ask = append(ask, more...)
		}
	}

	todo := append(fetch, ask...)
	names := make([]string, len(todo))
	sums := make([]string, len(todo))
	for i, e := range todo {
		names[i] = e.Key
	}
	errs := b.parallel(ctx, len(todo), func(ctx context.Context, i int) error {
		var err error
		if i < len(fetch) {
			sums[i], err = b.contentMD5(ctx, todo[i].Key)
		} else {
			sums[i], err = b.headMD5(ctx, todo[i])
		}
		if classifyBucketError(err) == KindNotFound {
			return nil // deleted since the listing: sums[i] stays ""
		}
		return err
	})
	if _, err := b.outcome(op, "reads", names, errs); err != nil {
		return nil, err
	}
	for i, e := range todo {
		if sums[i] != "" {
			out[e.Key] = sums[i]
		}
	}
	return out, nil
}

// sampleEncryption decides, for listed objects whose ETags may or may not be MD5s on a bucket
// whose default encryption is unknown, which ones must be asked (see md5s): it asks the newest
// and records its MD5 in out; if that one hides its MD5 the others are returned to be asked,
// else their ETags go in out.
func (b *bucketStore) sampleEncryption(ctx context.Context, entries []minio.ObjectInfo, out map[string]string) ([]minio.ObjectInfo, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	newest := 0
	for i, e := range entries {
		n := entries[newest]
		if e.LastModified.After(n.LastModified) || (e.LastModified.Equal(n.LastModified) && e.Key < n.Key) {
			newest = i
		}
	}
	rest := append(append([]minio.ObjectInfo(nil), entries[:newest]...), entries[newest+1:]...)
	info, err := b.head(ctx, entries[newest].Key)
	switch {
	case classifyBucketError(err) == KindNotFound:
		return rest, nil // gone since the listing, and nothing learnt: ask the others
	case classifyBucketError(err) == KindAccessDenied:
		// Credentials that may only list: no object can be asked, ETags are all there is.
		for _, e := range entries {
			out[e.Key] = strings.ToLower(strings.Trim(e.ETag, `"`))
		}
		return nil, nil
	case headRefused(err):
		// An SSE-C object, written by hand with a key the store has not: it looks changed, and
		// tells nothing of the others, which are asked.
		out[entries[newest].Key] = strings.ToLower(strings.Trim(entries[newest].ETag, `"`))
		return rest, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", entries[newest].Key, err)
	}
	hides := sseHidesMD5(info)
	if sum := knownMD5(info); sum != "" {
		out[info.Key] = sum
	} else if sum, err := b.contentMD5(ctx, info.Key); err == nil {
		out[info.Key] = sum
	} else if classifyBucketError(err) != KindNotFound {
		return nil, fmt.Errorf("%s: %w", info.Key, err)
	}
	if hides {
		return rest, nil
	}
	for _, e := range rest {
		out[e.Key] = strings.ToLower(strings.Trim(e.ETag, `"`))
	}
	return nil, nil
}

// headMD5 asks a listed object for its MD5 (HEAD, see knownMD5), and downloads it only when the
// answer does not tell. When the HEAD is refused (see headRefused) the listed ETag is taken for
// the MD5, which at worst shows an unchanged object as changed, never the other way (see md5s).
func (b *bucketStore) headMD5(ctx context.Context, listed minio.ObjectInfo) (string, error) {
	info, err := b.head(ctx, listed.Key)
	if headRefused(err) {
		return strings.ToLower(strings.Trim(listed.ETag, `"`)), nil
	}
	if err != nil {
		return "", err
	}
	if sum := knownMD5(info); sum != "" {
		return sum, nil
	}
	return b.contentMD5(ctx, listed.Key)
}

// headRefused reports whether a HEAD failed in a way that asking again will not mend and that
// says nothing of the object's existence: credentials that may list but not read objects
// (enough to detect drift on unencrypted buckets), or an object encrypted with SSE-C, which
// answers only requests that bring its key (400).
func headRefused(err error) bool {
	var resp minio.ErrorResponse
	return classifyBucketError(err) == KindAccessDenied || errors.As(err, &resp) && resp.StatusCode == http.StatusBadRequest
}

func (b *bucketStore) head(ctx context.Context, key string) (minio.ObjectInfo, error) {
	b.heads.Add(1)
	return b.client.StatObject(ctx, b.cfg.BucketName, key, minio.StatObjectOptions{})
}

// contentMD5 downloads an object and hashes its content.
func (b *bucketStore) contentMD5(ctx context.Context, key string) (string, error) {
	content, err := b.get(ctx, key)
	if err != nil {
		return "", err
	}
	return md5Hex(content), nil
}

// bucketDefault is what a bucket's default encryption says of the ETags of the objects the
// store writes (without encryption headers, so with the default).
type bucketDefault int

const (
	defaultUnknown  bucketDefault = iota // could not be read
	defaultKeepsMD5                      // none or SSE-S3: ETags are MD5s
	defaultHidesMD5                      // SSE-KMS or DSSE-KMS: ETags are not MD5s
)

// defaultEncryption reads the bucket's default encryption once per store. An answer that will
// not change (the configuration, its absence, a refusal) is kept; a network failure is not, so
// that the next operation asks again.
func (b *bucketStore) defaultEncryption(ctx context.Context) bucketDefault {
	b.encMu.Lock()
	defer b.encMu.Unlock()
	if b.encRead {
		return b.enc
	}
	b.encryptionReads.Add(1)
	cfg, err := b.client.GetBucketEncryption(ctx, b.cfg.BucketName)
	switch {
	case err == nil:
		b.enc = defaultKeepsMD5
		for _, r := range cfg.Rules {
			if alg := r.Apply.SSEAlgorithm; alg != "" && !strings.EqualFold(alg, "AES256") {
				b.enc = defaultHidesMD5
			}
		}
	case minio.ToErrorResponse(err).Code == "ServerSideEncryptionConfigurationNotFoundError":
		b.enc = defaultKeepsMD5
	case ctx.Err() != nil || classifyBucketError(err) == KindNetwork || minio.ToErrorResponse(err).StatusCode >= 500 &&
		minio.ToErrorResponse(err).StatusCode != http.StatusNotImplemented:
		return defaultUnknown // maybe passing: ask again next time
	default:
		b.enc = defaultUnknown // access denied, or a server without the call
	}
	b.encRead = true
	return b.enc
}

// md5MetaKey is the user metadata (x-amz-meta-kratix-content-md5) in which put stores the MD5 of
// what it wrote: the ETag is not an MD5 when the server encrypts with SSE-KMS or SSE-C.
const md5MetaKey = "Kratix-Content-Md5"

// knownMD5 is the MD5 of an object's content as its listing entry or HEAD tells it, or "" when
// it does not:
//   - an object encrypted with SSE-KMS or SSE-C has an ETag that is not its MD5 (MinIO and AWS
//     alike), so only the MD5 put stored in its metadata counts;
//   - otherwise (no encryption, or SSE-S3, whose ETag is the MD5) a single-part ETag is the MD5,
//     and is trusted over the metadata, which someone else's write may have copied;
//   - a multipart ETag ("…-N") is no MD5.
//
// A listing tells the encryption only on MinIO (WithMetadata); for entries of other servers'
// listings, md5s decides when the ETag may be taken for the MD5.
func knownMD5(info minio.ObjectInfo) string {
	etag := strings.ToLower(strings.Trim(info.ETag, `"`))
	if sseHidesMD5(info) {
		if sum := strings.ToLower(metaValue(info, "X-Amz-Meta-"+md5MetaKey)); isMD5Hex(sum) {
			return sum
		}
		return ""
	}
	if isMD5Hex(etag) {
		return etag
	}
	return ""
}

// sseHidesMD5 reports whether the object is encrypted in a way that makes its ETag something else
// than the MD5 of its content: SSE-KMS (aws:kms, aws:kms:dsse) or SSE-C.
func sseHidesMD5(info minio.ObjectInfo) bool {
	if metaValue(info, "X-Amz-Server-Side-Encryption-Customer-Algorithm") != "" {
		return true
	}
	enc := metaValue(info, "X-Amz-Server-Side-Encryption")
	return enc != "" && !strings.EqualFold(enc, "AES256")
}

// metaValue finds a header among an object's metadata: a HEAD gives them in Metadata (and the
// user metadata without its prefix in UserMetadata), a MinIO listing in UserMetadata with
// their full names.
func metaValue(info minio.ObjectInfo, header string) string {
	if v := info.Metadata.Get(header); v != "" {
		return v
	}
	for k, v := range info.UserMetadata {
		if strings.EqualFold(k, header) || strings.EqualFold("X-Amz-Meta-"+k, header) {
			return v
		}
	}
	return ""
}

// md5Hex is memo.MD5: one memo of large contents' sums for the plan and the writes.
func md5Hex(b []byte) string { return memo.MD5(b) }

func isMD5Hex(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
