// Package treecheck fingerprints a folder of a person's files in tests,
// so that a test can prove a command left every one of them exactly as
// it was: the same entries, the same kinds, the same bytes, the same
// link targets.
package treecheck

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Listing is every entry below a folder by slash path: "dir", "file
// <sha256> <mode>" or "link -> <target>".
type Listing map[string]string

// Snapshot lists every entry below root, root itself excluded. It does
// not follow links.
func Snapshot(t testing.TB, root string) Listing {
	t.Helper()
	l := Listing{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			l[key] = "link -> " + target
		case d.IsDir():
			l[key] = "dir"
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			l[key] = fmt.Sprintf("file %x %v", sha256.Sum256(b), info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing %s: %v", root, err)
	}
	return l
}

// Diff describes how got differs from l, one line per entry; "" when
// they are the same.
func (l Listing) Diff(got Listing) string {
	var lines []string
	keys := slices.Sorted(maps.Keys(l))
	for _, k := range keys {
		g, ok := got[k]
		switch {
		case !ok:
			lines = append(lines, fmt.Sprintf("  gone: %s (%s)", k, l[k]))
		case g != l[k]:
			lines = append(lines, fmt.Sprintf("  changed: %s (%s, now %s)", k, l[k], g))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := l[k]; !ok {
			lines = append(lines, fmt.Sprintf("  new: %s (%s)", k, got[k]))
		}
	}
	return strings.Join(lines, "\n")
}

// Unchanged fails the test when the folder root does not hold exactly
// what before listed.
func Unchanged(t testing.TB, root string, before Listing) {
	t.Helper()
	if d := before.Diff(Snapshot(t, root)); d != "" {
		t.Errorf("%s changed:\n%s", root, d)
	}
}

// Kept fails the test when any entry before listed is gone or changed
// in root; entries added beside them are allowed.
func Kept(t testing.TB, root string, before Listing) {
	t.Helper()
	now := Snapshot(t, root)
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if now[k] != before[k] {
			lines = append(lines, fmt.Sprintf("  %s: was %s, now %q", k, before[k], now[k]))
		}
	}
	if len(lines) > 0 {
		t.Errorf("%s lost or changed what it held:\n%s", root, strings.Join(lines, "\n"))
	}
}

// Write makes the files of tree below root: a path ending in "/" is a
// folder, a value starting with "-> " a symbolic link to the rest.
func Write(t testing.TB, root string, tree map[string]string) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(tree)) {
		path := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch v := tree[p]; {
		case strings.HasSuffix(p, "/"):
			err = os.MkdirAll(path, 0o755)
		case strings.HasPrefix(v, "-> "):
			err = os.Symlink(strings.TrimPrefix(v, "-> "), path)
		default:
			err = os.WriteFile(path, []byte(v), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
