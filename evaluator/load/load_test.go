package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

const sampleDir = "../../data"

func sampleSuite(t testing.TB) *suite.Suite {
	t.Helper()
	s, err := Suite(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSample(t *testing.T) {
	s := sampleSuite(t)
	if len(s.Cases) != 12 || s.Policy.Version != "ER-2026.10" {
		t.Fatalf("sample: %d cases, policy %q", len(s.Cases), s.Policy.Version)
	}
	files, err := Snapshots(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, f := range files {
		labels = append(labels, f.Label)
	}
	if strings.Join(labels, " ") != "baseline-v1 candidate-v2 candidate-v3" {
		t.Fatalf("labels = %v", labels)
	}
}

func TestLineReader(t *testing.T) {
	long := `{"pad":"` + strings.Repeat("x", 1<<20+17) + `"}`
	in := "\xEF\xBB\xBFone\r\n\r\n   \n" + long + "\r\nlast"
	lr := newLineReader("cases.jsonl", strings.NewReader(in))
	type got struct {
		text string
		line int
	}
	var all []got
	for {
		text, n, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got{string(text), n})
	}
	want := []got{{"one", 1}, {long, 4}, {"last", 5}}
	if len(all) != len(want) {
		t.Fatalf("got %d lines, want %d", len(all), len(want))
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("line %d = %.20q@%d, want %.20q@%d", i, all[i].text, all[i].line, want[i].text, want[i].line)
		}
	}
}

// outputLine is a valid output for case ER-001 of the sample.
const outputLine = `{"case_id":"ER-001","decision":"approve","tool_calls":[{"name":"approve_expense","arguments":{"claim_id":"C-2031","approver":{"id":"M-118","role":"manager"}}}],"citations":["ER-2026.10 §2.1","ER-2026.10 §4.2"],"latency_ms":410,"cost_usd":0.009}`

func TestOutputsBadInput(t *testing.T) {
	s := sampleSuite(t)
	replace := func(old, new string) string { return strings.Replace(outputLine, old, new, 1) }
	tests := []struct {
		name, in, want string
	}{
		{"malformed JSON", "\n" + outputLine[:40], "out.jsonl:2:41: invalid JSON: the line ends before the value does — close every"},
		{"trailing data", outputLine + " {}", "out.jsonl:1:249: invalid JSON: more text after the object ends — put each object"},
		{"not an object", "[1]", "out.jsonl:1: expected an object, got an array"},
		{"missing field", replace(`"latency_ms":410,`, ""), "out.jsonl:1: latency_ms: missing required field"},
		{"mistyped field", replace(`"latency_ms":410`, `"latency_ms":"410"`), "out.jsonl:1: latency_ms: expected a number or null, got a string"},
		{"mistyped tool call", replace(`"name":"approve_expense"`, `"name":7`), "out.jsonl:1: tool_calls[0].name: expected a string, got a number"},
		{"null arguments", replace(`"arguments":{"claim_id":"C-2031","approver":{"id":"M-118","role":"manager"}}`, `"arguments":null`), "out.jsonl:1: tool_calls[0].arguments: expected an object or a string holding one, got null"},
		{"mistyped citation", replace(`"ER-2026.10 §2.1",`, `false,`), "out.jsonl:1: citations[0]: expected a string, got a boolean"},
		{"unknown decision", replace(`"decision":"approve"`, `"decision":"maybe"`), `out.jsonl:1: decision: unknown decision "maybe"`},
		{"negative latency", replace(`"latency_ms":410`, `"latency_ms":-1`), "out.jsonl:1: latency_ms: must not be negative"},
		{"negative cost", replace(`"cost_usd":0.009`, `"cost_usd":-0.009`), "out.jsonl:1: cost_usd: must not be negative"},
		{"huge cost", replace(`"cost_usd":0.009`, `"cost_usd":1e999`), "out.jsonl:1: cost_usd: 1e999 is out of range"},
		{"unknown case", replace(`"ER-001"`, `"ER-999"`), `out.jsonl:1: case_id: "ER-999" is not a case of the suite`},
		{"unsafe case id", replace(`"ER-001"`, `"../etc"`), `out.jsonl:1: case_id: "../etc" is not a case of the suite`},
		{"duplicate member name", replace(`"decision":"approve"`, `"decision":"approve","decision":"reject"`), `out.jsonl:1:42: invalid JSON: a name given twice in one object — keep one`},
		{"invalid UTF-8", replace(`"ER-2026.10 §2.1"`, "\"\xff\""), `out.jsonl:1:175: invalid JSON: invalid UTF-8 — save the file as UTF-8`},
		{"null citation", replace(`"ER-2026.10 §2.1",`, `null,`), "out.jsonl:1: citations[0]: expected a string, got null"},
		{"case-folded name", replace(`"case_id"`, `"CASE_ID"`), "out.jsonl:1: case_id: missing required field"},
		{"duplicate case", outputLine + "\n\n" + outputLine, `out.jsonl:3: case_id: duplicate case_id "ER-001" (first at line 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Outputs("out.jsonl", strings.NewReader(tt.in), s, func(int, *suite.Output) error { return nil })
			var ie *suite.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestOutputsAcceptsEditorDebris(t *testing.T) {
	s := sampleSuite(t)
	in := "\xEF\xBB\xBF" + outputLine + "\r\n\r\n" + strings.Replace(outputLine, "ER-001", "ER-002", 1) + "\r\n"
	var ids []string
	_, err := Outputs("out.jsonl", strings.NewReader(in), s, func(_ int, o *suite.Output) error {
		ids = append(ids, o.CaseID+"@"+strconv.Itoa(o.Line))
		return nil
	})
	if err != nil || strings.Join(ids, " ") != "ER-001@1 ER-002@3" {
		t.Fatalf("ids = %v, err = %v", ids, err)
	}
}

func TestGateBadInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"valid", `{"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.025}`, ""},
		{"malformed", "{\n \"min_pass_rate\": 0.9,\n", "gate.json:"},
		{"missing threshold", "{\"min_pass_rate\": 0.9, \"max_critical_failures\": 0,\n \"max_p95_latency_ms\": 2500}", "gate.json: max_avg_cost_usd: missing required threshold"},
		{"mistyped", "{\"min_pass_rate\": 0.9,\n \"max_critical_failures\": \"0\"}", "gate.json:2: max_critical_failures: expected a number or null, got a string"},
		{"unknown key", "{\"min_pass_rate\": 0.9,\n\n \"max_p95_latency\": 1}", "gate.json:3: max_p95_latency: unknown key"},
		{"fraction of critical", "{\"max_critical_failures\": 0.5}", "gate.json:1: max_critical_failures: must be a whole number"},
		{"pass rate over one", "{\"min_pass_rate\": 90}", "gate.json:1: min_pass_rate: is a fraction from 0 to 1"},
		{"negative", "{\"max_avg_cost_usd\": -1}", "gate.json:1: max_avg_cost_usd: must not be negative"},
		{"set twice", "{\"min_pass_rate\": 0.9, \"min_pass_rate\": 0.8}", "gate.json:1: min_pass_rate: set twice"},
		{"not an object", "[]", "gate.json:1: expected a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Gate("gate.json", []byte(tt.in), nil)
			switch {
			case tt.want == "" && err != nil:
				t.Fatal(err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestSnapshotsLabels(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, OutputsDir)
	os.MkdirAll(out, 0o755)
	for _, name := range []string{"v10.jsonl", "v9.jsonl", "v1.jsonl", ".hidden.jsonl", "notes.txt"} {
		os.WriteFile(filepath.Join(out, name), nil, 0o644)
	}
	files, err := Snapshots(dir)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, f := range files {
		labels = append(labels, f.Label)
	}
	if strings.Join(labels, " ") != "v1 v9 v10" {
		t.Fatalf("labels = %v", labels)
	}
	os.WriteFile(filepath.Join(out, "bad label.jsonl"), nil, 0o644)
	if _, err := Snapshots(dir); err == nil || !strings.Contains(err.Error(), `snapshot label "bad label" is not a safe name`) {
		t.Fatalf("unsafe label error = %v", err)
	}
}

func TestCasesBadInput(t *testing.T) {
	s := sampleSuite(t)
	schema := sampleSchema(t)
	good := `{"case_id":"ER-100","title":"t","severity":"major","input":{"claim_id":"C-1"},"expected":{"decision":"reject","tool_calls":[{"name":"reject_expense","arguments":{"claim_id":"C-1"}}],"citations":["ER-2026.10 §5.1"],"forbidden_tools":["approve_expense"]}}`
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	tests := []struct {
		name, in, want string
	}{
		{"valid", good + "\n\n" + strings.Replace(good, "ER-100", "ER-101", 1), ""},
		{"malformed JSON", "\n" + good[:30], "cases.jsonl:2:31: invalid JSON: the line ends before the value does"},
		{"unknown severity", replace(`"major"`, `"urgent"`), "cases.jsonl:1: severity:"},
		{"unknown decision", replace(`"decision":"reject"`, `"decision":"refund"`), "cases.jsonl:1: expected.decision: breaks case.schema.json#/properties/expected/properties/decision/enum: value must be one of 'approve', 'request_receipt', 'escalate_finance', 'reject', 'no_op'"},
		{"missing field", replace(`"title":"t",`, ""), "cases.jsonl:1: title:"},
		{"mistyped field", replace(`"input":{"claim_id":"C-1"}`, `"input":"C-1"`), "cases.jsonl:1: input:"},
		{"case id with a leading space", replace(`"ER-100"`, `" ER-100"`), `cases.jsonl:1: case_id: " ER-100" begins with white space (U+0020)`},
		{"case id with a trailing no-break space", replace(`"ER-100"`, `"ER-100\u00a0"`), `cases.jsonl:1: case_id: "ER-100\u00a0" ends with white space (U+00A0)`},
		{"case id with a control character", replace(`"ER-100"`, `"ER\t100"`), `cases.jsonl:1: case_id: "ER\t100" holds the control character U+0009 at character 3`},
		{"case id with a C1 control character", replace(`"ER-100"`, `"ER\u0085100"`), `cases.jsonl:1: case_id: "ER\u0085100" holds the control character U+0085 at character 3`},
		{"empty case id", replace(`"ER-100"`, `""`), "cases.jsonl:1: case_id: must not be empty"},
		{"case id of 257 characters", replace(`"ER-100"`, `"`+strings.Repeat("é", 257)+`"`), "cases.jsonl:1: case_id: \"" + strings.Repeat("é", 60) + "\"… is 257 characters long; a case id has at most 256: shorten it"},
		{"outdated expected citation", replace(`"ER-2026.10 §5.1"`, `"ER-2026.08 §6.1"`), `cases.jsonl:1: expected.citations[0]:`},
		{"two expected calls", replace(`"tool_calls":[{"name":"reject_expense","arguments":{"claim_id":"C-1"}}]`, `"tool_calls":[{"name":"reject_expense","arguments":{}},{"name":"reject_expense","arguments":{}}]`), "cases.jsonl:1: expected.tool_calls: breaks case.schema.json#/properties/expected/else/properties/tool_calls/maxItems: maxItems: got 2, want 1"},
		{"no_op with a call", replace(`"decision":"reject"`, `"decision":"no_op"`), "cases.jsonl:1: expected.tool_calls: breaks case.schema.json#/properties/expected/then/properties/tool_calls/maxItems: maxItems: got 1, want 0"},
		{"call is forbidden", replace(`["approve_expense"]`, `["reject_expense"]`), "cases.jsonl:1: expected."},
		{"duplicate case id", good + "\n" + good, `cases.jsonl:2: case_id: duplicate case_id "ER-100" (first at line 1)`},
		{"empty suite", "\n\n", "cases.jsonl: the suite has no cases"},
		{"duplicate member name", replace(`"severity":"major"`, `"severity":"major","severity":"minor"`), "cases.jsonl:1:52: invalid JSON: a name given twice in one object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The built-in checks alone must refuse bad cases too, but
			// the decisions and how many calls each needs are the
			// schema's business (docs/data-format.md, "Decisions come from the schema").
			for name, compiled := range map[string]*CaseSchema{"with schema": schema, "format only": nil} {
				if compiled == nil && strings.Contains(tt.want, "case.schema.json") {
					continue
				}
				_, err := Cases("cases.jsonl", strings.NewReader(tt.in), compiled, s.Policy, false)
				switch {
				case tt.want == "" && err != nil:
					t.Fatalf("%s: %v", name, err)
				case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
					t.Fatalf("%s: error = %v, want prefix %q", name, err, tt.want)
				}
			}
		})
	}
}

func TestCasesReportEarliestBadLine(t *testing.T) {
	s := sampleSuite(t)
	data, err := os.ReadFile(filepath.Join(sampleDir, CasesFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var many bytes.Buffer
	for i := range 3000 { // several chunks, parsed in parallel
		line := bytes.Replace(lines[i%len(lines)], []byte(`"ER-0`), []byte(`"X`+strconv.Itoa(i)+`-0`), 1)
		if i == 1700 || i == 2900 {
			line = []byte("{bad")
		}
		many.Write(line)
		many.WriteByte('\n')
	}
	for range 5 {
		_, err := Cases("cases.jsonl", bytes.NewReader(many.Bytes()), nil, s.Policy, false)
		if err == nil || !strings.HasPrefix(err.Error(), "cases.jsonl:1701:") {
			t.Fatalf("error = %v, want line 1701", err)
		}
	}
}

func TestOpaqueInput(t *testing.T) {
	tests := []struct {
		name, schema string
		opaque       bool
	}{
		{"type object", `{"properties":{"input":{"type":"object","description":"d"}}}`, true},
		{"type list", `{"type":"object","properties":{"input":{"type":["object"]}}}`, true},
		{"true", `{"properties":{"input":true}}`, true},
		{"annotations and names only", `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"t","required":["input"],"additionalProperties":false,"propertyNames":{"maxLength":9},"properties":{"input":{}}}`, true},
		{"members constrained", `{"properties":{"input":{"type":"object","required":["claim_id"]}}}`, false},
		{"input by reference", `{"properties":{"input":{"$ref":"#/$defs/claim"}},"$defs":{"claim":{"type":"object"}}}`, false},
		{"other types allowed", `{"properties":{"input":{"type":["object","array"]}}}`, false},
		{"root applicator", `{"properties":{"input":{"type":"object"}},"allOf":[{"properties":{"input":{"maxProperties":1}}}]}`, false},
		{"pattern properties", `{"properties":{"input":{"type":"object"}},"patternProperties":{"^in":{"maxProperties":1}}}`, false},
		{"whole-instance enum", `{"properties":{"input":{"type":"object"}},"enum":[{"input":{}}]}`, false},
		{"not declared", `{"properties":{}}`, false},
		{"false", `{"properties":{"input":false}}`, false},
		{"boolean schema", `true`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := CompileSchema(SchemaFile, []byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if cs.opaqueInput != tt.opaque {
				t.Fatalf("opaqueInput = %v, want %v", cs.opaqueInput, tt.opaque)
			}
		})
	}
	if !sampleSchema(t).opaqueInput {
		t.Error("the sample schema asks only that input be an object; its members should be skipped")
	}
}

// A schema that does constrain a case's input is enforced on every member.
func TestSchemaConstrainsInput(t *testing.T) {
	s := sampleSuite(t)
	src, err := os.ReadFile(filepath.Join(sampleDir, SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	stricter := bytes.Replace(src, []byte(`"type": "object"
    },`), []byte(`"type": "object",
      "properties": {"approval": {"properties": {"role": {"enum": ["manager", "director"]}}}}
    },`), 1)
	if bytes.Equal(stricter, src) {
		t.Fatal("fixture: the input schema was not found")
	}
	schema, err := CompileSchema(SchemaFile, stricter)
	if err != nil {
		t.Fatal(err)
	}
	if schema.opaqueInput {
		t.Fatal("a schema with input properties is treated as opaque")
	}
	line := `{"case_id":"ER-100","title":"t","severity":"major","input":{"claim_id":"C-1","approval":{"role":"intern"}},"expected":{"decision":"no_op","tool_calls":[],"citations":[],"forbidden_tools":[]}}`
	_, err = Cases("cases.jsonl", strings.NewReader(line), schema, s.Policy, false)
	if err == nil || !strings.HasPrefix(err.Error(), "cases.jsonl:1: input.approval.role: breaks case.schema.json") {
		t.Fatalf("error = %v", err)
	}
	ok := strings.Replace(line, "intern", "manager", 1)
	if _, err := Cases("cases.jsonl", strings.NewReader(ok), schema, s.Policy, false); err != nil {
		t.Fatal(err)
	}
}

// The library lists unexpected members in map order; the message must not
// change from run to run.
func TestSchemaMessageIsStable(t *testing.T) {
	s := sampleSuite(t)
	schema := sampleSchema(t)
	line := `{"zeta":1,"case_id":"ER-1","alpha":2,"title":"t","severity":"minor","input":{},"expected":{"decision":"no_op","tool_calls":[],"citations":[],"forbidden_tools":[]},"mid":3}`
	const want = "cases.jsonl:1: alpha: breaks case.schema.json#/additionalProperties: additional properties 'alpha', 'mid', 'zeta' not allowed"
	for range 20 {
		_, err := Cases("cases.jsonl", strings.NewReader(line), schema, s.Policy, false)
		if err == nil || err.Error() != want {
			t.Fatalf("error = %v\nwant    %s", err, want)
		}
	}
}

// TestGateReportsEveryProblem: one run names every wrong key and value
// of gate.json and every missing threshold, each at its line, and a
// misspelt key once, not again as the key it meant missing.
func TestGateReportsEveryProblem(t *testing.T) {
	in := "{\"min_pass_rate\": 90,\n \"max_critical_failures\": \"0\",\n \"max_p95_latency\": 2500,\n \"confidence\": 0.5}"
	_, err := Gate("gate.json", []byte(in), nil)
	if err == nil {
		t.Fatal("no error")
	}
	problems := suite.Problems(err)
	var got []string
	for _, p := range problems {
		got = append(got, fmt.Sprintf("%d %s", p.Line, p.Field))
	}
	want := []string{"1 min_pass_rate", "2 max_critical_failures", "3 max_p95_latency", "4 confidence", "0 max_avg_cost_usd"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q\n%v", got, want, err)
	}
}

// TestMetaReportsEveryProblem: every wrong member of a meta.json is named
// at its line in one run.
func TestMetaReportsEveryProblem(t *testing.T) {
	in := "{\"recorded\": \"2026-11-02T09:00:00Z\",\n \"model\": 4,\n \"recorded_at\": \"yesterday\"}"
	_, err := Meta("run.meta.json", []byte(in))
	var got []string
	for _, p := range suite.Problems(err) {
		got = append(got, fmt.Sprintf("%d %s", p.Line, p.Field))
	}
	if want := []string{"1 recorded", "2 model", "3 recorded_at"}; !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q\n%v", got, want, err)
	}
}
