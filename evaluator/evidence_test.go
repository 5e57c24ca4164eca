package evaluator

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/load"
)

// sampleTimesFour is the sample repeated four times (48 cases), with
// gate.json holding the sample's thresholds and extra.
func sampleTimesFour(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	if err := gensuite.Write(sampleDir, dir, 48); err != nil {
		t.Fatal(err)
	}
	gate := `{"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.025` + extra + "}\n"
	if err := os.WriteFile(filepath.Join(dir, load.GateFile), []byte(gate), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSampleComparisons(t *testing.T) {
	rel, err := EvaluateDir(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		label       string
		previous    string
		regressions int
		fixes       int
		p           float64
		changed     string
	}{
		{"baseline-v1", "", 0, 0, 0, ""},
		{"candidate-v2", "baseline-v1", 0, 3, 0.25, "ER-004 ER-005 ER-011"},
		{"candidate-v3", "candidate-v2", 0, 1, 1, "ER-007"},
	}
	for i, tt := range tests {
		r := rel.Snapshots[i].Result
		if r.Confidence != 0.95 || r.PassRateInterval == nil || r.VersusBaseline != nil || len(r.Gates) != 4 {
			t.Errorf("%s: confidence %v interval %v versus_baseline %v, %d gates", tt.label, r.Confidence, r.PassRateInterval, r.VersusBaseline, len(r.Gates))
		}
		c := r.VersusPrevious
		if tt.previous == "" {
			if c != nil {
				t.Errorf("%s: the first snapshot has versus_previous", tt.label)
			}
			continue
		}
		var changed []string
		for _, ch := range c.Cases {
			changed = append(changed, ch.CaseID)
			if ch.Change != decide.Fixed || ch.PValue != nil {
				t.Errorf("%s: %+v", tt.label, ch)
			}
		}
		if c.Label != tt.previous || c.Regressions != tt.regressions || c.Fixes != tt.fixes || c.PValue != tt.p || c.Significant || strings.Join(changed, " ") != tt.changed {
			t.Errorf("%s: versus_previous %+v", tt.label, c)
		}
	}
	if iv := rel.Snapshots[2].Result.PassRateInterval; iv[0] != 0.757506 || iv[1] != 1 {
		t.Errorf("candidate-v3's interval %v, want [0.757506, 1]", iv)
	}
}

// TestBaselineRegressionBlocks: against candidate-v3, candidate-v2's four
// regressions (and no fix) could be chance at 95 % (p = 0.125) but not at
// 80 %, where the no_regression gate blocks it. The baseline has no such
// gate.
func TestBaselineRegressionBlocks(t *testing.T) {
	for _, tt := range []struct {
		confidence string
		v2         decide.Decision
		passed     bool
	}{{"0.95", decide.Review, true}, {"0.8", decide.Block, false}} {
		rel, err := EvaluateDir(sampleTimesFour(t, `, "baseline": "candidate-v3", "confidence": `+tt.confidence), Options{})
		if err != nil {
			t.Fatal(err)
		}
		v1, v2, v3 := rel.Snapshots[0].Result, rel.Snapshots[1].Result, rel.Snapshots[2].Result
		g, ok := v2.Gate(decide.GateNoRegression)
		if !ok || g.Passed != tt.passed || v2.Decision != tt.v2 || v2.VersusBaseline == nil || v2.VersusBaseline.Regressions != 4 || v2.VersusBaseline.PValue != 0.125 {
			t.Errorf("confidence %s: candidate-v2 %s, gate %+v, versus_baseline %+v", tt.confidence, v2.Decision, g, v2.VersusBaseline)
		}
		if g, ok := v1.Gate(decide.GateNoRegression); !ok || g.Passed || v1.VersusBaseline.Regressions != 16 {
			t.Errorf("confidence %s: baseline-v1's sixteen regressions pass: %+v", tt.confidence, g)
		}
		if _, ok := v3.Gate(decide.GateNoRegression); ok || v3.VersusBaseline != nil || v3.Decision != decide.Pass {
			t.Errorf("the baseline is compared with itself: %+v", v3)
		}
		file := string(rel.Snapshots[1].JSON())
		if !strings.Contains(file, `"threshold": "candidate-v3",`) || !strings.Contains(file, `"versus_baseline": {`) {
			t.Errorf("results file lacks the gate or the comparison:\n%s", file)
		}
	}
}

func TestBaselineThatIsNoSnapshot(t *testing.T) {
	dir := sampleTimesFour(t, `,
  "baseline": "production"`)
	_, err := EvaluateDir(dir, Options{})
	want := filepath.Join(dir, "gate.json") + `:2: baseline: no snapshot is labelled "production": the snapshots are baseline-v1, candidate-v2 and candidate-v3; name one of them, or remove the key`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
}

// TestInconclusiveInResults: the members appear on an inconclusive gate
// only, and the decision is REVIEW.
func TestInconclusiveInResults(t *testing.T) {
	rel, err := EvaluateDir(sampleTimesFour(t, `, "require_evidence": true`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 48/48 proves 90 % (lower bound 0.926); 44/48 does not.
	v1, v2, v3 := rel.Snapshots[0], rel.Snapshots[1], rel.Snapshots[2]
	type gate struct {
		Gate         string   `json:"gate"`
		Passed       bool     `json:"passed"`
		Inconclusive *bool    `json:"inconclusive"`
		LowerBound   *float64 `json:"lower_bound"`
	}
	first := func(s *Snapshot) gate {
		var doc struct{ Gates []gate }
		if err := json.Unmarshal(s.JSON(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Gates[0]
	}
	if g := first(v3); !g.Passed || g.Inconclusive != nil || g.LowerBound != nil || v3.Result.Decision != decide.Pass {
		t.Errorf("candidate-v3: %+v, %s", g, v3.Result.Decision)
	}
	if g := first(v1); g.Passed || g.Inconclusive != nil || g.LowerBound != nil {
		t.Errorf("baseline-v1 fails outright: %+v", g)
	}
	g := first(v2)
	if g.Passed || g.Inconclusive == nil || !*g.Inconclusive || g.LowerBound == nil || *g.LowerBound != v2.Result.PassRateInterval[0] || v2.Result.Decision != decide.Review {
		t.Errorf("candidate-v2: %+v, %s", g, v2.Result.Decision)
	}
	report := string(rel.Report())
	for _, want := range []string{
		"- INCONCLUSIVE `pass_rate`: observed 91.67%, threshold 90%; 95% lower bound 80.45%, so 1245 cases at the same pass rate would settle it",
		"REVIEW when latency or cost fails or the pass rate is not proven;",
		"Evidence is required:",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

// TestWithoutTheNewKeysNothingIsDecidedOtherwise: a data folder that
// sets none of the keys is decided as before; its results hold the
// interval and the comparison with the previous snapshot, and nothing
// else new.
func TestWithoutTheNewKeysNothingIsDecidedOtherwise(t *testing.T) {
	for _, dir := range []string{sampleDir, "../examples/airline", "../examples/minimal"} {
		rel, err := EvaluateDir(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rel.Snapshots {
			own := *s
			// Decided alone, as before there were comparisons.
			own.Metrics.Baseline = nil
			d, gates := decide.DefaultGates().Decide(own.Metrics, rel.Suite.Gate)
			if d != s.Result.Decision || len(gates) != 4 || s.Result.VersusBaseline != nil {
				t.Errorf("%s %s: %s, decided alone %s", dir, s.Label(), s.Result.Decision, d)
			}
			if bytes.Contains(s.JSON(), []byte("inconclusive")) || bytes.Contains(s.JSON(), []byte("no_regression")) {
				t.Errorf("%s %s: new members without the keys", dir, s.Label())
			}
		}
	}
}

// TestCompareLeavesSnapshotsAlone: comparing makes copies, so a release
// that shares snapshots with another does not change it, and comparing
// again changes nothing.
func TestCompareLeavesSnapshotsAlone(t *testing.T) {
	dir := sampleTimesFour(t, `, "baseline": "candidate-v3", "confidence": 0.8`)
	rel, err := EvaluateDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := make([][]byte, len(rel.Snapshots))
	for i, s := range rel.Snapshots {
		before[i] = s.JSON()
	}
	// A release with the snapshots in another order, sharing them.
	other := &Release{Suite: rel.Suite, Snapshots: []*Snapshot{rel.Snapshots[2], rel.Snapshots[0], rel.Snapshots[1]}}
	if err := other.Compare(filepath.Join(dir, load.GateFile)); err != nil {
		t.Fatal(err)
	}
	if other.Snapshots[1].Result.VersusPrevious.Label != "candidate-v3" {
		t.Errorf("reordered: versus_previous %+v", other.Snapshots[1].Result.VersusPrevious)
	}
	again := &Release{Suite: rel.Suite, Snapshots: append([]*Snapshot(nil), rel.Snapshots...)}
	if err := again.Compare(filepath.Join(dir, load.GateFile)); err != nil {
		t.Fatal(err)
	}
	for i, s := range rel.Snapshots {
		if !bytes.Equal(s.JSON(), before[i]) {
			t.Errorf("%s changed when another release was compared", s.Label())
		}
		if again.Snapshots[i] != s {
			t.Errorf("%s: comparing again made a new snapshot", s.Label())
		}
	}
}

// TestComparedSingleSnapshot: the single-snapshot form compares with a
// baseline read from any file, as a pull request is gated against
// production.
func TestComparedSingleSnapshot(t *testing.T) {
	dir := sampleTimesFour(t, `, "confidence": 0.8`)
	s, err := load.Suite(dir, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := EvaluateFile(s, "candidate-v2", filepath.Join(dir, "outputs", "candidate-v2.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := EvaluateFile(s, "production", filepath.Join(dir, "outputs", "candidate-v3.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := Compared(s.Gate, snap, nil, base)
	if g, ok := got.Result.Gate(decide.GateNoRegression); !ok || g.Passed || got.Result.Decision != decide.Block || got.Result.VersusPrevious != nil || got.Result.VersusBaseline.Label != "production" {
		t.Fatalf("compared with production: %s, %+v", got.Result.Decision, got.Result.VersusBaseline)
	}
	if snap.Result.Decision != decide.Review || snap.Result.VersusBaseline != nil {
		t.Errorf("Compared changed its argument: %s", snap.Result.Decision)
	}
	if self := Compared(s.Gate, base, nil, base); self.Result.VersusBaseline != nil {
		t.Error("the baseline compared with itself")
	}
}

// BenchmarkCompare compares two snapshots of 100,000 cases, a third of
// them changed, the share of the work the statistics add to evaluate
// --all.
func BenchmarkCompare(b *testing.B) {
	const n = 100_000
	a, c := &Snapshot{}, &Snapshot{}
	a.Result.Label, c.Result.Label = "a", "c"
	a.Result.Cases, c.Result.Cases = make([]CaseResult, n), make([]CaseResult, n)
	for i := range n {
		a.Result.Cases[i] = CaseResult{CaseID: gensuite.ID(i), Passed: i%3 != 0, Trials: 3, TrialsPassed: 3 * (i % 2)}
		c.Result.Cases[i] = CaseResult{CaseID: gensuite.ID(i), Passed: i%2 != 0, Trials: 3, TrialsPassed: i % 4}
	}
	for b.Loop() {
		compare(a, c, 0)
	}
}

// BenchmarkEvidenceCost measures what the statistics add to evaluate
// --all on 100,000 cases × 3 snapshots (a quarter of the cases change
// between the first two, a twelfth between the last two): "all" is the
// whole evaluation as BenchmarkEvaluateAll runs it, "compare" the
// comparisons and decisions again, "encode" and "report" the results
// files and the release report with the comparisons, "encode-alone" and
// "report-alone" without them. The statistics add compare + encode −
// encode-alone + report − report-alone, to be set against all.
func BenchmarkEvidenceCost(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	if err := gensuite.Write(sampleDir, dir, n); err != nil {
		b.Fatal(err)
	}
	s, err := load.Suite(dir, load.Options{})
	if err != nil {
		b.Fatal(err)
	}
	files, err := load.Snapshots(dir)
	if err != nil {
		b.Fatal(err)
	}
	alone := make([]*Snapshot, len(files))
	for i, f := range files {
		if alone[i], err = EvaluateSnapshot(s, f, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	gateFile := filepath.Join(dir, load.GateFile)
	compared := &Release{Suite: s, Snapshots: append([]*Snapshot(nil), alone...)}
	if err := compared.Compare(gateFile); err != nil {
		b.Fatal(err)
	}
	encode := func(b *testing.B, snaps []*Snapshot) {
		for b.Loop() {
			for _, s := range snaps {
				s.Result.WriteJSON(&countingWriter{})
			}
		}
	}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			rel, err := EvaluateDir(dir, Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range rel.Snapshots {
				s.Result.WriteJSON(&countingWriter{})
			}
			rel.Report()
		}
	})
	b.Run("compare", func(b *testing.B) {
		for b.Loop() {
			r := &Release{Suite: s, Snapshots: append([]*Snapshot(nil), alone...)}
			if err := r.Compare(gateFile); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) { encode(b, compared.Snapshots) })
	b.Run("encode-alone", func(b *testing.B) { encode(b, alone) })
	b.Run("report", func(b *testing.B) {
		for b.Loop() {
			compared.Report()
		}
	})
	b.Run("report-alone", func(b *testing.B) {
		r := &Release{Suite: s, Snapshots: alone}
		for b.Loop() {
			r.Report()
		}
	})
}
