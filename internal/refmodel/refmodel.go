package refmodel

import (
	"maps"
)

// New draws the world of seed: its stores of kind ("bucket" or "git-http"), destinations in the
// given filepath modes, promises and requests. The seed also draws every later operation
// (NextOp) and fault (DrawFault), in the order they are asked for, so that a seed names one run.
func New(seed int64, kind string, modes []string) *Model {
	rng := newModelRNG(seed)
	m := newRefModel(newModelWorld(rng, kind, modes))
	m.rng = rng
	return m
}

// NextOp draws the next operation among allowed ones (names in OpNames) and makes it on the
// configuration.
func (m *Model) NextOp(allowed []string) Op { return m.nextOp(m.rng, allowed) }

// DrawFault says which store (0 or 1) is down during this step's first apply, or -1 for none;
// none unless allowed.
func (m *Model) DrawFault(allowed bool) int { return drawFault(m.rng, allowed) }

// Describe is a one-paragraph account of the configuration, for failure reports.
func (m *Model) Describe() string { return m.w.describe() }

// Render is the Terraform configuration of the world, for the stores s.
func (m *Model) Render(s *Stores) string { return m.w.render(s) }

// ImportsRendered tells the model that the configuration with its import blocks was applied:
// the next one has none.
func (m *Model) ImportsRendered() { m.w.imports = nil }

// AcknowledgeGuard sets on promise's guard the acknowledgement that refusal (what the refused
// apply printed) asks for (Op.AckGuard).
func (m *Model) AcknowledgeGuard(promise, refusal string) error {
	return m.w.acknowledgeGuard(promise, refusal)
}

// GuardApplied tells the model that promise's acknowledged change was applied: the next
// configuration has no guard on it.
func (m *Model) GuardApplied(promise string) { m.w.promise(promise).guard = nil }

// RolloutSignature names, for every promise with a rollout, what would start or change one. A
// step that changes it gets no fault.
func (m *Model) RolloutSignature() string { return rolloutSignature(m.w) }

// Incarnations are the destinations' incarnation numbers: one changes when the destination is
// created again (replaced or recreated).
func (m *Model) Incarnations() map[string]int { return maps.Clone(m.incs) }
