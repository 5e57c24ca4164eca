package ciout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// trialsDir builds a data folder from the sample with two snapshots:
// candidate-v3 as shipped (no trials) and trials-v4, three trials of
// candidate-v3's outputs where some trials take baseline-v1's output
// instead. The gate lets a case pass with 2 of 3 trials
// (min_trial_pass_rate 0.6). By design:
//   - ER-004 (critical) fails trial 3: it passes, is flaky, and counts as a
//     critical failure, so trials-v4 is BLOCK;
//   - ER-007 (major) fails trial 2: it passes and is flaky;
//   - ER-011 (major) fails trials 1 and 3: it fails and is flaky;
//   - ER-012 has no trial 3 (missing_output): it passes and is flaky.
func trialsDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "outputs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cases.jsonl", "case.schema.json", "POLICY.md", "HANDOFF.md", "outputs/candidate-v3.jsonl"} {
		copyFile(t, filepath.Join(sampleDir, name), filepath.Join(dir, name))
	}
	gate := `{"min_pass_rate": 0.90, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.025, "min_trial_pass_rate": 0.6}` + "\n"
	writeFile(t, filepath.Join(dir, "gate.json"), gate)

	good, bad := outputLines(t, "candidate-v3"), outputLines(t, "baseline-v1")
	failing := map[string][]int{"ER-004": {3}, "ER-007": {2}, "ER-011": {1, 3}}
	var b strings.Builder
	for trial := 1; trial <= 3; trial++ {
		for _, l := range good {
			line := l.text
			if slices.Contains(failing[l.id], trial) {
				line = bad[l.index].text
			}
			if l.id == "ER-012" && trial == 3 {
				continue
			}
			b.WriteString(strings.TrimSuffix(line, "}") + fmt.Sprintf(", \"trial\": %d}\n", trial))
		}
	}
	writeFile(t, filepath.Join(dir, "outputs", "trials-v4.jsonl"), b.String())
	return dir
}

type outputLine struct {
	id, text string
	index    int
}

// outputLines reads a sample outputs file line by line, with each line's
// case id.
func outputLines(t testing.TB, label string) []outputLine {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sampleDir, "outputs", label+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []outputLine
	for i, text := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		var o struct {
			CaseID string `json:"case_id"`
		}
		if err := json.Unmarshal([]byte(text), &o); err != nil {
			t.Fatalf("%s line %d: %v", label, i+1, err)
		}
		lines = append(lines, outputLine{id: o.CaseID, text: strings.TrimSpace(text), index: i})
	}
	return lines
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(data))
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func trialsRelease(t testing.TB) *evaluator.Release {
	t.Helper()
	rel, err := evaluator.EvaluateDir(trialsDir(t), evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestTrialsGolden(t *testing.T) {
	rel := trialsRelease(t)
	golden(t, "trials.junit.xml", JUnit(rel))
	golden(t, "trials.summary.md", Summary(rel))
}

// TestTrialsJUnit reads the trials report back as a CI system would.
func TestTrialsJUnit(t *testing.T) {
	doc := parseJUnit(t, JUnit(trialsRelease(t)))
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "candidate-v3" || doc.Suites[1].Name != "trials-v4" {
		t.Fatalf("suites %+v, want candidate-v3 and trials-v4", doc.Suites)
	}
	for _, c := range doc.Suites[0].Cases {
		if c.property("trials") != "" || c.property("flaky") != "" {
			t.Errorf("candidate-v3 has no trials, yet %s has trial properties", c.Name)
		}
	}
	ts := doc.Suites[1]
	if ts.property("decision") != "BLOCK" || ts.Failures != 1 {
		t.Errorf("trials-v4 decision %q failures %d, want BLOCK 1", ts.property("decision"), ts.Failures)
	}
	type want struct {
		trials, flaky, message string
		body                   []string // lines of the failure body, or of system-out for a passing case
	}
	wants := map[string]want{
		"ER-001": {trials: "3/3 trials"},
		"ER-004": {trials: "2/3 trials", flaky: "true", body: []string{"trial 3: decision: ", "trial 3: tool_call: ", "trial 3: citation: ", "trial 3: forbidden_tool: "}},
		"ER-007": {trials: "2/3 trials", flaky: "true", body: []string{"trial 2: citation: "}},
		"ER-011": {trials: "1/3 trials", flaky: "true", message: "1/3 trials passed (flaky): arguments", body: []string{"trial 1: arguments: ", "trial 3: arguments: "}},
		"ER-012": {trials: "2/3 trials", flaky: "true", body: []string{"trial 3: missing_output: "}},
	}
	for _, c := range ts.Cases {
		id, _, _ := strings.Cut(c.Name, ":")
		w, ok := wants[id]
		if !ok {
			w = want{trials: "3/3 trials"}
		}
		if c.property("trials") != w.trials || c.property("flaky") != w.flaky {
			t.Errorf("%s: trials %q flaky %q, want %q %q", id, c.property("trials"), c.property("flaky"), w.trials, w.flaky)
		}
		if c.Time == "" {
			t.Errorf("%s has no time though outputs were kept", id)
		}
		text := c.SystemOut
		if w.message != "" {
			if len(c.Failures) != 1 || !strings.HasPrefix(c.Failures[0].Message, w.message) {
				t.Fatalf("%s: failures %+v, want one with message %q…", id, c.Failures, w.message)
			}
			text = c.Failures[0].Body
		} else if len(c.Failures) != 0 {
			t.Errorf("%s passed but has a failure %+v", id, c.Failures)
		}
		lines := strings.Split(text, "\n")
		if text == "" {
			lines = nil
		}
		if len(lines) != len(w.body) {
			t.Errorf("%s: failed trials %q, want %d lines", id, text, len(w.body))
			continue
		}
		for i, prefix := range w.body {
			if !strings.HasPrefix(lines[i], prefix) {
				t.Errorf("%s: line %q, want it to start with %q", id, lines[i], prefix)
			}
		}
	}
}

func TestTrialsSummary(t *testing.T) {
	md := string(Summary(trialsRelease(t)))
	for _, want := range []string{
		"| snapshot | functional | 95% interval | trials passed | critical failures |",
		"| `candidate-v3` | 12/12 | 75.8–100% | no trials | 0 |",
		"| `trials-v4` | 11/12 | 64.6–98.5% | 86.11% of 3 × 12 | 1 |",
		"3 trials per case: 86.11% of all trials passed (trial_pass_rate); 4 flaky cases.",
		"Flaky cases (4):",
		"| **ER-007** ",
		"| major | 2/3 | pass | 2 |",
		"| critical | 2/3 | pass; a critical failure | 3 |",
		"| major | 1/3 | **fail** | 1, 3 |",
		"| 2/3 | pass | 3 |",
		"Failing cases (1):",
		"| trial 1: ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	// candidate-v3's own section says nothing of trials.
	v3 := md[strings.Index(md, "### `candidate-v3`"):strings.Index(md, "### `trials-v4`")]
	if strings.Contains(v3, "trial") || strings.Contains(v3, "Flaky") {
		t.Errorf("the section of a snapshot without trials mentions trials:\n%s", v3)
	}
}

// hostileTrialRelease is one snapshot of three trials with two flaky
// cases whose ids, titles and failure details are hostile: one failing
// (1/3) and one passing (2/3, min_trial_pass_rate below 1).
func hostileTrialRelease(hostile string) *evaluator.Release {
	failed := &suite.Case{ID: "F-" + hostile, Title: hostile, Severity: suite.Major}
	passed := &suite.Case{ID: "P-" + hostile, Title: hostile, Severity: suite.Minor}
	s := suite.NewSuite(suite.NewPolicy(nil), []*suite.Case{failed, passed}, sampleGate)
	m := decide.Metrics{CasesTotal: 2, CasesPassed: 1, PassRate: big.NewRat(1, 2), K: 3, TrialsPassed: 3, FlakyCases: 2, TrialPassRate: big.NewRat(1, 2)}
	decision, gates := decide.DefaultGates().Decide(m, sampleGate)
	rate := 0.5
	snap := &evaluator.Snapshot{
		Result: evaluator.Result{
			Label: "snap", Decision: decision, CasesTotal: 2, CasesPassed: 1, Gates: gates, Trials: 3, TrialPassRate: &rate,
			Cases: []evaluator.CaseResult{
				{CaseID: failed.ID, Severity: failed.Severity, Trials: 3, TrialsPassed: 1, Failures: []judge.Failure{
					{Code: judge.Decision, Detail: hostile, Trial: 1}, {Code: judge.ToolCall, Detail: hostile, Trial: 1}, {Code: judge.Decision, Detail: hostile, Trial: 3}}},
				{CaseID: passed.ID, Severity: passed.Severity, Passed: true, Trials: 3, TrialsPassed: 2, Failures: []judge.Failure{
					{Code: judge.Citation, Detail: hostile, Trial: 2}}},
			},
		},
		Metrics: m,
	}
	return &evaluator.Release{Suite: s, Snapshots: []*evaluator.Snapshot{snap}}
}

const hostileText = "<a href=\"x\">&amp;</a> 'q' ]]> | *b* `c` line\r\nbreak\ttab \x00\x1b\xff §4.2 😀"

// TestTrialsHostile checks that hostile case ids and details survive both
// outputs: the JUnit report stays valid against the schema and parses
// back to the same text, and the summary's tables keep their rows.
func TestTrialsHostile(t *testing.T) {
	rel := hostileTrialRelease(hostileText)
	report := JUnit(rel)
	doc := parseJUnit(t, report)
	cases := doc.Suites[0].Cases
	safe := xmlSafe(hostileText)
	if cases[0].Name != "F-"+safe+": "+safe || cases[1].Name != "P-"+safe+": "+safe {
		t.Errorf("names %q and %q do not carry the hostile id and title", cases[0].Name, cases[1].Name)
	}
	wantBody := strings.Join([]string{"trial 1: decision: " + safe, "trial 1: tool_call: " + safe, "trial 3: decision: " + safe}, "\n")
	if len(cases[0].Failures) != 1 || cases[0].Failures[0].Body != wantBody || cases[0].Failures[0].Message != "1/3 trials passed (flaky): decision, tool_call" {
		t.Errorf("failing case: %+v\nwant body %q", cases[0].Failures, wantBody)
	}
	if len(cases[1].Failures) != 0 || cases[1].SystemOut != "trial 2: citation: "+safe || cases[1].property("flaky") != "true" {
		t.Errorf("passing flaky case: failures %+v system-out %q flaky %q", cases[1].Failures, cases[1].SystemOut, cases[1].property("flaky"))
	}
	validateXSD(t, report)

	md := string(Summary(rel))
	if strings.Contains(strings.ReplaceAll(md, `\<`, ""), "<") || strings.Contains(md, "\r") {
		t.Errorf("the summary carries raw markup or a carriage return:\n%s", md)
	}
	rows := 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| **F-") || strings.HasPrefix(line, "| **P-") {
			rows++
			if !strings.HasSuffix(line, " |") {
				t.Errorf("row does not end its table cell: %q", line)
			}
		}
	}
	// Flaky cases: 2 rows; failing cases: the failing case's 3 failures.
	if rows != 5 {
		t.Errorf("%d case rows, want 5:\n%s", rows, md)
	}
}

// TestTrialsXSD validates the trials example against the JUnit schema.
func TestTrialsXSD(t *testing.T) {
	validateXSD(t, JUnit(trialsRelease(t)))
}

// validateXSD checks report against testdata/junit.xsd with xmllint, as
// TestXSD does.
func validateXSD(t *testing.T, report []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint is missing; CI installs it with apt-get install -y libxml2-utils")
		}
		t.Skip("xmllint is not installed (apt-get install -y libxml2-utils)")
	}
	path := filepath.Join(t.TempDir(), "report.xml")
	if err := os.WriteFile(path, report, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), path).CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s\n%s", err, out, report)
	}
}

// TestNoTrialsBytesUnchanged pins that without trials nothing changes:
// the sample's reports hold no trace of trials.
func TestNoTrialsBytesUnchanged(t *testing.T) {
	rel := sampleRelease(t)
	for name, out := range map[string][]byte{"junit": JUnit(rel), "summary": Summary(rel)} {
		for _, word := range [][]byte{[]byte("trial"), []byte("flaky"), []byte("Flaky"), []byte("system-out")} {
			if bytes.Contains(out, word) {
				t.Errorf("%s of a release without trials mentions %q", name, word)
			}
		}
	}
}
