package evaluator

import (
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// The results file's buffer is sized near its length: never far below
// (it would grow by doubling) nor far above (memory held for nothing).
func TestResultsSizeHint(t *testing.T) {
	dir := t.TempDir()
	if err := gensuite.Write(sampleDir, dir, 2000); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{sampleDir, dir} {
		rel, err := EvaluateDir(d, Options{KeepOutputs: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rel.Snapshots {
			hint, n := s.Result.sizeHint(), len(s.JSON())
			if hint < n*8/10 || hint > n*5/2+4096 {
				t.Errorf("%s %s: hint %d for %d bytes", d, s.Label(), hint, n)
			}
		}
	}
}

// TestReportSizeHint checks that the report's buffer is made large
// enough at once, and not much larger, on the sample, every example and
// generated suites with and without trials.
func TestReportSizeHint(t *testing.T) {
	for _, dir := range sizeHintDirs(t) {
		rel, err := EvaluateDir(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		hint, size := rel.reportSizeHint(), len(rel.Report())
		if hint < size || hint > size+size/4+16<<10 {
			t.Errorf("%s: %d bytes made for a report of %d", dir, hint, size)
		}
	}
}

// sizeHintDirs are the sample, every example and generated suites with
// and without trials.
func sizeHintDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*", "gate.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, gate := range dirs {
		dirs[i] = filepath.Dir(gate)
	}
	generated, trials := t.TempDir(), t.TempDir()
	if err := gensuite.Write(sampleDir, generated, 2000); err != nil {
		t.Fatal(err)
	}
	if err := gensuite.WriteTrials(sampleDir, trials, 500, 3); err != nil {
		t.Fatal(err)
	}
	return append(dirs, sampleDir, generated, trials)
}
