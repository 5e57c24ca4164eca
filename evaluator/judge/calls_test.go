package judge

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// callTest is one output judged against one expectation: the failure codes
// it must get, fragments its details must hold, and the pairing PairCalls
// must return (nil: not checked).
type callTest struct {
	name     string
	rule     string // the data format's sentence the row checks
	expected string // the case's "expected" member
	calls    string // the output's "tool_calls"
	want     []Code
	detail   []string
	pairing  *Pairing
}

func runCallTests(t *testing.T, tests []callTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := mustExpected(t, tt.expected)
			calls := parseCalls(t, tt.calls)
			fs := judgeOutput(exp, calls)
			if got := codes(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("%s\ncodes = %v, want %v (%s)", tt.rule, got, tt.want, details(fs))
			}
			for _, d := range tt.detail {
				if !strings.Contains(details(fs), d) {
					t.Errorf("%s\ndetails %q do not mention %q", tt.rule, details(fs), d)
				}
			}
			if tt.pairing != nil {
				got := PairCalls(exp, calls)
				if !slices.Equal(got.Actual, tt.pairing.Actual) || !slices.Equal(got.Unpaired, tt.pairing.Unpaired) {
					t.Errorf("%s\npairing = %+v, want %+v", tt.rule, got, *tt.pairing)
				}
			}
		})
	}
}

const (
	ruleExact       = "exact (default): the output has exactly as many calls, and call i matches expected call i"
	ruleAnyOrder    = "any_order: the output has exactly as many calls, and some one-to-one pairing matches every expected call"
	ruleSubsequence = "subsequence: the expected calls match, in order, a subsequence of the output's calls; other calls are allowed (forbidden tools are still checked on their own)"
	ruleNone        = "with none, exact and any_order allow no call and subsequence allows any"
	ruleToolCall    = "when no pairing by names alone exists, tool_call (the detail says which call is missing, extra or out of order)"
	ruleArguments   = "when the names pair but no pairing matches the arguments, arguments (the detail gives the call index and, per path, expected and actual, for the pairing that matched the most calls)"
	ruleMatches     = "A call matches when its name is equal and its arguments match (§2 and §8.3)."
	ruleUnreadable  = "A string that is not a JSON object ... the call keeps its name, and matching its arguments fails with arguments and a detail quoting the start of the string."
)

func TestToolMatchExact(t *testing.T) {
	two := `{"tool_calls": [{"name": "search", "arguments": {"q": "x"}}, {"name": "book", "arguments": {"id": 1}}]}`
	runCallTests(t, []callTest{
		{"two in order", ruleExact, two, `[{"name": "search", "arguments": {"q": "x"}}, {"name": "book", "arguments": {"id": 1, "extra": true}}]`,
			nil, nil, &Pairing{Actual: []int{0, 1}}},
		{"exact is the default and explicit", ruleExact, strings.Replace(two, `{"tool_calls"`, `{"tool_match": "exact", "tool_calls"`, 1), `[{"name": "search", "arguments": {"q": "x"}}, {"name": "book", "arguments": {"id": 1}}]`,
			nil, nil, nil},
		{"swapped", ruleToolCall, two, `[{"name": "book", "arguments": {"id": 1}}, {"name": "search", "arguments": {"q": "x"}}]`,
			[]Code{ToolCall}, []string{"expected 2 calls in this order: search, book; got 2: book, search", "is out of order"}, nil},
		{"one missing", ruleToolCall, two, `[{"name": "search", "arguments": {"q": "x"}}]`,
			[]Code{ToolCall}, []string{"missing expected.tool_calls[1] book"}, &Pairing{Actual: []int{0, -1}}},
		{"one extra", ruleToolCall, two, `[{"name": "search", "arguments": {"q": "x"}}, {"name": "log", "arguments": {}}, {"name": "book", "arguments": {"id": 1}}]`,
			[]Code{ToolCall}, []string{"extra tool_calls[1] log"}, &Pairing{Actual: []int{0, 2}, Unpaired: []int{1}}},
		{"names pair, arguments differ", ruleArguments, two, `[{"name": "search", "arguments": {"q": "x"}}, {"name": "book", "arguments": {"id": 2}}]`,
			[]Code{Arguments}, []string{"expected.tool_calls[1] book (output tool_calls[1]): arguments.id: expected 1, got 2"}, &Pairing{Actual: []int{0, 1}}},
		{"names differ and arguments differ: only tool_call", ruleToolCall, two, `[{"name": "search", "arguments": {"q": "y"}}, {"name": "cancel", "arguments": {"id": 2}}]`,
			[]Code{ToolCall}, []string{"missing expected.tool_calls[1] book", "extra tool_calls[1] cancel"}, nil},
		{"duplicate names, arguments in the other order", ruleExact,
			`{"tool_calls": [{"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}]}`,
			`[{"name": "get", "arguments": {"id": 2}}, {"name": "get", "arguments": {"id": 1}}]`,
			[]Code{Arguments}, []string{"expected.tool_calls[0] get (output tool_calls[0]): arguments.id: expected 1, got 2", "expected.tool_calls[1] get (output tool_calls[1]): arguments.id: expected 2, got 1"}, nil},
	})
}

func TestToolMatchAnyOrder(t *testing.T) {
	// Greedy pairing takes output call 0 for expected call 0 (both match),
	// leaving expected call 1 with output call 1, which does not match;
	// pairing 0↔1 and 1↔0 matches both.
	greedyFails := `{"tool_match": "any_order", "tool_calls": [{"name": "get", "arguments": {"id": {"$any": [1, 2]}}}, {"name": "get", "arguments": {"id": 1}}]}`
	runCallTests(t, []callTest{
		{"swapped", ruleAnyOrder, `{"tool_match": "any_order", "tool_calls": [{"name": "search", "arguments": {}}, {"name": "book", "arguments": {"id": 1}}]}`,
			`[{"name": "book", "arguments": {"id": 1}}, {"name": "search", "arguments": {}}]`, nil, nil, &Pairing{Actual: []int{1, 0}}},
		{"greedy fails, a matching exists", ruleAnyOrder, greedyFails,
			`[{"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}]`, nil, nil, &Pairing{Actual: []int{1, 0}}},
		{"duplicate names, arguments in the other order", ruleAnyOrder,
			`{"tool_match": "any_order", "tool_calls": [{"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}]}`,
			`[{"name": "get", "arguments": {"id": 2}}, {"name": "get", "arguments": {"id": 1}}]`, nil, nil, &Pairing{Actual: []int{1, 0}}},
		{"no pairing matches, best one reported", ruleArguments, greedyFails,
			`[{"name": "get", "arguments": {"id": 2}}, {"name": "get", "arguments": {"id": 3}}]`,
			[]Code{Arguments}, []string{"expected.tool_calls[1] get (output tool_calls[1]): arguments.id: expected 1, got 3"}, &Pairing{Actual: []int{0, 1}}},
		{"no pairing matches, the closest pairs are shown", ruleArguments,
			`{"tool_match": "any_order", "tool_calls": [{"name": "get", "arguments": {"id": 1, "x": 1}}, {"name": "get", "arguments": {"id": 2, "x": 2}}]}`,
			`[{"name": "get", "arguments": {"id": 2, "x": 3}}, {"name": "get", "arguments": {"id": 1, "x": 3}}]`,
			[]Code{Arguments}, []string{"tool_calls[0] get (output tool_calls[1]): arguments.x: expected 1, got 3; expected.tool_calls[1] get (output tool_calls[0]): arguments.x: expected 2, got 3"}, &Pairing{Actual: []int{1, 0}}},
		{"one more call than expected", ruleToolCall, greedyFails,
			`[{"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}, {"name": "get", "arguments": {"id": 1}}]`,
			[]Code{ToolCall}, []string{"expected 2 calls in any order: get, get; got 3: get, get, get", "extra tool_calls[1] get"}, &Pairing{Actual: []int{0, 2}, Unpaired: []int{1}}},
		{"a name missing", ruleToolCall, `{"tool_match": "any_order", "tool_calls": [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]}`,
			`[{"name": "b", "arguments": {}}, {"name": "c", "arguments": {}}]`,
			[]Code{ToolCall}, []string{"missing expected.tool_calls[0] a", "extra tool_calls[1] c"}, &Pairing{Actual: []int{-1, 0}, Unpaired: []int{1}}},
		{"one expected call keeps the one-call wording", ruleAnyOrder, `{"tool_match": "any_order", "tool_calls": [{"name": "a", "arguments": {}}]}`,
			`[{"name": "a", "arguments": {}}, {"name": "a", "arguments": {}}]`, []Code{ToolCall}, []string{"expected exactly one call to a, got 2: a, a"}, nil},
	})
}

func TestToolMatchSubsequence(t *testing.T) {
	two := `{"tool_match": "subsequence", "tool_calls": [{"name": "search", "arguments": {"q": "x"}}, {"name": "book", "arguments": {"id": 1}}]}`
	runCallTests(t, []callTest{
		{"interleaved extra calls", ruleSubsequence, two,
			`[{"name": "lookup", "arguments": {}}, {"name": "search", "arguments": {"q": "x"}}, {"name": "lookup", "arguments": {}}, {"name": "book", "arguments": {"id": 1}}, {"name": "log", "arguments": {}}]`,
			nil, nil, &Pairing{Actual: []int{1, 3}, Unpaired: []int{0, 2, 4}}},
		{"interleaved forbidden call", ruleSubsequence, strings.Replace(two, `"tool_match"`, `"forbidden_tools": ["pay"], "tool_match"`, 1),
			`[{"name": "search", "arguments": {"q": "x"}}, {"name": "pay", "arguments": {}}, {"name": "book", "arguments": {"id": 1}}]`,
			[]Code{ForbiddenTool}, []string{"called forbidden tool pay"}, nil},
		{"out of order", ruleToolCall, two,
			`[{"name": "book", "arguments": {"id": 1}}, {"name": "search", "arguments": {"q": "x"}}]`,
			[]Code{ToolCall}, []string{"expected these calls in this order, among any others: search, book; got 2: book, search", "is out of order (the output makes it as tool_calls[0])"}, nil},
		{"missing", ruleToolCall, two, `[{"name": "search", "arguments": {"q": "x"}}, {"name": "log", "arguments": {}}]`,
			[]Code{ToolCall}, []string{"missing expected.tool_calls[1] book"}, &Pairing{Actual: []int{0, -1}, Unpaired: []int{1}}},
		{"the first same-name call is not the one", ruleSubsequence,
			`{"tool_match": "subsequence", "tool_calls": [{"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}]}`,
			`[{"name": "get", "arguments": {"id": 2}}, {"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}]`,
			nil, nil, &Pairing{Actual: []int{1, 2}, Unpaired: []int{0}}},
		{"names pair, arguments do not", ruleArguments, two,
			`[{"name": "search", "arguments": {"q": "y"}}, {"name": "book", "arguments": {"id": 1}}, {"name": "search", "arguments": {"q": "z"}}]`,
			[]Code{Arguments}, []string{`expected.tool_calls[0] search (output tool_calls[0]): arguments.q: expected "x", got "y"`}, &Pairing{Actual: []int{0, 1}, Unpaired: []int{2}}},
		{"one expected call, among others", ruleSubsequence, `{"tool_match": "subsequence", "tool_calls": [{"name": "book", "arguments": {"id": 1}}]}`,
			`[{"name": "book", "arguments": {"id": 2}}, {"name": "book", "arguments": {"id": 1}}]`, nil, nil, &Pairing{Actual: []int{1}, Unpaired: []int{0}}},
	})
}

func TestToolMatchNoExpectedCalls(t *testing.T) {
	some := `[{"name": "lookup", "arguments": {}}, {"name": "log", "arguments": {}}]`
	var tests []callTest
	for _, mode := range []string{"", "exact", "any_order", "subsequence"} {
		exp := `{"decision": "answer", "tool_calls": []}`
		if mode != "" {
			exp = `{"decision": "answer", "tool_match": "` + mode + `", "tool_calls": []}`
		}
		tests = append(tests, callTest{"no call, mode " + mode, ruleNone, exp, `[]`, nil, nil, &Pairing{Actual: []int{}}})
		if mode == "subsequence" {
			tests = append(tests, callTest{"calls, mode " + mode, ruleNone, exp, some, nil, nil, &Pairing{Actual: []int{}, Unpaired: []int{0, 1}}})
		} else {
			tests = append(tests, callTest{"calls, mode " + mode, ruleNone, exp, some, []Code{ToolCall}, []string{"answer expects no tool call, got 2: lookup, log"}, nil})
		}
	}
	runCallTests(t, tests)
}

func TestUnreadableArguments(t *testing.T) {
	long := strings.Repeat("é", 100)
	runCallTests(t, []callTest{
		{"keeps its name, fails arguments", ruleUnreadable, `{"tool_calls": [{"name": "book", "arguments": {}}]}`,
			`[{"name": "book", "raw": "{city: 'Paris'}"}]`,
			[]Code{Arguments}, []string{`arguments: the call's arguments are a string that is not a JSON object: "{city: 'Paris'}"`}, nil},
		{"quotes only the start", ruleUnreadable, `{"tool_calls": [{"name": "book", "arguments": {}}]}`,
			`[{"name": "book", "raw": "` + long + `"}]`,
			[]Code{Arguments}, []string{`"` + strings.Repeat("é", 30) + `"…`}, nil},
		{"pairs by name in any order", ruleUnreadable, `{"tool_match": "any_order", "tool_calls": [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]}`,
			`[{"name": "b", "raw": "[1]"}, {"name": "a", "arguments": {}}]`,
			[]Code{Arguments}, []string{`expected.tool_calls[1] b (output tool_calls[0]): arguments: the call's arguments are a string that is not a JSON object: "[1]"`}, &Pairing{Actual: []int{1, 0}}},
		{"a wrong name is still tool_call", ruleUnreadable, `{"tool_calls": [{"name": "a", "arguments": {}}]}`,
			`[{"name": "b", "raw": "nope"}]`, []Code{ToolCall}, []string{"expected a call to a, got b"}, nil},
	})
}

func TestPolicyAbsent(t *testing.T) {
	// docs/data-format.md, "Optional documents": "without it there are no rules, ..., output citations are not judged".
	c := &suite.Case{ID: "T-1", Expected: suite.Expected{Decision: "answer"}}
	out := &suite.Output{Decision: "answer", Citations: []string{"ER-2026.08 §6.1", "anything"}}
	if fs := Case(c, out, nil); fs != nil {
		t.Fatalf("citations judged without a policy: %+v", fs)
	}
	if fs := Case(c, out, testPolicy(t)); !slices.Equal(codes(fs), []Code{Citation}) {
		t.Fatalf("with a policy the same citations must fail: %+v", fs)
	}
}

// TestOneExactCallKeepsItsWording pins the details of the single-call rule of docs/data-format.md, which the
// sample's results files hold.
func TestOneExactCallKeepsItsWording(t *testing.T) {
	exp := `{"decision": "reject", "tool_calls": [{"name": "reject_expense", "arguments": {"reason_code": "X"}}]}`
	runCallTests(t, []callTest{
		{"none", ruleExact, exp, `[]`, []Code{ToolCall}, []string{"tool_call: expected one call to reject_expense, got none"}, &Pairing{Actual: []int{-1}}},
		{"two", ruleExact, exp, `[{"name": "reject_expense", "arguments": {}}, {"name": "log", "arguments": {}}]`, []Code{ToolCall},
			[]string{"tool_call: expected exactly one call to reject_expense, got 2: reject_expense, log"}, &Pairing{Actual: []int{0}, Unpaired: []int{1}}},
		{"other name", ruleExact, exp, `[{"name": "approve_expense", "arguments": {}}]`, []Code{ToolCall}, []string{"tool_call: expected a call to reject_expense, got approve_expense"}, nil},
		{"argument differs", ruleExact, exp, `[{"name": "reject_expense", "arguments": {"reason_code": "Y"}}]`, []Code{Arguments}, []string{`arguments: arguments.reason_code: expected "X", got "Y"`}, nil},
	})
}

// BenchmarkCaseSeveralCalls judges three calls in any order with matchers,
// the output listing them in another order.
func BenchmarkCaseSeveralCalls(b *testing.B) {
	exp := mustExpected(b, `{"decision": "act", "tool_match": "any_order", "tool_calls": [
		{"name": "get", "arguments": {"id": {"$any": [1, 2]}, "fields": {"$optional": ["a"]}}},
		{"name": "get", "arguments": {"id": 1}},
		{"name": "book", "arguments": {"$exact": {"city": {"$text": "New York"}, "seat": {"$optional": "12A"}}}}]}`)
	calls := parseCalls(b, `[{"name": "book", "arguments": {"city": "new-york"}}, {"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}]`)
	c := &suite.Case{ID: "T-1", Expected: *exp}
	out := &suite.Output{Decision: "act", ToolCalls: calls}
	for b.Loop() {
		if Case(c, out, nil) != nil {
			b.Fatal("wrong verdict")
		}
	}
}

func TestNoCallsAtAll(t *testing.T) {
	runCallTests(t, []callTest{
		{"exact", ruleToolCall, `{"tool_calls": [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]}`, `[]`,
			[]Code{ToolCall}, []string{"tool_call: expected 2 calls in this order: a, b; got none; missing expected.tool_calls[0] a; missing expected.tool_calls[1] b"}, &Pairing{Actual: []int{-1, -1}}},
		{"subsequence", ruleToolCall, `{"tool_match": "subsequence", "tool_calls": [{"name": "a", "arguments": {}}]}`, `[]`,
			[]Code{ToolCall}, []string{"tool_call: expected these calls in this order, among any others: a; got none; missing expected.tool_calls[0] a"}, nil},
	})
}

// TestLargePairings judges outputs whose pairing tables exceed maxTable:
// the verdicts stay those of the data format.
func TestLargePairings(t *testing.T) {
	const n = 1100
	var exp, calls, swapped []string
	for i := range n {
		exp = append(exp, fmt.Sprintf(`{"name": "a", "arguments": {"i": %d}}`, i))
		calls = append(calls, `{"name": "log", "arguments": {}}`, fmt.Sprintf(`{"name": "a", "arguments": {"i": %d}}`, i))
		swapped = append(swapped, fmt.Sprintf(`{"name": "a", "arguments": {"i": %d}}`, n-1-i))
	}
	sub := `{"tool_match": "subsequence", "tool_calls": [` + strings.Join(exp, ",") + `]}`
	runCallTests(t, []callTest{
		{"subsequence passes", ruleSubsequence, sub, "[" + strings.Join(calls, ",") + "]", nil, nil, nil},
		{"subsequence, names pair, arguments do not", ruleArguments, sub, "[" + strings.Join(swapped, ",") + "]", []Code{Arguments}, []string{"expected.tool_calls[0] a (output tool_calls[0]): arguments.i: expected 0, got 1099"}, nil},
		{"subsequence, a call missing", ruleToolCall, sub, "[" + strings.Join(calls[:2*n-1], ",") + "]", []Code{ToolCall}, []string{"missing expected.tool_calls[1099] a"}, nil},
		{"exact, extra calls", ruleToolCall, `{"tool_calls": [` + strings.Join(exp, ",") + `]}`, "[" + strings.Join(calls, ",") + "]", []Code{ToolCall}, []string{"extra tool_calls[0] log", "extra tool_calls[2198] log"}, nil},
		{"any order", ruleAnyOrder, `{"tool_match": "any_order", "tool_calls": [` + strings.Join(exp, ",") + `]}`, "[" + strings.Join(swapped, ",") + "]", nil, nil, nil},
	})
}
