package statestore

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
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

// CheckRead lists at most one key under prefix (GET requests only, the region lookup included):
// a bucket that does not exist is KindMissingBucket, whether or not the store may create it
// (the caller decides what that means).
func (b *bucketStore) CheckRead(ctx context.Context, prefix string) error {
	exists, err := b.BucketExists(ctx, prefix)
	if err != nil {
		return err
	}
	if !exists {
		return b.fail("check", KindMissingBucket, fmt.Errorf("the bucket %q does not exist", b.cfg.BucketName))
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

func (s *gitStore) checkRead(ctx context.Context) (err error) {
	if s.authErr != nil {
		return s.authErr
	}
	ep, err := transport.NewEndpoint(s.cfg.URL)
	if err != nil {
		return invalidURL(s.cfg.URL, err)
	}
	ep.CaBundle = s.caBundle()
	var done func()
	ep.Proxy, done = sshOperation(ctx, s.cfg.URL)
	defer done()
	cli, err := client.NewClient(ep)
	if err != nil {
		return &Error{Kind: KindConfig, Err: err}
	}
	sess, err := cli.NewUploadPackSession(ep, s.auth)
	if err != nil {
		return fmt.Errorf("connecting for a fetch: %w", err)
	}
	defer func() {
		if cerr := sess.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the fetch session: %w", cerr)
		}
	}()
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("asking for the repository's branches: %w", err)
	}
	refs, err := adv.AllReferences()
	if err != nil {
		return fmt.Errorf("reading the advertised branches: %w", err)
	}
	if _, ok := refs[s.branchRef()]; ok {
		return nil
	}
	for name := range refs {
		if name.IsBranch() {
			return s.missingBranch()
		}
	}
	return nil // no branches at all: as good as empty
}
