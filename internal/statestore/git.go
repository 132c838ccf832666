package statestore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The git backend keeps one shallow, single-branch clone per repository and branch in memory and
// edits tree objects directly, without a worktree: an operation costs the number of files in the
// repository, never their size, and nothing touches the disk.

// Operation names for Error.Op.
const (
	opCheck = "check"
	opWrite = "write"
	opRead  = "read"
	opList  = "list"
)

// defaultCommitMessage is used when a Change carries no message: git accepts an empty one, but
// nobody reading the history could tell what it was.
const defaultCommitMessage = "Update from: terraform-provider-kratix"

// gitRepo is one clone, shared by every store of the process that writes to the same repository
// and branch, whatever credentials each store uses.
//
// Every field below sem is guarded by it: one operation at a time, so that concurrent Terraform
// resources take turns instead of racing each other's pushes.
type gitRepo struct {
	// sem is a mutex that a cancelled context can stop waiting for: a sync.Mutex would keep a
	// cancelled Terraform operation queued behind a slow push.
	sem chan struct{}

	repo *git.Repository // nil until the first operation
	// tip is the remote branch's commit after the last fetch or push; zero while the repository
	// is empty.
	tip plumbing.Hash
	// md5s caches the MD5 of blobs already read: drift detection asks for the same files on
	// every refresh, and their content rarely changes.
	md5s map[plumbing.Hash]string
	// filesTree and files cache the flattened listing of the last tree read. Treat files as
	// read-only; Apply edits a copy.
	filesTree plumbing.Hash
	files     map[string]treeFile
	// lostRaces counts pushes refused because another writer pushed first.
	lostRaces int
	// pushes counts the pushes tried, each carrying one commit per change of its batch.
	pushes int

	// syncs numbers the fetches and pushes as they start; it is atomic because a read takes its
	// number before waiting for sem. fresh is the number of the last one that brought tip from
	// the remote (a fetch, or a push that landed: the server then held our commit at its tip),
	// and freshCfg the configuration of the store that made it; fresh is zero until one has.
	// A read that took number n may use tip without fetching once fresh > n: the remote held tip
	// at a moment after the read was asked for (see withTip).
	syncs    atomic.Uint64
	fresh    uint64
	freshCfg GitConfig

	// qmu guards queue and the taken flag of its changes; it is held only briefly, never across
	// I/O, and may be taken with or without sem.
	qmu   sync.Mutex
	queue []*pendingChange // Applies waiting for the repository, in arrival order
}

func newGitRepo() *gitRepo {
	return &gitRepo{sem: make(chan struct{}, 1), md5s: map[plumbing.Hash]string{}}
}

// lock takes the repository for one operation, or gives up when ctx ends first.
func (r *gitRepo) lock(ctx context.Context) error {
	select {
	case r.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for another operation on the same repository: %w", ctx.Err())
	}
}

func (r *gitRepo) unlock() { <-r.sem }

// gitStore is one configured view of a gitRepo: its own URL spelling, credentials and author.
type gitStore struct {
	r    *gitRepo
	cfg  GitConfig
	auth transport.AuthMethod
	// authErr is a credentials problem found while building auth (no known_hosts, a key that
	// does not parse). It is reported by every operation rather than by Pool.Git, so that
	// building a store never fails during plan.
	authErr error
	// signer signs every commit the store makes; nil when the store does not sign. signErr is
	// a signing key that cannot be used, reported by every write like authErr.
	signer  CommitSigner
	signErr error
	// app mints the tokens of the store's GitHub App; nil when it has none.
	app  *appTokenSource
	desc string
}

var _ Store = (*gitStore)(nil)

// Git returns the store for one branch of a repository. Stores for the same repository and
// branch share one clone, so their operations are serialised; each uses its own credentials.
func (p *Pool) Git(cfg GitConfig) (Store, error) {
	if cfg.Branch == "" {
		cfg.Branch = "main"
	}
	if cfg.AuthorName == "" {
		cfg.AuthorName = "kratix"
	}
	s := &gitStore{cfg: cfg, desc: fmt.Sprintf("repository %s (branch %s)", RedactURL(cfg.URL), cfg.Branch)}
	s.auth, s.authErr = gitAuth(cfg)
	s.signer, s.signErr = gitSigner(cfg)
	if s.authErr == nil && cfg.GitHubApp.Set() {
		s.app, s.authErr = appTokenSourceFor(cfg.GitHubApp, cfg.CACertificate)
	}

	key := repoKey(cfg.URL) + " " + cfg.Branch
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.repos[key]
	if !ok {
		r = newGitRepo()
		p.repos[key] = r
	}
	s.r = r
	return s, nil
}

func (s *gitStore) Describe() string { return s.desc }

// Apply makes the change one commit on the branch, or nothing when it changes nothing.
//
// Applies to the same repository and branch go out as a group commit: while one push is in
// flight, the others queue; the next to take the repository makes one commit per queued change,
// in queue order, each on top of the previous, and pushes them all at once. Each change keeps
// its own commit, message and author, and its own Result or error.
func (s *gitStore) Apply(ctx context.Context, change Change) (_ Result, err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if err := checkChangePaths(change); err != nil {
		return Result{}, s.fail(opWrite, &Error{Kind: KindConfig, Err: err})
	}
	if s.signErr != nil {
		return Result{}, s.fail(opWrite, s.signErr)
	}
	p := &pendingChange{s: s, ctx: ctx, change: change, done: make(chan struct{})}
	r := s.r
	r.enqueue(p)
	select {
	case <-p.done:
	case r.sem <- struct{}{}:
		if batch := r.takeBatch(p); batch != nil {
			s.applyBatch(ctx, batch)
		}
		r.unlock()
		<-p.done // resolved by this batch, or by an earlier one before it let the repository go
	case <-ctx.Done():
		if r.withdraw(p) {
			return Result{}, s.fail(opWrite,
				fmt.Errorf("waiting for another operation on the same repository: %w", ctx.Err()))
		}
		<-p.done // already taken into a batch: its leader resolves it
	}
	return p.res, p.err
}

// pendingChange is one Apply waiting in its repository's queue, or in the batch of the Apply
// that took it.
type pendingChange struct {
	s      *gitStore
	ctx    context.Context
	change Change
	// taken is set, under gitRepo.qmu, when a batch takes the change off the queue.
	taken bool
	done  chan struct{} // closed once res and err are set
	res   Result
	err   error

	commit plumbing.Hash // the change's commit in the current attempt; zero for none
}

func (p *pendingChange) resolve(res Result, err error) {
	p.res, p.err = res, err
	close(p.done)
}

// sameTransport reports whether two stores reach the remote the same way (URL and credentials),
// so that one can push the other's commits: a batch never lends a store's credentials to
// another store's change. Author and signing key are the commit's, not the transport's: each
// change of a batch is committed, and signed, by its own store.
func sameTransport(a, b GitConfig) bool {
	a.AuthorName, a.AuthorEmail, b.AuthorName, b.AuthorEmail = "", "", "", ""
	a.SigningFormat, a.SigningKey, a.SigningPassphrase = "", "", ""
	b.SigningFormat, b.SigningKey, b.SigningPassphrase = "", "", ""
	return a == b
}

func (r *gitRepo) enqueue(p *pendingChange) {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	r.queue = append(r.queue, p)
}

// withdraw takes p off the queue, unless a batch took it first.
func (r *gitRepo) withdraw(p *pendingChange) bool {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if p.taken {
		return false
	}
	r.queue = slices.DeleteFunc(r.queue, func(q *pendingChange) bool { return q == p })
	return true
}

// takeBatch takes lead, and every queued change that its store can push, off the queue, in queue
// order; nil when an earlier batch already took lead. r.sem must be held.
func (r *gitRepo) takeBatch(lead *pendingChange) []*pendingChange {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if lead.taken {
		return nil
	}
	var batch, rest []*pendingChange
	for _, q := range r.queue {
		if q == lead || sameTransport(q.s.cfg, lead.s.cfg) {
			q.taken = true
			batch = append(batch, q)
		} else {
			rest = append(rest, q)
		}
	}
	r.queue = rest
	return batch
}

// batchContext bounds the fetches and pushes of a batch: it ends when every change's context
// has ended, at the latest of their deadlines, so that one change's deadline does not fail the
// others. It keeps the values of ctx (the leader's), for logging.
func batchContext(ctx context.Context, batch []*pendingChange) (context.Context, context.CancelFunc) {
	var latest time.Time
	bounded := true
	for _, p := range batch {
		d, ok := p.ctx.Deadline()
		if !ok {
			bounded = false
			break
		}
		if d.After(latest) {
			latest = d
		}
	}
	var cancel context.CancelFunc
	bctx := context.WithoutCancel(ctx)
	if bounded {
		bctx, cancel = context.WithDeadline(bctx, latest)
	} else {
		bctx, cancel = context.WithCancel(bctx)
	}
	var left atomic.Int64
	left.Store(int64(len(batch)))
	stops := make([]func() bool, 0, len(batch))
	for _, p := range batch {
		stops = append(stops, context.AfterFunc(p.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		}))
	}
	return bctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// applyBatch commits each change of the batch on the remote tip, one commit per change on top
// of the previous one, and pushes them all at once. A push that loses a race with another writer
// is retried until the deadline (see retrier): every change is applied again to what the other
// writer pushed, never forced over it. A change that fails on its own (a path that is both a file
// and a folder, say) or whose context ends before it is pushed leaves the batch alone; a failed
// fetch or push fails every change still in it. Every change of the batch is resolved on return.
// r.sem must be held.
//
// The first attempt skips the fetch when this process already knows the tip (from its last fetch
// or push, with this store's transport): the push only moves the branch if it is still at that
// tip (see push), so a branch that moved meanwhile costs one refused push, then the fetch, and is
// no lost race. Nothing is concluded from a tip before a push proves it: a change that fails or
// changes nothing on it makes the batch fetch first.
func (s *gitStore) applyBatch(ctx context.Context, batch []*pendingChange) {
	bctx, cancel := batchContext(ctx, batch)
	defer cancel()
	var winners raceWinners
	rt := newRetrier(bctx)
	rt.winners = &winners
	var lost error
	var base plumbing.Hash // the tip the refused commits were made on
	optimistic := s.authErr == nil && !s.r.tip.IsZero() && s.r.knows(0, s.cfg)
	failAll := func(err error) {
		for _, p := range batch {
			p.resolve(Result{}, afterRaces(rt, p.s.fail(opWrite, err)))
		}
	}
	for {
		batch = slices.DeleteFunc(batch, func(p *pendingChange) bool {
			if err := p.ctx.Err(); err != nil {
				p.resolve(Result{}, afterRaces(rt, p.s.fail(opWrite, err)))
				return true
			}
			return false
		})
		if len(batch) == 0 {
			return
		}
		if !optimistic {
			if err := s.fetch(bctx); err != nil {
				failAll(err)
				return
			}
			if rt.lost > 0 && s.r.tip != base {
				winners.add(s.r.repo.Storer, s.r.tip)
			}
		}
		base = s.r.tip
		tip, files, err := s.commitBatch(bctx, rt, &batch, optimistic)
		if errors.Is(err, errUnproven) {
			optimistic = false
			continue
		}
		if err != nil {
			failAll(err)
			return
		}
		if tip == base {
			return // nothing changed: no commit, no push
		}
		n := s.r.syncs.Add(1)
		err = s.push(bctx, base, tip)
		s.r.pushes++
		if err == nil {
			s.r.fresh, s.r.freshCfg = n, s.cfg
			s.r.filesTree, s.r.files = files.tree, files.files
			for _, p := range batch {
				p.res.Revision = p.commit.String()
				p.resolve(p.res, nil)
			}
			return
		}
		if !errors.Is(err, errBranchMoved) {
			failAll(err)
			return
		}
		if optimistic {
			tflog.Debug(ctx, "The branch moved since this process last saw it; fetching it and committing again",
				map[string]any{"store": s.desc, "changes": len(batch)})
			optimistic = false
			continue
		}
		lost = err
		s.r.lostRaces++
		tflog.Debug(ctx, "Another writer pushed first; applying the changes again on the new tip",
			map[string]any{"store": s.desc, "lost": rt.lost + 1, "changes": len(batch)})
		again, err := rt.lostRace(bctx)
		if err != nil {
			failAll(err)
			return
		}
		if !again {
			conflict := &Error{Kind: KindConflict,
				Err: fmt.Errorf("%s, and the operation's time is up; last refusal: %w", rt.summary(), lost)}
			for _, p := range batch {
				p.resolve(Result{}, p.s.fail(opWrite, conflict)) // the summary is already there
			}
			return
		}
	}
}

// flatTree is a tree and its files by path.
type flatTree struct {
	tree  plumbing.Hash
	files map[string]treeFile
}

// errUnproven stops an optimistic attempt (see applyBatch) that cannot conclude on a tip that no
// push has proven yet.
var errUnproven = errors.New("a change failed or changed nothing on a tip not yet proven")

// commitBatch makes one commit per change of the batch, each on top of the previous one,
// starting from the tip. A change that changes nothing, or that fails, is resolved and leaves
// the batch; the others get their commit and their Result (without Revision) set. It returns the
// last commit (the tip when there is none) and its files. An error is one of the tip itself,
// which fails every change. When optimistic, the tip was not fetched for this batch: a change
// that would be resolved here returns errUnproven instead, and no change is resolved.
func (s *gitStore) commitBatch(ctx context.Context, rt *retrier, batch *[]*pendingChange, optimistic bool) (plumbing.Hash, flatTree, error) {
	parent := s.r.tip
	tree, files, err := s.r.tipFiles()
	if err != nil {
		return plumbing.ZeroHash, flatTree{}, err
	}
	head := flatTree{tree: tree, files: files}
	if err := s.fetchAggregated(ctx, files, *batch); err != nil {
		return plumbing.ZeroHash, flatTree{}, err
	}
	if err := s.fetchBlobs(ctx, guardedBlobs(files, *batch)); err != nil {
		return plumbing.ZeroHash, flatTree{}, err
	}
	if optimistic {
		for _, p := range *batch {
			res, next, commit, err := p.s.commitOn(parent, head, p.change)
			if err != nil || commit.IsZero() {
				return plumbing.ZeroHash, flatTree{}, errUnproven
			}
			p.res, p.commit = res, commit
			parent, head = commit, next
		}
		return parent, head, nil
	}
	*batch = slices.DeleteFunc(*batch, func(p *pendingChange) bool {
		res, next, commit, err := p.s.commitOn(parent, head, p.change)
		switch {
		case err != nil:
			p.resolve(Result{}, afterRaces(rt, p.s.fail(opWrite, err)))
			return true
		case commit.IsZero():
			p.resolve(Result{}, nil)
			return true
		}
		p.res, p.commit = res, commit
		parent, head = commit, next
		return false
	})
	return parent, head, nil
}

// commitOn applies the change to the files of commit parent (the zero hash for an empty
// repository) and stores a commit for the result. The zero hash means that the change would not
// alter the tree.
func (s *gitStore) commitOn(parent plumbing.Hash, base flatTree, change Change) (Result, flatTree, plumbing.Hash, error) {
	st := s.r.repo.Storer
	if err := s.checkGuards(base.files, change.Guards); err != nil {
		return Result{}, flatTree{}, plumbing.ZeroHash, err
	}
	files := maps.Clone(base.files)
	res, err := applyToFiles(st, files, change)
	if err != nil {
		return Result{}, flatTree{}, plumbing.ZeroHash, err
	}
	// Stopping here also keeps an empty repository empty when a change only deletes, and never
	// rewrites a tree that another tool encoded differently when none of its files changed.
	if !res.Changed() {
		return Result{}, flatTree{}, plumbing.ZeroHash, nil
	}
	tree, err := writeTree(st, files)
	if err != nil {
		return Result{}, flatTree{}, plumbing.ZeroHash, err
	}
	if tree == base.tree {
		return Result{}, flatTree{}, plumbing.ZeroHash, nil
	}
	h, err := s.storeCommit(parent, tree, change.Message)
	if err != nil {
		return Result{}, flatTree{}, plumbing.ZeroHash, err
	}
	return res, flatTree{tree: tree, files: files}, h, nil
}

// raceWinners are the commits that moved the branch under an operation's pushes, as its
// fetches found them at the tip: who kept it from landing.
type raceWinners struct {
	authors []string // "name <email>", in the order first seen
	commits map[string]int
	last    map[string]string // the subject of each author's last commit seen
}

func (w *raceWinners) add(st storer.EncodedObjectStorer, tip plumbing.Hash) {
	c, err := object.GetCommit(st, tip)
	if err != nil {
		return // only the error message misses it
	}
	who := fmt.Sprintf("%s <%s>", c.Author.Name, c.Author.Email)
	if w.commits == nil {
		w.commits, w.last = map[string]int{}, map[string]string{}
	}
	if w.commits[who] == 0 {
		w.authors = append(w.authors, who)
	}
	w.commits[who]++
	subject, _, _ := strings.Cut(c.Message, "\n")
	w.last[who] = subject
}

// String is "; the branch moved under commits by a <a@x> 'Update from: p' (and 2 more), ...",
// or "" when no fetch saw another writer's commit.
func (w *raceWinners) String() string {
	const shown = 4
	if len(w.authors) == 0 {
		return ""
	}
	var parts []string
	for i, who := range w.authors {
		if i == shown {
			parts = append(parts, fmt.Sprintf("%d other authors", len(w.authors)-shown))
			break
		}
		p := fmt.Sprintf("%s %q", who, w.last[who])
		if n := w.commits[who]; n > 1 {
			p += fmt.Sprintf(" (and %d more)", n-1)
		}
		parts = append(parts, p)
	}
	return "; the branch moved under commits by " + strings.Join(parts, ", ")
}

func (s *gitStore) storeCommit(parent, tree plumbing.Hash, message string) (plumbing.Hash, error) {
	if message == "" {
		message = defaultCommitMessage
	}
	sig := object.Signature{Name: s.cfg.AuthorName, Email: s.cfg.AuthorEmail, When: time.Now()}
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	if s.signer != nil {
		if err := signCommit(c, s.signer); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	st := s.r.repo.Storer
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encoding the commit: %w", err)
	}
	return st.SetEncodedObject(obj)
}

// tipFiles lists the files of the tip's tree by path. r.sem must be held.
func (r *gitRepo) tipFiles() (plumbing.Hash, map[string]treeFile, error) {
	if r.tip.IsZero() {
		return plumbing.ZeroHash, map[string]treeFile{}, nil
	}
	c, err := object.GetCommit(r.repo.Storer, r.tip)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("reading the tip commit %s: %w", r.tip, err)
	}
	if r.files != nil && c.TreeHash == r.filesTree {
		return c.TreeHash, r.files, nil
	}
	files, err := flattenTree(r.repo.Storer, c.TreeHash)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	r.filesTree, r.files = c.TreeHash, files
	return c.TreeHash, files, nil
}

func (s *gitStore) Hashes(ctx context.Context, paths []string) (map[string]string, error) {
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, s.fail(opRead, &Error{Kind: KindConfig, Err: err})
		}
	}
	out := map[string]string{}
	err := s.withTip(ctx, opRead, func(files map[string]treeFile) error {
		if err := s.fetchContents(ctx, files, paths); err != nil {
			return err
		}
		for _, p := range paths {
			if f, ok := files[p]; ok && isBlob(f.mode) {
				sum, err := s.r.blobMD5(f.hash)
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
	if err := checkListPrefix(prefix); err != nil {
		return nil, s.fail(opList, &Error{Kind: KindConfig, Err: err})
	}
	out := map[string]string{}
	err := s.withTip(ctx, opList, func(files map[string]treeFile) error {
		var paths []string
		for p := range files {
			if strings.HasPrefix(p, prefix) {
				paths = append(paths, p)
			}
		}
		if err := s.fetchContents(ctx, files, paths); err != nil {
			return err
		}
		for _, p := range paths {
			if f := files[p]; isBlob(f.mode) {
				sum, err := s.r.blobMD5(f.hash)
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
		return nil, s.fail(opRead, &Error{Kind: KindConfig, Err: err})
	}
	var content []byte
	err := s.withTip(ctx, opRead, func(files map[string]treeFile) error {
		f, ok := files[p]
		if !ok || !isBlob(f.mode) {
			return &Error{Kind: KindNotFound, Err: fmt.Errorf("%s does not exist", p)}
		}
		if err := s.fetchContents(ctx, files, []string{p}); err != nil {
			return err
		}
		var err error
		content, err = readBlob(s.r.repo.Storer, f.hash)
		return err
	})
	return content, err
}

// withTip runs fn on the files of the remote tip as of a moment after the call: the tip of a
// fetch or a landed push that started after it, when one did while it waited for the
// repository, else of its own fetch. Reads queued behind one operation thus share the next
// fetch or push instead of fetching one after the other, and none misses an edit made before
// it was asked.
func (s *gitStore) withTip(ctx context.Context, op string, fn func(map[string]treeFile) error) error {
	return s.withTipTree(ctx, op, func(_ plumbing.Hash, files map[string]treeFile) error { return fn(files) })
}

// withTipTree is withTip for callers that also need the tip's tree (the zero hash while the
// repository is empty).
func (s *gitStore) withTipTree(ctx context.Context, op string, fn func(tree plumbing.Hash, files map[string]treeFile) error) (err error) {
	defer func() { err = outOfTime(ctx, err) }()
	if s.authErr != nil {
		return s.fail(op, s.authErr)
	}
	asked := s.r.syncs.Load()
	if err := s.r.lock(ctx); err != nil {
		return s.fail(op, err)
	}
	defer s.r.unlock()
	if !s.r.knows(asked, s.cfg) {
		if err := s.fetch(ctx); err != nil {
			return s.fail(op, err)
		}
	}
	tree, files, err := s.r.tipFiles()
	if err != nil {
		return s.fail(op, err)
	}
	if err := fn(tree, files); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// fetchContents fetches the blobs of the files at paths that the clone lacks and whose MD5 is
// not known yet (see fetchBlobs). r.sem must be held.
func (s *gitStore) fetchContents(ctx context.Context, files map[string]treeFile, paths []string) error {
	var hashes []plumbing.Hash
	for _, p := range paths {
		if f, ok := files[p]; ok && isBlob(f.mode) {
			if _, known := s.r.md5s[f.hash]; !known {
				hashes = append(hashes, f.hash)
			}
		}
	}
	return s.fetchBlobs(ctx, hashes)
}

// fetchAggregated fetches the blobs that the aggregates of the batch's changes read: each
// aggregate file and every contribution under its folder. r.sem must be held.
func (s *gitStore) fetchAggregated(ctx context.Context, files map[string]treeFile, batch []*pendingChange) error {
	var hashes []plumbing.Hash
	for _, p := range batch {
		for _, a := range p.change.Aggregates {
			for path, f := range files {
				if (path == a.File || strings.HasPrefix(path, a.Dir)) && isBlob(f.mode) {
					hashes = append(hashes, f.hash)
				}
			}
		}
	}
	return s.fetchBlobs(ctx, hashes)
}

// fetch is sync, numbered for the reads that may share it (see gitRepo.syncs). r.sem must be
// held.
func (s *gitStore) fetch(ctx context.Context) error {
	n := s.r.syncs.Add(1)
	if err := s.sync(ctx); err != nil {
		return err
	}
	s.r.fresh, s.r.freshCfg = n, s.cfg
	return nil
}

// knows reports whether tip came from the remote, through a fetch or a push that started after
// sync number n, made by a store that reaches the remote the way cfg does: a store never reads
// what another store's credentials fetched. r.sem must be held.
func (r *gitRepo) knows(n uint64, cfg GitConfig) bool {
	return r.fresh > n && sameTransport(r.freshCfg, cfg)
}

// blobMD5 is the MD5 of a blob's content, computed once per blob. r.sem must be held.
func (r *gitRepo) blobMD5(h plumbing.Hash) (string, error) {
	if sum, ok := r.md5s[h]; ok {
		return sum, nil
	}
	content, err := readBlob(r.repo.Storer, h)
	if err != nil {
		return "", err
	}
	sum := md5Hex(content)
	r.md5s[h] = sum
	return sum, nil
}

// isBlob tells files from submodule entries, which name a commit of another repository.
func isBlob(m filemode.FileMode) bool { return m != filemode.Submodule }

// checkListPrefix accepts "" (everything) and any relative prefix that cannot leave the root.
func checkListPrefix(prefix string) error {
	if strings.HasPrefix(prefix, "/") {
		return fmt.Errorf("prefix %q is absolute; paths are relative to the repository root", prefix)
	}
	for _, seg := range strings.Split(prefix, "/") {
		if seg == ".." {
			return fmt.Errorf("prefix %q leaves the repository root", prefix)
		}
	}
	return nil
}
