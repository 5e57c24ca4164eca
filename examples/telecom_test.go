package examples

import (
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
)

// telecomVerdicts are the verdicts examples/telecom/README.md works out
// by hand: per snapshot and case (by the start of its id), each trial's
// failure codes, "" for a trial that passes.
var telecomVerdicts = map[string]map[string][3]string{
	"model-a": {
		"[mobile_data_issue]user_abroad": {"", "", "arguments"},
		"[service_issue]line_suspension": {"", "", ""},
		"[mobile_data_issue]data_mode":   {"", "forbidden_tool", ""},
		"[service_issue]contract_end":    {"", "", ""},
		"[mobile_data_issue]bad_network": {"tool_call", "", "missing_output"},
		"[service_issue]lost_phone":      {"", "", ""},
	},
	"model-b": {
		"[mobile_data_issue]user_abroad": {"", "", ""},
		"[service_issue]line_suspension": {"tool_call", "tool_call", ""},
		"[mobile_data_issue]data_mode":   {"", "", ""},
		"[service_issue]contract_end":    {"", "", ""},
		"[mobile_data_issue]bad_network": {"", "", ""},
		"[service_issue]lost_phone":      {"", "", "arguments"},
	},
}

// TestTelecomExampleOutcomes judges examples/telecom, a τ²-bench-style
// suite (long bracketed ids, contains among read-only lookups, no
// decisions, trials, no latency recorded), and checks the outcome its
// README derives: every trial's failure codes, each decision, and the
// comparison of the two models, which could be chance.
func TestTelecomExampleOutcomes(t *testing.T) {
	rel, err := evaluator.EvaluateDir("telecom", evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(rel.Snapshots))
	}
	for _, c := range rel.Suite.Cases {
		if len(c.ID) <= 40 || !strings.HasPrefix(c.ID, "[") || !strings.Contains(c.ID, "|") && !strings.Contains(c.ID, "[PERSONA:") {
			t.Errorf("case id %q is not in τ²-bench's form", c.ID)
		}
		if c.Expected.JudgesDecision() {
			t.Errorf("%s: a decision is judged; the suite has none", c.ID)
		}
	}
	want := map[string]struct {
		decision         decide.Decision
		passed, critical int
	}{
		"model-a": {decide.Pass, 5, 0},
		// The unpaid-bill task is critical and fails 2 of 3 trials; the
		// lost-phone task, critical too, fails one trial: both count.
		"model-b": {decide.Block, 5, 2},
	}
	for _, s := range rel.Snapshots {
		r := s.Result
		w := want[r.Label]
		if r.Decision != w.decision || r.CasesPassed != w.passed || r.CriticalFailures != w.critical {
			t.Errorf("%s: %s, %d passed, %d critical failures; want %s, %d, %d", r.Label, r.Decision, r.CasesPassed, r.CriticalFailures, w.decision, w.passed, w.critical)
		}
		if s.Metrics.P95LatencyMS != nil {
			t.Errorf("%s: a p95 latency, though no output recorded one", r.Label)
		}
		for _, c := range r.Cases {
			var codes [3]string
			for _, f := range c.Failures {
				if f.Trial < 1 || f.Trial > 3 {
					t.Fatalf("%s %s: failure of trial %d", r.Label, c.CaseID, f.Trial)
				}
				codes[f.Trial-1] = strings.TrimSpace(codes[f.Trial-1] + " " + string(f.Code))
			}
			var expected [3]string
			found := false
			for prefix, v := range telecomVerdicts[r.Label] {
				if strings.HasPrefix(c.CaseID, prefix) {
					expected, found = v, true
				}
			}
			if !found {
				t.Fatalf("%s: no verdict for %s", r.Label, c.CaseID)
			}
			if codes != expected {
				t.Errorf("%s %s: trials %q, want %q", r.Label, c.CaseID, codes, expected)
			}
		}
	}
	// One task regressed and one was fixed, each 3/3 against 1/3: within
	// noise for Fisher (p = 0.4), and McNemar's 1 against 1 is p = 1.
	v := rel.Snapshots[1].Result.VersusPrevious
	if v == nil || v.Label != "model-a" || v.Regressions != 1 || v.Fixes != 1 || v.PValue != 1 || v.Significant {
		t.Fatalf("versus_previous %+v", v)
	}
	for _, c := range v.Cases {
		if c.PValue == nil || *c.PValue != 0.4 {
			t.Errorf("%s: Fisher p %v, want 0.4", c.CaseID, c.PValue)
		}
	}
}
