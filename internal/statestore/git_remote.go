package statestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/storage/memory"
)

// errBranchMoved marks a push refused because the branch moved since it was fetched.
var errBranchMoved = errors.New("the branch moved since it was fetched")

func (s *gitStore) branchRef() plumbing.ReferenceName {
	return plumbing.NewBranchReferenceName(s.cfg.Branch)
}

func (s *gitStore) trackingRef() plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName("origin", s.cfg.Branch)
}

func (s *gitStore) fetchSpec() gitconfig.RefSpec {
	return gitconfig.RefSpec(fmt.Sprintf("+%s:%s", s.branchRef(), s.trackingRef()))
}

// caBundle is the extra CA for HTTPS; nil for other transports and when none is configured.
func (s *gitStore) caBundle() []byte {
	if s.cfg.CACertificate == "" {
		return nil
	}
	return []byte(s.cfg.CACertificate)
}

// open creates the empty in-memory repository the first time; the first fetch fills it.
func (s *gitStore) open() error {
	if s.r.repo != nil {
		return nil
	}
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return fmt.Errorf("creating the in-memory clone: %w", err)
	}
	cfg, err := repo.Config()
	if err != nil {
		return fmt.Errorf("reading the in-memory clone's config: %w", err)
	}
	// go-git looks for deltas among the objects it pushes, which takes about a minute for a
	// hundred 2 MiB manifests on two cores; zlib alone takes seconds. State stores hold few,
	// mostly distinct files, so deltas save little.
	cfg.Pack.Window = 0
	// The fetch refspec also makes a push move the tracking ref, so the next fetch tells the
	// server which commit we already have.
	cfg.Remotes["origin"] = &gitconfig.RemoteConfig{
		Name: "origin", URLs: []string{s.cfg.URL}, Fetch: []gitconfig.RefSpec{s.fetchSpec()},
	}
	if err := repo.SetConfig(cfg); err != nil {
		return fmt.Errorf("configuring the in-memory clone: %w", err)
	}
	s.r.repo = repo
	return nil
}

// sync brings the clone to the remote tip: a shallow fetch of the branch alone (without blobs
// when the server serves partial clones, see git_fetch.go), then a hard reset of the local
// branch, so that edits made elsewhere are always the base of the next write (never a local
// history that diverged, Kratix issue #850). r.sem must be held.
func (s *gitStore) sync(ctx context.Context) error {
	if s.authErr != nil {
		return s.authErr
	}
	if err := s.open(); err != nil {
		return err
	}
	tip, err := s.fetchTip(ctx)
	if err != nil {
		return err
	}
	return s.resetTo(tip)
}

// resetTo points the local branch at the remote tip (or removes it while the repository is
// empty). There is no worktree, so moving the ref is the whole of a hard reset.
func (s *gitStore) resetTo(tip plumbing.Hash) error {
	s.r.tip = tip
	st := s.r.repo.Storer
	if tip.IsZero() {
		for _, name := range []plumbing.ReferenceName{s.branchRef(), s.trackingRef()} {
			if err := st.RemoveReference(name); err != nil {
				return fmt.Errorf("resetting %s: %w", name, err)
			}
		}
		return nil
	}
	if err := st.SetReference(plumbing.NewHashReference(s.branchRef(), tip)); err != nil {
		return fmt.Errorf("resetting %s to %s: %w", s.branchRef(), tip, err)
	}
	return nil
}

func (s *gitStore) missingBranch() error {
	return &Error{Kind: KindMissingBranch, Err: fmt.Errorf("the repository has branches, but not %q", s.cfg.Branch)}
}

// push sends the commit as the new tip of the branch, as a fast-forward only, and only if the
// branch is still at base (the tip the commit was made on; zero for an empty repository). A
// refusal because another writer pushed first wraps errBranchMoved; a refusal by the server's
// own rules is KindRejected with the server's words.
func (s *gitStore) push(ctx context.Context, base, commit plumbing.Hash) error {
	if err := s.r.repo.Storer.SetReference(plumbing.NewHashReference(s.branchRef(), commit)); err != nil {
		return fmt.Errorf("moving %s to the new commit: %w", s.branchRef(), err)
	}
	// A fast-forward is not enough: a branch reset to an older commit would take back what
	// the reset removed.
	var require []gitconfig.RefSpec
	if !base.IsZero() {
		require = []gitconfig.RefSpec{gitconfig.RefSpec(base.String() + ":" + s.branchRef().String())}
	}
	var progress bytes.Buffer
	sshOp, done := sshOperation(ctx, s.cfg.URL)
	err := s.withAuth(ctx, func(auth transport.AuthMethod) error {
		progress.Reset()
		return s.r.repo.PushContext(ctx, &git.PushOptions{
			RemoteName: "origin",
			RemoteURL:  s.cfg.URL,
			RefSpecs:   []gitconfig.RefSpec{gitconfig.RefSpec(fmt.Sprintf("%s:%s", s.branchRef(), s.branchRef()))},
			// go-git checks this against the references the server advertises, before sending.
			RequireRemoteRefs: require,
			Auth:              auth,
			CABundle:          s.caBundle(),
			// Asking for progress makes the server send its hooks' output on the side band.
			Progress:     &progress,
			ProxyOptions: sshOp,
		})
	})
	done()
	switch {
	case err == nil:
		s.r.tip = commit
		return nil
	case isRaceLost(err):
		return fmt.Errorf("%w: %v", errBranchMoved, err)
	case isServerRefusal(err):
		return s.refusal(err, progress.String())
	}
	return fmt.Errorf("pushing to branch %s: %w", s.cfg.Branch, err)
}

// isRaceLost reports a push refused because the branch moved since it was fetched. go-git finds
// most of these itself, before sending anything: it checks that the push is a fast-forward by
// walking our history for the tip the server advertises, and a tip it never fetched (someone
// else's commit) is not found in a shallow clone; it also refuses, from the advertisement, a
// branch no longer at the commit ours was made on (PushOptions.RequireRemoteRefs). The server
// finds the rest, when the other push lands between its advertisement and our update.
func isRaceLost(err error) bool {
	if errors.Is(err, git.ErrNonFastForwardUpdate) || errors.Is(err, git.ErrForceNeeded) ||
		errors.Is(err, plumbing.ErrObjectNotFound) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "failed to lock",
		"cannot lock ref", "stale info", "required to be"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// isServerRefusal reports a ref update that the server refused by its own rules: a hook,
// branch protection, a full disk.
func isServerRefusal(err error) bool {
	msg := err.Error()
	for _, s := range []string{"command error on", "unpack error", "hook declined", "remote rejected"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// refusal is the failure of a push the server refused by its own rules (err, go-git's account
// of the refused ref update), quoting what the server wrote on the side band while refusing it:
// a hook's or a branch protection's reasons, in its own words. The store's credentials are
// hidden before the text is cut to its limits, so that no part of one survives the cut.
func (s *gitStore) refusal(err error, progress string) error {
	msg := err.Error()
	if said := serverMessages(s.hideSecrets(progress)); said != "" {
		msg += "; the server said: " + said
	}
	return &Error{Kind: KindRejected, Err: errors.New(msg)}
}

// A refused push quotes at most the first serverLines lines of the server's message, and at
// most serverBytes bytes of them: enough for a hook's reasons and a link, not a whole banner.
const (
	serverLines = 20
	serverBytes = 2000
)

// serverMessages keeps what the server wrote on the side band (hook output, usually "error: ..."
// lines), without git's own progress chatter, on one line, its lines separated by " / ".
func serverMessages(progress string) string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(progress, "\r", "\n"), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "remote:"))
		if l == "" || isGitProgress(l) {
			continue
		}
		lines = append(lines, l)
	}
	more := len(lines) - serverLines
	lines = lines[:min(len(lines), serverLines)]
	out := strings.Join(lines, " / ")
	if len(out) > serverBytes {
		out = strings.ToValidUTF8(out[:serverBytes], "") + "..."
	}
	if more > 0 {
		out += fmt.Sprintf(" (and %d more lines)", more)
	}
	return out
}

func isGitProgress(line string) bool {
	for _, p := range []string{"Resolving deltas", "Counting objects", "Compressing objects", "Writing objects",
		"Total ", "Enumerating objects", "Unpacking objects"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// Check authenticates for a push and checks that the branch exists, without pushing anything:
// it opens a receive-pack session and reads the references the server advertises. An empty
// repository passes: the first write creates the branch.
func (s *gitStore) Check(ctx context.Context) error {
	if err := s.check(ctx); err != nil {
		return outOfTime(ctx, s.fail(opCheck, err))
	}
	return nil
}

// check also refuses a signing key that cannot sign: the store could not write.
func (s *gitStore) check(ctx context.Context) error {
	if s.signErr != nil {
		return s.signErr
	}
	return s.checkBranch(ctx, true)
}

// checkBranch opens a session, receive-pack for a push or upload-pack for a fetch, reads the
// references the server advertises and closes it without asking for anything: the repository
// must exist, the credentials must be accepted for that session, and the branch must exist
// unless the repository has no branch at all (the first write creates it).
func (s *gitStore) checkBranch(ctx context.Context, push bool) (err error) {
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
	kind, asking := "fetch", "asking for the repository's branches"
	var sess interface {
		AdvertisedReferencesContext(context.Context) (*packp.AdvRefs, error)
		Close() error
	}
	if push {
		kind, asking = "push", "asking for the branches a push may update"
	}
	var adv *packp.AdvRefs
	err = s.withAuth(ctx, func(auth transport.AuthMethod) error {
		if push {
			sess, err = cli.NewReceivePackSession(ep, auth)
		} else {
			sess, err = cli.NewUploadPackSession(ep, auth)
		}
		if err != nil {
			return fmt.Errorf("connecting for a %s: %w", kind, err)
		}
		adv, err = sess.AdvertisedReferencesContext(ctx)
		if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
			_ = sess.Close()
			return fmt.Errorf("%s: %w", asking, err)
		}
		return err
	})
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return err
	}
	defer func() {
		if cerr := sess.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the %s session: %w", kind, cerr)
		}
	}()
	if err != nil {
		return nil // an empty repository
	}
	if adv.IsEmpty() {
		return nil
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
	return nil // no branches at all: as good as empty, the first write creates ours
}
