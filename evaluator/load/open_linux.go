//go:build linux

package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// openBeneath opens path, a path below the data folder dir, relative to
// an open descriptor of dir with openat2: the kernel refuses every step
// of the way that leaves the folder, so a link swapped into a middle
// component after any check cannot lead out. A link that stays inside
// keeps working. Absolute links, which openat2 refuses beneath a folder
// whatever their target, are resolved first and, when their target is
// inside, the resolved path is opened with no link allowed at all.
// pathOnly opens for fstat alone (O_PATH), so a device or a folder is
// looked at, never opened. errNoBeneath means openat2 cannot be used
// here: the caller falls back to the portable checks.
func openBeneath(dir, path string, pathOnly bool) (*os.File, error) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, errNoBeneath
	}
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, errNoBeneath // the portable checks word the error
	}
	defer unix.Close(root)
	flags := uint64(unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC)
	if pathOnly {
		flags = unix.O_PATH | unix.O_CLOEXEC
	}
	fd, err := openat2(root, rel, flags, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_MAGICLINKS)
	if errors.Is(err, unix.EXDEV) {
		// A link leads out, or is absolute: only the resolved path can
		// tell, and it must then be opened without following any link.
		real, rerr := resolveInside(dir, path)
		var bad *suite.InputError
		switch {
		case errors.As(rerr, &bad), errors.Is(rerr, fs.ErrNotExist):
			return nil, rerr
		case rerr != nil:
			// The links changed while being followed (readlink on what
			// is no longer a link): the kernel saw a step out, and no
			// path inside can be shown.
			return nil, &suite.InputError{File: path, Msg: notInside}
		}
		realDir, rerr := filepath.EvalSymlinks(dir)
		if rerr == nil {
			realDir, rerr = filepath.Abs(realDir)
		}
		if rerr != nil {
			return nil, rerr
		}
		realRel, rerr := filepath.Rel(realDir, real)
		if rerr != nil || !filepath.IsLocal(realRel) {
			return nil, &suite.InputError{File: path, Msg: notInside}
		}
		fd, err = openat2(root, realRel, flags, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_SYMLINKS)
	}
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), path), nil
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
		// No openat2 (before Linux 5.6), or a sandbox that forbids it.
		return nil, errNoBeneath
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		return nil, &suite.InputError{File: path, Msg: notInside}
	case errors.Is(err, unix.ENOENT):
		if _, lerr := os.Lstat(path); lerr == nil {
			return nil, &suite.InputError{File: path, Msg: notInside + " (a link that leads nowhere)"}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: unix.ENOENT}
	case errors.Is(err, unix.ENOTDIR):
		return nil, &fs.PathError{Op: "open", Path: path, Err: unix.ENOTDIR}
	case errors.Is(err, unix.ENXIO), errors.Is(err, unix.EOPNOTSUPP):
		// A socket, which cannot be opened for reading.
		return nil, &suite.InputError{File: path, Msg: notInside}
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// openat2 retries while a rename elsewhere in the folder makes the kernel
// unsure that resolution stayed beneath it (EAGAIN), a few times.
func openat2(root int, rel string, flags, resolve uint64) (int, error) {
	how := &unix.OpenHow{Flags: flags, Resolve: resolve}
	for i := 0; ; i++ {
		fd, err := unix.Openat2(root, rel, how)
		if (errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR)) && i < 8 {
			continue
		}
		return fd, err
	}
}
