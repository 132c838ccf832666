package testinfra

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill cmd's process when the test binary dies, so that a test
// that panics or is killed by go test's timeout does not leave a MinIO server running. (Strictly
// the signal follows the OS thread that started the child; Go only retires threads that were
// locked by a goroutine, which this package never does.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// lockFile takes an exclusive flock on path, waiting for it. The kernel releases the lock when
// the holder exits, however it exits, so a crashed test never leaves a stale lock behind.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
