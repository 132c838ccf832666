package health

import (
	"strings"
	"time"
)

// MaxClockSkew is how far in the future a record's LastRun may lie and still count as fresh. A
// cluster's clock may run a little ahead of the provider's; a record from further ahead is not
// trusted, since it would stay "fresh" past any max_age.
const MaxClockSkew = time.Minute

// Subject is what a record reports on: a promise, or one of its resource requests.
type Subject struct {
	Promise string
	// Request is nil for the promise's own records (those without data.resourceRef.name).
	Request *ResourceRef
}

// Latest returns the record about s with the newest LastRun; false when there is none. Records
// with the same LastRun go to the lexically smallest Source, then to the first in records, so
// that every refresh picks the same one.
//
// A request's record matches on the promise, the request's name and its namespace; an empty
// namespace, in the record or in s, means "default". The generation is not compared: a record
// of an older generation still says how the request's workload fares, and freshness (see
// Observe) tells whether it was checked after the last write.
func Latest(records []Record, s Subject) (Record, bool) {
	var best Record
	found := false
	for _, r := range records {
		if !s.matches(r) {
			continue
		}
		if !found || newer(r, best) {
			best, found = r, true
		}
	}
	return best, found
}

func newer(a, b Record) bool {
	if !a.LastRun.Equal(b.LastRun) {
		return a.LastRun.After(b.LastRun)
	}
	return a.Source < b.Source
}

func (s Subject) matches(r Record) bool {
	if r.Promise != s.Promise {
		return false
	}
	if s.Request == nil {
		return r.Resource.Name == ""
	}
	return r.Resource.Name == s.Request.Name && namespace(r.Resource.Namespace) == namespace(s.Request.Namespace)
}

func namespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// Tri is a yes, a no, or "cannot tell".
type Tri uint8

const (
	Unknown Tri = iota
	Yes
	No
)

// String returns "unknown", "yes" or "no".
func (t Tri) String() string {
	switch t {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "unknown"
}

// ObserveInput is what Observe judges a destination's record against.
type ObserveInput struct {
	Record Record
	Found  bool // false when the destination has no record for the subject
	// Written is when the provider last wrote the revision the destination holds; zero when not
	// known, so that any record with a LastRun is after it.
	Written time.Time
	// MaxAge is how old a record may be and still count; 0 or less means no limit.
	MaxAge time.Duration
	Now    time.Time
	// Commit is the provider's last commit for the destination on a git store; "" on a bucket.
	Commit string
	// SameTree tells whether commit sha holds the same tree for the destination's folder as the
	// repository holds now (git only): Yes, No, or Unknown when the commit cannot be found. Nil
	// when the caller cannot tell (a bucket).
	SameTree func(sha string) Tri
}

// View is how a destination's health reads.
type View struct {
	// State is the record's state; "unknown" when there is no record.
	State   string
	LastRun time.Time
	// Fresh: the check ran after the provider's last write, within MaxAge of Now.
	Fresh bool
	// Applied: whether the revision the record reports is what the provider wrote there.
	Applied Tri
	Source  string
	Found   bool
}

// Observe judges a destination's record.
//
// Fresh: LastRun is strictly after Written (a check as old as the write may have read the files
// before it), no older than MaxAge at Now, and no more than MaxClockSkew after Now.
//
// Applied: unknown without a record, or when the record names no revision. Yes when the record's
// revision is Commit, or a prefix of it of at least 7 characters; else what SameTree says (the
// commit holds the destination's folder as the repository does now, or not, or the commit cannot
// be found); unknown when SameTree is nil (a bucket), since nothing can say.
func Observe(in ObserveInput) View {
	if !in.Found {
		return View{State: StateUnknown}
	}
	state := in.Record.State
	if state == "" {
		state = StateUnknown
	}
	return View{
		State:   state,
		LastRun: in.Record.LastRun,
		Fresh:   fresh(in),
		Applied: applied(in.Record.Revision, in.Commit, in.SameTree),
		Source:  in.Record.Source,
		Found:   true,
	}
}

func fresh(in ObserveInput) bool {
	run := in.Record.LastRun
	if !run.After(in.Written) {
		return false
	}
	if run.Sub(in.Now) > MaxClockSkew {
		return false
	}
	return in.MaxAge <= 0 || in.Now.Sub(run) <= in.MaxAge
}

func applied(revision, commit string, sameTree func(string) Tri) Tri {
	if revision == "" {
		return Unknown
	}
	revision, commit = strings.ToLower(revision), strings.ToLower(commit)
	if commit != "" && (revision == commit || (len(revision) >= 7 && strings.HasPrefix(commit, revision))) {
		return Yes
	}
	if sameTree == nil {
		return Unknown
	}
	return sameTree(revision)
}

// Passing is the rule a rollout gate applies: a record was found, it is fresh, its state is one
// of states, and it does not report a revision other than the provider's (Applied unknown passes,
// as on a bucket, where nothing can tell). An empty states never passes.
func Passing(v View, states []string) bool {
	if !v.Found || !v.Fresh || v.Applied == No {
		return false
	}
	for _, s := range states {
		if v.State == s {
			return true
		}
	}
	return false
}
