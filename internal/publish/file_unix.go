//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package publish

import (
	"golang.org/x/sys/unix"
)

// removeFiles removes the files of f, each by its name in the open
// folder rather than by its whole path.
func removeFiles(f folder) {
	dir, err := unix.Open(f.path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	for _, name := range f.files {
		unix.Unlinkat(dir, name, 0)
	}
}
