package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/ciout"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/gensuite"
)

const sampleData = "../../data"

// runCmd runs the program with args and returns its exit status and output.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// gateArgs are the single-snapshot evaluate arguments for a sample label.
func gateArgs(label, dir string, extra ...string) []string {
	return append([]string{"evaluate", "--data", sampleData,
		"--cases", filepath.Join(sampleData, "cases.jsonl"),
		"--outputs", filepath.Join(sampleData, "outputs", label+".jsonl"),
		"--output", filepath.Join(dir, label+".json")}, extra...)
}

func TestEvaluateCIOutputsOfCandidateV2(t *testing.T) {
	dir := t.TempDir()
	junit, summary := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
	if err := os.WriteFile(summary, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, gateArgs("candidate-v2", dir, "--junit", junit, "--summary", summary)...)
	if code != exitReview {
		t.Fatalf("exit %d, want %d (REVIEW); stderr: %s", code, exitReview, stderr)
	}
	if !strings.Contains(stdout, "candidate-v2: REVIEW") || strings.Contains(stdout, "\x1b[") {
		t.Errorf("stdout %q: want the plain REVIEW line", stdout)
	}

	var doc struct {
		Suites []struct {
			Name       string `xml:"name,attr"`
			Failures   int    `xml:"failures,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name     string `xml:"name,attr"`
				Time     string `xml:"time,attr"`
				Failures []struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 || doc.Suites[0].Name != "candidate-v2" || doc.Suites[0].Failures != 1 {
		t.Fatalf("JUnit suites: %+v", doc.Suites)
	}
	s := doc.Suites[0]
	if s.Properties[0].Name != "decision" || s.Properties[0].Value != "REVIEW" {
		t.Errorf("first suite property %+v, want decision REVIEW", s.Properties[0])
	}
	for _, c := range s.Cases {
		if c.Time == "" {
			t.Errorf("%s has no time; --junit should keep the outputs' latencies", c.Name)
		}
		if (len(c.Failures) > 0) != strings.HasPrefix(c.Name, "ER-007:") {
			t.Errorf("%s: %d failures; only ER-007 fails", c.Name, len(c.Failures))
		}
	}

	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(md), "earlier step\n## Release gate") {
		t.Errorf("the summary did not append to the existing file:\n%s", md)
	}
	for _, want := range []string{"### `candidate-v2`: REVIEW", "Failing cases (1):", "**ER-007**"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary lacks %q", want)
		}
	}

	// A second step appends a second summary.
	runCmd(t, gateArgs("candidate-v3", dir, "--summary", summary)...)
	md, _ = os.ReadFile(summary)
	if strings.Count(string(md), "## Release gate") != 2 || !strings.Contains(string(md), "### `candidate-v3`: PASS") {
		t.Errorf("second summary not appended:\n%s", md)
	}
}

func TestEvaluateExitStatusAndQuiet(t *testing.T) {
	tests := []struct {
		label string
		code  int
	}{
		{"baseline-v1", exitBlock},
		{"candidate-v2", exitReview},
		{"candidate-v3", exitOK},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(t, gateArgs(tt.label, t.TempDir(), "--quiet")...)
		if code != tt.code || stdout != "" || stderr != "" {
			t.Errorf("%s --quiet: exit %d stdout %q stderr %q, want exit %d and no output", tt.label, code, stdout, stderr, tt.code)
		}
	}
	code, stdout, _ := runCmd(t, "evaluate", "--all", "--data", sampleData, "--out", t.TempDir(), "--quiet")
	if code != exitOK || stdout != "" {
		t.Errorf("--all --quiet: exit %d stdout %q", code, stdout)
	}
}

func TestEvaluateFormatJSON(t *testing.T) {
	dir := t.TempDir()
	code, stdout, _ := runCmd(t, gateArgs("candidate-v2", dir, "--format", "json")...)
	written, err := os.ReadFile(filepath.Join(dir, "candidate-v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if code != exitReview || stdout != string(written) {
		t.Errorf("single --format json: exit %d, stdout differs from the results file:\n%s", code, stdout)
	}

	out := t.TempDir()
	code, stdout, _ = runCmd(t, "evaluate", "--all", "--data", sampleData, "--out", out, "--format", "json", "--quiet")
	var results []struct {
		Label    string `json:"label"`
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal([]byte(stdout), &results); err != nil || code != exitOK {
		t.Fatalf("--all --format json: exit %d, %v:\n%s", code, err, stdout)
	}
	got := ""
	for _, r := range results {
		got += r.Label + "=" + r.Decision + " "
	}
	if want := "baseline-v1=BLOCK candidate-v2=REVIEW candidate-v3=PASS "; got != want {
		t.Errorf("--all --format json gave %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(out, "results", "candidate-v3.json")); err != nil {
		t.Errorf("--format json must still write the results files: %v", err)
	}
}

func TestEvaluateAllCIOutputs(t *testing.T) {
	dir := t.TempDir()
	junit, summary := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
	code, _, stderr := runCmd(t, "evaluate", "--all", "--data", sampleData, "--out", filepath.Join(dir, "public"), "--junit", junit, "--summary", summary)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	x, _ := os.ReadFile(junit)
	md, _ := os.ReadFile(summary)
	if strings.Count(string(x), "<testsuite ") != 3 || strings.Count(string(x), "<testcase ") != 36 {
		t.Errorf("JUnit of --all should hold 3 suites of 12 cases:\n%s", x)
	}
	for _, want := range []string{"| `baseline-v1` |", "### `candidate-v3`: PASS", "### `baseline-v1`: BLOCK"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary of --all lacks %q", want)
		}
	}
}

func TestEvaluateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown format", gateArgs("candidate-v3", dir, "--format", "yaml"), `--format is "yaml"`},
		{"empty junit", gateArgs("candidate-v3", dir, "--junit", ""), "--junit needs a file name"},
		{"empty summary", []string{"evaluate", "--all", "--summary="}, "--summary needs a file name"},
	}
	for _, tt := range tests {
		code, _, stderr := runCmd(t, tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%s: exit %d stderr %q, want %d and %q", tt.name, code, stderr, exitUsage, tt.msg)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad usage wrote %d files", len(entries))
	}
}

func TestEvaluateBadInputWritesNoCIFiles(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	junit, summary := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
	code, _, stderr := runCmd(t, "evaluate", "--data", sampleData, "--cases", filepath.Join(sampleData, "cases.jsonl"),
		"--outputs", bad, "--output", filepath.Join(dir, "out.json"), "--junit", junit, "--summary", summary)
	if code != exitFail || !strings.Contains(stderr, "bad.jsonl:1") {
		t.Errorf("exit %d stderr %q, want %d naming bad.jsonl:1", code, stderr, exitFail)
	}
	for _, f := range []string{junit, summary, filepath.Join(dir, "out.json")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s written despite bad input", filepath.Base(f))
		}
	}
}

// TestEvaluateLatestStreamedAsWhole: --latest streams the data folder,
// with or without a JUnit report and a summary; the decision, what it
// prints, its results file, JUnit report and summary are those of the
// folder evaluated whole, on the sample and on suites with trials written
// case by case and with shuffled lines.
func TestEvaluateLatestStreamedAsWhole(t *testing.T) {
	trials := filepath.Join(t.TempDir(), "data")
	if err := gensuite.WriteTrialsByCase(sampleData, trials, 50, 3); err != nil {
		t.Fatal(err)
	}
	shuffled := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, shuffled, 300); err != nil {
		t.Fatal(err)
	}
	if err := gensuite.Shuffle(shuffled, 2); err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{sampleData, trials, shuffled} {
		whole, err := evaluator.EvaluateDir(data, evaluator.Options{KeepOutputs: true})
		if err != nil {
			t.Fatal(err)
		}
		latest := whole.Only(whole.Snapshots[len(whole.Snapshots)-1])
		var results bytes.Buffer
		if err := latest.Snapshots[0].Result.WriteJSON(&results); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"text", "json"} {
			dir := t.TempDir()
			plain, withCI := filepath.Join(dir, "plain.json"), filepath.Join(dir, "ci.json")
			junit, summary := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
			code, stdout, stderr := runCmd(t, "evaluate", "--latest", "--data", data, "--output", plain, "--format", format)
			ciCode, ciStdout, ciStderr := runCmd(t, "evaluate", "--latest", "--data", data, "--output", withCI, "--format", format,
				"--junit", junit, "--summary", summary)
			if code != ciCode || stdout != ciStdout || stderr != ciStderr {
				t.Errorf("%s, %s: exit %d\n%s%s\nwith CI outputs, exit %d\n%s%s", data, format, code, stdout, stderr, ciCode, ciStdout, ciStderr)
			}
			if want := map[decide.Decision]int{decide.Pass: exitOK, decide.Review: exitReview, decide.Block: exitBlock}[latest.Snapshots[0].Result.Decision]; code != want {
				t.Errorf("%s, %s: exit %d, want %d", data, format, code, want)
			}
			for file, want := range map[string][]byte{plain: results.Bytes(), withCI: results.Bytes(), junit: ciout.JUnit(latest), summary: ciout.Summary(latest)} {
				got, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s, %s: %s is not what the whole evaluation gives", data, format, filepath.Base(file))
				}
			}
		}
	}
}
