package statestore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// Change is one operation against a store: placement.Change, the one change type from
// placement to the store. The store compares it with what it holds and skips what is already
// there: Put is written where it differs, Delete and Prune remove what they name (a missing file
// is not an error), and each Aggregate is rebuilt after the writes and deletes.
type Change = placement.Change

// Aggregate is an aggregatedYAML file (layout.Aggregate): File is made of every file under Dir
// (a prefix ending in "/"), ordered by name, joined with "\n---\n", as Kratix builds an
// aggregatedYAML destination's file, and removed when Dir holds nothing. A file found with no
// part in Dir (one Kratix wrote) is not rebuilt from the new parts alone: its documents are
// first kept in a remainder part (layout.RemainderPart), from which each rebuild drops the
// documents that another part holds.
type Aggregate = layout.Aggregate

// joinContributions builds an aggregate's content from its parts by path, in Kratix's order
// (package layout owns the rule).
func joinContributions(contributions map[string][]byte) []byte {
	return layout.JoinAggregate(contributions)
}

// remainderPath is the part that keeps, until parts of this provider hold them, the documents of
// an aggregate someone else wrote before any part was (see layout.RemainderPart).
func remainderPath(a Aggregate) string { return a.Dir + layout.RemainderPart }

// keptRemainder is what the remainder part must hold among the parts of a rebuild
// (contributions, which hold it): its documents that no other part holds; nil when none is left.
func keptRemainder(a Aggregate, contributions map[string][]byte) []byte {
	key := remainderPath(a)
	var others [][]byte
	for p, c := range contributions {
		if p != key {
			others = append(others, c)
		}
	}
	return layout.Remainder(contributions[key], others)
}

// Result says what an Apply changed.
type Result struct {
	// Written lists the paths whose content was created or changed, sorted.
	Written []string
	// Deleted lists the paths that existed and were removed, sorted.
	Deleted []string
	// Replaced lists the paths of Written that already existed with other content, as the
	// write found them, sorted: files taken over from whoever wrote them before. Only Put
	// counts; aggregates rebuilt from their parts do not.
	Replaced []string
	// Unseen lists the files left under a folder the change clears because the plan that made
	// the change did not see them there (placement.Change.Leaves): another writer's, added
	// since. Sorted.
	Unseen []string
	// Revision is the pushed commit for git; empty for buckets and when nothing changed.
	Revision string
}

// Changed reports whether the Apply altered anything.
func (r Result) Changed() bool { return len(r.Written) > 0 || len(r.Deleted) > 0 }

// Store is one State Store backend.
type Store interface {
	// Check proves that the store can be written, without leaving anything behind.
	Check(ctx context.Context) error
	// Apply performs one Change.
	Apply(ctx context.Context, change Change) (Result, error)
	// Hashes returns the hex MD5 of each named file that exists. Missing files are absent from
	// the map; only real failures (auth, network) are errors.
	Hashes(ctx context.Context, paths []string) (map[string]string, error)
	// List returns the hex MD5 of every file under prefix ("" for everything; a prefix should
	// end in "/").
	List(ctx context.Context, prefix string) (map[string]string, error)
	// Read returns one file's content, or an error for which IsNotFound is true.
	Read(ctx context.Context, path string) ([]byte, error)
	// ReadUnder returns the content of every file under prefix ("" for everything; a prefix
	// should end in "/") whose path want accepts (nil accepts all), found with one listing of
	// prefix. A prefix that holds nothing, or a bucket that does not exist, gives an empty map.
	ReadUnder(ctx context.Context, prefix string, want func(path string) bool) (map[string][]byte, error)
	// Describe names the store for messages: `bucket "kratix" at 127.0.0.1:9000` or
	// `repository https://host/org/repo.git (branch main)`.
	Describe() string
}

// Kind classifies a store failure so that users get advice that fits.
type Kind string

const (
	KindAuth          Kind = "authentication failed"
	KindAccessDenied  Kind = "access denied"
	KindTLS           Kind = "TLS verification failed"
	KindPlainHTTP     Kind = "server speaks plain HTTP"
	KindHostKey       Kind = "SSH host key not trusted"
	KindMissingBucket Kind = "bucket does not exist"
	KindMissingBranch Kind = "branch does not exist"
	KindMissingRepo   Kind = "repository not found"
	KindNetwork       Kind = "endpoint unreachable"
	KindTimeout       Kind = "timed out"
	KindRejected      Kind = "push rejected"
	KindConflict      Kind = "concurrent updates"
	KindNotFound      Kind = "not found"
	KindConfig        Kind = "invalid configuration"
	KindOther         Kind = "request failed"
)

// Error is a store failure: which store, what was being done, what kind of failure and the cause.
type Error struct {
	Store string // Describe() of the store
	Op    string // "check", "write", "read", "list"
	Kind  Kind
	Err   error
	// Credentials says where the store's credentials come from, for the advice on a refused
	// request; "" is the provider's secrets.
	Credentials string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s: %v", e.Store, e.Op, e.Kind, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Advice tells the user what to do about a failure of this kind.
func (e *Error) Advice() string {
	switch e.Kind {
	case KindAuth, KindAccessDenied:
		if e.Credentials != "" {
			return "Check " + e.Credentials + ", and that they grant write access."
		}
		return "Check the credentials in the provider's secrets (or their KRATIX_SECRET_* environment variables) and that they grant write access."
	case KindTLS:
		return "Set ca_certificate in the store's secret to the PEM of the CA that signed the server certificate."
	case KindPlainHTTP:
		return "The server answered in plain HTTP where HTTPS was expected. Use an http:// URL (git) or set " +
			"insecure = true (bucket), either of which sends credentials unencrypted and belongs on a private network " +
			"only, or enable TLS on the server."
	case KindHostKey:
		return "Add the server's host key to known_hosts in the store's secret, or set insecure_ignore_host_key = true if you accept the risk."
	case KindMissingBucket:
		return "Create the bucket, or set create_bucket = true."
	case KindMissingBranch:
		return "Create the branch in the repository, or set branch to one that exists."
	case KindMissingRepo:
		return "Check the repository URL and that the credentials can see it."
	case KindNetwork:
		return "Check the endpoint or URL, and that this machine can reach it."
	case KindTimeout:
		return "The operation ran out of its time limit: raise it in the resource's timeouts block, or check that the server answers."
	case KindRejected:
		return "The server refused the push by its own rules; its reasons, when it gave any, follow \"the server said:\" in the cause above. " +
			"A server hook: do what its message asks, or ask the server's owners to exempt the store's credentials. " +
			"A protected branch: let the store's credentials push to it directly (a deploy key or bot account exempt " +
			"from the pull-request rule), or set git.branch to a branch that takes direct pushes. " +
			"A policy that requires signed commits: have the store sign its commits (git.signing) with a key the server trusts, or " +
			"exempt its credentials from the rule. Nothing reached the branch; the next apply tries again."
	case KindConflict:
		return "Other writers kept winning the races for the same files until the operation's time limit: " +
			"retry the operation, or raise the limit in the resource's timeouts block."
	}
	return "Retry the operation. If the error persists, check the store's configuration."
}

// outOfTime gives err KindTimeout when the operation's context ran out of its deadline and err
// is a transport failure: whatever broke underneath (a read cut short by the deadline reads as an
// i/o timeout, a dial as a network error), the limit is what ended it. Answers of the server
// (refused credentials, a missing branch) keep their kind, and so do failures of an operation
// whose context is still live: a dial that gives up on its own is a network failure.
func outOfTime(ctx context.Context, err error) error {
	var se *Error
	if err == nil || !pastDeadline(ctx) || !errors.As(err, &se) || (se.Kind != KindNetwork && se.Kind != KindOther) {
		return err
	}
	out := *se
	out.Kind = KindTimeout
	return &out
}

// pastDeadline reports whether ctx's deadline has passed. ctx.Err() alone may lag behind: an SSH
// connection carries the same deadline (see sshOperation), and its read may fail a moment before
// the context's own timer fires. It then waits (briefly) for that timer, so that a caller that
// looks at ctx.Err() after the store call agrees that the operation ran out of time.
func pastDeadline(ctx context.Context) bool {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	deadline, ok := ctx.Deadline()
	if !ok || time.Now().Before(deadline) {
		return false
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return true
}

// IsNotFound reports whether err means that a file does not exist.
func IsNotFound(err error) bool {
	var se *Error
	return errors.As(err, &se) && se.Kind == KindNotFound
}
