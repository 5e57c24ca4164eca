//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package publish

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, waiting for it when wait is set
// and failing at once otherwise. The lock goes with the open file: it
// lasts until f is closed or the process ends.
func lockFile(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
