package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsThatTeach: each common mistake in a data folder gets its own
// message, exact to the byte: where (file:line:column, field), what is
// wrong and how to fix it (docs/errors.md lists them).
func TestErrorsThatTeach(t *testing.T) {
	const v3 = "outputs/candidate-v3.jsonl"
	tests := []struct {
		name, file string
		change     func(string) string
		want       string // the message after "releasegate: DATA/"
	}{
		{"two commas", "cases.jsonl", replaceOnce(`"severity": "minor", `, `"severity": "minor",, `),
			"cases.jsonl:1:112: invalid JSON: two commas in a row — delete one of them"},
		{"comma before the brace", v3, replaceOnce(`"cost_usd": 0.009}`, `"cost_usd": 0.009,}`),
			"outputs/candidate-v3.jsonl:1:314: invalid JSON: a comma before the closing '}' — delete the comma after the last item"},
		{"single quotes", v3, replaceOnce(`"decision": "approve"`, `'decision': "approve"`),
			`outputs/candidate-v3.jsonl:1:23: invalid JSON: a string in single quotes — use double quotes: "like this"`},
		{"unknown key in an output", v3, replaceOnce(`"tool_calls"`, `"toolcalls"`),
			`outputs/candidate-v3.jsonl:1: tool_calls: missing required field; the line has "toolcalls" — did you mean "tool_calls"?`},
		{"unknown key in a case", "cases.jsonl", replaceOnce(`"tool_calls"`, `"toolcalls"`),
			`cases.jsonl:1: expected.toolcalls: breaks case.schema.json#/properties/expected/additionalProperties: unknown member "toolcalls"; did you mean "tool_calls"?`},
		{"unknown key in gate.json", "gate.json", replaceOnce(`"max_p95_latency_ms"`, `"max_p95_latency"`),
			`gate.json:4: max_p95_latency: unknown key; did you mean "max_p95_latency_ms"? — rename it, or use one of min_pass_rate, max_critical_failures, max_p95_latency_ms, max_avg_cost_usd, baseline, min_trial_pass_rate, confidence or require_evidence`},
		{"a rule of the schema", "cases.jsonl", replaceOnce(`"severity": "minor"`, `"severity": "low"`),
			"cases.jsonl:1: severity: breaks case.schema.json#/properties/severity/enum: value must be one of 'critical', 'major', 'minor'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := copyData(t)
			edit(t, data, tt.file, tt.change)
			code, _, stderr := runCmd(t, "evaluate", "--all", "--data", data, "--out", t.TempDir())
			want := "releasegate: " + filepath.Join(data, tt.want) + "\n"
			if code != exitFail || stderr != want {
				t.Errorf("exit %d, stderr\n  %q\nwant\n  %q", code, stderr, want)
			}
		})
	}
}

// TestEveryProblemInOneRun: three mistakes in two files take one run.
func TestEveryProblemInOneRun(t *testing.T) {
	data := copyData(t)
	edit(t, data, "outputs/candidate-v3.jsonl", func(s string) string {
		s = strings.Replace(s, `"latency_ms"`, `"latency"`, 1)
		return strings.Replace(s, `"case_id": "ER-004"`, `"case_id": "ER-404"`, 1)
	})
	edit(t, data, "outputs/candidate-v2.jsonl", replaceOnce(`"cost_usd": `, `"cost_usd": -`))
	code, _, stderr := runCmd(t, "evaluate", "--all", "--data", data, "--out", t.TempDir())
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(stderr, data+string(filepath.Separator), ""), "\n"), "\n")
	want := []string{
		"releasegate: outputs/candidate-v2.jsonl:1: cost_usd: must not be negative, got -0.010",
		`outputs/candidate-v3.jsonl:1: latency_ms: missing required field; the line has "latency" — did you mean "latency_ms"?`,
		`outputs/candidate-v3.jsonl:4: case_id: "ER-404" is not a case of the suite`,
	}
	if code != exitFail || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit %d, stderr\n%s\nwant\n%s", code, strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestWrongFolder: a folder that is not the data folder is named with
// what was found there and the --data to use.
func TestWrongFolder(t *testing.T) {
	project := t.TempDir()
	data := filepath.Join(project, "data")
	if err := os.CopyFS(data, os.DirFS("../../data")); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
	}{
		{"the project folder", project, project + ": this is the project folder, not the data folder inside it — use --data " + data},
		{"the snapshots folder", filepath.Join(data, "outputs"), filepath.Join(data, "outputs") + ": this is the snapshots folder (outputs/), not the data folder that holds it — use --data " + data},
		{"a file", filepath.Join(data, "cases.jsonl"), filepath.Join(data, "cases.jsonl") + ": is a file, not a folder — give --data the folder that holds it: --data " + data},
		{"an unrelated folder", empty, empty + ": not a data folder: it holds notes.txt — a data folder holds cases.jsonl, case.schema.json, gate.json and outputs/"},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"evaluate", "build"} {
			args := []string{cmd, "--data", tt.dir, "--out", t.TempDir()}
			if cmd == "evaluate" {
				args = append(args, "--all")
			}
			code, _, stderr := runCmd(t, args...)
			if want := "releasegate: " + tt.want + "\n"; code != exitFail || stderr != want {
				t.Errorf("%s, %s: exit %d, stderr\n  %q\nwant\n  %q", tt.name, cmd, code, stderr, want)
			}
		}
	}
	// A missing input is named, with what it should hold.
	if err := os.Remove(filepath.Join(data, "gate.json")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "build", "--data", data, "--out", t.TempDir())
	if want := "releasegate: " + filepath.Join(data, "gate.json") + ": missing — add gate.json with the thresholds"; code != exitFail || !strings.HasPrefix(stderr, want) {
		t.Errorf("missing gate.json: exit %d, stderr %q, want %q", code, stderr, want)
	}
}
