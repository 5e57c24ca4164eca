package judge

import (
	"strconv"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/internal/jsontest"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// parseExpected builds an Expected from JSON as a case writes it,
// compiling argument matchers as the loader does.
func parseExpected(t testing.TB, js string) (*suite.Expected, error) {
	t.Helper()
	v, err := jsontest.Decode([]byte(js))
	if err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	m := v.(map[string]any)
	e := &suite.Expected{Decision: suite.Decision("act")}
	if d, ok := m["decision"].(string); ok {
		e.Decision = suite.Decision(d)
	}
	if tm, ok := m["tool_match"].(string); ok {
		e.ToolMatch = suite.ToolMatch(tm)
	}
	for _, f := range asList(m["forbidden_tools"]) {
		e.ForbiddenTools = append(e.ForbiddenTools, f.(string))
	}
	for i, c := range asList(m["tool_calls"]) {
		call := c.(map[string]any)
		args, err := suite.CompileArguments(suite.FromTree(call["arguments"]), "expected.tool_calls["+strconv.Itoa(i)+"].arguments")
		if err != nil {
			return nil, err
		}
		e.ToolCalls = append(e.ToolCalls, suite.ExpectedCall{Name: call["name"].(string), Arguments: args})
	}
	return e, nil
}

func mustExpected(t testing.TB, js string) *suite.Expected {
	t.Helper()
	e, err := parseExpected(t, js)
	if err != nil {
		t.Fatalf("compile %s: %v", js, err)
	}
	return e
}

// parseCalls builds an output's calls from a JSON array of
// {"name", "arguments"}; {"name", "raw"} is a call whose arguments were an
// unreadable string.
func parseCalls(t testing.TB, js string) []suite.ToolCall {
	t.Helper()
	v, err := jsontest.Decode([]byte(js))
	if err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	calls := []suite.ToolCall{}
	for _, c := range asList(v) {
		m := c.(map[string]any)
		call := suite.ToolCall{Name: m["name"].(string)}
		if raw, ok := m["raw"].(string); ok {
			call.Unreadable, call.Raw = true, raw
		} else {
			call.Arguments = suite.NewObject(m["arguments"].(map[string]any))
		}
		calls = append(calls, call)
	}
	return calls
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// judgeOutput runs Case on an output that holds calls and the expected
// decision, with no policy, and returns the failures.
func judgeOutput(exp *suite.Expected, calls []suite.ToolCall) []Failure {
	c := &suite.Case{ID: "T-1", Severity: suite.Major, Expected: *exp}
	return Case(c, &suite.Output{Decision: exp.Decision, ToolCalls: calls}, nil)
}

func details(fs []Failure) string {
	var ds []string
	for _, f := range fs {
		ds = append(ds, string(f.Code)+": "+f.Detail)
	}
	return strings.Join(ds, " | ")
}
