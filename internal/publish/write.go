// Package publish puts generated files on disk so that readers never see a
// half-written result: single files go through a temporary file and a
// rename, whole trees are staged beside their destination and swapped in.
// A failure before the swap leaves the destination exactly as it was.
package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
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
// Only a folder releasegate provably owns is replaced (docs/ownership.md):
// NewTree refuses one that is not missing, empty, or wholly listed in its
// marker; Commit writes the new marker into the tree before the swap, and
// removes of the old content only the files its marker listed.
//
// The swap is one step where the system offers it (Linux's
// RENAME_EXCHANGE): after a kill at any point, dest holds either all of
// its old content or all of its new. Elsewhere it is two renames, and a
// kill between them leaves the new content beside dest, marked complete;
// the next NewTree for dest puts it in place. A dest that cannot be
// renamed at all (a mount point) has its content replaced in place.
type Tree struct {
	ctx   context.Context
	dest  string
	stage *Stage
	mu    sync.Mutex
	dirs  map[string]bool
	// old holds the SHA-256 of every file of dest, all of them
	// releasegate's; written those of the new content.
	old     map[string]string
	written map[string]string
	// twoRenames forces the fallback swap, for tests on systems that
	// have the one-step swap.
	twoRenames bool
	// inside says the stage is inside dest, which is then replaced in
	// place.
	inside bool
	// rename and exchange move dest and the stage; tests make them fail
	// as they do on a mount point.
	rename   func(from, to string) error
	exchange func(a, b string) error
}

// Names beside dest: .<dest>.new-<suffix> are stages being written,
// .<dest>.ready-<suffix> complete stages waiting for the second rename,
// and .<dest>.old-<suffix> the content they replace.
func stagePrefix(dest, kind string) string { return "." + filepath.Base(dest) + "." + kind + "-" }

// NewTree starts staging the new content of dest, after making sure dest
// is releasegate's to replace. Writes fail once ctx is done, so an
// interrupted run stops writing and can Abort.
func NewTree(ctx context.Context, dest string) (*Tree, error) {
	return newTree(ctx, dest, NewStage)
}

// insidePrefix names the stage made inside dest when none can be made
// beside it.
const insidePrefix = ".releasegate-new-"

// newTree is NewTree making its stage with newStage.
func newTree(ctx context.Context, dest string, newStage func(parent, prefix string) (*Stage, error)) (*Tree, error) {
	dest = filepath.Clean(dest)
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	recoverDest(dest)
	if info, err := os.Lstat(dest); err == nil && info.IsDir() {
		// A stage a killed run made inside dest (see below) is its own.
		Sweep(dest, insidePrefix)
	}
	old, err := checkOwned(dest)
	if err != nil {
		return nil, err
	}
	for _, kind := range []string{"ready", "old"} {
		Sweep(parent, stagePrefix(dest, kind))
	}
	t := &Tree{ctx: ctx, dest: dest, dirs: map[string]bool{}, old: old, written: map[string]string{},
		rename: os.Rename, exchange: exchange}
	t.stage, err = newStage(parent, stagePrefix(dest, "new"))
	if errors.Is(err, fs.ErrPermission) {
		// Nothing may be made beside dest (a mount point in a folder of
		// the system's): stage inside it, and replace its content in
		// place.
		if info, serr := os.Lstat(dest); serr == nil && info.IsDir() {
			t.stage, err = newStage(dest, insidePrefix)
			t.inside = true
		}
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// recoverDest puts back dest when a run was killed between the two
// renames of the fallback swap: the complete new content if it is there,
// else the old. Only folders of a stage's exact name that hold a marker
// are candidates.
func recoverDest(dest string) {
	if _, err := os.Lstat(dest); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	parent := filepath.Dir(dest)
	for _, kind := range []string{"ready", "old"} {
		for _, path := range abandoned(parent, stagePrefix(dest, kind)) {
			if _, err := os.Lstat(filepath.Join(path, MarkerName)); err != nil {
				continue
			}
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
	if err := writeNew(path, data); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	t.record(rel, hex.EncodeToString(sum[:]))
	return nil
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
	h := sha256.New()
	err = fill(io.MultiWriter(f, h))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		t.record(rel, hex.EncodeToString(h.Sum(nil)))
	}
	return err
}

// record notes that the file at rel was written with content sum.
func (t *Tree) record(rel, sum string) {
	t.mu.Lock()
	t.written[path.Clean(rel)] = sum
	t.mu.Unlock()
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
	switch path.Clean(rel) {
	case MarkerName, markerTemp, stageMarker:
		return "", fmt.Errorf("write: %q is the name of releasegate's own list of its files", rel)
	}
	p := filepath.Join(t.stage.Dir, clean)
	dir := filepath.Dir(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.dirs[dir] {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		t.dirs[dir] = true
	}
	return p, nil
}

// Keep carries every file of the current dest into the tree, except the
// files under the top-level entries named in replaced, which the caller
// writes anew. Files are linked, not copied, where the system allows.
// Every file of dest is releasegate's, as NewTree made sure.
func (t *Tree) Keep(replaced ...string) error {
	for _, rel := range slices.Sorted(maps.Keys(t.old)) {
		top, _, _ := strings.Cut(rel, "/")
		if slices.Contains(replaced, top) {
			continue
		}
		if err := t.ctx.Err(); err != nil {
			return err
		}
		to, err := t.place(rel)
		if err != nil {
			return err
		}
		if err := carry(filepath.Join(t.dest, filepath.FromSlash(rel)), to); err != nil {
			return err
		}
		t.record(rel, t.old[rel])
	}
	return nil
}

// carry links or copies the file from to the path to.
func carry(from, to string) error {
	if os.Link(from, to) == nil {
		return nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// Commit replaces dest with the staged tree, in one step where the system
// can. The old content is removed only once the new one is in place, and
// only the files of it that releasegate wrote.
func (t *Tree) Commit() error {
	if err := t.ctx.Err(); err != nil {
		t.Abort()
		return err
	}
	stage := t.stage.Dir
	// The stage becomes the release: it gets the release's marker and
	// loses its own.
	m := manifest{}
	for p, sum := range t.written {
		m.add(p, sum)
	}
	if err := writeMarker(stage, m); err != nil {
		t.Abort()
		return err
	}
	if err := os.Remove(filepath.Join(stage, stageMarker)); err != nil {
		t.Abort()
		return err
	}
	if t.inside {
		return t.commitInPlace()
	}
	if _, err := os.Lstat(t.dest); errors.Is(err, fs.ErrNotExist) {
		if err := t.rename(stage, t.dest); err == nil {
			t.stage.unlock()
			return nil
		} else if !cannotMove(err) {
			t.Abort()
			return err
		}
		// The folder is gone but its name cannot take the stage: make
		// an empty folder there and fill it in place.
		if err := os.Mkdir(t.dest, 0o755); err != nil {
			t.Abort()
			return err
		}
		return t.commitInPlace()
	}
	if !t.twoRenames {
		if err := t.exchange(stage, t.dest); err == nil {
			// The stage's path now holds the old content.
			removeOwned(stage, t.old, false)
			t.stage.unlock()
			return nil
		}
	}
	return t.commitTwoRenames()
}

// cannotMove reports whether err is how the system refuses to rename a
// folder that stays where it is: a mount point (busy), another file
// system, or a folder the system will not move.
func cannotMove(err error) bool {
	return errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)
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
	if err := t.rename(t.dest, old); err != nil {
		if cannotMove(err) {
			return t.commitInPlace()
		}
		t.Abort()
		return err
	}
	if err := t.rename(ready, t.dest); err != nil {
		os.Rename(old, t.dest)
		t.Abort()
		return err
	}
	t.stage.unlock()
	removeOwned(old, t.old, false)
	return nil
}

// commitInPlace replaces the content of a dest that cannot be renamed (a
// mount point): its old files, all releasegate's, are removed and the
// staged ones moved in. It is not one step; but first the marker lists
// the old files and the new, so after a kill at any point every file in
// dest is still provably releasegate's and the next run replaces it.
func (t *Tree) commitInPlace() error {
	fail := func(err error) error {
		t.Abort()
		return fmt.Errorf("write: %s cannot be renamed (it may be a mount point), and replacing its content in place failed: %w; empty it yourself or write to another folder with --out", t.dest, err)
	}
	union := manifest{}
	for p, sum := range t.old {
		union.add(p, sum)
	}
	for p, sum := range t.written {
		union.add(p, sum)
	}
	if err := writeMarker(t.dest, union); err != nil {
		return fail(err)
	}
	for p := range t.old {
		os.Remove(filepath.Join(t.dest, filepath.FromSlash(p)))
	}
	removeEmptyFolders(t.dest, t.dest)
	for _, p := range slices.Sorted(maps.Keys(t.written)) {
		from := filepath.Join(t.stage.Dir, filepath.FromSlash(p))
		to := filepath.Join(t.dest, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fail(err)
		}
		if err := moveFile(t.rename, from, to); err != nil {
			return fail(err)
		}
	}
	final := manifest{}
	for p, sum := range t.written {
		final.add(p, sum)
	}
	if err := writeMarker(t.dest, final); err != nil {
		return fail(err)
	}
	t.stage.Remove()
	return nil
}

// moveFile renames from to to, or copies it where the two are on
// different file systems.
func moveFile(rename func(from, to string) error, from, to string) error {
	err := rename(from, to)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	// Written where it goes: a temporary name would be a file the
	// marker does not list, if a kill left it.
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// Abort drops the staged tree; dest is untouched.
func (t *Tree) Abort() { t.stage.Remove() }

// writeNew creates the file at path, which no one else writes, with data.
// Writing it in three system calls instead of os.WriteFile was dropped
// for gaining too little (see "Fast paths" in docs/design.md).
func writeNew(path string, data []byte) error {
	return os.WriteFile(path, data, 0o644)
}
