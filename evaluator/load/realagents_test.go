package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Tests of the real-agent extensions of the data format on the load
// side (docs/data-format.md, "Real agents", and docs/real-data.md). Each names the
// section whose rule it checks.

// readOutputs reads a snapshot given as text against the sample suite.
func readOutputs(t *testing.T, s *suite.Suite, in string) ([]*suite.Output, error) {
	t.Helper()
	var outs []*suite.Output
	_, err := Outputs("out.jsonl", strings.NewReader(in), s, func(_ int, o *suite.Output) error {
		outs = append(outs, o)
		return nil
	})
	return outs, err
}

// docs/data-format.md, "Tool calls in any wire format": each item of an output's
// tool_calls may use any of the wire shapes, members other than those
// read are ignored, arguments are an object or a string holding one, and
// a string holding anything else is the agent's mistake, not bad input.
func TestWireFormatsInOneSnapshot(t *testing.T) {
	s := sampleSuite(t)
	line := func(id, calls string) string {
		return `{"case_id":"` + id + `","decision":"approve","tool_calls":[` + calls + `],"citations":[],"latency_ms":1,"cost_usd":0}`
	}
	in := strings.Join([]string{
		line("ER-001", `{"name":"plain","arguments":{"a":1},"id":"x"}`),
		line("ER-002", `{"type":"function","id":"call_1","function":{"name":"chat","arguments":"{\"a\": 1, \"b\": [true]}"}}`),
		line("ER-003", `{"type":"function_call","call_id":"c","id":"fc_1","status":"completed","name":"responses","arguments":"{\"a\":1}"}`),
		line("ER-004", `{"type":"tool_use","id":"toolu_1","name":"anthropic","input":{"a":1}}`),
		line("ER-005", `{"type":"function","function":{"name":"array","arguments":"[1, 2]"}}`),
		line("ER-006", `{"type":"function_call","name":"broken","arguments":"{\"a\": "}`),
		line("ER-007", `{"name":"plain-string","arguments":"  {\"a\":1}\n"},{"type":"tool_use","name":"second","input":{}}`),
		line("ER-008", `{"type":"function_call","name":"number","arguments":"42"}`),
		line("ER-009", `{"type":"function_call","name":"duplicate","arguments":"{\"a\":1,\"a\":2}"}`),
	}, "\n")
	outs, err := readOutputs(t, s, in)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		name, args string // args as Object.MarshalJSON writes them, or the raw string when unreadable
		unreadable bool
	}
	wants := [][]want{
		{{"plain", `{"a":1}`, false}},
		{{"chat", `{"a":1,"b":[true]}`, false}},
		{{"responses", `{"a":1}`, false}},
		{{"anthropic", `{"a":1}`, false}},
		{{"array", "[1, 2]", true}},
		{{"broken", `{"a": `, true}},
		{{"plain-string", `{"a":1}`, false}, {"second", `{}`, false}},
		{{"number", "42", true}},
		{{"duplicate", `{"a":1,"a":2}`, true}},
	}
	for i, o := range outs {
		if len(o.ToolCalls) != len(wants[i]) {
			t.Fatalf("%s: %d calls, want %d", o.CaseID, len(o.ToolCalls), len(wants[i]))
		}
		for j, c := range o.ToolCalls {
			w := wants[i][j]
			got := c.Raw
			if !c.Unreadable {
				b, _ := c.Arguments.MarshalJSON()
				got = string(b)
			}
			if c.Name != w.name || c.Unreadable != w.unreadable || got != w.args || (c.Unreadable && c.Arguments != nil) {
				t.Errorf("%s call %d: %q unreadable=%v args %q; want %+v", o.CaseID, j, c.Name, c.Unreadable, got, w)
			}
		}
	}
}

// docs/data-format.md, "Unmeasured latency and cost; gates that are off": a null
// latency_ms or cost_usd was not measured.
func TestNullMeasurements(t *testing.T) {
	s := sampleSuite(t)
	in := strings.Replace(strings.Replace(outputLine, `"latency_ms":410`, `"latency_ms":null`, 1), `"cost_usd":0.009`, `"cost_usd":null`, 1)
	outs, err := readOutputs(t, s, in)
	if err != nil || len(outs) != 1 || outs[0].LatencyMS != nil || outs[0].CostUSD != nil {
		t.Fatalf("outputs %+v, err %v; want one with neither measured", outs, err)
	}
	outs, err = readOutputs(t, s, outputLine)
	if err != nil || outs[0].LatencyMS == nil || outs[0].LatencyMS.String() != "410" || outs[0].CostUSD.String() != "0.009" {
		t.Fatalf("measured output read as %+v (%v)", outs, err)
	}
}

// docs/data-format.md, "Repeated trials": a line's trial is a positive whole
// number, a snapshot gives every line a trial or none, and each case has
// each trial once.
func TestTrials(t *testing.T) {
	s := sampleSuite(t)
	withTrial := func(id, trial string) string {
		return strings.Replace(strings.Replace(outputLine, `"ER-001"`, `"`+id+`"`, 1), `"latency_ms"`, `"trial":`+trial+`,"latency_ms"`, 1)
	}
	outs, err := readOutputs(t, s, withTrial("ER-001", "2")+"\n"+withTrial("ER-001", "1")+"\n"+withTrial("ER-002", "3.0"))
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Trial != 2 || outs[1].Trial != 1 || outs[2].Trial != 3 {
		t.Fatalf("trials %d %d %d", outs[0].Trial, outs[1].Trial, outs[2].Trial)
	}
	bad := []struct{ name, in, want string }{
		{"trial 0", withTrial("ER-001", "0"), "out.jsonl:1: trial: must be a whole number from 1 to 1000, got 0"},
		{"negative trial", withTrial("ER-001", "-1"), "out.jsonl:1: trial: must be a whole number from 1 to 1000, got -1"},
		{"fractional trial", withTrial("ER-001", "1.5"), "out.jsonl:1: trial: must be a whole number from 1 to 1000, got 1.5"},
		{"huge trial", withTrial("ER-001", "1e9"), "out.jsonl:1: trial: must be a whole number from 1 to 1000, got 1e9"},
		{"string trial", withTrial("ER-001", `"1"`), "out.jsonl:1: trial: expected a positive whole number, got a string"},
		{"null trial", withTrial("ER-001", `null`), "out.jsonl:1: trial: expected a positive whole number, got null"},
		{"trial then none", withTrial("ER-001", "1") + "\n\n" + strings.Replace(outputLine, "ER-001", "ER-002", 1),
			"out.jsonl:3: trial: missing, but line 1 gives a trial: give every line of a snapshot a trial, or none"},
		{"none then trial", outputLine + "\n" + withTrial("ER-002", "1"),
			"out.jsonl:2: trial: given, but line 1 has none: give every line of a snapshot a trial, or none"},
		{"duplicate trial", withTrial("ER-001", "2") + "\n" + withTrial("ER-002", "2") + "\n" + withTrial("ER-001", "2"),
			`out.jsonl:3: trial: duplicate trial 2 of case_id "ER-001" (first at line 1)`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readOutputs(t, s, tt.in)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

// Every bad input of an output line these extensions bring names file, line and field.
func TestOutputsBadInputOfRealAgents(t *testing.T) {
	s := sampleSuite(t)
	call := func(item string) string {
		return `{"case_id":"ER-001","decision":"approve","tool_calls":[{"name":"ok","arguments":{}},` + item + `],"citations":[],"latency_ms":1,"cost_usd":1}`
	}
	tests := []struct{ name, in, want string }{
		{"chat function not an object", call(`{"type":"function","function":3}`), "out.jsonl:1: tool_calls[1].function: expected an object, got a number"},
		{"inspect call without arguments", call(`{"type":"function","function":"f"}`), "out.jsonl:1: tool_calls[1].arguments: missing required field"},
		{"inspect call with an empty name", call(`{"id":"c","function":"","arguments":{}}`), "out.jsonl:1: tool_calls[1].function: must not be empty"},
		{"chat without a name", call(`{"type":"function","function":{"arguments":"{}"}}`), "out.jsonl:1: tool_calls[1].function.name: missing required field"},
		{"chat without arguments", call(`{"type":"function","function":{"name":"f"}}`), "out.jsonl:1: tool_calls[1].function.arguments: missing required field"},
		{"responses with an empty name", call(`{"type":"function_call","name":"","arguments":"{}"}`), "out.jsonl:1: tool_calls[1].name: must not be empty"},
		{"anthropic without input", call(`{"type":"tool_use","name":"f","arguments":{}}`), "out.jsonl:1: tool_calls[1].input: missing required field"},
		{"anthropic input a number", call(`{"type":"tool_use","name":"f","input":3}`), "out.jsonl:1: tool_calls[1].input: expected an object or a string holding one, got a number"},
		{"arguments an array", call(`{"name":"f","arguments":[]}`), "out.jsonl:1: tool_calls[1].arguments: expected an object or a string holding one, got an array"},
		{"call not an object", call(`"f"`), "out.jsonl:1: tool_calls[1]: expected an object, got a string"},
		{"latency a string", strings.Replace(outputLine, `"latency_ms":410`, `"latency_ms":"410"`, 1), "out.jsonl:1: latency_ms: expected a number or null, got a string"},
		{"decision outside the vocabulary", strings.Replace(outputLine, `"decision":"approve"`, `"decision":"refund"`, 1),
			`out.jsonl:1: decision: unknown decision "refund": use approve, request_receipt, escalate_finance, reject or no_op`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readOutputs(t, s, tt.in)
			var ie *suite.InputError
			if !errors.As(err, &ie) || err.Error() != tt.want {
				t.Fatalf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

// docs/data-format.md, "Decisions come from the schema": the decisions are the enum
// case.schema.json gives expected.decision, through $ref; without one,
// any non-empty string is a decision.
func TestDecisionVocabulary(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []suite.Decision
	}{
		{"inline enum", `{"properties":{"expected":{"properties":{"decision":{"enum":["book","cancel"]}}}}}`, []suite.Decision{"book", "cancel"}},
		{"enum through $ref", `{"properties":{"expected":{"$ref":"#/$defs/exp"}},"$defs":{"exp":{"properties":{"decision":{"$ref":"#/$defs/dec"}}},"dec":{"enum":["refund","deny","transfer"]}}}`, []suite.Decision{"refund", "deny", "transfer"}},
		{"const", `{"properties":{"expected":{"properties":{"decision":{"const":"only"}}}}}`, []suite.Decision{"only"}},
		{"no enum", `{"properties":{"expected":{"properties":{"decision":{"type":"string"}}}}}`, nil},
		{"no schema for decisions", `{"type":"object"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := CompileSchema("case.schema.json", []byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(decisionStrings(cs.Decisions), ",") != strings.Join(decisionStrings(tt.want), ",") {
				t.Fatalf("decisions = %v, want %v", cs.Decisions, tt.want)
			}
		})
	}
	// Without an enum any non-empty string is a decision, in cases and
	// outputs alike; the empty string is not.
	open, _ := CompileSchema("case.schema.json", []byte(`{"type":"object"}`))
	c := `{"case_id":"T-1","title":"t","severity":"minor","input":{},"expected":{"decision":"rebook_flight","tool_calls":[],"citations":[],"forbidden_tools":[]}}`
	cases, err := Cases("cases.jsonl", strings.NewReader(c), open, nil, false)
	if err != nil || cases[0].Expected.Decision != "rebook_flight" {
		t.Fatalf("free decision refused: %v", err)
	}
	_, err = Cases("cases.jsonl", strings.NewReader(strings.Replace(c, "rebook_flight", "", 1)), open, nil, false)
	if err == nil || err.Error() != "cases.jsonl:1: expected.decision: must not be empty: give a decision, or leave the member out if the case's decision is not judged" {
		t.Fatalf("empty decision: %v", err)
	}
	s := suite.NewSuite(nil, cases, suite.Gate{})
	if _, err := readOutputs(t, s, `{"case_id":"T-1","decision":"anything at all","tool_calls":[],"citations":[],"latency_ms":1,"cost_usd":1}`); err != nil {
		t.Fatalf("free output decision refused: %v", err)
	}
	if _, err := readOutputs(t, s, `{"case_id":"T-1","decision":"","tool_calls":[],"citations":[],"latency_ms":1,"cost_usd":1}`); err == nil || err.Error() != "out.jsonl:1: decision: must not be empty" {
		t.Fatalf("empty output decision: %v", err)
	}
}

func decisionStrings(v []suite.Decision) []string {
	out := make([]string, len(v))
	for i, d := range v {
		out[i] = string(d)
	}
	return out
}

// docs/data-format.md, "Decisions come from the schema": the schema says how many
// calls a decision needs (the sample's does, with if/then).
func TestSampleSchemaKeepsTheCallCount(t *testing.T) {
	s := sampleSuite(t)
	schema := sampleSchema(t)
	base := `{"case_id":"ER-100","title":"t","severity":"major","input":{},"expected":{"decision":"reject","tool_calls":[{"name":"reject_expense","arguments":{}}],"citations":[],"forbidden_tools":[]}}`
	tests := map[string]string{
		strings.Replace(base, `[{"name":"reject_expense","arguments":{}}]`, `[]`, 1):                                                        "cases.jsonl:1: expected.tool_calls: breaks case.schema.json#/properties/expected/else/properties/tool_calls/minItems: minItems: got 0, want 1",
		strings.Replace(base, `[{"name":"reject_expense","arguments":{}}]`, `[{"name":"a","arguments":{}},{"name":"b","arguments":{}}]`, 1): "cases.jsonl:1: expected.tool_calls: breaks case.schema.json#/properties/expected/else/properties/tool_calls/maxItems: maxItems: got 2, want 1",
		strings.Replace(base, `"reject"`, `"no_op"`, 1):                                                                                     "cases.jsonl:1: expected.tool_calls: breaks case.schema.json#/properties/expected/then/properties/tool_calls/maxItems: maxItems: got 1, want 0",
	}
	for in, want := range tests {
		_, err := Cases("cases.jsonl", strings.NewReader(in), schema, s.Policy, false)
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant    %s", err, want)
		}
	}
}

// docs/data-format.md, "Unmeasured latency and cost; gates that are off": a null
// threshold turns its gate off; "Repeated trials": min_trial_pass_rate is
// optional, a fraction, 1 when absent.
func TestGateNullsAndTrialPassRate(t *testing.T) {
	g, err := Gate("gate.json", []byte(`{"min_pass_rate": null, "max_critical_failures": 0, "max_p95_latency_ms": null, "max_avg_cost_usd": 0.025}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for key, on := range map[string]bool{"min_pass_rate": false, "max_critical_failures": true, "max_p95_latency_ms": false, "max_avg_cost_usd": true} {
		if _, got := g.Threshold(key); got != on {
			t.Errorf("%s on = %v, want %v", key, got, on)
		}
	}
	if g.TrialPassRate().String() != "1" {
		t.Errorf("default min_trial_pass_rate = %s, want 1", g.TrialPassRate())
	}
	g, err = Gate("gate.json", []byte(`{"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 1, "max_avg_cost_usd": 1, "min_trial_pass_rate": 0.75}`), nil)
	if err != nil || g.TrialPassRate().String() != "0.75" {
		t.Fatalf("min_trial_pass_rate = %v (%v)", g.TrialPassRate(), err)
	}
	bad := []struct{ name, in, want string }{
		{"trial rate over one", `{"min_trial_pass_rate": 1.5}`, "gate.json:1: min_trial_pass_rate: is a fraction from 0 to 1, got 1.5"},
		{"trial rate a string", `{"min_trial_pass_rate": "all"}`, "gate.json:1: min_trial_pass_rate: expected a number or null, got a string"},
		{"missing threshold", `{"min_pass_rate": null, "max_critical_failures": null, "max_p95_latency_ms": null}`, "gate.json: max_avg_cost_usd: missing required threshold (null turns its gate off)"},
		// The column is the column on the line, not the byte offset.
		{"syntax error column", "{\n  \"min_pass_rate\": 0.9,\n  \"max_critical_failures\": 0,\n  \"max_p95_latency_ms\": 2500 x\n}", "gate.json:4:30: invalid JSON: invalid character 'x' after object value"},
		{"truncated", "{\n  \"min_pass_rate\": 0.9,", "gate.json:2:24: invalid JSON: the file ends before the object does — close every"},
		{"set twice", "{\"min_pass_rate\": 0.9,\n \"min_pass_rate\": null}", "gate.json:2: min_pass_rate: set twice"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Gate("gate.json", []byte(tt.in), nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

// docs/data-format.md, "Provenance and order": every member of meta.json is
// optional, an unknown one is bad input, recorded_at is RFC 3339.
func TestMeta(t *testing.T) {
	m, err := Meta("a.meta.json", []byte(`{"recorded_at": "2026-11-12T09:30:00+01:00", "model": "m", "commit": "abc", "description": "d"}`))
	if err != nil || *m != (suite.Meta{RecordedAt: "2026-11-12T09:30:00+01:00", Model: "m", Commit: "abc", Description: "d"}) {
		t.Fatalf("meta = %+v, %v", m, err)
	}
	if m, err := Meta("a.meta.json", []byte("{}")); err != nil || *m != (suite.Meta{}) {
		t.Fatalf("empty meta = %+v, %v", m, err)
	}
	bad := []struct{ name, in, want string }{
		{"unknown member", "{\"model\": \"m\",\n \"temperature\": \"0\"}", "a.meta.json:2: temperature: unknown member — use recorded_at, model, commit or description"},
		{"date only", `{"recorded_at": "2026-11-12"}`, `a.meta.json:1: recorded_at: "2026-11-12" is not an RFC 3339 date and time such as 2026-11-12T09:30:00Z`},
		{"no zone", `{"recorded_at": "2026-11-12T09:30:00"}`, `a.meta.json:1: recorded_at: "2026-11-12T09:30:00" is not an RFC 3339`},
		{"impossible date", `{"recorded_at": "2026-02-30T09:30:00Z"}`, `a.meta.json:1: recorded_at: "2026-02-30T09:30:00Z" is not an RFC 3339`},
		{"not a string", "{\n\"model\": 4}", "a.meta.json:2: model: expected a string, got a number"},
		{"not an object", `["m"]`, "a.meta.json:1: expected a JSON object describing the snapshot, got an array"},
		{"malformed", "{\"model\": \"m\",}", "a.meta.json:1:14: invalid JSON: a comma before the closing '}' — delete the comma after the last item"},
		{"set twice", `{"model": "a", "model": "b"}`, "a.meta.json:1: model: set twice"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Meta("a.meta.json", []byte(tt.in))
			var ie *suite.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

// docs/data-format.md, "Provenance and order": snapshots run in recorded_at order
// when all have one (ties by label), else by label with digit runs
// compared as numbers.
func TestSnapshotOrder(t *testing.T) {
	tests := []struct {
		name  string
		metas map[string]string // label → recorded_at, "" for a meta.json without it, absent for none
		want  string
	}{
		{"all recorded", map[string]string{"v10": "2026-01-01T00:00:00Z", "v9": "2026-03-01T00:00:00Z", "v1": "2026-02-01T09:00:00+09:00", "b": "2026-02-01T01:00:00Z"}, "v10 v1 b v9"},
		{"ties by label", map[string]string{"v10": "2026-01-01T00:00:00Z", "v9": "2026-01-01T01:00:00+01:00", "v1": "2026-01-01T00:00:00Z", "b": "2026-01-01T00:00:00Z"}, "b v1 v9 v10"},
		{"one without recorded_at", map[string]string{"v10": "2026-01-01T00:00:00Z", "v9": "2026-03-01T00:00:00Z", "v1": "", "b": "2026-02-01T00:00:00Z"}, "b v1 v9 v10"},
		{"one without meta.json", map[string]string{"v10": "2026-01-01T00:00:00Z", "v9": "2026-03-01T00:00:00Z", "b": "2026-02-01T00:00:00Z"}, "b v1 v9 v10"},
		{"none", nil, "b v1 v9 v10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, OutputsDir)
			os.MkdirAll(out, 0o755)
			for _, l := range []string{"v10", "v9", "v1", "b"} {
				os.WriteFile(filepath.Join(out, l+".jsonl"), nil, 0o644)
			}
			for label, at := range tt.metas {
				meta := `{"model": "m"}`
				if at != "" {
					meta = `{"recorded_at": "` + at + `"}`
				}
				os.WriteFile(filepath.Join(out, label+MetaSuffix), []byte(meta), 0o644)
			}
			files, err := Snapshots(dir)
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, f := range files {
				labels = append(labels, f.Label)
				if _, has := tt.metas[f.Label]; has != (f.Meta != nil) {
					t.Errorf("%s: meta %+v", f.Label, f.Meta)
				}
			}
			if got := strings.Join(labels, " "); got != tt.want {
				t.Fatalf("order = %s, want %s", got, tt.want)
			}
		})
	}
	// A meta.json is never a snapshot, and must describe one.
	dir := t.TempDir()
	out := filepath.Join(dir, OutputsDir)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "v1.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(out, "v2"+MetaSuffix), []byte(`{}`), 0o644)
	if _, err := Snapshots(dir); err == nil || !strings.Contains(err.Error(), "v2.meta.json: describes no snapshot: there is no outputs/v2.jsonl") {
		t.Fatalf("orphan meta.json: %v", err)
	}
	os.WriteFile(filepath.Join(out, "v2.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(out, "v2"+MetaSuffix), []byte(`{"recorded_at": "yesterday"}`), 0o644)
	if _, err := Snapshots(dir); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(out, "v2.meta.json")+":1: recorded_at:") {
		t.Fatalf("bad meta.json: %v", err)
	}
}

// docs/data-format.md, "Optional documents": without POLICY.md there are no rules,
// and a case that expects a citation is bad input.
func TestWithoutPolicy(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{SchemaFile, GateFile} {
		b, _ := os.ReadFile(filepath.Join(sampleDir, name))
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	c := `{"case_id":"ER-100","title":"t","severity":"major","input":{},"expected":{"decision":"no_op","tool_calls":[],"citations":[],"forbidden_tools":[]}}`
	os.WriteFile(filepath.Join(dir, CasesFile), []byte(c+"\n"), 0o644)
	s, err := Suite(dir, Options{})
	if err != nil || s.Policy != nil || s.PolicySHA256 != "" || s.PolicyVersion() != "" {
		t.Fatalf("suite without policy: %+v, %v", s, err)
	}
	os.WriteFile(filepath.Join(dir, CasesFile), []byte(strings.Replace(c, `"citations":[]`, `"citations":["ER-2026.10 §2.1"]`, 1)), 0o644)
	_, err = Suite(dir, Options{})
	want := filepath.Join(dir, CasesFile) + `:1: expected.citations[0]: "ER-2026.10 §2.1" cannot be checked: the data folder has no POLICY.md, so there are no rules to cite`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
}

// The gate specs drive gate.json: each spec's key is required.
func TestGateKeysFollowSpecs(t *testing.T) {
	for _, spec := range decide.DefaultGates() {
		if spec.Optional {
			continue
		}
		var members []string
		for _, other := range decide.DefaultGates() {
			if other.Key != spec.Key {
				members = append(members, `"`+other.Key+`": null`)
			}
		}
		_, err := Gate("gate.json", []byte("{"+strings.Join(members, ", ")+"}"), nil)
		if err == nil || !strings.Contains(err.Error(), spec.Key+": missing required threshold") {
			t.Errorf("without %s: %v", spec.Key, err)
		}
	}
}

// FuzzGate: gate.json never panics the reader, and every refusal names
// the file; an accepted gate has a value or null for every required key.
func FuzzGate(f *testing.F) {
	f.Add(`{"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.025}`)
	f.Add(`{"min_pass_rate": null, "max_critical_failures": null, "max_p95_latency_ms": null, "max_avg_cost_usd": null, "min_trial_pass_rate": 1}`)
	f.Add("\xEF\xBB\xBF{\n\"min_pass_rate\": 1e-3,\n}")
	f.Add(`{"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": null, "max_avg_cost_usd": null, "confidence": 0.990, "require_evidence": true, "baseline": "v1"}`)
	f.Add(`{"confidence": 95e-2, "baseline": null, "require_evidence": false}`)
	f.Fuzz(func(t *testing.T, in string) {
		g, err := Gate("gate.json", []byte(in), nil)
		if err != nil {
			var ie *suite.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "gate.json") {
				t.Fatalf("unlocated error: %v", err)
			}
			return
		}
		for _, spec := range decide.DefaultGates() {
			if _, ok := g.Thresholds[spec.Key]; !ok && !spec.Optional {
				t.Fatalf("accepted without %s", spec.Key)
			}
		}
		if _, ok := stats.LevelOf(g.Confidence.Confidence()); !ok {
			t.Fatalf("confidence %v accepted", g.Confidence)
		}
		if g.Baseline != "" && (!suite.SafeID(g.Baseline) || g.BaselineLine < 1) {
			t.Fatalf("baseline %q on line %d accepted", g.Baseline, g.BaselineLine)
		}
		if r := g.TrialPassRate(); r.Sign() < 0 || r.Cmp(suite.MustNumber("1")) > 0 {
			t.Fatalf("min_trial_pass_rate %s accepted", r)
		}
	})
}

// FuzzMeta: meta.json never panics the reader, every refusal names the
// file, and an accepted recorded_at is a time.
func FuzzMeta(f *testing.F) {
	f.Add(`{"recorded_at": "2026-11-12T09:30:00Z", "model": "m", "commit": "c", "description": "d"}`)
	f.Add(`{"recorded_at": "2026-11-12t09:30:00.123+05:30"}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := Meta("x.meta.json", []byte(in))
		if err != nil {
			var ie *suite.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "x.meta.json") {
				t.Fatalf("unlocated error: %v", err)
			}
			return
		}
		if _, ok := RecordedAt(m); m.RecordedAt != "" && !ok {
			t.Fatalf("accepted recorded_at %q", m.RecordedAt)
		}
	})
}
