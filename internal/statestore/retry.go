package statestore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// An operation that loses a race to another writer (a push that finds the branch moved, an
// aggregate rebuild whose compare-and-swap fails) tries again until the operation's deadline,
// not a fixed number of times: every lost race means another writer made progress, so a queue
// of sixteen workspaces applied at once drains if each waits its turn, however long the queue.
// Between attempts it waits a random time below a ceiling that doubles from retryBase up to
// retryCap ("full jitter"), so that writers that collided spread out instead of colliding again
// in step, and none waits long once the others are done.
const (
	retryBase = 50 * time.Millisecond
	retryCap  = 2 * time.Second
	// retryWindow bounds the retries of an operation whose context has no deadline. The
	// provider always gives one (its timeouts block, 10m by default); other callers may not.
	retryWindow = 10 * time.Minute
)

// backoffCeiling is the longest wait before retry n (from 1): retryBase doubled n-1 times, at
// most retryCap.
func backoffCeiling(n int) time.Duration {
	d := retryBase
	for i := 1; i < n && d < retryCap; i++ {
		d *= 2
	}
	return min(d, retryCap)
}

// retryDelay is the wait before retry n: uniformly random from zero to backoffCeiling(n).
func retryDelay(n int) time.Duration {
	return time.Duration(rand.Int64N(int64(backoffCeiling(n)) + 1))
}

// retrier paces the retries of one operation and keeps the account of the races it lost.
type retrier struct {
	start, deadline time.Time
	lost            int
	// delay is retryDelay; tests replace it.
	delay func(n int) time.Duration
	// winners, when set, tells who won the races, for summary.
	winners fmt.Stringer
}

func newRetrier(ctx context.Context) *retrier {
	r := &retrier{start: time.Now(), delay: retryDelay}
	var ok bool
	if r.deadline, ok = ctx.Deadline(); !ok {
		r.deadline = r.start.Add(retryWindow)
	}
	return r
}

// lostRace counts a lost race and waits before the next attempt. again is false when the
// deadline leaves no time for one; err is set only when ctx was cancelled otherwise.
func (r *retrier) lostRace(ctx context.Context) (again bool, err error) {
	r.lost++
	remaining := time.Until(r.deadline)
	if remaining <= 0 {
		return false, nil
	}
	if err := sleep(ctx, min(r.delay(r.lost), remaining)); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return false, nil
		}
		return false, err
	}
	return time.Now().Before(r.deadline), nil
}

// summary tells how many races were lost, in how long, and to whom when that is known:
// "lost 37 races in 9m58s; the branch moved under commits by ...".
func (r *retrier) summary() string {
	races := "races"
	if r.lost == 1 {
		races = "race"
	}
	out := fmt.Sprintf("lost %d %s in %s", r.lost, races, time.Since(r.start).Round(10*time.Millisecond))
	if r.winners != nil {
		out += r.winners.String()
	}
	return out
}

// afterRaces prefixes a store failure that ended an operation after lost races (the attempt that
// ran into the deadline, say) with their account; err keeps its kind.
func afterRaces(r *retrier, err error) error {
	var se *Error
	if r.lost == 0 || !errors.As(err, &se) {
		return err
	}
	out := *se
	out.Err = fmt.Errorf("%s; then: %w", r.summary(), se.Err)
	return &out
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
