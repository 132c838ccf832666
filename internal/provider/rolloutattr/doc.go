// Package rolloutattr is how a promise's rollout gate and windows are written in Terraform: the
// attributes of `rollout.gate` and `rollout.windows` (GateSchema, WindowsSchema) with their
// validators, their readers into internal/rollout's values (GateOf, WindowsOf: a schedule or
// time zone that is wrong is an error on its attribute, a value not known yet says so), and the
// check that a gate has something to read (CheckGateObserves).
//
// It is Terraform glue, like internal/provider, of one concern: the promise's schema and its
// rollout policy (promise_rollout.go) read these attributes through it; what a gate or a window
// decides is internal/rollout's.
package rolloutattr
