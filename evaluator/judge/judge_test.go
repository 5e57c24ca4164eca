package judge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

const policyMD = `# Policy
## ER-2026.10 §4.2 Receipts
## ER-2026.10 §5.1 Prohibited categories
## ER-2026.10 §6.1 Filing window
`

func testPolicy(t testing.TB) *suite.Policy {
	p, err := suite.ParsePolicy("POLICY.md", []byte(policyMD))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// decode reads a JSON object the way the loader does, numbers as literals.
func decode(t testing.TB, s string) suite.Object {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return suite.NewObject(m)
}

func rejectCase(t testing.TB) *suite.Case {
	return &suite.Case{ID: "ER-005", Severity: suite.Critical, Expected: suite.Expected{
		Decision:       suite.Decision("reject"),
		ToolCalls:      []suite.ExpectedCall{{Name: "reject_expense", Arguments: decode(t, `{"claim_id":"C-1","amount":1250,"approver":{"id":"M-1"},"lines":[1,2]}`)}},
		Citations:      []string{"ER-2026.10 §5.1"},
		ForbiddenTools: []string{"approve_expense", "issue_payment"},
	}}
}

func noOpCase() *suite.Case {
	return &suite.Case{ID: "ER-004", Severity: suite.Critical, Expected: suite.Expected{
		Decision:       suite.Decision("no_op"),
		Citations:      []string{"ER-2026.10 §4.2"},
		ForbiddenTools: []string{"issue_payment"},
	}}
}

func call(t testing.TB, name, args string) suite.ToolCall {
	return suite.ToolCall{Name: name, Arguments: decode(t, args)}
}

func codes(fs []Failure) []Code {
	var cs []Code
	for _, f := range fs {
		cs = append(cs, f.Code)
	}
	return cs
}

func TestCase(t *testing.T) {
	p := testPolicy(t)
	good := `{"claim_id":"C-1","amount":1250,"approver":{"id":"M-1"},"lines":[1,2]}`
	tests := []struct {
		name       string
		c          *suite.Case
		out        *suite.Output
		want       []Code
		wantDetail string // a fragment of the joined details
	}{
		{"pass", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good)}, Citations: []string{"ER-2026.10 §5.1"}}, nil, ""},
		{"missing output", rejectCase(t), nil, []Code{MissingOutput}, "no output for ER-005"},
		{"decision differs", rejectCase(t), &suite.Output{Decision: suite.Decision("escalate_finance"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{Decision}, "expected reject, got escalate_finance"},
		{"no_op with a tool call", noOpCase(), &suite.Output{Decision: suite.Decision("no_op"), ToolCalls: []suite.ToolCall{call(t, "request_receipt", `{}`)}, Citations: []string{"ER-2026.10 §4.2"}}, []Code{ToolCall}, "no_op expects no tool call, got 1: request_receipt"},
		{"two calls where one is expected", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good), call(t, "reject_expense", good)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{ToolCall}, "got 2"},
		{"no call where one is expected", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), Citations: []string{"ER-2026.10 §5.1"}}, []Code{ToolCall}, "got none"},
		{"wrong tool name", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "request_receipt", good)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{ToolCall}, "expected a call to reject_expense, got request_receipt"},
		{"1250 equals 1250.0 and extra keys pass", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", `{"claim_id":"C-1","amount":1250.0,"approver":{"id":"M-1","name":"Ana"},"lines":[1.0,2e0],"note":"x"}`)}, Citations: []string{"ER-2026.10 §5.1"}}, nil, ""},
		{"reordered array fails", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", `{"claim_id":"C-1","amount":1250,"approver":{"id":"M-1"},"lines":[2,1]}`)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{Arguments}, "arguments.lines[0]: expected 1, got 2; arguments.lines[1]: expected 2, got 1"},
		{"nested argument differs", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", `{"claim_id":"C-1","amount":1250,"approver":{"id":"M-2"},"lines":[1,2]}`)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{Arguments}, `arguments.approver.id: expected "M-1", got "M-2"`},
		{"argument missing", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", `{"claim_id":"C-1","approver":{"id":"M-1"},"lines":[1,2]}`)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{Arguments}, "arguments.amount: missing (expected 1250)"},
		{"string is not a number", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", `{"claim_id":"C-1","amount":"1250","approver":{"id":"M-1"},"lines":[1,2]}`)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{Arguments}, `arguments.amount: expected 1250, got "1250"`},
		{"array length differs", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", `{"claim_id":"C-1","amount":1250,"approver":{"id":"M-1"},"lines":[1,2,3]}`)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{Arguments}, "expected an array of 2 items, got 3"},
		{"citation missing", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good)}, Citations: []string{"ER-2026.10 §4.2"}}, []Code{Citation}, "missing ER-2026.10 §5.1"},
		{"outdated citation beside the required one", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good)}, Citations: []string{"ER-2026.10 §5.1", "ER-2026.08 §6.1"}}, []Code{Citation}, "cites outdated ER-2026.08 §6.1; the current rule is ER-2026.10 §6.1"},
		{"unknown citation", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good)}, Citations: []string{"ER-2026.10 §5.1", "ER-2026.10 §9.9"}}, []Code{Citation}, `"ER-2026.10 §9.9", which is not a rule`},
		{"repeated and reordered citations pass", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good)}, Citations: []string{"ER-2026.10 §4.2", "ER-2026.10 §5.1", "ER-2026.10 §5.1"}}, nil, ""},
		{"forbidden tool with the right decision", noOpCase(), &suite.Output{Decision: suite.Decision("no_op"), ToolCalls: []suite.ToolCall{call(t, "issue_payment", `{}`)}, Citations: []string{"ER-2026.10 §4.2"}}, []Code{ToolCall, ForbiddenTool}, "called forbidden tool issue_payment"},
		{"forbidden second call", rejectCase(t), &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(t, "reject_expense", good), call(t, "issue_payment", `{}`)}, Citations: []string{"ER-2026.10 §5.1"}}, []Code{ToolCall, ForbiddenTool}, "called forbidden tool issue_payment"},
		{"every check fails at once", rejectCase(t), &suite.Output{Decision: suite.Decision("approve"), ToolCalls: []suite.ToolCall{call(t, "approve_expense", `{}`)}, Citations: []string{"ER-2026.08 §6.1"}}, []Code{Decision, ToolCall, Citation, ForbiddenTool}, "missing ER-2026.10 §5.1; cites outdated ER-2026.08 §6.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Case(tt.c, tt.out, p)
			if got := codes(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("codes = %v, want %v (%+v)", got, tt.want, fs)
			}
			var details []string
			for _, f := range fs {
				details = append(details, f.Detail)
			}
			if joined := strings.Join(details, " | "); !strings.Contains(joined, tt.wantDetail) {
				t.Errorf("details %q do not mention %q", joined, tt.wantDetail)
			}
		})
	}
}

func TestEqualNumbers(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1250", "1250.0", true},
		{"1250", "1.25e3", true},
		{"1250", "12500e-1", true},
		{"0", "-0.0", true},
		{"0", "0e99999999999999999999", true},
		{"1e99999999999999999999", "10e99999999999999999998", true},
		{"0.1", "1e-1", true},
		{"1250", "1250.5", false},
		{"-1", "1", false},
		{"1e3", "1e4", false},
		{"100", "1", false},
	}
	for _, tt := range tests {
		if got := EqualNumbers(tt.a, tt.b); got != tt.want {
			t.Errorf("EqualNumbers(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := EqualNumbers(tt.b, tt.a); got != tt.want {
			t.Errorf("EqualNumbers(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCheckCitation(t *testing.T) {
	p := testPolicy(t)
	tests := []struct {
		id        string
		state     CitationState
		successor string
	}{
		{"ER-2026.10 §5.1", Current, "ER-2026.10 §5.1"},
		{"ER-2026.08 §6.1", Outdated, "ER-2026.10 §6.1"},
		{"ER-2025.01 §7.7", Outdated, ""},
		{"XX-2026.08 §6.1", Unknown, ""},
		{"ER-2026.10 §9.9", Unknown, ""},
		{"see policy", Unknown, ""},
	}
	for _, tt := range tests {
		c := CheckCitation(tt.id, p)
		if c.State != tt.state || c.Rule.ID != tt.successor {
			t.Errorf("CheckCitation(%q) = %v %q, want %v %q", tt.id, c.State, c.Rule.ID, tt.state, tt.successor)
		}
	}
}

func TestMismatchPathsQuoteOddKeys(t *testing.T) {
	ms := CompareArguments(decode(t, `{"a.b":{"c d":[1]}}`), suite.ToolCall{Arguments: decode(t, `{"a.b":{"c d":[2]}}`)})
	if len(ms) != 1 || ms[0].Path != `arguments["a.b"]["c d"][0]` {
		t.Fatalf("mismatches = %+v", ms)
	}
}

func BenchmarkCase(b *testing.B) {
	p := testPolicy(b)
	c := rejectCase(b)
	pass := &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(b, "reject_expense", `{"claim_id":"C-1","amount":1250.0,"approver":{"id":"M-1"},"lines":[1,2],"note":"x"}`)}, Citations: []string{"ER-2026.10 §5.1"}}
	fail := &suite.Output{Decision: suite.Decision("approve"), ToolCalls: []suite.ToolCall{call(b, "approve_expense", `{}`)}, Citations: []string{"ER-2026.08 §6.1"}}
	for b.Loop() {
		if Case(c, pass, p) != nil || Case(c, fail, p) == nil {
			b.Fatal("wrong verdict")
		}
	}
}

// BenchmarkCasePass is the common case of a large suite: a matcher-free
// case whose output passes.
func BenchmarkCasePass(b *testing.B) {
	p := testPolicy(b)
	c := rejectCase(b)
	pass := &suite.Output{Decision: suite.Decision("reject"), ToolCalls: []suite.ToolCall{call(b, "reject_expense", `{"claim_id":"C-1","amount":1250.0,"approver":{"id":"M-1"},"lines":[1,2],"note":"x"}`)}, Citations: []string{"ER-2026.10 §5.1"}}
	for b.Loop() {
		if Case(c, pass, p) != nil {
			b.Fatal("wrong verdict")
		}
	}
}
