package load

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/internal/jsontest"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// FuzzOutputs feeds arbitrary snapshot files to the loader: it must never
// panic, must refuse bad input only with a located InputError, and must
// reach the same verdict for a line re-serialised with other spacing and
// key order.
func FuzzOutputs(f *testing.F) {
	s := sampleSuite(f)
	f.Add(outputLine)
	f.Add("\xEF\xBB\xBF" + outputLine + "\r\n\n")
	f.Add(strings.Replace(outputLine, "410", "4.1e2", 1))
	f.Add(`{"case_id":"ER-004","decision":"no_op","tool_calls":[],"citations":[],"latency_ms":0,"cost_usd":0}`)
	f.Add(`{"case_id":"ER-001","decision":"approve","tool_calls":[{"name":"x","arguments":{"a":[1,{"b":null}]}}],"citations":["ER-2026.08 §6.1"],"latency_ms":1,"cost_usd":1e-9}` + "\n" + outputLine)
	// The four wire formats, argument strings, nulls and trials.
	f.Add(`{"case_id":"ER-001","decision":"approve","tool_calls":[{"type":"function","id":"c1","function":{"name":"approve_expense","arguments":"{\"claim_id\": \"C-2031\"}"}},{"type":"function_call","call_id":"c2","name":"b","arguments":"not json"},{"type":"tool_use","id":"t","name":"c","input":{"k":[1]}},{"name":"d","arguments":"[1]"}],"citations":[],"latency_ms":null,"cost_usd":null,"trial":1}` + "\n" + strings.Replace(outputLine, `"latency_ms"`, `"trial":2,"latency_ms"`, 1))
	f.Add(`{"case_id":"ER-001","decision":"approve","tool_calls":[{"type":"function","function":{"name":"n","arguments":" {\"a\":{\"a\":1}} "}}],"citations":[],"latency_ms":1,"cost_usd":null,"trial":3}`)
	// Optional citations, Inspect's call shape, a decision left out.
	f.Add(`{"case_id":"ER-001","decision":"approve","tool_calls":[{"id":"c","function":"approve_expense","arguments":{"claim_id":"C-2031"},"type":"function","parse_error":null}],"latency_ms":1,"cost_usd":null}`)
	f.Add(`{"case_id":"ER-001","tool_calls":[],"citations":[],"latency_ms":1,"cost_usd":null}`)
	f.Fuzz(func(t *testing.T, in string) {
		var outs []*suite.Output
		var places []suite.LinePlace
		_, err := OutputsPlaced("out.jsonl", strings.NewReader(in), s, nil, func(i int, o *suite.Output, at suite.LinePlace) error {
			if j, ok := s.CaseIndex(o.CaseID); !ok || i != j {
				t.Fatalf("%s given as case %d, not %d", o.CaseID, i, j)
			}
			outs = append(outs, o)
			places = append(places, at)
			return nil
		})
		if err != nil {
			var ie *suite.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "out.jsonl:") {
				t.Fatalf("unlocated error: %v", err)
			}
			return
		}
		// Each output read again from its place is the output read.
		p := NewOutputParser()
		for k, o := range outs {
			again, err := p.ReadAt(strings.NewReader(in), "out.jsonl", &suite.Output{Line: o.Line, Place: places[k]})
			if err != nil {
				t.Fatalf("line %d read again from %+v: %v", o.Line, places[k], err)
			}
			if !again.Equal(o) {
				t.Fatalf("line %d read again as %+v, read first as %+v", o.Line, again, o)
			}
		}
		for _, o := range outs {
			line := lineOf(in, o.Line)
			v, err := jsontest.Decode([]byte(line))
			if err != nil {
				t.Fatalf("accepted line does not decode: %v", err)
			}
			again, err := parseOutput(newJSONDecoder(), "out.jsonl", o.Line, jsontest.Respace(v), s.Decisions)
			if err != nil {
				t.Fatalf("re-serialised line refused: %v", err)
			}
			i, _ := s.CaseIndex(o.CaseID)
			c := s.Cases[i]
			if a, b := judge.Case(c, o, s.Policy), judge.Case(c, again, s.Policy); !reflect.DeepEqual(a, b) {
				t.Fatalf("verdict changed after re-serialising:\n%v\n%v", a, b)
			}
		}
	})
}

// where locates an error by file, line and field. The wording and column
// of a syntax error depend on how far the decoder read before it, so they
// are left out.
func where(err error) string {
	var ie *suite.InputError
	if !errors.As(err, &ie) {
		return fmt.Sprint(err)
	}
	return fmt.Sprintf("%s:%d: %s", ie.File, ie.Line, ie.Field)
}

// lineOf returns line n (1-based) of s, cleaned as the reader cleans it.
func lineOf(s string, n int) string {
	lines := strings.Split(s, "\n")
	return string(clean([]byte(lines[n-1]), n))
}

// FuzzCases feeds arbitrary suites to the case parser with the sample's
// policy and either the sample's schema or one that asks nothing, so
// that ids, decisions and citations the sample's schema refuses are
// reached too.
func FuzzCases(f *testing.F) {
	s := sampleSuite(f)
	sample, open := sampleSchema(f), openSchema(f)
	f.Add(`{"case_id":"ER-100","title":"t","severity":"major","input":{},"expected":{"decision":"no_op","tool_calls":[],"citations":["ER-2026.10 §7.1"],"forbidden_tools":["issue_payment"]}}`)
	f.Add(`{"case_id":"ER-100","title":"t","severity":"minor","input":{"a":1},"expected":{"decision":"approve","tool_calls":[{"name":"approve_expense","arguments":{"x":[1,2]}}],"citations":[],"forbidden_tools":[]}}`)
	f.Add(`{"case_id":"ER-100","title":"t","severity":"minor","input":{},"expected":{"decision":"approve","tool_calls":[{"name":"approve_expense","arguments":{"$exact":{"x":{"$any":[1,{"$text":"a"}]},"y":{"$optional":{"$literal":{"$z":1}}}}}}],"citations":[],"forbidden_tools":[]}}`)
	// Real ids, contains, $unordered, no decision, no citations.
	f.Add("\x01" + `{"case_id":"[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]","title":"t","severity":"minor","input":{},"expected":{"tool_match":"contains","tool_calls":[{"name":"toggle","arguments":{"v":{"$unordered":["a",{"$any":["b","c"]}]}}}],"forbidden_tools":[]}}`)
	f.Add("\x01" + `{"case_id":" x","title":"t","severity":"minor","input":{},"expected":{"decision":null,"tool_calls":[],"forbidden_tools":[]}}` + "\n" + `{"case_id":"e\u0301","title":"t","severity":"minor","input":{},"expected":{"tool_calls":[],"citations":null,"forbidden_tools":[]}}`)
	f.Add("\x01" + `{"case_id":"e\u0301","title":"t","severity":"minor","input":{},"expected":{"tool_calls":[]}}` + "\n" + `{"case_id":"\u00e9","title":"t","severity":"minor","input":{},"expected":{"decision":"x","tool_calls":[],"forbidden_tools":[]}}`)
	// An input named with an escape, one not an object, one with spaces.
	f.Add("\x01" + `{"case_id":"A","title":"t","severity":"minor","\u0069nput":{"a":"\u00e9"},"expected":{"tool_calls":[],"forbidden_tools":[]}}`)
	f.Add("\x01" + `{"case_id":"A","title":"t","severity":"minor","input":"text","expected":{"tool_calls":[],"forbidden_tools":[]}}`)
	f.Add("\x01" + ` { "case_id" : "A" , "input" : { "a" : [ 1 , { } ] } , "title":"t","severity":"minor","expected":{"tool_calls":[],"forbidden_tools":[]}} `)
	f.Fuzz(func(t *testing.T, in string) {
		// A first byte 1 picks the schema that asks nothing.
		schema := sample
		if rest, ok := strings.CutPrefix(in, "\x01"); ok {
			schema, in = open, rest
		}
		// The same schema with every input decoded: skipping an input's
		// members must never change a verdict.
		decodeInputs := &CaseSchema{schema: schema.schema, Decisions: schema.Decisions}
		cases, err := Cases("cases.jsonl", strings.NewReader(in), schema, s.Policy, true)
		slow, slowErr := Cases("cases.jsonl", strings.NewReader(in), decodeInputs, s.Policy, true)
		if where(err) != where(slowErr) || !reflect.DeepEqual(cases, slow) {
			t.Fatalf("decoding inputs changes the verdict: %v / %v", err, slowErr)
		}
		if err != nil {
			var ie *suite.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "cases.jsonl") {
				t.Fatalf("unlocated error: %v", err)
			}
			return
		}
		// Read with each input's place kept instead, every input read
		// again from its line is the input kept.
		placing := newCaseParser("cases.jsonl", schema, s.Policy, false)
		placing.placeInputs = true
		placed, err := casesRemembered("cases.jsonl", strings.NewReader(in), placing, nil, "")
		if err != nil || len(placed) != len(cases) {
			t.Fatalf("%d cases placed, %d kept: %v", len(placed), len(cases), err)
		}
		inputs := &inputsFile{path: "cases.jsonl", parser: newCaseParser("cases.jsonl", schema, s.Policy, true)}
		for k, c := range placed {
			if c.Input != nil || c.InputPlace.Size == 0 {
				t.Fatalf("line %d: input kept, not placed", c.Line)
			}
			input, err := inputs.readAt(strings.NewReader(in), c)
			if err != nil || !bytes.Equal(input, cases[k].Input) {
				t.Fatalf("line %d: input read again as %q (%v), kept as %q", c.Line, input, err, cases[k].Input)
			}
		}
		for _, c := range cases {
			if suite.ValidCaseID(c.ID) != nil || !c.Severity.Valid() || c.Expected.Citations == nil || !c.Expected.Mode().Valid() {
				t.Fatalf("accepted an invalid case: %+v", c)
			}
			if schema == sample {
				// The sample schema's vocabulary, and its if/then: no_op
				// declares no call, any other decision exactly one.
				if !suite.SafeID(c.ID) || !s.Decisions.Allows(c.Expected.Decision) {
					t.Fatalf("accepted an invalid case: %+v", c)
				}
				if want := map[bool]int{true: 0, false: 1}[c.Expected.Decision == "no_op"]; len(c.Expected.ToolCalls) != want {
					t.Fatalf("accepted %d expected calls for %s", len(c.Expected.ToolCalls), c.Expected.Decision)
				}
			}
			v, _ := jsontest.Decode([]byte(lineOf(in, c.Line)))
			p := &caseParser{file: "cases.jsonl", schema: schema, policy: s.Policy, keepInput: true}
			again, err := p.parse(newJSONDecoder(), jsontest.Respace(v), c.Line)
			if err != nil || !reflect.DeepEqual(again.Expected, c.Expected) || !jsonEqual(t, again.Input, c.Input) {
				t.Fatalf("re-serialised case differs: %v", err)
			}
		}
	})
}

func sampleSchema(t testing.TB) *CaseSchema {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(sampleDir, SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := CompileSchema(SchemaFile, src)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(t *testing.T, a, b []byte) bool {
	va, err1 := jsontest.Decode(a)
	vb, err2 := jsontest.Decode(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("not JSON: %q %q", a, b)
	}
	return reflect.DeepEqual(va, vb)
}

// FuzzQuickPaths holds the fast paths for valid lines to the token
// decoder: the same values, and a fast output only where the decoder
// finds nothing wrong. checkedOutput accepts only valid lines, reads
// them as quickOutput does, and reads every line quickValid and
// quickOutput read.
func FuzzQuickPaths(f *testing.F) {
	for _, name := range []string{CasesFile, "outputs/baseline-v1.jsonl", "outputs/candidate-v2.jsonl"} {
		for _, l := range sampleLines(f, name) {
			f.Add(string(l.text))
		}
	}
	f.Add(`{"case_id":"A","decision":"no_op","tool_calls":[],"citations":[],"latency_ms":1e2,"cost_usd":-0,"x":{"y":[true,false,null,"\u00e9\n"]}}`)
	f.Add(`{"case\u005fid":"A","decision":"approve","tool_calls":[{"name":"n","arguments":{"a":[1,{"b":"c"}]},"extra":1}],"citations":["x"],"latency_ms":0.5,"cost_usd":1E-3}`)
	f.Add(`{"case_id":"A","decision":"d","tool_calls":[{"type":"function","function":{"name":"a","arguments":"{\"x\":1}"}},{"type":"function_call","name":"b","arguments":"{]"},{"type":"tool_use","name":"c","input":{}}],"citations":[],"latency_ms":null,"cost_usd":2,"trial":7}`)
	// Members left out, Inspect's shape, a name beside a string function,
	// an empty decision.
	f.Add(`{"case_id":"[a]b|c","tool_calls":[{"id":"1","function":"f","arguments":{"k":[1]},"type":"function","parse_error":null},{"function":"g","name":"h","arguments":{}}],"latency_ms":1,"cost_usd":null}`)
	f.Add(`{"case_id":"A","decision":"","tool_calls":[{"type":"function","function":"f","arguments":"{}"}],"latency_ms":1,"cost_usd":1}`)
	f.Add(`{"a":[1,-0.5e+3,"\u00e9\ud83d\ude00",{"b":{},"c":[]}],"a\u0062":true,"é":null}`)
	f.Add(`{"a":1,"a":2}`)
	f.Add("[\"\xff\"]")
	f.Fuzz(func(t *testing.T, line string) {
		text := []byte(line)
		d := newJSONDecoder()
		if d.quickValid(text) {
			if !jsontext.Value(text).IsValid() {
				t.Fatalf("quickValid accepts what IsValid refuses")
			}
			// Each object and array is found whole.
			for _, start := range d.ends.set {
				v := text[start:d.ends.end(int(start))]
				if !jsontext.Value(v).IsValid() || v[0] != '{' && v[0] != '[' {
					t.Fatalf("a value found at %d: %q", start, v)
				}
			}
		}
		for _, opaque := range []bool{false, true} {
			slow, slowRaw, err := newJSONDecoder().decodeTokens(text, "input", opaque)
			if quick, quickRaw, ok := d.quickMembers(text, "input", opaque); ok {
				if err != nil || !reflect.DeepEqual(quick, slow) || !bytes.Equal(quickRaw, slowRaw) {
					t.Fatalf("opaque %v: by members %v %q, tokens %v %q (%v)", opaque, quick, quickRaw, slow, slowRaw, err)
				}
			} else if err == nil && slow != nil && kindOf(slow) == objectType {
				t.Fatalf("opaque %v: a valid object was not read by members", opaque)
			}
		}
		checked, checkedOK := newJSONDecoder().checkedOutput(text, 1)
		if !jsontext.Value(text).IsValid() {
			if checkedOK {
				t.Fatalf("checkedOutput accepts what IsValid refuses")
			}
			return
		}
		quick, ok := d.quickOutput(text, 1)
		switch {
		case checkedOK && (!ok || !reflect.DeepEqual(checked, quick)):
			t.Fatalf("checked %+v, quick %+v (%v)", checked, quick, ok)
		case !checkedOK && ok && newJSONDecoder().quickValid(text):
			t.Fatalf("checkedOutput gave up on a line quickValid and quickOutput read")
		}
		slow, err := parseOutputTokens(newJSONDecoder(), "o.jsonl", 1, text, nil)
		switch {
		case ok && err != nil:
			t.Fatalf("fast path accepted what the decoder refuses: %v", err)
		case ok && !reflect.DeepEqual(quick, slow):
			t.Fatalf("fast %+v, tokens %+v", quick, slow)
		}
	})
}
