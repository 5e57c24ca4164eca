//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package publish

import (
	"io"
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// writeNew creates the file at path, which no one else writes, with data.
// It makes the three system calls a file needs (open, write, close):
// os.OpenFile adds more to set up and tear down polling, which a regular
// file never uses, and a site holds tens of thousands of files (see "Fast
// paths" in docs/design.md).
func writeNew(path string, data []byte) error {
	var fd int
	for {
		var err error
		fd, err = syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err == nil && n == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			syscall.Close(fd)
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

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
