// Package rollout stages a change of a promise's dependencies over its scheduled destinations in
// ordered waves, one wave per apply, and says after each plan which destination holds which
// revision (Stage), what `rollout_status` records (Report), what an apply whose wave failed
// somewhere leaves (SettleRevisions, Report.Hold) and what the plan tells the user (Message). It
// has no control plane: what it knows between applies is a Status recorded in state, and the time
// of the plan.
//
// It is pure: no Terraform, no I/O.
//
// The design notes below say how this package keeps the rules of DESIGN.md.
//
// # A rollout is decided in the plan and replayed by the apply
//
// The plan runs `rollout.Plan` with the time of the plan and records, in `revisions`, the revision
// each destination gets; the apply writes exactly those (it never re-decides with its own clock),
// and only the times the plan left unknown (`last_wave_at`, `checked_at`) come from the apply. A
// wave that fails somewhere does not count as done. Staging is a map from destination to the
// dependencies it gets (`placement.Promise.Staged`): nil keeps the destination exactly as it is,
// with no write.
package rollout
