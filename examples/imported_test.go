package examples

import (
	"math/big"
	"slices"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
)

// TestImportedExampleOutcomes checks the outcomes examples/imported/README.md
// works out by hand for its two imported snapshots.
func TestImportedExampleOutcomes(t *testing.T) {
	rel, err := evaluator.EvaluateDir("imported", evaluator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		label            string
		decision         string
		passed, critical int
		trials           int
		p95              *float64 // nil: no latency measured
		avgCost          *big.Rat
		codes            map[string][]string // per case and trial, as airlineVerdicts
		model            string
	}{
		{"claude-haiku-batch", "BLOCK", 2, 0, 0, nil, big.NewRat(56, 100000), map[string][]string{
			"order-status":   {"tool_call forbidden_tool"},
			"angry-customer": {"missing_output"},
		}, "claude-haiku-4-5-20251001"},
		{"support-agent-v1", "PASS", 4, 0, 2, ptr(4218.0), big.NewRat(2662, 7000000), map[string][]string{
			"order-status":   {"", "tool_call forbidden_tool"},
			"angry-customer": {"", "missing_output"},
		}, "openai/gpt-4.1-mini"},
	}
	if len(rel.Snapshots) != len(want) {
		t.Fatalf("%d snapshots, want %d", len(rel.Snapshots), len(want))
	}
	for i, s := range rel.Snapshots {
		w, r := want[i], s.Result
		if s.Label() != w.label {
			t.Fatalf("snapshot %d is %s, want %s (label order)", i, s.Label(), w.label)
		}
		if string(r.Decision) != w.decision || r.CasesPassed != w.passed || r.CriticalFailures != w.critical || r.Trials != w.trials {
			t.Errorf("%s: %s, %d passed, %d critical, %d trials; want %s, %d, %d, %d",
				w.label, r.Decision, r.CasesPassed, r.CriticalFailures, r.Trials, w.decision, w.passed, w.critical, w.trials)
		}
		if (r.P95LatencyMS == nil) != (w.p95 == nil) || w.p95 != nil && *r.P95LatencyMS != *w.p95 {
			t.Errorf("%s: p95 %s, want %s", w.label, show(r.P95LatencyMS), show(w.p95))
		}
		if s.Metrics.AvgCostUSD == nil || s.Metrics.AvgCostUSD.Cmp(w.avgCost) != 0 {
			t.Errorf("%s: average cost %s, want exactly %s", w.label, show(r.AvgCostUSD), w.avgCost.RatString())
		}
		for _, c := range r.Cases {
			if got := trialCodes(c, w.trials); !slices.Equal(got, w.codes[c.CaseID]) {
				t.Errorf("%s %s: failure codes by trial %q, want %q", w.label, c.CaseID, got, w.codes[c.CaseID])
			}
		}
		if r.Meta == nil || r.Meta.Model != w.model {
			t.Errorf("%s: meta %+v, want model %s", w.label, r.Meta, w.model)
		}
	}
}

func ptr[T any](v T) *T { return &v }
