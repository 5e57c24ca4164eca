package evaluator

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/floor"
	"github.com/releasegate/releasegate/internal/goldentest"
)

const sampleDir = "../data"

// TestSampleOutcomes pins the sample to its designed outcomes (README.md),
// snapshot by snapshot.
func TestSampleOutcomes(t *testing.T) {
	rel, err := EvaluateDir(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		label    string
		decision decide.Decision
		passed   int
		critical int
		failing  []string
		p95      string
		avgCost  string
	}{
		{"baseline-v1", decide.Block, 8, 2, []string{"ER-004", "ER-005", "ER-007", "ER-011"}, "1,100 ms", "USD 0.01325"},
		{"candidate-v2", decide.Review, 11, 0, []string{"ER-007"}, "5,200 ms", "USD 0.0125"},
		{"candidate-v3", decide.Pass, 12, 0, nil, "2,050 ms", "USD 0.011"},
	}
	if len(rel.Snapshots) != len(tests) {
		t.Fatalf("%d snapshots, want %d", len(rel.Snapshots), len(tests))
	}
	for i, tt := range tests {
		s := rel.Snapshots[i]
		r := s.Result
		var failing []string
		for _, c := range s.FailingCases() {
			failing = append(failing, c.CaseID)
		}
		if s.Label() != tt.label || r.Decision != tt.decision || r.CasesPassed != tt.passed || r.CasesTotal != 12 ||
			r.CriticalFailures != tt.critical || !slices.Equal(failing, tt.failing) || s.P95Text() != tt.p95 || s.AvgCostText() != tt.avgCost {
			t.Errorf("%s: got %s %d/%d critical=%d failing=%v p95=%s avg=%s", tt.label, r.Decision, r.CasesPassed, r.CasesTotal, r.CriticalFailures, failing, s.P95Text(), s.AvgCostText())
		}
	}
	// candidate-v2 fails ER-007 only for citing the outdated rule.
	v2 := rel.Snapshots[1].FailingCases()
	if len(v2) != 1 || len(v2[0].Failures) != 1 || v2[0].Failures[0].Code != judge.Citation {
		t.Errorf("candidate-v2 failures = %+v", v2)
	}
}

// TestResultsGolden pins the results files byte for byte; run with
// -update after an intended change.
func TestResultsGolden(t *testing.T) {
	rel, err := EvaluateDir(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := EvaluateDir(sampleDir, Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"RELEASE_REPORT.md": rel.Report()}
	for i, s := range rel.Snapshots {
		files[s.Label()+".json"] = s.JSON()
		if !bytes.Equal(s.JSON(), again.Snapshots[i].JSON()) {
			t.Errorf("%s: two evaluations differ", s.Label())
		}
	}
	for name, got := range files {
		goldentest.Check(t, filepath.Join("testdata", "golden", name), got)
	}
}

func TestMissingOutputBlocksCriticalCase(t *testing.T) {
	s, err := load.Suite(sampleDir, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := EvaluateFile(s, "empty", empty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := snap.Result
	if r.Decision != decide.Block || r.CasesPassed != 0 || r.P95LatencyMS != nil || r.AvgCostUSD != nil {
		t.Fatalf("empty snapshot: %+v", r)
	}
	critical := 0
	for i, c := range r.Cases {
		if s.Cases[i].Severity == suite.Critical {
			critical++
		}
		if len(c.Failures) != 1 || c.Failures[0].Code != judge.MissingOutput {
			t.Fatalf("%s: failures %+v", c.CaseID, c.Failures)
		}
	}
	if r.CriticalFailures != critical || critical == 0 {
		t.Fatalf("critical failures = %d, want %d", r.CriticalFailures, critical)
	}
	if !bytes.Contains(snap.JSON(), []byte(`"p95_latency_ms": null`)) {
		t.Error("results file does not say p95 is null")
	}
}

// BenchmarkEvaluateAll judges a generated suite of 100,000 cases in three
// snapshots, the way evaluate --all does (results encoded, not written).
func BenchmarkEvaluateAll(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	if err := gensuite.Write(sampleDir, dir, n); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rel, err := EvaluateDir(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range rel.Snapshots {
			s.JSON()
		}
		rel.Report()
	}
	b.ReportMetric(float64(3*n)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}

// BenchmarkFloor is the least any evaluation of the suite of
// BenchmarkEvaluateAll must do: read every file and check that it is
// valid JSON, decoding nothing. Evaluation is measured as a multiple of
// it (docs/design.md, "Scale: streaming evaluation").
func BenchmarkFloor(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	if err := gensuite.Write(sampleDir, dir, n); err != nil {
		b.Fatal(err)
	}
	files, err := floor.Files(dir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		size, err := floor.Check(files)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(size)
	}
	b.ReportMetric(float64(3*n)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}

// BenchmarkStreamDir is BenchmarkEvaluateAll through StreamDir, the way
// evaluate --all judges a folder, results and report written to nowhere.
func BenchmarkStreamDir(b *testing.B) { benchmarkStreamDir(b, false) }

// BenchmarkStreamDirShuffled is BenchmarkStreamDir with every snapshot's
// lines in a random order, read sorted into suite order.
func BenchmarkStreamDirShuffled(b *testing.B) { benchmarkStreamDir(b, true) }

func benchmarkStreamDir(b *testing.B, shuffled bool) {
	const n = 100_000
	dir := b.TempDir()
	if err := gensuite.Write(sampleDir, dir, n); err != nil {
		b.Fatal(err)
	}
	if shuffled {
		if err := gensuite.Shuffle(dir, 1); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		rel, err := StreamDir(dir, StreamOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range rel.Snapshots {
			s.Result.WriteJSON(io.Discard)
		}
		rel.WriteReport(io.Discard)
	}
	b.ReportMetric(float64(3*n)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}
