package statestore

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestBackoffCeiling(t *testing.T) {
	want := []int64{50, 100, 200, 400, 800, 1600, 2000, 2000, 2000}
	for i, ms := range want {
		if got, w := backoffCeiling(i+1), time.Duration(ms)*time.Millisecond; got != w {
			t.Errorf("backoffCeiling(%d) = %v, want %v", i+1, got, w)
		}
	}
	// No overflow however long the race goes on.
	if got := backoffCeiling(1000); got != retryCap {
		t.Errorf("backoffCeiling(1000) = %v, want %v", got, retryCap)
	}
}

// TestRetryDelayFullJitter: each wait is drawn from the whole range below the ceiling, so
// writers that collided spread out instead of colliding again in step.
func TestRetryDelayFullJitter(t *testing.T) {
	for _, n := range []int{1, 3, 7, 50} {
		ceiling := backoffCeiling(n)
		lo, hi := ceiling, time.Duration(0)
		var sum time.Duration
		const samples = 2000
		for range samples {
			d := retryDelay(n)
			if d < 0 || d > ceiling {
				t.Fatalf("retryDelay(%d) = %v, outside [0, %v]", n, d, ceiling)
			}
			lo, hi, sum = min(lo, d), max(hi, d), sum+d
		}
		// Uniform on [0, ceiling]: the extremes come near both ends and the mean near the middle.
		if lo > ceiling/20 || hi < ceiling*19/20 {
			t.Errorf("retryDelay(%d) ranged over [%v, %v] in %d draws, want most of [0, %v]", n, lo, hi, samples, ceiling)
		}
		if mean := sum / samples; mean < ceiling*4/10 || mean > ceiling*6/10 {
			t.Errorf("retryDelay(%d) averaged %v, want about %v", n, mean, ceiling/2)
		}
	}
}

// TestRetrierRunsUntilTheDeadline: with short waits the retrier lets attempts go on until the
// deadline, however many; then it says how many were lost. The deadline passes at the 50th race
// (the test moves it), not after a time, so the count does not depend on the machine's speed.
func TestRetrierRunsUntilTheDeadline(t *testing.T) {
	const races = 50
	r := newRetrier(context.Background())
	r.deadline = time.Now().Add(time.Hour)
	var waits []int
	r.delay = func(n int) time.Duration {
		waits = append(waits, n)
		if n == races {
			r.deadline = time.Now() // the deadline passes during this wait
		}
		return time.Millisecond
	}
	for {
		again, err := r.lostRace(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !again {
			break
		}
	}
	if r.lost != races || len(waits) != races {
		t.Errorf("lost %d races with %d waits, want %d of each: the retrier stopped before its deadline or went on after it", r.lost, len(waits), races)
	}
	for i, n := range waits {
		if n != i+1 {
			t.Fatalf("wait %d asked for retry %d's delay", i+1, n)
		}
	}
	// time.Duration's text: "48ms", "1.2s", "1m2.5s".
	if s := r.summary(); !regexp.MustCompile(`^lost 50 races in [0-9][0-9.hms]*$`).MatchString(s) {
		t.Errorf("summary = %q", s)
	}
}

func TestRetrierWithoutDeadline(t *testing.T) {
	r := newRetrier(context.Background())
	if d := time.Until(r.deadline); d < retryWindow-time.Minute || d > retryWindow {
		t.Errorf("an operation without deadline retries for %v, want %v", d, retryWindow)
	}
}

// TestRetrierCancelled: a cancelled operation stops waiting at once, with the cancellation: well
// before its hour-long wait, however slow the machine.
func TestRetrierCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := newRetrier(ctx)
	r.delay = func(int) time.Duration { return time.Hour }
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	again, err := r.lostRace(ctx)
	if again || !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Minute {
		t.Errorf("lostRace after cancel = %v, %v after %v", again, err, time.Since(start))
	}
}

func TestAfterRacesKeepsTheKind(t *testing.T) {
	r := &retrier{start: time.Now(), lost: 2}
	err := afterRaces(r, &Error{Store: "s", Op: "write", Kind: KindTimeout, Err: errors.New("i/o timeout")})
	if kindOf(err) != KindTimeout || !strings.Contains(err.Error(), "lost 2 races in ") || !strings.Contains(err.Error(), "; then: i/o timeout") {
		t.Errorf("afterRaces = %v", err)
	}
	plain := &Error{Kind: KindAuth, Err: errors.New("denied")}
	if got := afterRaces(&retrier{}, plain); got != plain {
		t.Errorf("afterRaces without lost races changed the error: %v", got)
	}
}
