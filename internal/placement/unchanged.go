package placement

import "maps"

// Unchanged reports whether a placement held before needs no write to hold what a plan records
// for it now (planned): the destination lays out files in the same place the same way as when
// the record was made, and the record, which says what the store held at the last refresh
// (misscheduled or not), is exactly what the plan records, on the same instance of the
// destination (a destination created again, replaced in its folder, may have emptied it with
// its cleanup). A change of a destination's labels,
// weight or taints that moves nothing leaves every placement on it unchanged, so its apply
// sends no request to the store: a store that is down then fails nothing. A placement whose
// files were edited, removed or joined by a stray file since it was written has another record
// (the refresh saw it), so it is written again. Without the destination as it was (an import),
// nothing is known to be unchanged.
func Unchanged(before Prior, m Member, planned Record) bool {
	return before.Member != nil && sameTarget(*before.Member, m) && before.Member.Instance == m.Instance &&
		before.Record.Location == planned.Location && before.Record.Root == planned.Root &&
		before.Record.Location == m.Location.String() && before.Record.Root == m.Target.Root &&
		maps.Equal(before.Record.Files, planned.Files)
}

// UpdateCanaries is PlanCanaries for a destination that exists: with its folder, layout and
// init_workloads as they were (before) and its canary files as recorded (recorded: what the
// store held at the last refresh), an update of its labels, weight or taints writes nothing,
// and the plan has no operation.
func UpdateCanaries(before *Member, recorded map[string]string, m Member, initWorkloads bool) Plan {
	p := PlanCanaries(m, initWorkloads)
	if before != nil && sameTarget(*before, m) && maps.Equal(nonNilFiles(recorded), nonNilFiles(p.Records[m.Name].Files)) {
		p.Ops = nil
	}
	return p
}

func nonNilFiles(f map[string]string) map[string]string {
	if f == nil {
		return map[string]string{}
	}
	return f
}

// LeftBehind returns, by destination, where a placement still is after an apply when that is not
// where its destination is now: a move (another store, folder or layout) whose removal from the
// old place failed keeps its prior record (see Settle), made where the prior member laid it out.
// The provider keeps these members, and gives each back to its prior placement while the
// record is still there (RecordedAt), so that the next plan takes the files from there and the
// next apply finishes the move. records are the apply's outcome, pool the destinations
// as they are now.
func LeftBehind(prior map[string]Prior, records map[string]Record, pool []Member) map[string]Member {
	now := map[string]Member{}
	for _, m := range pool {
		now[m.Name] = m
	}
	out := map[string]Member{}
	for dest, r := range records {
		m, inPool := now[dest]
		before, held := prior[dest]
		if !inPool || !held || before.Member == nil {
			continue
		}
		if r.Location == m.Location.String() && r.Root == m.Target.Root {
			continue // where the destination is now
		}
		if r.Location == before.Member.Location.String() && r.Root == before.Member.Target.Root {
			out[dest] = *before.Member
		}
	}
	return out
}

// RecordedAt reports whether a record is of a placement in m's folder (its store location and
// root): a destination kept by LeftBehind is used only while the record is still there.
func RecordedAt(r Record, m Member) bool {
	return r.Location == m.Location.String() && r.Root == m.Target.Root
}
