package load

import (
	"errors"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestCasesRefuseMalformedMatchers checks docs/data-format.md, "Argument matchers" at load: "Any other
// single-member $ name, a misplaced $optional, or a matcher of the wrong
// shape is bad input naming the file, line and JSON path."
func TestCasesRefuseMalformedMatchers(t *testing.T) {
	s := sampleSuite(t)
	schema := sampleSchema(t)
	line := func(args string) string {
		return `{"case_id":"ER-100","title":"t","severity":"major","input":{},"expected":{"decision":"reject","tool_calls":[{"name":"reject_expense","arguments":` + args + `}],"citations":[],"forbidden_tools":[]}}`
	}
	tests := []struct {
		name, args, want string
	}{
		{"unknown matcher", `{"city":{"$gt":5}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.city: unknown matcher "$gt"`},
		{"unknown matcher at the top", `{"$where":"x"}`, `cases.jsonl:2: expected.tool_calls[0].arguments: unknown matcher "$where"`},
		{"$any not an array", `{"city":{"$any":"NYC"}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.city: $any needs a non-empty array of alternatives, got a string`},
		{"$any empty", `{"city":{"$any":[]}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.city: $any needs a non-empty array of alternatives, got an empty array`},
		{"$text not a string", `{"city":{"$text":1}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.city: $text needs a string, got a number`},
		{"$exact not an object", `{"p":{"$exact":[]}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.p: $exact needs an object of members, got an empty array`},
		{"$optional at the top", `{"$optional":{}}`, `cases.jsonl:2: expected.tool_calls[0].arguments: $optional may only be the value of an object member`},
		{"$optional in an array", `{"ids":[{"$optional":1}]}`, `cases.jsonl:2: expected.tool_calls[0].arguments.ids[0]: $optional may only be the value of an object member`},
		{"$optional in $any", `{"id":{"$any":[{"$optional":1}]}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.id.$any[0]: $optional may only be the value of an object member`},
		{"deep inside $exact", `{"$exact":{"a":{"b":[{"$text":[]}]}}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.$exact.a.b[0]: $text needs a string, got an empty array`},
		{"$exact of a matcher", `{"p":{"$exact":{"$text":"x"}}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.p: $exact needs an object of members, got the matcher $text`},
		{"$optional in $optional", `{"p":{"$optional":{"$optional":1}}}`, `cases.jsonl:2: expected.tool_calls[0].arguments.p.$optional: $optional may only be the value of an object member`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := line(`{}`) + "\n" + strings.Replace(line(tt.args), "ER-100", "ER-101", 1)
			for name, compiled := range map[string]*CaseSchema{"with schema": schema, "format only": nil} {
				_, err := Cases("cases.jsonl", strings.NewReader(in), compiled, s.Policy, false)
				var ie *suite.InputError
				if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("%s: error = %v, want prefix %q", name, err, tt.want)
				}
			}
		})
	}
}

func TestCasesReadToolMatch(t *testing.T) {
	s := sampleSuite(t)
	line := func(match string) string {
		return `{"case_id":"ER-100","title":"t","severity":"major","input":{},"expected":{"decision":"reject","tool_calls":[{"name":"reject_expense","arguments":{"city":{"$any":["NYC",{"$text":"New York"}]}}}],` + match + `"citations":[],"forbidden_tools":[]}}`
	}
	for _, mode := range []suite.ToolMatch{suite.MatchExact, suite.MatchAnyOrder, suite.MatchSubsequence, suite.MatchContains} {
		cases, err := Cases("cases.jsonl", strings.NewReader(line(`"tool_match":"`+string(mode)+`",`)), nil, s.Policy, false)
		if err != nil {
			t.Fatal(err)
		}
		e := cases[0].Expected
		if e.ToolMatch != mode || e.Mode() != mode {
			t.Errorf("tool_match %s read as %q", mode, e.ToolMatch)
		}
		args := e.ToolCalls[0].Arguments.(suite.Object)
		if m, ok := args[0].Value.(*suite.Matcher); !ok || m.Kind != suite.AnyOf {
			t.Errorf("arguments not compiled: %#v", args)
		}
	}
	cases, err := Cases("cases.jsonl", strings.NewReader(line("")), nil, s.Policy, false)
	if err != nil || cases[0].Expected.ToolMatch != "" || cases[0].Expected.Mode() != suite.MatchExact {
		t.Fatalf("without tool_match: %v, %+v", err, cases)
	}
	for _, bad := range []struct{ member, want string }{
		{`"tool_match":"unordered",`, `cases.jsonl:1: expected.tool_match: unknown tool_match "unordered": use exact, any_order, subsequence or contains`},
		{`"tool_match":1,`, `cases.jsonl:1: expected.tool_match: expected a string, got a number`},
		{`"tool_match":null,`, `cases.jsonl:1: expected.tool_match: expected a string, got null`},
	} {
		_, err := Cases("cases.jsonl", strings.NewReader(line(bad.member)), nil, s.Policy, false)
		if err == nil || err.Error() != bad.want {
			t.Errorf("error = %v, want %s", err, bad.want)
		}
	}
}

// TestCasesAcceptMatchersThatCannotMatchAnObject: the data format does not
// list a matcher for the whole arguments that accepts no object among
// bad input; such a case loads, and no output can pass it.
func TestCasesAcceptMatchersThatCannotMatchAnObject(t *testing.T) {
	s := sampleSuite(t)
	for _, args := range []string{`{"$text":"x"}`, `{"$literal":1}`, `{"$any":["x",{"a":1}]}`} {
		line := `{"case_id":"ER-100","title":"t","severity":"major","input":{},"expected":{"decision":"reject","tool_calls":[{"name":"reject_expense","arguments":` + args + `}],"citations":[],"forbidden_tools":[]}}`
		cases, err := Cases("cases.jsonl", strings.NewReader(line), nil, s.Policy, false)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if _, ok := cases[0].Expected.ToolCalls[0].Arguments.(*suite.Matcher); !ok {
			t.Fatalf("%s: arguments compiled to %#v", args, cases[0].Expected.ToolCalls[0].Arguments)
		}
	}
}
