package statestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// pushAttempts bounds how often one operation is re-applied on a new tip when other writers keep
// pushing first.
const pushAttempts = 6

// gitRepo is one shallow, single-branch clone in memory, shared by every store of the process
// that writes to the same repository and branch. Its mutex serialises every operation on it, so
// that concurrent Terraform resources take turns instead of racing each other's pushes.
type gitRepo struct {
	mu     sync.Mutex
	url    string
	branch string
	repo   *git.Repository // nil until the first operation
	tip    plumbing.Hash   // the remote branch's tip after the last fetch; zero when the branch does not exist yet
	md5s   map[plumbing.Hash]string
}

type gitStore struct {
	r    *gitRepo
	cfg  GitConfig
	auth transport.AuthMethod
	// authErr is a credentials problem found while building auth (no known_hosts, a key that
	// does not parse); it is reported by the first operation, not when the store is built, so
	// that building a store never fails during plan.
	authErr error
	desc    string
}

var _ Store = (*gitStore)(nil)

// Git returns the store for one branch of a repository.
func (p *Pool) Git(cfg GitConfig) (Store, error) {
	if cfg.Branch == "" {
		cfg.Branch = "main"
	}
	if cfg.AuthorName == "" {
		cfg.AuthorName = "kratix"
	}
	s := &gitStore{cfg: cfg, desc: fmt.Sprintf("repository %s (branch %s)", redactURL(cfg.URL), cfg.Branch)}
	s.auth, s.authErr = gitAuth(cfg)
	key := normalizeURL(cfg.URL) + "\x00" + cfg.Branch
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.repos[key]
	if !ok {
		r = &gitRepo{url: cfg.URL, branch: cfg.Branch, md5s: map[plumbing.Hash]string{}}
		p.repos[key] = r
	}
	s.r = r
	return s, nil
}

func (s *gitStore) Describe() string { return s.desc }

func (s *gitStore) branchRef() plumbing.ReferenceName {
	return plumbing.NewBranchReferenceName(s.cfg.Branch)
}

func (s *gitStore) remoteRef() plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName("origin", s.cfg.Branch)
}

func (s *gitStore) endpoint() (*transport.Endpoint, error) {
	ep, err := transport.NewEndpoint(s.cfg.URL)
	if err != nil {
		return nil, err
	}
	if s.cfg.CACertificate != "" {
		ep.CaBundle = []byte(s.cfg.CACertificate)
	}
	return ep, nil
}

// Check authenticates for a push and checks that the branch exists, without pushing anything:
// it opens a receive-pack session and reads the references the server advertises. An empty
// repository passes: the first write creates the branch.
func (s *gitStore) Check(ctx context.Context) error {
	if s.authErr != nil {
		return s.fail("check", s.authErr)
	}
	ep, err := s.endpoint()
	if err != nil {
		return s.fail("check", &Error{Kind: KindConfig, Err: err})
	}
	cli, err := clientFor(ep)
	if err != nil {
		return s.fail("check", &Error{Kind: KindConfig, Err: err})
	}
	sess, err := cli.NewReceivePackSession(ep, s.auth)
	if err != nil {
		return s.fail("check", err)
	}
	defer func() { _ = sess.Close() }()
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil
	}
	if err != nil {
		return s.fail("check", err)
	}
	if adv.IsEmpty() {
		return nil
	}
	refs, err := adv.AllReferences()
	if err != nil {
		return s.fail("check", err)
	}
	if _, ok := refs[s.branchRef()]; !ok {
		return s.fail("check", &Error{Kind: KindMissingBranch, Err: fmt.Errorf("the repository has no branch %q", s.cfg.Branch)})
	}
	return nil
}

// sync brings the clone to the remote tip: a shallow clone the first time, a shallow fetch and
// a reset afterwards, so that edits made elsewhere are always the base of the next write.
// r.mu must be held.
func (s *gitStore) sync(ctx context.Context) error {
	if s.authErr != nil {
		return s.authErr
	}
	r := s.r
	ep, err := s.endpoint()
	if err != nil {
		return &Error{Kind: KindConfig, Err: err}
	}
	if r.repo == nil {
		repo, err := git.Init(memory.NewStorage(), nil)
		if err != nil {
			return err
		}
		if _, err := repo.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{s.cfg.URL}}); err != nil {
			return err
		}
		r.repo = repo
	}
	spec := gitconfig.RefSpec(fmt.Sprintf("+%s:%s", s.branchRef(), s.remoteRef()))
	err = r.repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RefSpecs:   []gitconfig.RefSpec{spec},
		Depth:      1,
		Auth:       s.auth,
		CABundle:   ep.CaBundle,
		Tags:       git.NoTags,
		Force:      true,
	})
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		r.tip = plumbing.ZeroHash
		return nil
	case isNoMatchingRef(err):
		return s.missingBranch(ctx)
	default:
		return err
	}
	ref, err := r.repo.Reference(s.remoteRef(), true)
	if err != nil {
		return fmt.Errorf("reading the fetched branch: %w", err)
	}
	r.tip = ref.Hash()
	return nil
}

// missingBranch tells an empty repository (the first write creates the branch) from one that
// lacks the branch (an error).
func (s *gitStore) missingBranch(ctx context.Context) error {
	rem, err := s.r.repo.Remote("origin")
	if err != nil {
		return err
	}
	ep, _ := s.endpoint()
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: s.auth, CABundle: ep.CaBundle})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) || err == nil && !hasBranches(refs) {
		s.r.tip = plumbing.ZeroHash
		return nil
	}
	if err != nil {
		return err
	}
	return &Error{Kind: KindMissingBranch, Err: fmt.Errorf("the repository has no branch %q", s.cfg.Branch)}
}

func hasBranches(refs []*plumbing.Reference) bool {
	for _, r := range refs {
		if r.Name().IsBranch() {
			return true
		}
	}
	return false
}

func isNoMatchingRef(err error) bool {
	var nm git.NoMatchingRefSpecError
	return errors.As(err, &nm) || strings.Contains(err.Error(), "couldn't find remote ref")
}

// Apply makes the change one commit on the branch, or nothing when it changes nothing. A push
// that loses a race with another writer is retried on the new tip: the change is re-applied to
// what the other writer pushed, never forced over it.
func (s *gitStore) Apply(ctx context.Context, change Change) (Result, error) {
	if err := checkChangePaths(change); err != nil {
		return Result{}, s.fail("write", &Error{Kind: KindConfig, Err: err})
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	var lastErr error
	for attempt := 0; attempt < pushAttempts; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return Result{}, s.fail("write", err)
			}
		}
		if err := s.sync(ctx); err != nil {
			return Result{}, s.fail("write", err)
		}
		res, commit, err := s.commit(change)
		if err != nil {
			return Result{}, s.fail("write", err)
		}
		if commit == plumbing.ZeroHash {
			return Result{}, nil // nothing changed: no commit, no push
		}
		err = s.push(ctx, commit)
		if err == nil {
			s.r.tip = commit
			res.Revision = commit.String()
			return res, nil
		}
		if !isRaceLost(err) {
			return Result{}, s.fail("write", err)
		}
		lastErr = err
	}
	return Result{}, s.fail("write", &Error{Kind: KindConflict,
		Err: fmt.Errorf("the branch moved on %d times in a row while pushing: %w", pushAttempts, lastErr)})
}

// commit builds the new tree from the tip's and stores a commit for it. The zero hash means the
// tree did not change.
func (s *gitStore) commit(change Change) (Result, plumbing.Hash, error) {
	st := s.r.repo.Storer
	files := map[string]treeFile{}
	var baseTree plumbing.Hash
	if !s.r.tip.IsZero() {
		c, err := object.GetCommit(st, s.r.tip)
		if err != nil {
			return Result{}, plumbing.ZeroHash, fmt.Errorf("reading the tip commit: %w", err)
		}
		baseTree = c.TreeHash
		if files, err = flattenTree(st, c.TreeHash); err != nil {
			return Result{}, plumbing.ZeroHash, err
		}
	}
	res, err := applyToFiles(st, files, change)
	if err != nil {
		return Result{}, plumbing.ZeroHash, err
	}
	tree, err := writeTree(st, files)
	if err != nil {
		return Result{}, plumbing.ZeroHash, err
	}
	if tree == baseTree {
		return Result{}, plumbing.ZeroHash, nil
	}
	sig := object.Signature{Name: s.cfg.AuthorName, Email: s.cfg.AuthorEmail, When: time.Now()}
	c := &object.Commit{Author: sig, Committer: sig, Message: change.Message, TreeHash: tree}
	if !s.r.tip.IsZero() {
		c.ParentHashes = []plumbing.Hash{s.r.tip}
	}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return Result{}, plumbing.ZeroHash, err
	}
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		return Result{}, plumbing.ZeroHash, err
	}
	return res, h, nil
}

func (s *gitStore) push(ctx context.Context, commit plumbing.Hash) error {
	if err := s.r.repo.Storer.SetReference(plumbing.NewHashReference(s.branchRef(), commit)); err != nil {
		return err
	}
	ep, err := s.endpoint()
	if err != nil {
		return err
	}
	var progress bytes.Buffer
	err = s.r.repo.PushContext(ctx, &git.PushOptions{
		RemoteName: "origin",
		RefSpecs:   []gitconfig.RefSpec{gitconfig.RefSpec(fmt.Sprintf("%s:%s", s.branchRef(), s.branchRef()))},
		Auth:       s.auth,
		CABundle:   ep.CaBundle,
		Progress:   &progress,
	})
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// go-git checks that the push is a fast-forward by looking the remote's current tip up
		// locally; a tip it has never fetched means another writer pushed first.
		return fmt.Errorf("%w: the remote branch moved", git.ErrForceNeeded)
	}
	// Hooks explain themselves on the side band ("remote: ..."); keep their words.
	if msg := remoteMessages(progress.String()); msg != "" && !isRaceLost(err) {
		return &Error{Kind: KindRejected, Err: fmt.Errorf("%w; the server said: %s", err, msg)}
	}
	return err
}

func remoteMessages(progress string) string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(progress, "\r", "\n"), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "remote:"))
		if l != "" && !strings.HasPrefix(l, "Resolving deltas") && !strings.HasPrefix(l, "Counting objects") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " / ")
}

// isRaceLost reports a push refused because the branch moved since it was fetched.
func isRaceLost(err error) bool {
	if errors.Is(err, git.ErrNonFastForwardUpdate) || errors.Is(err, git.ErrForceNeeded) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "stale info", "failed to lock"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(50<<attempt)*time.Millisecond + time.Duration(rand.IntN(50))*time.Millisecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (s *gitStore) Hashes(ctx context.Context, paths []string) (map[string]string, error) {
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, s.fail("read", &Error{Kind: KindConfig, Err: err})
		}
	}
	out := map[string]string{}
	err := s.withTree(ctx, func(files map[string]treeFile) error {
		for _, p := range paths {
			if f, ok := files[p]; ok {
				sum, err := s.blobMD5(f.hash)
				if err != nil {
					return err
				}
				out[p] = sum
			}
		}
		return nil
	})
	return out, err
}

func (s *gitStore) List(ctx context.Context, prefix string) (map[string]string, error) {
	out := map[string]string{}
	err := s.withTree(ctx, func(files map[string]treeFile) error {
		for p, f := range files {
			if strings.HasPrefix(p, prefix) {
				sum, err := s.blobMD5(f.hash)
				if err != nil {
					return err
				}
				out[p] = sum
			}
		}
		return nil
	})
	return out, err
}

func (s *gitStore) Read(ctx context.Context, p string) ([]byte, error) {
	if err := checkPath(p); err != nil {
		return nil, s.fail("read", &Error{Kind: KindConfig, Err: err})
	}
	var content []byte
	err := s.withTree(ctx, func(files map[string]treeFile) error {
		f, ok := files[p]
		if !ok {
			return &Error{Kind: KindNotFound, Err: fmt.Errorf("%s does not exist", p)}
		}
		var err error
		content, err = readBlob(s.r.repo.Storer, f.hash)
		return err
	})
	return content, err
}

// withTree runs fn on the files of the remote tip, freshly fetched.
func (s *gitStore) withTree(ctx context.Context, fn func(map[string]treeFile) error) error {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if err := s.sync(ctx); err != nil {
		return s.fail("read", err)
	}
	files := map[string]treeFile{}
	if !s.r.tip.IsZero() {
		c, err := object.GetCommit(s.r.repo.Storer, s.r.tip)
		if err != nil {
			return s.fail("read", err)
		}
		if files, err = flattenTree(s.r.repo.Storer, c.TreeHash); err != nil {
			return s.fail("read", err)
		}
	}
	if err := fn(files); err != nil {
		return s.fail("read", err)
	}
	return nil
}

// blobMD5 is the MD5 of a blob's content, cached by blob hash: the same content is hashed once.
func (s *gitStore) blobMD5(h plumbing.Hash) (string, error) {
	if sum, ok := s.r.md5s[h]; ok {
		return sum, nil
	}
	content, err := readBlob(s.r.repo.Storer, h)
	if err != nil {
		return "", err
	}
	sum := md5Hex(content)
	s.r.md5s[h] = sum
	return sum, nil
}

func readBlob(st interface {
	EncodedObject(plumbing.ObjectType, plumbing.Hash) (plumbing.EncodedObject, error)
}, h plumbing.Hash) ([]byte, error) {
	obj, err := st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rd.Close() }()
	return io.ReadAll(rd)
}

// fail wraps err as an *Error of this store, classifying it unless it is already classified.
func (s *gitStore) fail(op string, err error) error {
	var se *Error
	if errors.As(err, &se) {
		if se.Store == "" {
			se.Store, se.Op = s.desc, op
		}
		return se
	}
	return &Error{Store: s.desc, Op: op, Kind: classifyGitError(err), Err: redactErr(err, s.cfg)}
}

func classifyGitError(err error) Kind {
	msg := strings.ToLower(err.Error())
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		strings.Contains(msg, "unable to authenticate"), strings.Contains(msg, "authentication required"),
		strings.Contains(msg, "401"), strings.Contains(msg, "permission denied"):
		return KindAuth
	case strings.Contains(msg, "403"), strings.Contains(msg, "forbidden"):
		return KindAccessDenied
	case strings.Contains(msg, "knownhosts"), strings.Contains(msg, "host key"), strings.Contains(msg, "key mismatch"):
		return KindHostKey
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return KindMissingRepo
	case strings.Contains(msg, "hook declined"), strings.Contains(msg, "pre-receive"), strings.Contains(msg, "remote rejected"):
		return KindRejected
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return KindNetwork
	}
	return classifyTransportError(err)
}

// redactURL drops the credentials a URL may carry, for messages and logs.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil || u.Scheme == "" {
		return raw
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// redactErr removes every secret of the config from an error's text.
func redactErr(err error, cfg GitConfig) error {
	msg := err.Error()
	clean := msg
	for _, secret := range []string{cfg.Password, cfg.SSHPrivateKey} {
		if secret != "" {
			clean = strings.ReplaceAll(clean, secret, "[redacted]")
		}
	}
	if clean == msg {
		return err
	}
	return errors.New(clean)
}

// normalizeURL makes equivalent spellings of one repository share a clone.
func normalizeURL(raw string) string {
	return strings.TrimSuffix(strings.TrimSuffix(redactURL(raw), "/"), ".git")
}
