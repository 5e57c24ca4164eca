// Package write puts generated files on disk so that readers never see a
// half-written result: single files go through a temporary file and a
// rename, whole trees are staged beside their destination and swapped in.
// A failure before the swap leaves the destination exactly as it was.
package write

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// File writes data to path atomically, creating parent folders.
func File(path string, data []byte) error {
	return FileFrom(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// FileFrom writes what fill writes to path atomically, creating parent
// folders, so a large file need not be held in memory. If fill fails, path
// is left as it was.
func FileFrom(path string, fill func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Tree stages a folder's new content beside it. Write files into it from
// any number of goroutines, then Commit to swap it in or Abort to drop it.
type Tree struct {
	dest, stage string
	mu          sync.Mutex
	dirs        map[string]bool
}

// NewTree starts staging the new content of dest.
func NewTree(dest string) (*Tree, error) {
	dest = filepath.Clean(dest)
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+".new-*")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		os.RemoveAll(stage)
		return nil, err
	}
	return &Tree{dest: dest, stage: stage, dirs: map[string]bool{}}, nil
}

// Write stores one file at a slash-separated path relative to the tree.
func (t *Tree) Write(rel string, data []byte) error {
	return t.WriteFrom(rel, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom stores what fill writes at a slash-separated path relative to
// the tree.
func (t *Tree) WriteFrom(rel string, fill func(w io.Writer) error) error {
	clean := filepath.FromSlash(rel)
	if !filepath.IsLocal(clean) {
		return fmt.Errorf("write: %q is not a path inside the tree", rel)
	}
	path := filepath.Join(t.stage, clean)
	dir := filepath.Dir(path)
	t.mu.Lock()
	if !t.dirs[dir] {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.mu.Unlock()
			return err
		}
		t.dirs[dir] = true
	}
	t.mu.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Commit replaces dest with the staged tree. The old content is moved
// aside first and removed only once the new one is in place.
func (t *Tree) Commit() error {
	old := ""
	if _, err := os.Lstat(t.dest); err == nil {
		old = filepath.Join(filepath.Dir(t.stage), strings.Replace(filepath.Base(t.stage), ".new-", ".old-", 1))
		if err := os.Rename(t.dest, old); err != nil {
			t.Abort()
			return err
		}
	}
	if err := os.Rename(t.stage, t.dest); err != nil {
		if old != "" {
			os.Rename(old, t.dest)
		}
		t.Abort()
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Abort drops the staged tree; dest is untouched.
func (t *Tree) Abort() { os.RemoveAll(t.stage) }
