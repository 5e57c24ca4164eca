package load

import (
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/stats"
)

// thresholds are the four required thresholds, for gate.json texts that
// test the other keys.
const thresholds = `"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.025`

func TestGateEvidenceKeys(t *testing.T) {
	g, err := Gate("gate.json", []byte("{"+thresholds+"}"), nil)
	if err != nil || g.Confidence != stats.Level95 || g.RequireEvidence || g.Baseline != "" {
		t.Fatalf("defaults: %+v, %v", g, err)
	}
	tests := []struct {
		in       string
		level    stats.Level
		evidence bool
		baseline string
		line     int
	}{
		{`"confidence": 0.8`, stats.Level80, false, "", 0},
		{`"confidence": 0.90`, stats.Level90, false, "", 0},
		{`"confidence": 95e-2`, stats.Level95, false, "", 0},
		{`"confidence": 0.99, "require_evidence": true`, stats.Level99, true, "", 0},
		{`"require_evidence": false`, stats.Level95, false, "", 0},
		{"\"baseline\": null", stats.Level95, false, "", 0},
		{"\n\n\"baseline\": \"candidate-v2\"", stats.Level95, false, "candidate-v2", 3},
	}
	for _, tt := range tests {
		g, err := Gate("gate.json", []byte("{"+thresholds+", "+tt.in+"}"), nil)
		if err != nil || g.Confidence != tt.level || g.RequireEvidence != tt.evidence || g.Baseline != tt.baseline || g.BaselineLine != tt.line {
			t.Errorf("%s: %+v, %v", tt.in, g, err)
		}
	}
}

func TestGateEvidenceKeysBadInput(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"confidence": 0.975`, "gate.json:1: confidence: must be 0.8, 0.9, 0.95 or 0.99 (the default is 0.95), got 0.975"},
		{"\n\"confidence\": 95", "gate.json:2: confidence: must be 0.8, 0.9, 0.95 or 0.99 (the default is 0.95), got 95"},
		{`"confidence": "0.95"`, "gate.json:1: confidence: must be 0.8, 0.9, 0.95 or 0.99 (the default is 0.95), got a string"},
		{`"confidence": null`, "gate.json:1: confidence: must be 0.8, 0.9, 0.95 or 0.99 (the default is 0.95), got null"},
		{`"require_evidence": 1`, "gate.json:1: require_evidence: expected true or false, got a number"},
		{`"require_evidence": "yes"`, "gate.json:1: require_evidence: expected true or false, got a string"},
		{`"baseline": 3`, "gate.json:1: baseline: expected the label of a snapshot (its outputs/<label>.jsonl), got a number"},
		{`"baseline": "../prod"`, `gate.json:1: baseline: "../prod" is not a snapshot label`},
		{`"baseline": "a", "baseline": "b"`, "gate.json:1: baseline: set twice"},
		{`"confidence_level": 0.95`, "gate.json:1: confidence_level: unknown key; did you mean \"confidence\"? — rename it, or use one of min_pass_rate, max_critical_failures, max_p95_latency_ms, max_avg_cost_usd, baseline, min_trial_pass_rate, confidence or require_evidence"},
	}
	for _, tt := range tests {
		_, err := Gate("gate.json", []byte("{"+thresholds+", "+tt.in+"}"), nil)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestCheckBaseline(t *testing.T) {
	g, err := Gate("data/gate.json", []byte("{"+thresholds+",\n \"baseline\": \"prod\"}"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckBaseline("data/gate.json", g, []string{"v1", "prod"}); err != nil {
		t.Errorf("an existing baseline refused: %v", err)
	}
	want := `data/gate.json:2: baseline: no snapshot is labelled "prod": the snapshots are v1, v2 and v3; name one of them, or remove the key`
	if err := CheckBaseline("data/gate.json", g, []string{"v1", "v2", "v3"}); err == nil || err.Error() != want {
		t.Errorf("missing baseline:\n got %v\nwant %s", err, want)
	}
	g.Baseline = ""
	if err := CheckBaseline("data/gate.json", g, nil); err != nil {
		t.Errorf("no baseline refused: %v", err)
	}
}
