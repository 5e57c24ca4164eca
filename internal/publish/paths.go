package publish

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Paths are the files and folders one command reads and writes, named by
// the flags that gave them. Check refuses, before anything is read or
// written, an output that is or lies inside an input (it would destroy
// what it is made from), an input inside an output folder (replacing the
// folder would delete it), and two outputs that are one file or one
// inside the other. It decides on the files the paths lead to, links
// followed, and on file identity, never on how the paths are spelled
// (docs/ownership.md).
type Paths struct {
	inputs, outputs []namedPath
}

type namedPath struct {
	what, path string
}

// Input adds a file or folder the command reads; what names it for
// people ("the data folder (--data)"). An empty path is skipped.
func (p *Paths) Input(what, path string) {
	if path != "" {
		p.inputs = append(p.inputs, namedPath{what, path})
	}
}

// Output adds a file or folder the command writes.
func (p *Paths) Output(what, path string) {
	if path != "" {
		p.outputs = append(p.outputs, namedPath{what, path})
	}
}

// Check applies the rules; the error names both paths and the flags.
func (p *Paths) Check() error {
	for i, out := range p.outputs {
		for _, in := range p.inputs {
			switch {
			case sameOrInside(out.path, in.path):
				if same(out.path, in.path) {
					return fmt.Errorf("refusing to write %s: it is %s, which releasegate reads; write somewhere else", out.path, in.what)
				}
				return fmt.Errorf("refusing to write %s: it lies inside %s %s, which releasegate only reads; write somewhere else", out.path, in.what, in.path)
			case sameOrInside(in.path, out.path):
				return fmt.Errorf("refusing to write %s (%s): it holds %s %s, which writing it would destroy; write somewhere else", out.path, out.what, in.what, in.path)
			}
		}
		for _, other := range p.outputs[:i] {
			if sameOrInside(out.path, other.path) || sameOrInside(other.path, out.path) {
				return fmt.Errorf("refusing to write %s (%s) and %s (%s): one would overwrite the other; give them different places", other.path, other.what, out.path, out.what)
			}
		}
	}
	return nil
}

// resolve returns path made absolute with every link in its longest
// existing part followed; the rest, which does not exist yet, is
// appended as given.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// same reports whether a and b lead to the same file or folder.
func same(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	return resolve(a) == resolve(b)
}

// sameOrInside reports whether a leads to b or to something inside the
// folder b, by the identity of a and of each folder above it.
func sameOrInside(a, b string) bool {
	ra, rb := resolve(a), resolve(b)
	ib, err := os.Stat(rb)
	if err != nil {
		return ra == rb || strings.HasPrefix(ra, rb+string(filepath.Separator))
	}
	for p := ra; ; {
		if info, err := os.Stat(p); err == nil && os.SameFile(info, ib) {
			return true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// Replace writes what fill writes to path atomically, as FileFrom does,
// but only over nothing or over a file that ours says releasegate wrote
// (docs/ownership.md). what names the file for people ("--output").
func Replace(path, what string, ours func(head []byte) bool, fill func(w io.Writer) error) error {
	if err := CheckReplace(path, what, ours); err != nil {
		return err
	}
	return FileFrom(path, fill)
}

// CheckReplace refuses to replace path unless it is missing or a regular
// file whose first bytes ours recognises as releasegate's.
func CheckReplace(path, what string, ours func(head []byte) bool) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("refusing to write %s (%s): it exists and is not a regular file releasegate wrote; choose another name, or remove it yourself", path, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, headLen)
	n, _ := io.ReadFull(f, head)
	if !ours(head[:n]) {
		return fmt.Errorf("refusing to overwrite %s (%s): it exists and releasegate did not write it; choose another name, or remove it yourself", path, what)
	}
	return nil
}

// headLen is how much of an existing file CheckReplace shows ours.
const headLen = 4096
