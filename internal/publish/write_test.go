package publish

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return files
}

func TestTreeCommitReplacesEverything(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	os.MkdirAll(filepath.Join(dest, "old"), 0o755)
	os.WriteFile(filepath.Join(dest, "old", "stale.html"), []byte("stale"), 0o644)

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
	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "index.html"), []byte("before"), 0o644)
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

func TestNewTreeSweepsAbandonedStagesOnly(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	// Left by a killed run: no process holds them.
	for _, name := range []string{".public.new-1", ".public.old-2", ".public.ready-3"} {
		os.MkdirAll(filepath.Join(parent, name, "snapshots"), 0o755)
		os.WriteFile(filepath.Join(parent, name, "snapshots", "a.html"), []byte("x"), 0o644)
	}
	os.MkdirAll(dest, 0o755)
	// A run in progress for the same dest holds its stage.
	running, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	defer running.Abort()
	// Someone else's folder that merely looks alike is not ours to sweep.
	os.MkdirAll(filepath.Join(parent, "public.new-9"), 0o755)

	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Abort()
	var names []string
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{filepath.Base(running.stage.Dir), filepath.Base(tree.stage.Dir), "public", "public.new-9"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("beside dest: %v, want %v", names, want)
	}
}

func TestTwoRenamesCommitAndRecovery(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "index.html"), []byte("old"), 0o644)
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
	os.Rename(dest, filepath.Join(parent, ".public.old-7"))
	os.MkdirAll(filepath.Join(parent, ".public.ready-7"), 0o755)
	os.WriteFile(filepath.Join(parent, ".public.ready-7", "index.html"), []byte("newer"), 0o644)
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
	os.Rename(dest, filepath.Join(parent, ".public.old-8"))
	os.MkdirAll(filepath.Join(parent, ".public.new-8"), 0o755)
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
	os.MkdirAll(filepath.Join(dest, "results"), 0o755)
	os.MkdirAll(filepath.Join(dest, "snapshots"), 0o755)
	os.WriteFile(filepath.Join(dest, "results", "gone.json"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dest, "RELEASE_REPORT.md"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dest, "snapshots", "a.html"), []byte("page"), 0o644)
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
