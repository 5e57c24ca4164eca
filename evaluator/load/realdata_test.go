package load

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Tests of docs/real-data.md on the load side: case ids, suites without
// decisions, optional citations, contains, $unordered and Inspect's call
// shape.

// openSchema is a case schema that asks nothing: no decision vocabulary,
// no required members beyond the loader's own.
func openSchema(t testing.TB) *CaseSchema {
	t.Helper()
	cs, err := CompileSchema(SchemaFile, []byte(`{"type": "object"}`))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// tau2ID is a τ²-bench telecom task id, 214 characters long.
const tau2ID = "[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_storage_permission|data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Easy]"

// realCase is a case line in the τ²-bench style: a long bracketed id,
// contains, no decision and no citations.
func realCase(id string) string {
	return `{"case_id":` + quote(id) + `,"title":"t","severity":"major","input":{},"expected":{"tool_match":"contains","tool_calls":[{"name":"toggle_airplane_mode","arguments":{}},{"name":"set_network_mode_preference","arguments":{"mode":{"$unordered":["4g","5g"]}}}],"forbidden_tools":[]}}`
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func TestRealCasesLoad(t *testing.T) {
	if n := len([]rune(tau2ID)); n != 214 {
		t.Fatalf("the fixture id has %d characters", n)
	}
	ids := []string{tau2ID, "ER-1", "er-1", "Ünïcödé ✓", "e\u0301", "\u00e9", "a b", "#1", "x/../y", strings.Repeat("é", 256)}
	var lines []string
	for _, id := range ids {
		lines = append(lines, realCase(id))
	}
	cases, err := Cases(CasesFile, strings.NewReader(strings.Join(lines, "\n")), openSchema(t), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if c.ID != ids[i] {
			t.Errorf("case %d: id %q, want %q verbatim", i, c.ID, ids[i])
		}
		e := c.Expected
		if e.Decision != "" || e.JudgesDecision() || e.Citations == nil || len(e.Citations) != 0 || e.Mode() != suite.MatchContains {
			t.Errorf("case %d: %+v", i, e)
		}
		m := e.ToolCalls[1].Arguments.(suite.Object)[0].Value.(*suite.Matcher)
		if m.Kind != suite.Unordered || len(m.Options) != 2 {
			t.Errorf("case %d: $unordered compiled as %+v", i, m)
		}
	}
	s := suite.NewSuite(nil, cases, suite.Gate{})
	// An output of a case without a decision needs none and may give
	// one; its citations may be left out.
	outs, err := readOutputs(t, s, `{"case_id":`+quote(tau2ID)+`,"tool_calls":[{"id":"c1","function":"toggle_airplane_mode","arguments":{},"type":"function","parse_error":null}],"latency_ms":null,"cost_usd":null}`+"\n"+
		`{"case_id":"e\u0301","decision":"transfer","tool_calls":[],"citations":[],"latency_ms":1,"cost_usd":0}`)
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; o.Decision != "" || o.Citations == nil || len(o.ToolCalls) != 1 || o.ToolCalls[0].Name != "toggle_airplane_mode" {
		t.Errorf("output 1: %+v", o)
	}
	if o := outs[1]; o.CaseID != "e\u0301" || o.Decision != "transfer" {
		t.Errorf("output 2 (NFD id) read as %+v", o)
	}
	// NFC and NFD are two cases: an output for one is not the other's.
	if i, _ := s.CaseIndex("\u00e9"); s.Cases[i].ID != "\u00e9" {
		t.Errorf("NFC id found as %q", s.Cases[i].ID)
	}
}

func TestDecisionsMayBeLeftOut(t *testing.T) {
	c := `{"case_id":"T-1","title":"t","severity":"minor","input":{},"expected":{"tool_calls":[],"forbidden_tools":[]}}`
	open := openSchema(t)
	tests := []struct {
		name, line, want string
		schema           *CaseSchema
	}{
		{"absent", c, "", open},
		{"null is mistyped", strings.Replace(c, `"expected":{`, `"expected":{"decision":null,`, 1), "cases.jsonl:1: expected.decision: expected a string, got null", open},
		{"empty is refused", strings.Replace(c, `"expected":{`, `"expected":{"decision":"",`, 1), "cases.jsonl:1: expected.decision: must not be empty", open},
		{"the sample's schema requires one", c, "cases.jsonl:1: expected.decision: breaks case.schema.json: missing properties 'decision', 'citations'", sampleSchema(t)},
		{"citations null is mistyped", strings.Replace(c, `"expected":{`, `"expected":{"citations":null,`, 1), "cases.jsonl:1: expected.citations: expected an array, got null", open},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Cases(CasesFile, strings.NewReader(tt.line), tt.schema, nil, false)
			switch {
			case tt.want == "" && err != nil:
				t.Fatal(err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("error %v, want %s", err, tt.want)
			}
		})
	}
}

func TestOutputDecisionsAgainstTheirCase(t *testing.T) {
	s := sampleSuite(t)
	line := func(old, new string) string { return strings.Replace(outputLine, old, new, 1) }
	tests := []struct{ name, in, want string }{
		// The sample's cases all expect a decision, so their outputs
		// must give one, as before.
		{"left out where the case expects one", line(`"decision":"approve",`, ""), `out.jsonl:1: decision: missing required field: case "ER-001" expects the decision approve`},
		{"null", line(`"decision":"approve"`, `"decision":null`), "out.jsonl:1: decision: expected a string, got null"},
		{"empty", line(`"decision":"approve"`, `"decision":""`), "out.jsonl:1: decision: unknown decision"},
		{"citations left out", line(`"citations":["ER-2026.10 §2.1","ER-2026.10 §4.2"],`, ""), ""},
		{"citations null", line(`"citations":["ER-2026.10 §2.1","ER-2026.10 §4.2"]`, `"citations":null`), "out.jsonl:1: citations: expected an array, got null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outs, err := readOutputs(t, s, tt.in)
			var ie *suite.InputError
			switch {
			case tt.want == "" && err != nil:
				t.Fatal(err)
			case tt.want == "" && (outs[0].Citations == nil || len(outs[0].Citations) != 0):
				t.Fatalf("citations left out read as %#v", outs[0].Citations)
			case tt.want != "" && (!errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("error %v, want %s", err, tt.want)
			}
		})
	}
	// A case without a decision: its outputs' decisions are still
	// checked against the vocabulary.
	cases, err := Cases(CasesFile, strings.NewReader(strings.Replace(realCase("T-1"), `"tool_match"`, `"citations":[],"tool_match"`, 1)), sampleSchemaWithoutDecision(t), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s2 := suite.NewSuite(nil, cases, suite.Gate{})
	s2.Decisions = suite.Vocabulary{"approve", "reject"}
	out := `{"case_id":"T-1","decision":"maybe","tool_calls":[],"latency_ms":1,"cost_usd":1}`
	if _, err := readOutputs(t, s2, out); err == nil || err.Error() != `out.jsonl:1: decision: unknown decision "maybe": use approve or reject` {
		t.Errorf("error %v", err)
	}
	if _, err := readOutputs(t, s2, strings.Replace(out, "maybe", "reject", 1)); err != nil {
		t.Errorf("a decision of the vocabulary was refused: %v", err)
	}
}

// sampleSchemaWithoutDecision is a schema whose vocabulary is approve and
// reject but which lets a case leave its decision out.
func sampleSchemaWithoutDecision(t testing.TB) *CaseSchema {
	t.Helper()
	cs, err := CompileSchema(SchemaFile, []byte(`{"type":"object","properties":{"expected":{"type":"object","properties":{"decision":{"enum":["approve","reject"]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestInspectCalls(t *testing.T) {
	s := sampleSuite(t)
	calls := `[{"id":"call_1","function":"approve_expense","arguments":{"claim_id":"C-2031","approver":{"id":"M-118","role":"manager"}},"type":"function","parse_error":null,"view":null}]`
	in := strings.Replace(outputLine, outputLine[strings.Index(outputLine, `[{"name"`):strings.Index(outputLine, `,"citations"`)], calls, 1)
	outs, err := readOutputs(t, s, in)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := readOutputs(t, s, outputLine)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(outs[0].ToolCalls, plain[0].ToolCalls) {
		t.Fatalf("Inspect call read as %+v, want %+v", outs[0].ToolCalls, plain[0].ToolCalls)
	}
	// The token reader agrees with the fast one.
	slow, err := parseOutputTokens(newJSONDecoder(), "out.jsonl", 1, []byte(in), s.Decisions)
	if err != nil || !reflect.DeepEqual(slow.ToolCalls, outs[0].ToolCalls) {
		t.Fatalf("token reader: %+v, %v", slow, err)
	}
}

func TestUnorderedBadInput(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{`{"tags":{"$unordered":"a"}}`, "cases.jsonl:1: expected.tool_calls[0].arguments.tags: $unordered needs an array"},
		{`{"tags":{"$unordered":[{"$optional":1}]}}`, "cases.jsonl:1: expected.tool_calls[0].arguments.tags.$unordered[0]: $optional may only be the value of an object member"},
	} {
		line := `{"case_id":"T-1","title":"t","severity":"minor","input":{},"expected":{"tool_calls":[{"name":"f","arguments":` + tt.args + `}],"forbidden_tools":[]}}`
		_, err := Cases(CasesFile, strings.NewReader(line), openSchema(t), nil, false)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %s", tt.args, err, tt.want)
		}
	}
}
