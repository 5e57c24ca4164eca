// Package publish puts generated files on disk so that readers never see a
// half-written result: single files go through a temporary file and a
// rename, whole trees are staged beside their destination and swapped in.
// A failure before the swap leaves the destination exactly as it was.
package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
//
// The swap is one step where the system offers it (Linux's
// RENAME_EXCHANGE): after a kill at any point, dest holds either all of
// its old content or all of its new. Elsewhere it is two renames, and a
// kill between them leaves the new content beside dest, marked complete;
// the next NewTree for dest puts it in place. Stages of killed runs are
// removed by the next NewTree for the same dest.
type Tree struct {
	ctx   context.Context
	dest  string
	stage *Stage
	mu    sync.Mutex
	dirs  map[string]bool
	// twoRenames forces the fallback swap, for tests on systems that
	// have the one-step swap.
	twoRenames bool
}

// Names beside dest: .<dest>.new-* are stages being written,
// .<dest>.ready-* complete stages waiting for the second rename, and
// .<dest>.old-* the content they replace.
func stagePrefix(dest, kind string) string { return "." + filepath.Base(dest) + "." + kind + "-" }

// NewTree starts staging the new content of dest. Writes fail once ctx
// is done, so an interrupted run stops writing and can Abort.
func NewTree(ctx context.Context, dest string) (*Tree, error) {
	dest = filepath.Clean(dest)
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	recoverDest(dest)
	if info, err := os.Lstat(dest); err == nil && !info.IsDir() {
		// Swapping would put a folder where a file or link was, and then
		// delete that file as the old content.
		return nil, fmt.Errorf("write: %s is not a folder; give a folder to write the release to", dest)
	}
	for _, kind := range []string{"ready", "old"} {
		Sweep(parent, stagePrefix(dest, kind))
	}
	stage, err := NewStage(parent, stagePrefix(dest, "new"))
	if err != nil {
		return nil, err
	}
	return &Tree{ctx: ctx, dest: dest, stage: stage, dirs: map[string]bool{}}, nil
}

// recoverDest puts back dest when a run was killed between the two
// renames of the fallback swap: the complete new content if it is there,
// else the old.
func recoverDest(dest string) {
	if _, err := os.Lstat(dest); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	parent := filepath.Dir(dest)
	for _, kind := range []string{"ready", "old"} {
		for _, path := range abandoned(parent, stagePrefix(dest, kind)) {
			if os.Rename(path, dest) == nil {
				return
			}
		}
	}
}

// Write stores one file at a slash-separated path relative to the tree.
func (t *Tree) Write(rel string, data []byte) error {
	path, err := t.place(rel)
	if err != nil {
		return err
	}
	return writeNew(path, data)
}

// WriteFrom stores what fill writes at a slash-separated path relative to
// the tree.
func (t *Tree) WriteFrom(rel string, fill func(w io.Writer) error) error {
	path, err := t.place(rel)
	if err != nil {
		return err
	}
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

// place returns where the file at the slash-separated path rel goes in
// the stage, making its folder the first time.
func (t *Tree) place(rel string) (string, error) {
	if err := t.ctx.Err(); err != nil {
		return "", err
	}
	clean := filepath.FromSlash(rel)
	if !filepath.IsLocal(clean) {
		return "", fmt.Errorf("write: %q is not a path inside the tree", rel)
	}
	path := filepath.Join(t.stage.Dir, clean)
	dir := filepath.Dir(path)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dirs[dir] {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		t.dirs[dir] = true
	}
	return path, nil
}

// Keep carries every file of the current dest into the tree, except the
// top-level entries named in replaced, which the caller writes anew. Files
// are linked, not copied, where the system allows.
func (t *Tree) Keep(replaced ...string) error {
	entries, err := os.ReadDir(t.dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if slices.Contains(replaced, e.Name()) {
			continue
		}
		if err := t.ctx.Err(); err != nil {
			return err
		}
		if err := carry(filepath.Join(t.dest, e.Name()), filepath.Join(t.stage.Dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// carry links or copies the file or folder from to the path to.
func carry(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil // only regular files belong in an output folder
		}
		if os.Link(path, target) == nil {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Commit replaces dest with the staged tree, in one step where the system
// can. The old content is removed only once the new one is in place.
func (t *Tree) Commit() error {
	if err := t.ctx.Err(); err != nil {
		t.Abort()
		return err
	}
	stage := t.stage.Dir
	if _, err := os.Lstat(t.dest); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(stage, t.dest); err != nil {
			t.Abort()
			return err
		}
		t.stage.unlock()
		return nil
	}
	if !t.twoRenames {
		if err := exchange(stage, t.dest); err == nil {
			return t.stage.Remove() // the stage's path now holds the old content
		}
	}
	return t.commitTwoRenames()
}

// commitTwoRenames swaps the tree in where the one-step swap is missing.
// The stage is first renamed to mark it complete, so that a kill between
// the two renames that follow leaves a dest the next run can restore.
func (t *Tree) commitTwoRenames() error {
	parent, suffix := filepath.Dir(t.dest), strings.TrimPrefix(filepath.Base(t.stage.Dir), stagePrefix(t.dest, "new"))
	ready := filepath.Join(parent, stagePrefix(t.dest, "ready")+suffix)
	old := filepath.Join(parent, stagePrefix(t.dest, "old")+suffix)
	if err := os.Rename(t.stage.Dir, ready); err != nil {
		t.Abort()
		return err
	}
	t.stage.Dir = ready
	if err := os.Rename(t.dest, old); err != nil {
		t.Abort()
		return err
	}
	if err := os.Rename(ready, t.dest); err != nil {
		os.Rename(old, t.dest)
		t.Abort()
		return err
	}
	t.stage.unlock()
	return os.RemoveAll(old)
}

// Abort drops the staged tree; dest is untouched.
func (t *Tree) Abort() { t.stage.Remove() }
