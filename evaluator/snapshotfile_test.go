package evaluator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/load"
)

// TestEvaluateSnapshotStaysInsideTheDataFolder swaps a listed outputs
// file for a link out of the data folder after it was listed and checked,
// as a rebuild under serve --watch can meet it: the snapshot is refused,
// not read from outside.
func TestEvaluateSnapshotStaysInsideTheDataFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	s, err := load.Suite(dir, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := load.Snapshots(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := files[len(files)-1]
	if _, err := EvaluateSnapshot(s, f, Options{}); err != nil {
		t.Fatalf("before the swap: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	if err := os.Rename(f.Path, outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, f.Path); err != nil {
		t.Fatal(err)
	}
	_, err = EvaluateSnapshot(s, f, Options{})
	if want := f.Path + ": not a regular file inside the data folder"; err == nil || err.Error() != want {
		t.Fatalf("after the swap: %v, want %q", err, want)
	}
	// A file named on the command line may lie anywhere.
	if _, err := EvaluateFile(s, f.Label, f.Path, Options{}); err != nil {
		t.Fatalf("EvaluateFile refused a named file: %v", err)
	}
}
