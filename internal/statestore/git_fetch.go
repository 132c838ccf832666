package statestore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// Fetching what the provider owns, not the repository. A state store's repository may hold tens
// of thousands of files of other teams beside the provider's folders; a shallow fetch of the tip
// would still download and hold every one of them. When the server serves partial clones (it
// advertises "filter" and lets a client want any object reachable from a branch, as GitHub,
// GitLab and Gitea do), the tip is fetched without blobs (filter blob:none): commits and trees
// only, enough to list, edit and rewrite the tree, since a new tree reuses the hashes of the
// blobs it does not change and a push sends only new objects. The few blobs the provider reads
// (the contributions of an aggregate, the files Read, Hashes and List report on) are fetched by
// hash when first needed, in one request per operation. Servers without partial clones get
// today's shallow fetch of the whole tip.

// uploadPack opens a fetch session with the store's URL and credentials and reads the server's
// advertisement. ErrEmptyRemoteRepository is returned as is.
func (s *gitStore) uploadPack(ctx context.Context) (transport.UploadPackSession, *packp.AdvRefs, func(), error) {
	ep, err := transport.NewEndpoint(s.cfg.URL)
	if err != nil {
		return nil, nil, nil, invalidURL(s.cfg.URL, err)
	}
	ep.CaBundle = s.caBundle()
	var done func()
	ep.Proxy, done = sshOperation(ctx, s.cfg.URL)
	cli, err := client.NewClient(ep)
	if err != nil {
		done()
		return nil, nil, nil, &Error{Kind: KindConfig, Err: err}
	}
	var (
		sess transport.UploadPackSession
		adv  *packp.AdvRefs
	)
	err = s.withAuth(ctx, func(auth transport.AuthMethod) error {
		var err error
		if sess, err = cli.NewUploadPackSession(ep, auth); err != nil {
			return err
		}
		if adv, err = sess.AdvertisedReferencesContext(ctx); err != nil {
			_ = sess.Close()
			return err
		}
		return nil
	})
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	closeAll := func() {
		_ = sess.Close()
		done()
	}
	return sess, adv, closeAll, nil
}

// servesPartialClones reports whether a server lets a fetch leave blobs out and fetch them
// later by hash.
func servesPartialClones(caps *capability.List) bool {
	return caps.Supports(capability.Filter) && caps.Supports(capability.AllowReachableSHA1InWant)
}

// fetchTip fetches the branch's tip commit, shallow (depth 1), and points the tracking ref at
// it; blobless when the server serves partial clones. It returns the zero hash for an empty
// repository (the first write creates the branch) and a KindMissingBranch error for one that has
// branches but not ours.
func (s *gitStore) fetchTip(ctx context.Context) (plumbing.Hash, error) {
	return againWithNewToken(s, func() (plumbing.Hash, error) { return s.fetchTipOnce(ctx) })
}

func (s *gitStore) fetchTipOnce(ctx context.Context) (plumbing.Hash, error) {
	sess, adv, done, err := s.uploadPack(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("fetching branch %s: %w", s.cfg.Branch, err)
	}
	defer done()
	refs, err := adv.AllReferences()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("fetching branch %s: reading the advertised branches: %w", s.cfg.Branch, err)
	}
	ref, ok := refs[s.branchRef()]
	if !ok {
		for name := range refs {
			if name.IsBranch() {
				return plumbing.ZeroHash, s.missingBranch()
			}
		}
		return plumbing.ZeroHash, nil // no branches at all: as good as empty
	}
	tip := ref.Hash()
	st := s.r.repo.Storer
	if st.HasEncodedObject(tip) != nil {
		req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
		req.Wants = []plumbing.Hash{tip}
		if err := req.Capabilities.Set(capability.Shallow); err != nil {
			return plumbing.ZeroHash, err
		}
		if adv.Capabilities.Supports(capability.NoProgress) {
			if err := req.Capabilities.Set(capability.NoProgress); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		if servesPartialClones(adv.Capabilities) {
			req.Filter = packp.FilterBlobNone()
			if err := req.Capabilities.Set(capability.Filter); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		// Where our history stops, so that the server sends nothing beyond it.
		if req.Shallows, err = st.Shallow(); err != nil {
			return plumbing.ZeroHash, err
		}
		// The last tip fetched or pushed tells the server what not to send again: the commits
		// since, and the trees (and blobs) they changed. A first fetch is shallow, depth 1.
		// Not both: asked to deepen, git's upload-pack (protocol v0, all go-git speaks) sends
		// the new tip's whole tree again whatever the client has.
		if have, err := st.Reference(s.trackingRef()); err == nil && st.HasEncodedObject(have.Hash()) == nil {
			req.Haves = []plumbing.Hash{have.Hash()}
		} else {
			req.Depth = packp.DepthCommits(1)
		}
		if err := s.receivePack(ctx, sess, req); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("fetching branch %s: %w", s.cfg.Branch, err)
		}
	}
	if err := st.SetReference(plumbing.NewHashReference(s.trackingRef(), tip)); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("recording the fetched branch %s: %w", s.cfg.Branch, err)
	}
	return tip, nil
}

// receivePack sends req and stores the pack the server answers with, and the shallow commits
// it reports.
func (s *gitStore) receivePack(ctx context.Context, sess transport.UploadPackSession, req *packp.UploadPackRequest) (err error) {
	resp, err := sess.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil
	}
	if err != nil {
		return s.midExchange(err)
	}
	defer func() {
		if cerr := resp.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	st := s.r.repo.Storer
	if len(resp.Shallows) > 0 {
		shallows, err := st.Shallow()
		if err != nil {
			return err
		}
		known := map[plumbing.Hash]bool{}
		for _, h := range shallows {
			known[h] = true
		}
		for _, h := range resp.Shallows {
			if !known[h] {
				shallows = append(shallows, h)
			}
		}
		if err := st.SetShallow(shallows); err != nil {
			return err
		}
	}
	return packfile.UpdateObjectStorage(st, demuxSideband(req.Capabilities, resp))
}

// demuxSideband takes the pack out of the side band the request asked for, if any.
func demuxSideband(caps *capability.List, r io.Reader) io.Reader {
	switch {
	case caps.Supports(capability.Sideband64k):
		return sideband.NewDemuxer(sideband.Sideband64k, r)
	case caps.Supports(capability.Sideband):
		return sideband.NewDemuxer(sideband.Sideband, r)
	}
	return r
}

// fetchBlobs makes sure the blobs are in the clone, fetching the missing ones by hash in one
// request. After a blobless fetch, these are the only blobs of other writers the clone holds.
// r.sem must be held.
func (s *gitStore) fetchBlobs(ctx context.Context, hashes []plumbing.Hash) error {
	_, err := againWithNewToken(s, func() (struct{}, error) { return struct{}{}, s.fetchBlobsOnce(ctx, hashes) })
	return err
}

func (s *gitStore) fetchBlobsOnce(ctx context.Context, hashes []plumbing.Hash) error {
	st := s.r.repo.Storer
	var missing []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	for _, h := range hashes {
		if !seen[h] && st.HasEncodedObject(h) != nil {
			missing = append(missing, h)
		}
		seen[h] = true
	}
	if len(missing) == 0 {
		return nil
	}
	sess, adv, done, err := s.uploadPack(ctx)
	if err != nil {
		return fmt.Errorf("fetching %d files' content: %w", len(missing), err)
	}
	defer done()
	req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
	req.Wants = missing
	if adv.Capabilities.Supports(capability.NoProgress) {
		if err := req.Capabilities.Set(capability.NoProgress); err != nil {
			return err
		}
	}
	if err := s.receivePack(ctx, sess, req); err != nil {
		return fmt.Errorf("fetching %d files' content: %w", len(missing), err)
	}
	for _, h := range missing {
		if st.HasEncodedObject(h) != nil {
			return fmt.Errorf("fetching %d files' content: the server did not send blob %s", len(missing), h)
		}
	}
	return nil
}
