package publish

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/releasegate/releasegate/internal/treecheck"
)

// TestNewTreeRefusesWhatIsNotReleasegates puts a person's files in the
// output folder in every way; NewTree refuses each, naming the folder,
// and leaves every file byte-identical.
func TestNewTreeRefusesWhatIsNotReleasegates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owned map[string]string // written by releasegate first
		user  map[string]string // then added or changed by the person
		want  string
	}{
		{"own files", nil, map[string]string{"index.html": "mine", "notes.txt": "mine"}, "did not write (index.html, notes.txt)"},
		{"an earlier site", nil, map[string]string{"index.html": "site", "assets/site.css": "", ".nojekyll": ""}, "earlier releasegate"},
		{"a results folder", nil, map[string]string{"results/exp1.csv": "a,b"}, "earlier releasegate"},
		{"just notes", nil, map[string]string{"notes.txt": "mine"}, "did not write (notes.txt)"},
		{"a file added to a site", map[string]string{"index.html": "site"}, map[string]string{"results/exp1.csv": "a,b"}, "results/exp1.csv"},
		{"a page edited", map[string]string{"index.html": "site"}, map[string]string{"index.html": "edited"}, "changed since releasegate wrote it"},
		{"a link added", map[string]string{"index.html": "site"}, map[string]string{"docs": "-> /etc"}, "(docs)"},
		{"a marker of another folder", nil, map[string]string{MarkerName: "# list\n", "a.txt": "mine"}, "a.txt"},
		{"a damaged marker", nil, map[string]string{MarkerName: "not a list\n", "a.txt": "mine"}, "not a line of releasegate's list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "public")
			if tc.owned != nil {
				writeOwned(t, dest, tc.owned)
			}
			treecheck.Write(t, dest, tc.user)
			before := treecheck.Snapshot(t, parent)
			tree, err := NewTree(context.Background(), dest)
			if err == nil {
				tree.Abort()
				t.Fatal("accepted a folder that is not releasegate's")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dest) {
				t.Errorf("error %q does not name %s and say %q", err, dest, tc.want)
			}
			treecheck.Unchanged(t, parent, before)
		})
	}
}

func TestMarkerListsWhatWasWritten(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	files := map[string]string{"index.html": "i", "results/x.json": "x", ".nojekyll": ""}
	writeOwned(t, a, files)
	writeOwned(t, b, files)
	ma, _ := os.ReadFile(filepath.Join(a, MarkerName))
	mb, _ := os.ReadFile(filepath.Join(b, MarkerName))
	if string(ma) != string(mb) {
		t.Fatalf("the same files give different markers:\n%s\n%s", ma, mb)
	}
	want := markerHeader +
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  .nojekyll\n" +
		"de7d1b721a1e0632b7cf04edf5032c8ecffa9f9a08492152b926f1a5a7e765d7  index.html\n" +
		"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  results/x.json\n"
	if string(ma) != want {
		t.Fatalf("marker:\n%s\nwant:\n%s", ma, want)
	}
	// A second run over it replaces it.
	writeOwned(t, a, map[string]string{"index.html": "j"})
	if got := readTree(t, a); len(got) != 1 || got["index.html"] != "j" {
		t.Fatalf("after the second run: %v", got)
	}
}

// busy is a rename that fails on dest as on a mount point.
func busy(dest string) func(from, to string) error {
	return func(from, to string) error {
		if from == dest || to == dest {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EBUSY}
		}
		return os.Rename(from, to)
	}
}

func TestCommitInPlaceWhenDestCannotBeRenamed(t *testing.T) {
	for _, two := range []bool{false, true} {
		parent := t.TempDir()
		dest := filepath.Join(parent, "mnt")
		writeOwned(t, dest, map[string]string{"index.html": "old", "old/gone.html": "old", "keep/a.html": "old"})
		tree, err := NewTree(context.Background(), dest)
		if err != nil {
			t.Fatal(err)
		}
		tree.twoRenames = two
		tree.rename = busy(dest)
		tree.exchange = func(a, b string) error { return syscall.EBUSY }
		tree.Write("index.html", []byte("new"))
		tree.Write("keep/a.html", []byte("new"))
		tree.Write("new/b.html", []byte("new"))
		if err := tree.Commit(); err != nil {
			t.Fatalf("two renames %v: %v", two, err)
		}
		got := readTree(t, parent)
		if len(got) != 3 || got["mnt/index.html"] != "new" || got["mnt/new/b.html"] != "new" || got["mnt/keep/a.html"] != "new" {
			t.Fatalf("two renames %v: after commit: %v", two, got)
		}
		// The folder is still releasegate's: the next run replaces it.
		next, err := NewTree(context.Background(), dest)
		if err != nil {
			t.Fatal(err)
		}
		next.Abort()
	}
}

// TestCommitInPlaceLeavesNeighbours: the in-place replacement of a
// folder releasegate owns never touches an entry beside it.
func TestCommitInPlaceLeavesNeighbours(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "mnt")
	writeOwned(t, dest, map[string]string{"index.html": "old"})
	treecheck.Write(t, parent, map[string]string{"notes.txt": "mine", ".mnt.old-backup/a": "mine"})
	before := treecheck.Snapshot(t, parent)
	delete(before, "mnt/index.html")
	delete(before, "mnt/"+MarkerName)
	tree, err := NewTree(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	tree.rename = busy(dest)
	tree.exchange = func(a, b string) error { return errors.ErrUnsupported }
	tree.Write("index.html", []byte("new"))
	if err := tree.Commit(); err != nil {
		t.Fatal(err)
	}
	treecheck.Kept(t, parent, before)
}

// TestStageInsideWhenNothingMayBeMadeBeside: when no stage may be made
// beside dest (a mount point in a folder of the system's), the stage is
// made inside it and the content replaced in place; a kill leaving that
// stage does not make dest foreign.
func TestStageInsideWhenNothingMayBeMadeBeside(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "mnt")
	writeOwned(t, dest, map[string]string{"index.html": "old", "old.html": "old"})
	treecheck.Write(t, parent, map[string]string{"notes.txt": "mine"})
	noBeside := func(p, prefix string) (*Stage, error) {
		if p == parent {
			return nil, &os.PathError{Op: "mkdir", Path: p, Err: syscall.EACCES}
		}
		return NewStage(p, prefix)
	}
	// A stage left inside dest by a killed run.
	left, err := NewStage(dest, insidePrefix)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(left.Dir, "half.html"), []byte("half"), 0o644)
	left.unlock()
	tree, err := newTree(context.Background(), dest, noBeside)
	if err != nil {
		t.Fatal(err)
	}
	tree.rename = busy(dest)
	tree.Write("index.html", []byte("new"))
	if err := tree.Commit(); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, parent)
	if len(got) != 2 || got["mnt/index.html"] != "new" || got["notes.txt"] != "mine" {
		t.Fatalf("after commit: %v", got)
	}
}
