//go:build unix

package statestore

import (
	"syscall"
	"time"
)

// cpuTime is the processor time this process and its finished children (git's upload-pack and
// receive-pack behind file:// URLs) have used so far. Unlike the time on the clock, it does not
// grow when other processes share the processors, so a bound on it holds on a loaded machine.
func cpuTime() (time.Duration, bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime), true
}
