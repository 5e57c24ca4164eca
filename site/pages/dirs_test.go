package pages

import (
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// testDataDirs are the data folders the page tests run on: every
// example, the sample, and suites of 300 generated cases without and
// with trials.
func testDataDirs(t testing.TB) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "gate.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, gate := range dirs {
		dirs[i] = filepath.Dir(gate)
	}
	sample := filepath.Join("..", "..", "data")
	generated := filepath.Join(t.TempDir(), "generated")
	if err := gensuite.Write(sample, generated, 300); err != nil {
		t.Fatal(err)
	}
	trials := filepath.Join(t.TempDir(), "trials")
	if err := gensuite.WriteTrials(sample, trials, 300, 3); err != nil {
		t.Fatal(err)
	}
	return append(dirs, sample, generated, trials)
}
