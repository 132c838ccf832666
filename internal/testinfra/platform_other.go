//go:build !linux

package testinfra

import "os/exec"

// dieWithParent is best effort: only Linux can tie a child's life to its parent's.
func dieWithParent(*exec.Cmd) {}

// lockFile does not lock outside Linux. Two test packages may then build MinIO at the same time,
// which wastes minutes and may let one of them start a binary the other is still writing.
func lockFile(string) (func(), error) { return func() {}, nil }
