package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyData copies the sample data folder into a fresh temporary folder.
func copyData(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("../../data")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// treeSum fingerprints every file name and byte under dir.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(h, "%s\x00", rel)
		if !d.IsDir() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// edit rewrites one file of a data folder.
func edit(t *testing.T, dir, name string, change func(string) string) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	after := change(string(b))
	if after == string(b) {
		t.Fatalf("edit of %s changed nothing", name)
	}
	if err := os.WriteFile(path, []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
}

func replaceOnce(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// TestBadInputChangesNothing runs evaluate --all over each kind of bad
// input the data format names: the run must fail with status 1 and a message
// that locates the problem, and the previous results must stay byte for
// byte.
func TestBadInputChangesNothing(t *testing.T) {
	const v3 = "outputs/candidate-v3.jsonl"
	tests := []struct {
		name, file string
		change     func(string) string
		want       string // the message must contain this
	}{
		{"malformed JSON in a case", "cases.jsonl", replaceOnce(`{"case_id": "ER-002"`, `{"case_id": "ER-002",`), "cases.jsonl:2:22: invalid JSON: two commas in a row — delete one of them"},
		{"malformed JSON in an output", v3, replaceOnce(`{"case_id": "ER-003"`, `{"case_id" "ER-003"`), "candidate-v3.jsonl:3:12: invalid JSON: a colon is missing after the name"},
		{"missing field", v3, replaceOnce(`"latency_ms": 410, `, ""), "candidate-v3.jsonl:1: latency_ms: missing required field"},
		{"mistyped field", v3, replaceOnce(`"latency_ms": 410`, `"latency_ms": "410"`), "candidate-v3.jsonl:1: latency_ms: expected a number"},
		{"unknown severity", "cases.jsonl", replaceOnce(`"severity": "minor"`, `"severity": "trivial"`), "cases.jsonl:1: severity:"},
		{"unknown decision in a case", "cases.jsonl", replaceOnce(`"decision": "approve"`, `"decision": "pay"`), "cases.jsonl:1: expected.decision:"},
		{"unknown decision in an output", v3, replaceOnce(`"decision": "approve"`, `"decision": "pay"`), `candidate-v3.jsonl:1: decision: unknown decision "pay"`},
		{"case breaks the schema", "cases.jsonl", replaceOnce(`"expected": {`, `"extra": 1, "expected": {`), "cases.jsonl:1: extra: breaks case.schema.json"},
		{"duplicate case id in the suite", "cases.jsonl", replaceOnce(`"case_id": "ER-002"`, `"case_id": "ER-001"`), `cases.jsonl:2: case_id: duplicate case_id "ER-001" (first at line 1)`},
		{"duplicate case id in a snapshot", v3, replaceOnce(`"case_id": "ER-002"`, `"case_id": "ER-001"`), `candidate-v3.jsonl:2: case_id: duplicate case_id "ER-001" (first at line 1)`},
		{"output for an unknown case", v3, replaceOnce(`"case_id": "ER-002"`, `"case_id": "ER-200"`), `candidate-v3.jsonl:2: case_id: "ER-200" is not a case of the suite`},
		{"negative latency", v3, replaceOnce(`"latency_ms": 410`, `"latency_ms": -410`), "candidate-v3.jsonl:1: latency_ms: must not be negative"},
		{"negative cost", v3, replaceOnce(`"cost_usd": 0.009`, `"cost_usd": -0.009`), "candidate-v3.jsonl:1: cost_usd: must not be negative"},
		{"expected citation not current", "cases.jsonl", replaceOnce(`"citations": ["ER-2026.10 §2.1"`, `"citations": ["ER-2026.08 §2.1"`), "cases.jsonl:1: expected.citations[0]:"},
		{"wrong number of expected calls", "cases.jsonl", replaceOnce(`"tool_calls": [{"name": "approve_expense"`, `"tool_calls": [{"name": "x", "arguments": {}}, {"name": "approve_expense"`), "cases.jsonl:1: expected.tool_calls"},
		{"unsafe case id", "cases.jsonl", replaceOnce(`"case_id": "ER-001"`, `"case_id": "../ER-001"`), "cases.jsonl:1: case_id:"},
		{"mistyped threshold", "gate.json", replaceOnce(`0.025`, `"0.025"`), "gate.json:5: max_avg_cost_usd: expected a number"},
		{"policy without rules", "POLICY.md", func(s string) string { return strings.ReplaceAll(s, "ER-2026.10 §", "Rule ") }, "POLICY.md: no rule headings found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := copyData(t)
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			if code := run([]string{"evaluate", "--all", "--data", data, "--out", out}, &stdout, &stderr); code != exitOK {
				t.Fatalf("good run: status %d: %s", code, stderr.String())
			}
			before := treeSum(t, out)
			edit(t, data, tt.file, tt.change)
			stdout.Reset()
			stderr.Reset()
			code := run([]string{"evaluate", "--all", "--data", data, "--out", out}, &stdout, &stderr)
			if code != exitFail {
				t.Errorf("status %d, want %d", code, exitFail)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("message %q does not contain %q", stderr.String(), tt.want)
			}
			if after := treeSum(t, out); after != before {
				t.Error("a failed run changed the previous results")
			}
		})
	}
}

// TestUnsafeLabel covers a snapshot whose file name is not a safe label.
func TestUnsafeLabel(t *testing.T) {
	data := copyData(t)
	if err := os.Rename(filepath.Join(data, "outputs", "candidate-v3.jsonl"), filepath.Join(data, "outputs", "candidate v3.jsonl")); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"evaluate", "--all", "--data", data, "--out", t.TempDir()}, &stdout, &stderr)
	if code != exitFail || !strings.Contains(stderr.String(), `snapshot label "candidate v3" is not a safe name`) {
		t.Fatalf("status %d, message %q", code, stderr.String())
	}
	code = run([]string{"evaluate", "--cases", filepath.Join(data, "cases.jsonl"), "--outputs", filepath.Join(data, "outputs", "baseline-v1.jsonl"), "--label", "../x", "--output", filepath.Join(t.TempDir(), "x.json"), "--data", data}, &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("unsafe --label: status %d", code)
	}
}

// TestSingleSnapshotExitStatus is the CI gate: the exit status is the
// decision.
func TestSingleSnapshotExitStatus(t *testing.T) {
	tests := []struct {
		label string
		want  int
	}{
		{"baseline-v1", exitBlock},
		{"candidate-v2", exitReview},
		{"candidate-v3", exitOK},
	}
	for _, tt := range tests {
		out := filepath.Join(t.TempDir(), "nested", tt.label+".json")
		var stdout, stderr bytes.Buffer
		code := run([]string{"evaluate", "--cases", "../../data/cases.jsonl", "--outputs", "../../data/outputs/" + tt.label + ".jsonl", "--label", tt.label, "--output", out, "--data", "../../data"}, &stdout, &stderr)
		if code != tt.want {
			t.Errorf("%s: status %d, want %d (%s)", tt.label, code, tt.want, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil || !bytes.Contains(b, []byte(`"label": "`+tt.label+`"`)) {
			t.Errorf("%s: results file not written: %v", tt.label, err)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{},
		{"frobnicate"},
		{"evaluate"},
		{"evaluate", "--all", "--label", "x"},
		{"evaluate", "--cases", "c.jsonl", "--outputs", "o.jsonl"},
		{"evaluate", "--all", "stray"},
		{"evaluate", "--no-such-flag"},
	}
	for _, args := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitUsage || stderr.Len() == 0 {
			t.Errorf("run(%q) = %d with %q, want status %d and a message", args, code, stderr.String(), exitUsage)
		}
	}
}

func TestBundleQuiet(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.zip")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bundle", "--data", "../../data", "-o", out, "--quiet"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Fatalf("--quiet printed %q %q", stdout.String(), stderr.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
