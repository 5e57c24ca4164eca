package gensuite

import (
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
)

// TestWriteTrials checks that a generated suite with trials, matchers and
// the four wire formats loads, and that trials of the same outputs agree.
func TestWriteTrials(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := WriteTrials("../../data", dir, 60, 3); err != nil {
		t.Fatal(err)
	}
	rel, err := evaluator.EvaluateDir(dir, evaluator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rel.Snapshots {
		r := s.Result
		if r.Trials != 3 || r.CasesTotal != 60 {
			t.Fatalf("%s: %d trials of %d cases", s.Label(), r.Trials, r.CasesTotal)
		}
		for _, c := range r.Cases {
			if c.Flaky() {
				t.Errorf("%s %s: flaky, though every trial answers alike: %+v", s.Label(), c.CaseID, c.Failures)
			}
		}
	}
	// The sample's designed outcomes survive the matchers and formats.
	if got := rel.Snapshots[2].Result.CasesPassed; got != 60 {
		t.Errorf("candidate-v3 passes %d of 60", got)
	}
}
