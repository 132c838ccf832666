package statestore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// FolderRevisions is implemented by stores that keep a history (git repositories; buckets do
// not): they can tell whether a folder in an earlier revision is the folder at the tip, which is
// what a cluster that reports the revision it applied has of the folder today.
type FolderRevisions interface {
	// SameFolder reports whether folder ("" for the root, else a path with or without a
	// trailing "/") has the same tree in the commit named by revision (a full hex commit id, or
	// an abbreviation of at least minAbbrev digits) as at the tip of the branch. A folder absent
	// from both is the same; absent from one, it is not. known is false when the repository has
	// no such commit, even after fetching it (another repository's commit, or garbage); err is
	// only for failures to reach or read the repository.
	SameFolder(ctx context.Context, revision, folder string) (same, known bool, err error)
	// SameFolders answers SameFolder for several folders of one revision at once, keyed by the
	// folders as given.
	SameFolders(ctx context.Context, revision string, folders []string) (same map[string]bool, known bool, err error)
}

var _ FolderRevisions = (*gitStore)(nil)

// minAbbrev is the shortest abbreviation of a commit id SameFolder accepts: git's default.
const minAbbrev = 7

// SameFolder compares tree hashes, never files: two trees with the same hash hold the same
// files with the same modes and content.
//
// The clone is shallow: it holds the commits from the first fetch on (each later fetch brings
// the commits since the tip it had), so an older commit is fetched on its own, by id, at depth 1
// and without blobs where the server allows it. An abbreviation is looked up among the commits
// the clone holds only, since a fetch must name a full id: an abbreviation of a commit older
// than the clone is not known.
func (s *gitStore) SameFolder(ctx context.Context, revision, folder string) (same, known bool, err error) {
	all, known, err := s.SameFolders(ctx, revision, []string{folder})
	return all[folder], known, err
}

// SameFolders is SameFolder for several folders of one revision, with one look at the tip (one
// fetch): what a refresh asks of the destinations whose clusters report the same revision.
func (s *gitStore) SameFolders(ctx context.Context, revision string, folders []string) (same map[string]bool, known bool, err error) {
	dirs := make([]string, len(folders))
	for i, folder := range folders {
		dirs[i] = strings.TrimSuffix(folder, "/")
		if dirs[i] != "" {
			if err := checkPath(dirs[i]); err != nil {
				return nil, false, s.fail(opRead, &Error{Kind: KindConfig, Err: fmt.Errorf("folder: %w", err)})
			}
		}
	}
	rev := strings.ToLower(revision)
	if !isCommitID(rev) {
		return nil, false, nil
	}
	same = map[string]bool{}
	err = s.withTipTree(ctx, opRead, func(tipTree plumbing.Hash, _ map[string]treeFile) error {
		commit, err := s.findCommit(ctx, rev)
		if err != nil || commit == nil {
			return err
		}
		known = true
		st := s.r.repo.Storer
		for i, dir := range dirs {
			then, err := folderTree(st, commit.TreeHash, dir)
			if err != nil {
				return fmt.Errorf("in commit %s: %w", commit.Hash, err)
			}
			now, err := folderTree(st, tipTree, dir)
			if err != nil {
				return fmt.Errorf("at the tip %s: %w", s.r.tip, err)
			}
			same[folders[i]] = then == now
		}
		return nil
	})
	if err != nil {
		return nil, false, comparing(err, revision, strings.Join(folders, ", "))
	}
	return same, known, nil
}

// comparing names the revision and folder a failed SameFolder compared; the store is already
// named.
func comparing(err error, revision, folder string) error {
	var se *Error
	if !errors.As(err, &se) {
		return err
	}
	out := *se
	out.Err = fmt.Errorf("comparing folder %q of revision %q with the tip: %w", folder, revision, se.Err)
	return &out
}

// isCommitID reports whether rev (lower case) can name a commit: minAbbrev to 40 hex digits.
func isCommitID(rev string) bool {
	if len(rev) < minAbbrev || len(rev) > 2*len(plumbing.ZeroHash) {
		return false
	}
	for _, c := range rev {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// findCommit returns the commit rev names, fetching it when rev is a full id the clone lacks;
// nil when the repository has no such commit, or an abbreviation names none or several of the
// clone's. r.sem must be held.
func (s *gitStore) findCommit(ctx context.Context, rev string) (*object.Commit, error) {
	st := s.r.repo.Storer
	if len(rev) < 2*len(plumbing.ZeroHash) {
		return abbreviatedCommit(st, rev)
	}
	h := plumbing.NewHash(rev)
	if st.HasEncodedObject(h) != nil {
		if err := s.fetchCommit(ctx, h); err != nil {
			return nil, err
		}
	}
	c, err := object.GetCommit(st, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, nil // not sent, or not a commit
	}
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", h, err)
	}
	return c, nil
}

// abbreviatedCommit is the one commit of the clone whose id starts with prefix; nil when none or
// several do.
func abbreviatedCommit(st storer.EncodedObjectStorer, prefix string) (*object.Commit, error) {
	iter, err := st.IterEncodedObjects(plumbing.CommitObject)
	if err != nil {
		return nil, fmt.Errorf("listing the clone's commits: %w", err)
	}
	var found []plumbing.Hash
	err = iter.ForEach(func(obj plumbing.EncodedObject) error {
		if strings.HasPrefix(obj.Hash().String(), prefix) {
			found = append(found, obj.Hash())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the clone's commits: %w", err)
	}
	if len(found) != 1 {
		return nil, nil
	}
	c, err := object.GetCommit(st, found[0])
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", found[0], err)
	}
	return c, nil
}

// fetchCommit asks the server for one commit by id, shallow (depth 1) and without blobs when it
// serves partial clones. A server that does not know the commit, or does not let a client ask
// for commits it does not advertise, answers "not our ref": that is no failure, the commit stays
// unknown. r.sem must be held.
func (s *gitStore) fetchCommit(ctx context.Context, h plumbing.Hash) error {
	_, err := againWithNewToken(s, func() (struct{}, error) { return struct{}{}, s.fetchCommitOnce(ctx, h) })
	return err
}

func (s *gitStore) fetchCommitOnce(ctx context.Context, h plumbing.Hash) error {
	sess, adv, done, err := s.uploadPack(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fetching commit %s: %w", h, err)
	}
	defer done()
	st := s.r.repo.Storer
	req := packp.NewUploadPackRequestFromCapabilities(adv.Capabilities)
	req.Wants = []plumbing.Hash{h}
	req.Depth = packp.DepthCommits(1)
	if err := req.Capabilities.Set(capability.Shallow); err != nil {
		return err
	}
	if adv.Capabilities.Supports(capability.NoProgress) {
		if err := req.Capabilities.Set(capability.NoProgress); err != nil {
			return err
		}
	}
	if servesPartialClones(adv.Capabilities) {
		req.Filter = packp.FilterBlobNone()
		if err := req.Capabilities.Set(capability.Filter); err != nil {
			return err
		}
	}
	if req.Shallows, err = st.Shallow(); err != nil {
		return err
	}
	err = s.receivePack(ctx, sess, req)
	if err != nil && strings.Contains(err.Error(), "not our ref") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fetching commit %s: %w", h, err)
	}
	return nil
}

// folderTree is the hash of the tree at dir ("" for root itself) under root; the zero hash when
// root is zero (an empty repository) or dir is not a folder there.
func folderTree(st storer.EncodedObjectStorer, root plumbing.Hash, dir string) (plumbing.Hash, error) {
	h := root
	if h.IsZero() || dir == "" {
		return h, nil
	}
	for _, name := range strings.Split(dir, "/") {
		t, err := object.GetTree(st, h)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("reading tree %s: %w", h, err)
		}
		h = plumbing.ZeroHash
		for _, e := range t.Entries {
			if e.Name == name && e.Mode == filemode.Dir {
				h = e.Hash
				break
			}
		}
		if h.IsZero() {
			return h, nil // absent, or a file and not a folder
		}
	}
	return h, nil
}
