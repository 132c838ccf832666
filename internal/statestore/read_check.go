package statestore

import (
	"context"
	"fmt"
)

// ReadChecker is a check that writes nothing, for plans: that the store exists where it is
// configured and that its credentials can read it. Write access is left to Check, at apply.
type ReadChecker interface {
	// CheckRead fails with an *Error of the kind users act on: KindMissingBucket,
	// KindMissingRepo, KindMissingBranch, KindAuth, KindAccessDenied, KindNetwork, KindTLS,
	// KindPlainHTTP... prefix is the store's folder in a bucket ("" for the root, else ending in
	// "/"); git stores ignore it.
	CheckRead(ctx context.Context, prefix string) error
}

var (
	_ ReadChecker = (*bucketStore)(nil)
	_ ReadChecker = (*gitStore)(nil)
)

// CheckRead lists one page under prefix (GET requests only, the region lookup included): a
// bucket that does not exist is KindMissingBucket, whether or not the store may create it (the
// caller decides what that means). A prefix that holds at most firstListCap objects is then
// known whole: the listing becomes the writes' listing of that store path (see Writing), so an
// apply that checks a store and then writes to it lists it once.
func (b *bucketStore) CheckRead(ctx context.Context, prefix string) (err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkListPrefix(prefix); err != nil {
		return b.fail("list", KindConfig, err)
	}
	objects, err := b.listCapped(ctx, prefix, true, firstListCap)
	switch kind := classifyBucketError(err); {
	case err == nil:
	case kind == KindMissingBucket:
		return b.fail("check", KindMissingBucket, fmt.Errorf("the bucket %q does not exist", b.cfg.BucketName))
	default:
		return b.fail("list", kind, err)
	}
	if objects != nil {
		b.seedWriteSnapshot(prefix, objects)
	}
	return nil
}

// CheckRead opens a fetch (upload-pack) session and reads the branches the server advertises,
// then closes it without asking for anything: the repository must exist, the credentials must
// be accepted for reading, and the branch must exist unless the repository has no branch at all
// (the first write creates it, as Check accepts).
func (s *gitStore) CheckRead(ctx context.Context, _ string) error {
	if err := s.checkRead(ctx); err != nil {
		return outOfTime(ctx, s.fail(opCheck, err))
	}
	return nil
}

func (s *gitStore) checkRead(ctx context.Context) error { return s.checkBranch(ctx, false) }
