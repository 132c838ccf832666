package health

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

// TestLatest: the newest matching record, for a promise or a request.
func TestLatest(t *testing.T) {
	records := []Record{
		{Promise: "redis", State: "ready", LastRun: at(1), Source: "h/w/a.yaml"},
		{Promise: "redis", State: "healthy", LastRun: at(5), Source: "h/w/c.yaml"},
		{Promise: "redis", State: "degraded", LastRun: at(5), Source: "h/w/b.yaml"},
		{Promise: "redis", State: "unhealthy", LastRun: at(3), Source: "h/w/a.yaml"},
		{Promise: "redis", Resource: ResourceRef{Name: "db", Namespace: "team-a"}, State: "healthy", LastRun: at(9), Source: "h/w/r1.yaml"},
		{Promise: "redis", Resource: ResourceRef{Name: "db"}, State: "ready", LastRun: at(2), Source: "h/w/r2.yaml"},
		{Promise: "redis", Resource: ResourceRef{Name: "db", Namespace: "default", Generation: 7}, State: "degraded", LastRun: at(4), Source: "h/w/r3.yaml"},
		{Promise: "redis", Resource: ResourceRef{Name: "cache", Namespace: "default"}, State: "unhealthy", LastRun: at(8), Source: "h/w/r4.yaml"},
		{Promise: "postgres", State: "healthy", LastRun: at(20), Source: "h/w/p.yaml"},
		{Promise: "postgres", Resource: ResourceRef{Name: "db"}, State: "unknown", LastRun: at(20), Source: "h/w/p2.yaml"},
		{Promise: "same", State: "ready", LastRun: at(1), Source: "h/w/s.yaml"},
		{Promise: "same", State: "healthy", LastRun: at(1), Source: "h/w/s.yaml"},
		{Promise: "never", State: "ready", Source: "h/w/n.yaml"},
	}
	tests := []struct {
		name      string
		subject   Subject
		wantState string
		wantFound bool
	}{
		// a.yaml at 1 and 3 lose to the two at 5; of those, b.yaml sorts first.
		{"promise: newest, ties to the smallest source", Subject{Promise: "redis"}, "degraded", true},
		{"request in its namespace", Subject{Promise: "redis", Request: &ResourceRef{Name: "db", Namespace: "team-a"}}, "healthy", true},
		// r2 (no namespace, at 2) and r3 (default, generation 7, at 4) both match; r3 is newer.
		{"request in default, generation ignored", Subject{Promise: "redis", Request: &ResourceRef{Name: "db", Namespace: "default", Generation: 1}}, "degraded", true},
		{"request with an empty namespace means default", Subject{Promise: "redis", Request: &ResourceRef{Name: "db"}}, "degraded", true},
		{"request of another promise", Subject{Promise: "postgres", Request: &ResourceRef{Name: "db"}}, "unknown", true},
		{"promise record, not its request's", Subject{Promise: "postgres"}, "healthy", true},
		{"same source and time: the first", Subject{Promise: "same"}, "ready", true},
		{"a record without lastRun still counts", Subject{Promise: "never"}, "ready", true},
		{"no such request", Subject{Promise: "redis", Request: &ResourceRef{Name: "db", Namespace: "team-b"}}, "", false},
		{"no such promise", Subject{Promise: "kafka"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := Latest(records, tt.subject)
			if found != tt.wantFound || got.State != tt.wantState {
				t.Errorf("Latest = %#v, %v; want state %q, %v", got, found, tt.wantState, tt.wantFound)
			}
		})
	}
	// The choice does not depend on the order of the records.
	reversed := make([]Record, len(records))
	for i, r := range records {
		reversed[len(records)-1-i] = r
	}
	if got, _ := Latest(reversed, Subject{Promise: "redis"}); got.Source != "h/w/b.yaml" {
		t.Errorf("Latest over reversed records chose %s, want h/w/b.yaml", got.Source)
	}
}

// TestObserve: freshness and whether the destination applied what the provider wrote.
func TestObserve(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	const other = "fedcba9876543210fedcba9876543210fedcba98"
	sameTreeAs := func(want string) func(string) Tri {
		return func(sha string) Tri {
			if sha == want {
				return Yes
			}
			return No
		}
	}
	rec := func(run time.Time, revision string) Record {
		return Record{Promise: "p", State: "healthy", LastRun: run, Revision: revision, Source: "h/w/r.yaml"}
	}
	tests := []struct {
		name        string
		in          ObserveInput
		wantFresh   bool
		wantApplied Tri
	}{
		{"checked after the write, no max age", ObserveInput{Record: rec(at(1), ""), Found: true, Written: at(0), Now: at(500)}, true, Unknown},
		{"checked at the second of the write", ObserveInput{Record: rec(at(0), ""), Found: true, Written: at(0), Now: at(5)}, false, Unknown},
		{"checked before the write", ObserveInput{Record: rec(at(-1), ""), Found: true, Written: at(0), Now: at(5)}, false, Unknown},
		{"a second after the write", ObserveInput{Record: rec(at(0).Add(time.Second), ""), Found: true, Written: at(0), Now: at(5)}, true, Unknown},
		{"write time unknown", ObserveInput{Record: rec(at(-100), ""), Found: true, Now: at(5)}, true, Unknown},
		{"no lastRun, write time unknown", ObserveInput{Record: rec(time.Time{}, ""), Found: true, Now: at(5)}, false, Unknown},
		{"exactly max age old", ObserveInput{Record: rec(at(1), ""), Found: true, Written: at(0), MaxAge: 10 * time.Minute, Now: at(11)}, true, Unknown},
		{"a second older than max age", ObserveInput{Record: rec(at(1), ""), Found: true, Written: at(0), MaxAge: 10 * time.Minute, Now: at(11).Add(time.Second)}, false, Unknown},
		{"negative max age is no limit", ObserveInput{Record: rec(at(1), ""), Found: true, Written: at(0), MaxAge: -time.Minute, Now: at(900)}, true, Unknown},
		{"a minute in the future", ObserveInput{Record: rec(at(6), ""), Found: true, Written: at(0), MaxAge: time.Minute, Now: at(5)}, true, Unknown},
		{"more than a minute in the future", ObserveInput{Record: rec(at(6).Add(time.Second), ""), Found: true, Written: at(0), MaxAge: time.Hour, Now: at(5)}, false, Unknown},
		{"more than a minute in the future, no max age", ObserveInput{Record: rec(at(7), ""), Found: true, Written: at(0), Now: at(5)}, false, Unknown},

		{"bucket: revision cannot be compared", ObserveInput{Record: rec(at(1), commit), Found: true, Now: at(2)}, true, Unknown},
		{"git: same commit", ObserveInput{Record: rec(at(1), commit), Found: true, Now: at(2), Commit: commit}, true, Yes},
		{"git: commit given in upper case", ObserveInput{Record: rec(at(1), commit), Found: true, Now: at(2), Commit: "0123456789ABCDEF0123456789ABCDEF01234567"}, true, Yes},
		{"git: record names a 7-character prefix", ObserveInput{Record: rec(at(1), "0123456"), Found: true, Now: at(2), Commit: commit}, true, Yes},
		{"git: a 6-character prefix is not enough", ObserveInput{Record: rec(at(1), "012345"), Found: true, Now: at(2), Commit: commit, SameTree: sameTreeAs("nothing")}, true, No},
		{"git: short and equal", ObserveInput{Record: rec(at(1), "abc"), Found: true, Now: at(2), Commit: "abc", SameTree: sameTreeAs("nothing")}, true, Yes},
		{"git: another commit, same tree", ObserveInput{Record: rec(at(1), other), Found: true, Now: at(2), Commit: commit, SameTree: sameTreeAs(other)}, true, Yes},
		{"git: another commit, another tree", ObserveInput{Record: rec(at(1), other), Found: true, Now: at(2), Commit: commit, SameTree: sameTreeAs(commit)}, true, No},
		{"git: another commit, trees not comparable", ObserveInput{Record: rec(at(1), other), Found: true, Now: at(2), Commit: commit}, true, Unknown},
		{"git: commit not in the repository", ObserveInput{Record: rec(at(1), other), Found: true, Now: at(2), SameTree: func(string) Tri { return Unknown }}, true, Unknown},
		{"git: no commit recorded, same tree", ObserveInput{Record: rec(at(1), other), Found: true, Now: at(2), SameTree: sameTreeAs(other)}, true, Yes},
		{"git: record without revision", ObserveInput{Record: rec(at(1), ""), Found: true, Now: at(2), Commit: commit, SameTree: sameTreeAs("")}, true, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Observe(tt.in)
			want := View{State: "healthy", LastRun: tt.in.Record.LastRun, Fresh: tt.wantFresh, Applied: tt.wantApplied, Source: "h/w/r.yaml", Found: true}
			if got != want {
				t.Errorf("Observe = %+v, want %+v", got, want)
			}
		})
	}
}

// TestObserve_noRecord: nothing found reads as unknown, whatever else is known.
func TestObserve_noRecord(t *testing.T) {
	in := ObserveInput{
		Record:   Record{Promise: "p", State: "healthy", LastRun: at(1), Revision: "abcdef0", Source: "stale.yaml"},
		Found:    false,
		Now:      at(2),
		Commit:   "abcdef0",
		SameTree: func(string) Tri { return Yes },
	}
	want := View{State: "unknown"}
	if got := Observe(in); got != want {
		t.Errorf("Observe = %+v, want %+v", got, want)
	}
	// A Record built without a state reads as unknown too.
	in = ObserveInput{Record: Record{Promise: "p", LastRun: at(1)}, Found: true, Now: at(2)}
	if got := Observe(in); got.State != "unknown" || !got.Found {
		t.Errorf("Observe of a record without state = %+v, want state unknown, found", got)
	}
}

// TestPassing: the rule a rollout gate applies.
func TestPassing(t *testing.T) {
	ok := View{State: "healthy", Fresh: true, Found: true, Applied: Yes}
	with := func(edit func(*View)) View { v := ok; edit(&v); return v }
	states := []string{"healthy", "ready"}
	tests := []struct {
		name   string
		v      View
		states []string
		want   bool
	}{
		{"fresh, healthy, applied", ok, states, true},
		{"ready is in states", with(func(v *View) { v.State = "ready" }), states, true},
		{"applied unknown passes", with(func(v *View) { v.Applied = Unknown }), states, true},
		{"applied no fails", with(func(v *View) { v.Applied = No }), states, false},
		{"stale fails", with(func(v *View) { v.Fresh = false }), states, false},
		{"not found fails", with(func(v *View) { v.Found = false }), states, false},
		{"degraded is not in states", with(func(v *View) { v.State = "degraded" }), states, false},
		{"no states never pass", ok, nil, false},
	}
	for _, tt := range tests {
		if got := Passing(tt.v, tt.states); got != tt.want {
			t.Errorf("%s: Passing(%+v, %v) = %v, want %v", tt.name, tt.v, tt.states, got, tt.want)
		}
	}
}

func TestTriString(t *testing.T) {
	for tri, want := range map[Tri]string{Unknown: "unknown", Yes: "yes", No: "no", Tri(9): "unknown"} {
		if got := tri.String(); got != want {
			t.Errorf("Tri(%d).String() = %q, want %q", uint8(tri), got, want)
		}
	}
}
