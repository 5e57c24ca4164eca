package publish

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestRemoveTree(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
	}{
		{"empty", nil},
		{"flat", []string{"a.html", "b.html", ".nojekyll"}},
		{"nested", []string{"index.html", "snapshots/v1.html", "snapshots/v1/A.html", "snapshots/v1/B.html", "snapshots/v2/A.html", "cases/A.html", "assets/vendor/echarts/echarts.min.js"}},
		{"empty folders", []string{"a/b/c/", "a/d/", "e.html"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			outside := filepath.Join(root, "outside")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			kept := filepath.Join(outside, "kept.txt")
			if err := os.WriteFile(kept, []byte("kept"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "site")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if f[len(f)-1] != '/' {
					if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			// A link to a folder outside is removed, not followed.
			if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			if err := removeTree(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s is still there: %v", dir, err)
			}
			if b, err := os.ReadFile(kept); err != nil || string(b) != "kept" {
				t.Errorf("the file behind a link was touched: %q, %v", b, err)
			}
		})
	}
}

func TestRemoveTreeMissing(t *testing.T) {
	if err := removeTree(filepath.Join(t.TempDir(), "none")); err != nil {
		t.Errorf("removing a missing folder: %v, want nil as os.RemoveAll gives", err)
	}
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	for _, data := range []string{"a longer first version", "short", ""} {
		if err := writeNew(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Errorf("after writing %q the file holds %q (%v)", data, got, err)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode&^0o644 != 0 {
		t.Errorf("mode %v, want at most rw-r--r--", mode)
	}
	missing := filepath.Join(dir, "none", "page.html")
	err = writeNew(missing, []byte("x"))
	var pathErr *fs.PathError
	if !errors.As(err, &pathErr) || pathErr.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing folder: %v, want a path error naming %s", err, missing)
	}
}
