package publish

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/releasegate/releasegate/internal/treecheck"
)

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() && d.Name() != MarkerName {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return files
}

// writeOwned makes dest a folder releasegate wrote, holding files.
func writeOwned(t *testing.T, dest string, files map[string]string) {
	t.Helper()
	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		if err := tree.Write(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tree.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestTreeCommitReplacesEverything(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	writeOwned(t, dest, map[string]string{"old/stale.html": "stale"})

	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if err := tree.Write("a/b/"+strings.Repeat("x", i+1)+".html", []byte("new")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := readTree(t, dest); len(got) != 1 || got["old/stale.html"] != "stale" {
		t.Fatalf("dest changed before Commit: %v", got)
	}
	if err := tree.Commit(); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dest)
	if len(got) != 50 || got["a/b/x.html"] != "new" {
		t.Fatalf("after Commit: %d files", len(got))
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Fatalf("leftovers beside dest: %v", entries)
	}
}

func TestTreeAbortLeavesDest(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	writeOwned(t, dest, map[string]string{"index.html": "before"})
	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	tree.Write("index.html", []byte("after"))
	tree.Abort()
	if got := readTree(t, dest); got["index.html"] != "before" || len(got) != 1 {
		t.Fatalf("Abort changed dest: %v", got)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Fatalf("leftovers beside dest: %v", entries)
	}
}

func TestTreeRefusesPathsOutside(t *testing.T) {
	tree, err := NewTree(context.Background(), filepath.Join(t.TempDir(), "public"))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Abort()
	for _, rel := range []string{"../x", "/etc/x", "a/../../x", ""} {
		if err := tree.Write(rel, nil); err == nil {
			t.Errorf("Write(%q) accepted", rel)
		}
	}
}

func TestFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nested", "r.json")
	if err := File(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := File(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir); len(got) != 1 || got["nested/r.json"] != "two" {
		t.Fatalf("files = %v", got)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", info.Mode())
	}
	// A folder where the file should go fails without leaving temp files.
	os.MkdirAll(filepath.Join(dir, "taken"), 0o755)
	if err := File(filepath.Join(dir, "taken"), []byte("x")); err == nil {
		t.Fatal("wrote over a folder")
	}
	if got := readTree(t, dir); len(got) != 1 {
		t.Fatalf("leftovers: %v", got)
	}
}

func TestFileFromKeepsOldContentOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := File(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	err := FileFrom(path, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return errors.New("encoder failed")
	})
	if err == nil || err.Error() != "encoder failed" {
		t.Fatalf("error = %v", err)
	}
	if got := readTree(t, dir); len(got) != 1 || got["r.json"] != "old" {
		t.Fatalf("files = %v", got)
	}
}

func TestTreeWriteFrom(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "results")
	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.WriteFrom("a/b.json", func(w io.Writer) error { _, err := io.WriteString(w, "streamed"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := tree.WriteFrom("c.json", func(io.Writer) error { return errors.New("no") }); err == nil {
		t.Fatal("a failing fill was not reported")
	}
	tree.Abort()
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Fatalf("aborted tree left %s: %v", dest, err)
	}
}

// leftStage makes what a killed run leaves beside dest: a stage of the
// kind given, unlocked, holding a page.
func leftStage(t *testing.T, dest, kind string) string {
	t.Helper()
	parent := filepath.Dir(dest)
	switch kind {
	case "new":
		s, err := NewStage(parent, stagePrefix(dest, "new"))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(s.Dir, "snapshots"), 0o755)
		os.WriteFile(filepath.Join(s.Dir, "snapshots", "a.html"), []byte("x"), 0o644)
		s.unlock()
		return s.Dir
	}
	// ready and old hold a complete release with its marker.
	tmp := filepath.Join(t.TempDir(), "site")
	writeOwned(t, tmp, map[string]string{"snapshots/a.html": kind})
	path := filepath.Join(parent, stagePrefix(dest, kind)+randomSuffix())
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNewTreeSweepsAbandonedStagesOnly(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	// Left by killed runs: no process holds them.
	for _, kind := range []string{"new", "old", "ready"} {
		leftStage(t, dest, kind)
	}
	os.MkdirAll(dest, 0o755)
	// Someone else's entries that merely look alike are not ours to
	// sweep, nor to put in place of dest.
	treecheck.Write(t, parent, map[string]string{
		"public.new-9/a.txt":                                "mine",
		".public.old-backup/index.html":                     "my backup",
		".public.new-1/a.txt":                               "mine",
		".public.ready-0123456789abcdef/a.txt":              "mine, no marker",
		".public.old-0123456789abcdee":                      "a file",
		".releasegate-bundle-notes.txt":                     "notes",
		".public.new-fedcba9876543210/x/":                   "",
		".public.new-fedcba9876543211":                      "-> .public.old-backup",
		".public.ready-fedcba9876543212/.releasegate-stage": ".public.ready-other\n",
	})
	before := treecheck.Snapshot(t, parent)
	// A run in progress for the same dest holds its stage.
	running, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	defer running.Abort()

	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Abort()
	var names []string
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if e.Name() != filepath.Base(running.stage.Dir) && e.Name() != filepath.Base(tree.stage.Dir) {
			names = append(names, e.Name())
		}
	}
	if len(names) != 10 {
		t.Errorf("beside dest: %v; want public and the 9 look-alikes", names)
	}
	treecheck.Kept(t, parent, pick(before, func(k string) bool {
		return !strings.HasPrefix(k, filepath.Base(running.stage.Dir)) && !isSwept(k)
	}))
}

// isSwept reports whether the slash path k lies in a stage the sweep
// may remove: a name with a hex suffix and a marker, as leftStage makes.
func isSwept(k string) bool {
	top, _, _ := strings.Cut(k, "/")
	for _, kind := range []string{"new", "old", "ready"} {
		if isOurName(top, ".public."+kind+"-") && !strings.Contains(top, "fedcba") && !strings.Contains(top, "0123456789abcde") {
			return true
		}
	}
	return false
}

// pick keeps the entries of l whose path keep accepts.
func pick(l treecheck.Listing, keep func(string) bool) treecheck.Listing {
	out := treecheck.Listing{}
	for k, v := range l {
		if keep(k) {
			out[k] = v
		}
	}
	return out
}

func TestTwoRenamesCommitAndRecovery(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	writeOwned(t, dest, map[string]string{"index.html": "old"})
	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	tree.twoRenames = true
	tree.Write("index.html", []byte("new"))
	if err := tree.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, parent); len(got) != 1 || got["public/index.html"] != "new" {
		t.Fatalf("after commit: %v", got)
	}

	// A kill between the two renames: dest is gone, the complete new
	// release waits as .ready-*, the old one as .old-*. The next run puts
	// the new one in place before anything else.
	os.Rename(dest, filepath.Join(parent, ".public.old-"+randomSuffix()))
	tmp := filepath.Join(t.TempDir(), "site")
	writeOwned(t, tmp, map[string]string{"index.html": "newer"})
	os.Rename(tmp, filepath.Join(parent, ".public.ready-"+randomSuffix()))
	next, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	next.Abort()
	if got := readTree(t, parent); len(got) != 1 || got["public/index.html"] != "newer" {
		t.Fatalf("after recovery: %v", got)
	}

	// Killed after the first rename but before the stage was complete:
	// only the old release is there, and it comes back.
	os.Rename(dest, filepath.Join(parent, ".public.old-"+randomSuffix()))
	leftStage(t, dest, "new")
	next, err = NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	next.Abort()
	if got := readTree(t, parent); len(got) != 1 || got["public/index.html"] != "newer" {
		t.Fatalf("after recovery of the old release: %v", got)
	}
}

func TestTreeStopsWritingWhenCancelled(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	ctx, cancel := context.WithCancel(context.Background())
	tree, err := NewTree(ctx, dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Write("a.html", []byte("a")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := tree.Write("b.html", []byte("b")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write after cancel: %v", err)
	}
	if err := tree.Commit(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit after cancel: %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Fatalf("left: %v", entries)
	}
}

func TestKeepCarriesOtherFiles(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	writeOwned(t, dest, map[string]string{"results/gone.json": "old", "RELEASE_REPORT.md": "old", "snapshots/a.html": "page"})
	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Keep("results", "RELEASE_REPORT.md"); err != nil {
		t.Fatal(err)
	}
	tree.Write("results/new.json", []byte("new"))
	tree.Write("RELEASE_REPORT.md", []byte("new"))
	if err := tree.Commit(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"public/results/new.json": "new", "public/RELEASE_REPORT.md": "new", "public/snapshots/a.html": "page"}
	if got := readTree(t, parent); !maps.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestNewTreeRefusesAFileOrLinkAsDest(t *testing.T) {
	parent := t.TempDir()
	file := filepath.Join(parent, "public")
	os.WriteFile(file, []byte("keep me"), 0o644)
	if _, err := NewTree(context.Background(), file); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("NewTree over a file: %v", err)
	}
	link := filepath.Join(parent, "site")
	os.Symlink(t.TempDir(), link)
	if _, err := NewTree(context.Background(), link); err == nil {
		t.Fatal("NewTree over a link succeeded")
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Fatalf("the file changed: %q", b)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 2 {
		t.Fatalf("left: %v", entries)
	}
}

// A run killed while it swept or made a stage leaves what the next sweep
// must still know as releasegate's: a stage whose files are partly gone
// but whose marker is not (the marker goes last), and an empty folder of
// a stage's exact name (killed before it wrote the marker).
func TestSweepFinishesWhatAKilledRunLeft(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	prefix := stagePrefix(dest, "new")
	half := leftStage(t, dest, "new")
	os.Remove(filepath.Join(half, "snapshots", "a.html"))
	empty := filepath.Join(parent, prefix+randomSuffix())
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	// Killed while it wrote the marker: only its first bytes.
	partial := filepath.Join(parent, prefix+randomSuffix())
	if err := os.Mkdir(partial, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(partial, stageMarker), []byte(filepath.Base(partial)[:5]), 0o644)
	// Not ours: a folder of the right name whose marker names another,
	// and a folder of another name, empty, are left.
	wrong := filepath.Join(parent, prefix+randomSuffix())
	if err := os.Mkdir(wrong, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(wrong, stageMarker), []byte("other"), 0o644)
	other := filepath.Join(parent, prefix+"mine")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	Sweep(parent, prefix)
	for _, gone := range []string{half, empty, partial} {
		if _, err := os.Lstat(gone); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after the sweep (%v)", filepath.Base(gone), err)
		}
	}
	for _, kept := range []string{other, wrong} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("the sweep removed %s, which is not an unfinished stage: %v", filepath.Base(kept), err)
		}
	}
}
