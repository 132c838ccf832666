//go:build !unix

package statestore

import "time"

// cpuTime is not measured here: callers fall back to the time on the clock.
func cpuTime() (time.Duration, bool) { return 0, false }
