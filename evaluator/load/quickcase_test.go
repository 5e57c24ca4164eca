package load

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// caseSchemas are the schemas FuzzQuickCase reads lines with: the
// sample's, one that asks nothing, one that looks into inputs, and none.
func caseSchemas(t testing.TB) []*CaseSchema {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(sampleDir, SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Replace(string(src), `"description": "Free-form claim object handed to the agent.",`,
		`"required": ["claim_id"], "properties": {"amount": {"type": "number"}, "claim_id": {"type": "string", "minLength": 3}},`, 1)
	if deep == string(src) {
		t.Fatal("the sample schema's input changed: update caseSchemas")
	}
	looking, err := CompileSchema(SchemaFile, []byte(deep))
	if err != nil {
		t.Fatal(err)
	}
	if looking.opaqueInput || looking.quick == nil {
		t.Fatal("the schema that looks into inputs has no quick form, or does not look")
	}
	return []*CaseSchema{sampleSchema(t), openSchema(t), looking, nil}
}

// parseBothWays parses one line with the fast path (parse) and the
// exact one (parseTree) and fails unless both give the same case or the
// same error; it reports whether the fast path read the line.
func parseBothWays(t *testing.T, p *caseParser, text []byte) bool {
	t.Helper()
	fast, fastErr := p.parse(newJSONDecoder(), text, 7)
	slow, slowErr := p.parseTree(newJSONDecoder(), text, 7)
	if fmt.Sprint(fastErr) != fmt.Sprint(slowErr) || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("line %s:\nfast %+v, %v\nexact %+v, %v", text, fast, fastErr, slow, slowErr)
	}
	if !jsontext.Value(text).IsValid() {
		return false
	}
	_, ok := p.quickCase(newJSONDecoder(), text, 7)
	if ok && slowErr != nil {
		t.Fatalf("line %s: the fast path accepted what the exact one refuses: %v", text, slowErr)
	}
	return ok
}

// FuzzQuickCase holds the case lines read straight into their Case to
// the exact parser: the same case, or the same error, with each schema.
func FuzzQuickCase(f *testing.F) {
	for _, l := range sampleLines(f, CasesFile) {
		f.Add(uint8(0), string(l.text))
	}
	f.Add(uint8(1), `{"case_id":"ER-100","title":"t","severity":"minor","input":{},"expected":{"decision":"approve","tool_calls":[{"name":"approve_expense","arguments":{"$exact":{"x":{"$any":[1,{"$text":"a"}]},"y":{"$optional":{"$literal":{"$z":1}}}}}}],"citations":[],"forbidden_tools":[]}}`)
	f.Add(uint8(1), `{"case_id":"[a]b|c","title":"t","severity":"major","input":{"x":[1]},"expected":{"tool_match":"contains","tool_calls":[{"name":"t","arguments":{"m":{"$unordered":["4g"]}},"x":1}],"forbidden_tools":["u"],"other":null},"note":1}`)
	f.Add(uint8(2), `{"case_id":"ER-101","title":"t","severity":"critical","input":{"claim_id":"C-1","amount":1.5},"expected":{"decision":"no_op","tool_calls":[],"citations":["ER-2026.10 §7.1"],"forbidden_tools":["issue_payment","issue_payment"]}}`)
	f.Add(uint8(3), `{"case_id":"e\u0301","title":"\u0074","severity":"minor","input":{},"expected":{"decision":"x","tool_calls":[{"name":"a","arguments":{}}],"citations":["ER-2026.10 \u00a77.1"],"forbidden_tools":["a"]}}`)
	f.Add(uint8(0), `{"case_id":"ER-102","title":"t","severity":"minor","input":{},"expected":{"decision":"approve","tool_calls":[{"name":"a","arguments":{}}],"citations":["ER-2026.10 §7.1","ER-2026.10 \u00a77.1"],"forbidden_tools":[]}}`)
	s := sampleSuite(f)
	schemas := caseSchemas(f)
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		schema := schemas[int(which)%len(schemas)]
		p := &caseParser{file: "cases.jsonl", schema: schema, policy: s.Policy, keepInput: which&0x80 != 0}
		if schema != nil {
			p.decisions = schema.Decisions
		}
		parseBothWays(t, p, []byte(line))
	})
}

// The fast path reads every sample case, with each schema.
func TestQuickCaseTakesSampleLines(t *testing.T) {
	s := sampleSuite(t)
	for i, schema := range caseSchemas(t) {
		p := &caseParser{file: "cases.jsonl", schema: schema, policy: s.Policy, keepInput: true}
		if schema != nil {
			p.decisions = schema.Decisions
		}
		for _, l := range sampleLines(t, CasesFile) {
			if !parseBothWays(t, p, l.text) {
				t.Errorf("schema %d, line %d: not read by the fast path", i, l.line)
			}
		}
	}
}

// A sample case line with one change each reaches the ways the fast
// path gives up; the exact parser words each.
func TestQuickCaseGivesUpAsTheExactParserRefuses(t *testing.T) {
	s := sampleSuite(t)
	line := string(sampleLines(t, CasesFile)[0].text)
	edits := [][2]string{
		{`"case_id": "ER-001"`, `"case_id": "ER 001"`},
		{`"case_id": "ER-001"`, `"case_id": 1`},
		{`"case_id": "ER-001", `, ``},
		{`"title": "Ordinary`, `"title": 1, "x": "`},
		{`"severity": "minor"`, `"severity": "low"`},
		{`"input": {`, `"input": [{`},
		{`"decision": "approve"`, `"decision": "maybe"`},
		{`"decision": "approve", `, ``},
		{`"tool_calls": [{"name": "approve_expense"`, `"tool_calls": [{"name": ""`},
		{`"arguments": {"claim_id"`, `"arguments": {"$any": 1, "claim_id"`},
		{`"arguments": {"claim_id": "C-2031", "approver": {"id": "M-118", "role": "manager"}}`, `"arguments": {"$text": 1}`},
		{`"citations": ["ER-2026.10 §2.1", `, `"citations": ["ER-2026.10 §9.9", `},
		{`"citations": ["ER-2026.10 §2.1", `, `"citations": ["ER-2026.10 §4.2", `},
		{`"forbidden_tools": ["issue_payment"]`, `"forbidden_tools": ["approve_expense"]`},
		{`"forbidden_tools": ["issue_payment"]`, `"forbidden_tools": [1]`},
		{`"expected": {`, `"expected": {"tool_match": "some", `},
		{`}}], "citations"`, `}}, {"name": "b", "arguments": {}}], "citations"`},
		{`"expected": {`, `"extra": 1, "expected": {`},
	}
	for i, schema := range caseSchemas(t) {
		p := &caseParser{file: "cases.jsonl", schema: schema, policy: s.Policy}
		if schema != nil {
			p.decisions = schema.Decisions
		}
		for _, e := range edits {
			edited := strings.Replace(line, e[0], e[1], 1)
			if edited == line {
				t.Fatalf("%q is not in the sample line", e[0])
			}
			if parseBothWays(t, p, []byte(edited)) {
				if _, err := p.parseTree(newJSONDecoder(), []byte(edited), 1); err != nil {
					t.Errorf("schema %d: %s: read by the fast path", i, e[1])
				}
			}
		}
	}
}

// quickValid decides the sample's lines itself, and refuses what IsValid
// refuses or what it leaves to IsValid.
func TestQuickValid(t *testing.T) {
	d := newJSONDecoder()
	for _, name := range []string{CasesFile, "outputs/baseline-v1.jsonl", "outputs/candidate-v2.jsonl", "outputs/candidate-v3.jsonl"} {
		for _, l := range sampleLines(t, name) {
			if !d.quickValid(l.text) {
				t.Errorf("%s:%d: not decided by quickValid", name, l.line)
			}
		}
	}
	for _, in := range []string{
		`{}`, `[]`, ` 1 `, `-0.5e+3`, `"\u00e9\n"`, `{"a":[1,{"b":null}],"c":true,"d":false}`, `{"a":{"a":{"a":1}}}`,
		`{"a":1,"b":{"a":2}}`, "\"\xc3\xa9\"",
	} {
		if !d.quickValid([]byte(in)) {
			t.Errorf("%s: not decided by quickValid", in)
		}
	}
	for _, in := range []string{
		``, ` `, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":1,"a":2}`, `01`, `1.`, `.5`, `1e`, `-`, `+1`,
		`tru`, `truex`, `nul`, `"a`, "\"\x01\"", "\"\xff\"", `"\x"`, `"\u12"`, `"\ud800"`, `{"a":1}}`, `[1]]`, `1 2`,
		`{"a\u0062":1}`, "\xEF\xBB\xBF{}", `[` + strings.Repeat(`[`, maxQuickDepth) + strings.Repeat(`]`, maxQuickDepth+1),
	} {
		if d.quickValid([]byte(in)) {
			t.Errorf("%s: accepted by quickValid", in)
		}
	}
}
