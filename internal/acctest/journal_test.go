package acctest

import (
	"context"
	"strings"
	"testing"
)

// mapJournal is a Journal held in memory: the writes, and the requests counted, or -1 for a
// journal that counts none.
type mapJournal struct {
	writes   []string
	requests int
}

func (j *mapJournal) String() string { return "journal" }

func (j *mapJournal) Writes(context.Context) ([]string, error) {
	return append([]string(nil), j.writes...), nil
}

func (j *mapJournal) Requests() (int, bool) { return j.requests, j.requests >= 0 }

// wantError says whether err is as wanted: nil when fails is "", else an error containing fails.
func wantError(t *testing.T, err error, fails string) {
	t.Helper()
	switch {
	case fails == "" && err != nil:
		t.Errorf("failed: %v", err)
	case fails != "" && err == nil:
		t.Errorf("passed, want an error with %q", fails)
	case fails != "" && !strings.Contains(err.Error(), fails):
		t.Errorf("error %q does not say %q", err, fails)
	}
}

// TestNoWritesSince: the check passes only when nothing was written after the mark and, on a
// journal that counts requests, the provider sent at least one; a journal without a count is
// judged on its writes alone.
func TestNoWritesSince(t *testing.T) {
	for _, tc := range []struct {
		name              string
		writes            []string // after the mark
		requests, counted int      // requests after the mark; counted -1 for no count
		fails             string
	}{
		{"read, nothing written", nil, 3, 0, ""},
		{"no request at all", nil, 0, 0, "sent no request to the store at all"},
		{"a write", []string{"PUT w/a.yaml"}, 4, 0, "the store was written: [PUT w/a.yaml]"},
		{"git, nothing written", nil, 0, -1, ""},
		{"git, a commit", []string{"Update from: promise/p"}, 0, -1, "the store was written: [Update from: promise/p]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &mapJournal{writes: []string{"PUT old.yaml"}, requests: 5}
			if tc.counted < 0 {
				j.requests = -1
			}
			var m Mark
			// The mark is set after the check is made, as a PreConfig does.
			c := NoWritesSince(j, &m)
			now, err := MarkNow(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			m = now
			j.writes = append(j.writes, tc.writes...)
			if tc.counted >= 0 {
				j.requests += tc.requests
			}
			wantError(t, run(c), tc.fails)
		})
	}
}

// TestWritesSince: the writes after the mark must be want, in any order, no more and no less.
func TestWritesSince(t *testing.T) {
	j := &mapJournal{writes: []string{"PUT old.yaml"}, requests: 1}
	var m Mark
	c := func(want ...string) error { return run(WritesSince(j, &m, want...)) }
	if err := run(SetMark(j, &m)); err != nil || m != (Mark{Writes: 1, Requests: 1}) {
		t.Fatalf("SetMark: mark %+v, error %v; want {1 1} and none", m, err)
	}
	wantError(t, c(), "")
	wantError(t, c("PUT a.yaml"), "the writes were\n  \nwant\n  PUT a.yaml")
	j.writes = append(j.writes, "PUT b.yaml", "PUT a.yaml")
	wantError(t, c("PUT a.yaml", "PUT b.yaml"), "")
	wantError(t, c("PUT a.yaml"), "want\n  PUT a.yaml")
	wantError(t, c("PUT a.yaml", "PUT b.yaml", "DELETE c.yaml"), "DELETE c.yaml")
	wantError(t, c(), "the writes were\n  PUT a.yaml\n  PUT b.yaml")
	wantError(t, c("PUT old.yaml", "PUT a.yaml", "PUT b.yaml"), "PUT old.yaml") // before the mark
	m = Mark{Writes: 9}
	wantError(t, c(), "the mark is at write 9, but the journal holds only 3")
}

// TestFileMatchesAndSameContent: FileMatches passes its content to the predicate and reports
// its error with the path; SameContent needs every file, all equal.
func TestFileMatchesAndSameContent(t *testing.T) {
	store := mapStore{"a": "x\n", "b": "x\n", "c": "y\n"}
	hasX := func(c string) error {
		if !strings.Contains(c, "x") {
			return errorString("no x")
		}
		return nil
	}
	wantError(t, run(FileMatches(store, "a", hasX)), "")
	wantError(t, run(FileMatches(store, "c", hasX)), "map: c: no x")
	wantError(t, run(FileMatches(store, "z", hasX)), "map: z is missing")
	wantError(t, run(SameContent(store, "a", "b")), "")
	wantError(t, run(SameContent(store, "a", "b", "c")), "map: c differs from a")
	wantError(t, run(SameContent(store, "a", "z")), "map: z is missing")
	wantError(t, Check(context.Background(), SameContent(store, "a", "c"), FileMissing(store, "b")), "c differs from a\nmap: b should not exist")
	wantError(t, AsCheckFunc(FileHolds(store, "a", "x\n"), FileMissing(store, "z"))(nil), "")
	wantError(t, AsCheckFunc(FileMissing(store, "a"))(nil), "a should not exist")
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestAll: All passes when every check does, and reports every failure, not only the first.
func TestAll(t *testing.T) {
	store := mapStore{"a": "x\n"}
	wantError(t, run(All()), "")
	wantError(t, run(All(FileHolds(store, "a", "x\n"), FileMissing(store, "b"))), "")
	err := run(All(FileMissing(store, "a"), FileHolds(store, "b", "y\n")))
	wantError(t, err, "a should not exist")
	wantError(t, err, "b is missing")
}
