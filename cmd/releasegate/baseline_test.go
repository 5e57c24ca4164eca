package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// baselineData is the sample repeated four times (48 cases) with
// gate.json holding the sample's thresholds and extra.
func baselineData(t *testing.T, extra string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, dir, 48); err != nil {
		t.Fatal(err)
	}
	gate := `{"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.025` + extra + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "gate.json"), []byte(gate), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEvaluateAgainstBaseline: a single snapshot is gated against the
// baseline gate.json names or a file given with --baseline, with the
// exit codes of its decision. Against candidate-v3, candidate-v2 has four
// regressions and no fix: chance at 95 % (p = 0.125), not at 80 %.
func TestEvaluateAgainstBaseline(t *testing.T) {
	tests := []struct {
		name     string
		gate     string
		flag     bool // give --baseline outputs/candidate-v3.jsonl
		code     int
		baseline string
		stderr   string
	}{
		{"named in gate.json, chance", `, "baseline": "candidate-v3"`, false, exitReview, "candidate-v3", ""},
		{"named in gate.json, not chance", `, "baseline": "candidate-v3", "confidence": 0.8`, false, exitBlock, "candidate-v3", ""},
		{"a file named in gate.json's words", `, "baseline": "production", "confidence": 0.8`, true, exitBlock, "production", ""},
		{"a file alone", `, "confidence": 0.8`, true, exitBlock, "candidate-v3", ""},
		{"a baseline with no outputs", `,` + "\n" + `"baseline": "production"`, false, exitFail, "",
			`gate.json:2: baseline: the baseline "production" has no outputs: there is no `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := baselineData(t, tt.gate)
			out := filepath.Join(t.TempDir(), "v2.json")
			args := []string{"evaluate", "--data", data, "--cases", filepath.Join(data, "cases.jsonl"),
				"--outputs", filepath.Join(data, "outputs", "candidate-v2.jsonl"), "--output", out}
			if tt.flag {
				args = append(args, "--baseline", filepath.Join(data, "outputs", "candidate-v3.jsonl"))
			}
			code, stdout, stderr := runCmd(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q, want %q", code, tt.code, stderr, tt.stderr)
			}
			if tt.code == exitFail {
				if _, err := os.Stat(out); err == nil {
					t.Error("a results file was written despite bad input")
				}
				return
			}
			var r struct {
				Decision       string
				VersusBaseline *struct {
					Label       string `json:"label"`
					Regressions int    `json:"regressions"`
					PValue      float64
				} `json:"versus_baseline"`
				VersusPrevious any `json:"versus_previous"`
				Gates          []struct {
					Gate      string `json:"gate"`
					Threshold any    `json:"threshold"`
					Passed    bool   `json:"passed"`
				} `json:"gates"`
			}
			src, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(src, &r); err != nil {
				t.Fatal(err)
			}
			last := r.Gates[len(r.Gates)-1]
			if r.VersusBaseline == nil || r.VersusBaseline.Label != tt.baseline || r.VersusBaseline.Regressions != 4 || r.VersusPrevious != nil ||
				last.Gate != "no_regression" || last.Threshold != tt.baseline || last.Passed != (tt.code == exitReview) {
				t.Errorf("results: %s", src)
			}
			if want := "Against " + tt.baseline + " (the baseline): 0 fixed, 4 regressed"; !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		})
	}
}

func TestEvaluateBaselineUsage(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runCmd(t, "evaluate", "--all", "--data", sampleData, "--out", dir, "--baseline", "x.jsonl"); code != exitUsage || !strings.Contains(stderr, "--baseline evaluates one snapshot and cannot be combined with --all") {
		t.Errorf("--all --baseline: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, gateArgs("candidate-v2", dir, "--baseline", "")...); code != exitUsage || !strings.Contains(stderr, "--baseline needs a file name") {
		t.Errorf("--baseline '': exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, gateArgs("candidate-v2", dir, "--baseline", filepath.Join(dir, "missing.jsonl"))...); code != exitFail || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("a missing --baseline file: exit %d, %s", code, stderr)
	}
}
