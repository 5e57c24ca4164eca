package gensuite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestWriteTrialsByCase checks that the lines of each snapshot are those
// of WriteTrials, each case's trials one after another in suite order.
func TestWriteTrialsByCase(t *testing.T) {
	byTrial, byCase := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if err := WriteTrials("../../data", byTrial, 30, 3); err != nil {
		t.Fatal(err)
	}
	if err := WriteTrialsByCase("../../data", byCase, 30, 3); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"baseline-v1", "candidate-v2", "candidate-v3"} {
		lines := func(dir string) []string {
			b, err := os.ReadFile(filepath.Join(dir, "outputs", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			return strings.SplitAfter(string(b), "\n")
		}
		a, b := lines(byTrial), lines(byCase)
		if len(a) != len(b) || len(b) != 30*3+1 {
			t.Fatalf("%s: %d and %d lines", name, len(a), len(b))
		}
		for i := range 30 {
			for trial := range 3 {
				got, want := b[i*3+trial], a[trial*30+i]
				if got != want || !strings.Contains(got, fmt.Sprintf(`"case_id":"%s"`, ID(i))) || !strings.Contains(got, fmt.Sprintf(`"trial":%d`, trial+1)) {
					t.Fatalf("%s line %d: %s, want %s (case %s, trial %d)", name, i*3+trial+1, got, want, ID(i), trial+1)
				}
			}
		}
	}
}

// TestShuffle checks that every snapshot keeps its lines, each once, in
// another order, and that a seed gives the same order again.
func TestShuffle(t *testing.T) {
	read := func(dir string) map[string][]string {
		snaps := map[string][]string{}
		for _, name := range []string{"baseline-v1", "candidate-v2", "candidate-v3"} {
			b, err := os.ReadFile(filepath.Join(dir, "outputs", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(b), "\n")
			if lines[len(lines)-1] != "" {
				t.Fatalf("%s: the last line has no line end", name)
			}
			snaps[name] = lines[:len(lines)-1]
		}
		return snaps
	}
	dirs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	for _, dir := range dirs {
		if err := Write("../../data", dir, 200); err != nil {
			t.Fatal(err)
		}
	}
	ordered := read(dirs[0])
	for _, dir := range dirs {
		if err := Shuffle(dir, 3); err != nil {
			t.Fatal(err)
		}
	}
	shuffled, again := read(dirs[0]), read(dirs[1])
	for name, want := range ordered {
		got := shuffled[name]
		if slices.Equal(got, want) {
			t.Errorf("%s: the lines kept their order", name)
		}
		if !slices.Equal(got, again[name]) {
			t.Errorf("%s: the same seed gave another order", name)
		}
		slices.Sort(got)
		want = slices.Clone(want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the lines changed", name)
		}
	}
}
