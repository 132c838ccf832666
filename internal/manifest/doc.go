// Package manifest parses, checks and normalises multi-document Kubernetes YAML: what a promise's
// dependencies hold. It decides what counts as a change (only meaning, never formatting) and tells
// CustomResourceDefinitions apart for the splitByKind layout.
//
// It is pure: no Terraform, no I/O.
//
// The design notes below say how this package keeps the rules of DESIGN.md.
//
// # Formatting is not a change
//
// YAML attributes use a custom type whose semantic equality compares canonical forms; `ModifyPlan`
// returns the prior value when they are equal, which Terraform accepts. The canonical form is the
// YAML library's encoding of the parsed values (sorted keys, indentation 2, compact sequences, no
// wrapping), written by `internal/manifest/emit.go` with the library's rules for those values, and
// by the library itself for a document the writer is not sure of; `TestEmitMatchesLibrary` holds
// the two together byte for byte, so a new library version that changes its output fails there
// before it rewrites anyone's files.
package manifest
