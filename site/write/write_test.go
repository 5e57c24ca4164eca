package write

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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
