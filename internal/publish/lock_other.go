//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package publish

import (
	"errors"
	"os"
	"time"
)

// lockFile cannot lock on this system. A stage counts as abandoned once
// it has not changed for a day, which no run takes.
func lockFile(f *os.File, wait bool) error {
	if wait {
		return nil
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if time.Since(info.ModTime()) < 24*time.Hour {
		return errors.New("write: staging folder may be in use")
	}
	return nil
}
