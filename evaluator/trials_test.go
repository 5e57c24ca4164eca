package evaluator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/decide/decidetest"
	"github.com/releasegate/releasegate/evaluator/judge"
)

// A small suite in a domain of its own: the schema gives no decision
// enum, so any non-empty string is a decision (docs/data-format.md, "Decisions come from the schema").
const (
	openSchema = `{"type": "object", "required": ["case_id", "title", "severity", "input", "expected"]}`
	threeCases = `{"case_id":"C-1","title":"critical","severity":"critical","input":{},"expected":{"decision":"rebook","tool_calls":[],"citations":[],"forbidden_tools":[]}}
{"case_id":"C-2","title":"major","severity":"major","input":{},"expected":{"decision":"rebook","tool_calls":[],"citations":[],"forbidden_tools":[]}}
{"case_id":"C-3","title":"minor","severity":"minor","input":{},"expected":{"decision":"rebook","tool_calls":[],"citations":[],"forbidden_tools":[]}}
`
)

// writeData writes a data folder without POLICY.md or HANDOFF.md: the
// open schema, three cases, gate.json and one outputs file per snapshot
// (and meta.json files, named <label>.meta).
func writeData(t *testing.T, gate string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("case.schema.json", openSchema)
	write("cases.jsonl", threeCases)
	write("gate.json", gate)
	for name, text := range files {
		if label, ok := strings.CutSuffix(name, ".meta"); ok {
			write("outputs/"+label+".meta.json", text)
			continue
		}
		write("outputs/"+name+".jsonl", text)
	}
	return dir
}

// out is an output line for case id in trial (0: no trial member).
func out(id string, trial int, decision, latency, cost string) string {
	t := ""
	if trial > 0 {
		t = `"trial":` + string(rune('0'+trial)) + `,`
	}
	return `{"case_id":"` + id + `",` + t + `"decision":"` + decision + `","tool_calls":[],"citations":[],"latency_ms":` + latency + `,"cost_usd":` + cost + `}` + "\n"
}

const gateOn = `{"min_pass_rate": 0.5, "max_critical_failures": 0, "max_p95_latency_ms": 4000, "max_avg_cost_usd": 0.05, "min_trial_pass_rate": 0.75}`

// fourTrials: C-1 (critical) fails trial 4; C-2 passes every trial and
// is slow once, in trial 4; C-3 has no output for trial 3.
var fourTrials = out("C-1", 1, "rebook", "100", "0.01") + out("C-2", 1, "rebook", "100", "null") + out("C-3", 1, "rebook", "null", "0.01") +
	out("C-1", 2, "rebook", "100", "0.01") + out("C-2", 2, "rebook", "100", "0.01") + out("C-3", 2, "rebook", "100", "0.01") +
	out("C-1", 3, "rebook", "100", "0.01") + out("C-2", 3, "rebook", "100", "0.01") +
	out("C-3", 4, "rebook", "100", "0.01") + out("C-2", 4, "rebook", "5000", "0.01") + out("C-1", 4, "refund", "100", "0.01")

func evaluateOne(t *testing.T, gate, outputs string) *Snapshot {
	t.Helper()
	rel, err := EvaluateDir(writeData(t, gate, map[string]string{"s": outputs}), Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	return rel.Snapshots[0]
}

// docs/data-format.md, "Repeated trials": "a case missing trial t ≤ k fails that trial with missing_output";
// "A case passes when its passed trials ÷ k ≥ min_trial_pass_rate"; "A
// critical case with any failed trial counts as a critical failure,
// whatever that rate."; "p95 and the average cost are over every
// measured trial."
func TestTrialsDecide(t *testing.T) {
	s := evaluateOne(t, gateOn, fourTrials)
	r := s.Result
	if r.Trials != 4 || r.TrialPassRate == nil || *r.TrialPassRate != 10.0/12 {
		t.Fatalf("trials %d, trial pass rate %v; want 4 and 10/12", r.Trials, r.TrialPassRate)
	}
	want := []struct {
		passed         bool
		trials, passes int
		flaky          bool
		codes          string // code@trial
	}{
		{true, 4, 3, true, "decision@4"},       // exactly on the 0.75 boundary: passes
		{true, 4, 4, false, ""},                // every trial
		{true, 4, 3, true, "missing_output@3"}, // the missing trial fails
	}
	for i, c := range r.Cases {
		var codes []string
		for _, f := range c.Failures {
			codes = append(codes, string(f.Code)+"@"+string(rune('0'+f.Trial)))
		}
		w := want[i]
		if c.Passed != w.passed || c.Trials != w.trials || c.TrialsPassed != w.passes || c.Flaky() != w.flaky || strings.Join(codes, " ") != w.codes {
			t.Errorf("%s: passed %v trials %d/%d flaky %v codes %v; want %+v", c.CaseID, c.Passed, c.TrialsPassed, c.Trials, c.Flaky(), codes, w)
		}
	}
	// C-1 passes at 3/4 but is critical with a failed trial.
	if r.CasesPassed != 3 || r.CriticalFailures != 1 || r.Decision != decide.Block {
		t.Errorf("passed %d, critical failures %d, decision %s; want 3, 1, BLOCK", r.CasesPassed, r.CriticalFailures, r.Decision)
	}
	// Over every measured trial: 10 latencies (one null), the slow one
	// of trial 4 is the p95; 10 costs (one null) average 0.01.
	if r.P95LatencyMS == nil || *r.P95LatencyMS != 5000 || s.AvgCostText() != "USD 0.01" {
		t.Errorf("p95 %v, average %s; want 5000 over all trials, USD 0.01", r.P95LatencyMS, s.AvgCostText())
	}
	if len(s.TrialOutputs) != 4 || s.TrialOutputs[2][2] != nil || s.TrialOutputs[3][1].LatencyMS.String() != "5000" || s.Outputs[0] != s.TrialOutputs[0][0] {
		t.Errorf("trial outputs not kept by [trial-1][case]")
	}
}

// docs/data-format.md, "Repeated trials": min_trial_pass_rate is "a fraction, default 1: every trial must
// pass, τ-bench's pass^k".
func TestTrialPassRateDefaultsToEveryTrial(t *testing.T) {
	s := evaluateOne(t, strings.Replace(gateOn, `, "min_trial_pass_rate": 0.75`, "", 1), fourTrials)
	var passed []string
	for _, c := range s.Result.Cases {
		if c.Passed {
			passed = append(passed, c.CaseID)
		}
	}
	if strings.Join(passed, " ") != "C-2" {
		t.Fatalf("passed %v, want only C-2", passed)
	}
}

// docs/data-format.md, "Repeated trials": "With trials, k is the largest trial number in the file"; with
// k = 1 the results still carry the trial members.
func TestOneTrial(t *testing.T) {
	s := evaluateOne(t, gateOn, out("C-1", 1, "rebook", "1", "0")+out("C-2", 1, "refund", "1", "0"))
	r := s.Result
	if r.Trials != 1 || *r.TrialPassRate != 1.0/3 {
		t.Fatalf("trials %d rate %v", r.Trials, *r.TrialPassRate)
	}
	var doc struct {
		Trials int `json:"trials"`
		Cases  []struct {
			Trials       *int            `json:"trials"`
			TrialsPassed *int            `json:"trials_passed"`
			Failures     []judge.Failure `json:"failures"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(s.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	for i, c := range doc.Cases {
		if c.Trials == nil || *c.Trials != 1 || c.TrialsPassed == nil || (*c.TrialsPassed == 1) != (i == 0) {
			t.Errorf("case %d: trials %v passed %v", i, c.Trials, c.TrialsPassed)
		}
		for _, f := range c.Failures {
			if f.Trial != 1 {
				t.Errorf("case %d: failure %+v without its trial", i, f)
			}
		}
	}
}

// docs/data-format.md, "Repeated trials": "Without trials none of these members appear."
func TestNoTrialMembersWithoutTrials(t *testing.T) {
	s := evaluateOne(t, gateOn, out("C-1", 0, "rebook", "1", "0"))
	text := string(s.JSON())
	for _, member := range []string{`"trials"`, `"trial_pass_rate"`, `"trials_passed"`, `"trial"`, `"meta"`} {
		if strings.Contains(text, member) {
			t.Errorf("results without trials hold %s", member)
		}
	}
}

// docs/data-format.md, "Unmeasured latency and cost; gates that are off": gates that are off appear with a null threshold, pass and decide
// nothing; statistics with nothing measured are null.
func TestNullGatesAndStatistics(t *testing.T) {
	gate := `{"min_pass_rate": null, "max_critical_failures": null, "max_p95_latency_ms": 1, "max_avg_cost_usd": null}`
	s := evaluateOne(t, gate, out("C-1", 0, "refund", "null", "null")+out("C-2", 0, "rebook", "null", "5"))
	r := s.Result
	if r.P95LatencyMS != nil || r.AvgCostUSD == nil || *r.AvgCostUSD != 5 {
		t.Fatalf("p95 %v avg %v; want null and 5", r.P95LatencyMS, r.AvgCostUSD)
	}
	// The latency gate is on and nothing was measured: it fails.
	if r.Decision != decide.Review {
		t.Fatalf("decision %s, want REVIEW", r.Decision)
	}
	var doc struct {
		Gates []struct {
			Gate      string   `json:"gate"`
			Threshold *float64 `json:"threshold"`
			Observed  *float64 `json:"observed"`
			Passed    bool     `json:"passed"`
		} `json:"gates"`
	}
	if err := json.Unmarshal(s.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Gates) != 4 {
		t.Fatalf("%d gates in the results, want all 4", len(doc.Gates))
	}
	for _, g := range doc.Gates {
		off := g.Gate != decide.GateP95Latency
		if off != (g.Threshold == nil) || off && !g.Passed || !off && (g.Passed || g.Observed != nil) {
			t.Errorf("gate %+v", g)
		}
	}
	if !strings.Contains(string(s.JSON()), "\"gate\": \"pass_rate\",\n      \"threshold\": null,\n      \"observed\": 0.3333333333333333,\n      \"passed\": true") {
		t.Errorf("an off gate is not written as threshold null, passed true:\n%s", s.JSON())
	}
}

// docs/data-format.md, "Provenance and order": "The results file adds "meta" with what was given"; "Latest" and
// "what changed" follow the order it sets.
func TestMetaInResultsAndOrder(t *testing.T) {
	line := out("C-1", 0, "rebook", "1", "0")
	dir := writeData(t, gateOn, map[string]string{
		"v2": line, "v2.meta": `{"recorded_at": "2026-01-02T00:00:00Z", "model": "m-2"}`,
		"v10": line, "v10.meta": `{"recorded_at": "2026-01-01T00:00:00Z", "description": "first"}`,
	})
	rel, err := EvaluateDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Snapshots[0].Label() != "v10" || rel.Snapshots[1].Label() != "v2" {
		t.Fatalf("order %s %s, want v10 then v2 by recorded_at", rel.Snapshots[0].Label(), rel.Snapshots[1].Label())
	}
	if !strings.HasSuffix(string(rel.Snapshots[1].JSON()), "  \"meta\": {\n    \"recorded_at\": \"2026-01-02T00:00:00Z\",\n    \"model\": \"m-2\"\n  }\n}\n") {
		t.Errorf("meta not at the end of the results:\n%s", rel.Snapshots[1].JSON())
	}
	if report := string(rel.Report()); strings.Index(report, "## v10") > strings.Index(report, "## v2") {
		t.Errorf("report does not follow the release order")
	}
	// The single-snapshot form reads the meta.json beside the outputs.
	snap, err := EvaluateFile(rel.Suite, "v2", filepath.Join(dir, "outputs", "v2.jsonl"), Options{})
	if err != nil || snap.Result.Meta == nil || snap.Result.Meta.Model != "m-2" {
		t.Fatalf("single snapshot meta = %+v, %v", snap.Result.Meta, err)
	}
}

// Adding a gate is one spec in the list the caller passes: gate.json,
// the decision, the results file, the report and the table follow it,
// and nothing is changed for anyone else.
func TestAddingAGateIsOneSpec(t *testing.T) {
	opts := Options{KeepOutputs: true, Gates: decidetest.WithFlakyCases()}
	gate := `{"min_pass_rate": 0, "max_critical_failures": null, "max_p95_latency_ms": null, "max_avg_cost_usd": null, "min_trial_pass_rate": 0.5, "max_flaky_cases": 1}`
	evaluate := func(gate string) *Snapshot {
		t.Helper()
		rel, err := EvaluateDir(writeData(t, gate, map[string]string{"s": fourTrials}), opts)
		if err != nil {
			t.Fatal(err)
		}
		return rel.Snapshots[0]
	}
	s := evaluate(gate)
	g, ok := s.Result.Gate("flaky_cases")
	if !ok || g.Passed || s.Result.Decision != decide.Review || g.FailureText() != "2 flaky cases, at most 1 allowed" {
		t.Fatalf("flaky gate %+v, decision %s", g, s.Result.Decision)
	}
	if !strings.Contains(string(s.JSON()), `"gate": "flaky_cases"`) {
		t.Error("results lack the new gate")
	}
	rel, err := EvaluateDir(writeData(t, gate, map[string]string{"s": fourTrials}), opts)
	if err != nil {
		t.Fatal(err)
	}
	if report := string(rel.Report()); !strings.Contains(report, "| flaky cases | decision |") || !strings.Contains(report, "- Stability: at most 1 flaky case(s).") ||
		!strings.Contains(report, "FAIL `flaky_cases`: observed 2, threshold 1") || !strings.Contains(report, "otherwise REVIEW when latency or cost or stability fails") {
		t.Errorf("report does not show the new gate:\n%s", report)
	}
	if table := rel.Table(); !strings.Contains(table, "flaky cases") {
		t.Errorf("table lacks the new gate:\n%s", table)
	}
	// Left out of gate.json, the optional gate is off.
	s = evaluate(strings.Replace(gate, `, "max_flaky_cases": 1`, "", 1))
	if g, _ := s.Result.Gate("flaky_cases"); !g.Off() || s.Result.Decision != decide.Pass {
		t.Fatalf("absent optional gate: %+v, %s", g, s.Result.Decision)
	}
	// The default list knows no such gate: gate.json may not name it.
	if _, err := EvaluateDir(writeData(t, gate, map[string]string{"s": fourTrials}), Options{}); err == nil || !strings.Contains(err.Error(), "max_flaky_cases: unknown key") {
		t.Errorf("default gates accept max_flaky_cases: %v", err)
	}
}
