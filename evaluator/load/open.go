package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Read limits. Every input is read through them, so a file that never
// ends (a link to /dev/zero, a sparse file of gigabytes) is refused after
// at most its limit in memory.
const (
	// MaxLineBytes bounds one line of cases.jsonl or of an outputs file.
	MaxLineBytes = 64 << 20
	// MaxDocumentBytes bounds POLICY.md, HANDOFF.md and case.schema.json.
	MaxDocumentBytes = 16 << 20
	// MaxSmallJSONBytes bounds gate.json and outputs/<label>.meta.json.
	MaxSmallJSONBytes = 1 << 20
)

// notInside is the message for an input that is a link leading out of
// the data folder or not a regular file at all (a FIFO, a device, a
// socket, a folder where a file belongs).
const notInside = "not a regular file inside the data folder"

// Open opens the input at path, which must lie in the data folder dir
// once every symbolic link on the way is followed, and must be a regular
// file. The check comes before any byte is read, and opening never waits
// on a FIFO. A missing file gives an error matching fs.ErrNotExist.
//
// On Linux the file is opened relative to the folder with openat2, which
// refuses any step out of it, so no link followed on the way (in the
// last component or any other) can lead out, even one swapped in while
// the command runs. Elsewhere, or where openat2 is missing, the path is
// resolved and checked first and opened without following a link at its
// last step.
func Open(dir, path string) (*os.File, error) {
	f, err := openBeneath(dir, path, false)
	switch {
	case err == nil:
		return keepRegular(f, path, notInside)
	case !errors.Is(err, errNoBeneath):
		return nil, err
	}
	return openResolved(dir, path)
}

// openResolved is Open without openat2: the path is resolved and checked
// first, then opened without following a link at its last step.
func openResolved(dir, path string) (*os.File, error) {
	real, err := resolveInside(dir, path)
	if err != nil {
		return nil, err
	}
	return openRegular(real, path, notInside)
}

// OpenNamed opens a file the user named on the command line, which may
// lie anywhere but must be a regular file.
func OpenNamed(path string) (*os.File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	return openRegular(real, path, "not a regular file")
}

// Open opens the outputs file: inside its data folder as Open does when
// it was listed there, anywhere as OpenNamed does when it was named.
func (f SnapshotFile) Open() (*os.File, error) {
	if f.Dir == "" {
		return OpenNamed(f.Path)
	}
	return Open(f.Dir, f.Path)
}

// ReadFile reads the input at path inside the data folder dir, refusing
// it when it holds more than limit bytes.
func ReadFile(dir, path string, limit int64) ([]byte, error) {
	f, err := Open(dir, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

// ReadLines reads the JSON Lines input at path inside the data folder dir
// whole, for a caller that keeps its bytes (a bundle). It refuses a file
// of more than limit bytes before reading it, and a file with a line
// longer than MaxLineBytes, as the line reader does, after a first pass
// that keeps nothing: a file of one endless line costs no memory, and a
// good one exactly its size.
func ReadLines(dir, path string, limit int64) ([]byte, error) {
	f, err := Open(dir, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := info.Size()
	if size > limit {
		return nil, &suite.InputError{File: path, Msg: fmt.Sprintf("larger than the limit of %s", sizeText(limit))}
	}
	if err := checkLineLengths(f, path, size); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(f, out); err != nil {
		return nil, fmt.Errorf("%s: changed while being read (%w); run again", path, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("%s: changed while being read (it grew); run again", path)
	}
	return out, nil
}

// checkLineLengths reads the first size bytes of f and refuses the first
// line longer than MaxLineBytes, naming it.
func checkLineLengths(f *os.File, path string, size int64) error {
	chunk := make([]byte, 64<<10)
	r := io.LimitReader(f, size)
	line, lineLen := 1, 0
	for {
		n, err := r.Read(chunk)
		for rest := chunk[:n]; ; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				lineLen += len(rest)
			} else {
				lineLen += i
			}
			// +1: a CR before the line end is not counted.
			if lineLen > MaxLineBytes+1 {
				return &suite.InputError{File: path, Line: line, Msg: fmt.Sprintf("line longer than the limit of %s", sizeText(MaxLineBytes))}
			}
			if i < 0 {
				break
			}
			line, lineLen, rest = line+1, 0, rest[i+1:]
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
	}
}

// ReadNamed reads a file named on the command line (or beside one), a
// regular file anywhere, refusing it when it holds more than limit bytes.
func ReadNamed(path string, limit int64) ([]byte, error) {
	f, err := OpenNamed(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

// CheckDir makes sure the folder at path (the outputs folder) lies in the
// data folder dir once links are followed, and is a folder.
func CheckDir(dir, path string) error {
	return checkInside(dir, path, fs.FileMode.IsDir, "not a folder inside the data folder")
}

// Check refuses what Open would refuse, without opening the file, so a
// folder's inputs are all checked before any of them is read. A missing
// file gives an error matching fs.ErrNotExist.
func Check(dir, path string) error { return checkRegular(dir, path) }

// errNoBeneath says openBeneath cannot be used on this system.
var errNoBeneath = errors.New("openat2 is not available")

func checkRegular(dir, path string) error {
	return checkInside(dir, path, fs.FileMode.IsRegular, notInside)
}

// checkInside follows the links of path, which must stay inside dir, and
// refuses with msg what it leads to unless ok accepts its mode.
func checkInside(dir, path string, ok func(fs.FileMode) bool, msg string) error {
	if f, err := openBeneath(dir, path, true); !errors.Is(err, errNoBeneath) {
		if err != nil {
			return err
		}
		info, err := f.Stat()
		f.Close()
		if err != nil {
			return err
		}
		if !ok(info.Mode()) {
			return &suite.InputError{File: path, Msg: msg}
		}
		return nil
	}
	return checkResolved(dir, path, ok, msg)
}

// checkResolved is checkInside without openat2.
func checkResolved(dir, path string, ok func(fs.FileMode) bool, msg string) error {
	real, err := resolveInside(dir, path)
	if err != nil {
		return err
	}
	info, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !ok(info.Mode()) {
		return &suite.InputError{File: path, Msg: msg}
	}
	return nil
}

// resolveInside follows the links of path and returns where it leads,
// or a bad-input error when that is outside the data folder dir. A link
// that leads nowhere is refused too, unless it is the path itself that is
// missing.
func resolveInside(dir, path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(path); lerr == nil {
				return "", &suite.InputError{File: path, Msg: notInside + " (a link that leads nowhere)"}
			}
		}
		return "", &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	realDir, err = filepath.Abs(realDir)
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(rel) {
		return "", &suite.InputError{File: path, Msg: notInside}
	}
	return real, nil
}

// openRegular opens the resolved path real without following a link
// swapped in since it was resolved and without blocking on a FIFO, and
// refuses anything but a regular file. name is the path as the user gave
// it, for messages; refused is what to say when the file is not regular.
func openRegular(real, name, refused string) (*os.File, error) {
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if isLinkError(err) {
			return nil, &suite.InputError{File: name, Msg: refused}
		}
		return nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	return keepRegular(f, name, refused)
}

// keepRegular returns the open file f when it is a regular file, and
// otherwise closes it and refuses it with the message refused.
func keepRegular(f *os.File, name, refused string) (*os.File, error) {
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &suite.InputError{File: name, Msg: refused}
	}
	return f, nil
}

// unwrapPath drops the path an *os.PathError repeats, since the caller
// names the file as the user gave it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readLimited reads all of f, or refuses it as larger than limit without
// holding more than limit+1 bytes.
func readLimited(f *os.File, name string, limit int64) ([]byte, error) {
	tooLarge := &suite.InputError{File: name, Msg: fmt.Sprintf("larger than the limit of %s", sizeText(limit))}
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, tooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	if int64(len(b)) > limit {
		return nil, tooLarge
	}
	return b, nil
}

// sizeText writes a limit as people say it: "16 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
