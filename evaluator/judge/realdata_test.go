package judge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/internal/jsontest"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Tests of the judging rules in docs/real-data.md: contains, $unordered
// and cases whose decision is not judged.

const (
	ruleContains  = "contains: the expected calls pair one to one with distinct calls of the output, in any order; other calls are allowed"
	ruleUnordered = "$unordered: an array of exactly n elements, which pair one to one with the n items in some order"
	ruleNoDecide  = "a case without expected.decision is not judged on a decision"
)

func TestToolMatchContains(t *testing.T) {
	// τ²-bench's telecom check: two state-changing calls, any order,
	// among read-only lookups.
	two := `{"tool_match": "contains", "tool_calls": [{"name": "toggle_airplane_mode", "arguments": {}}, {"name": "toggle_data", "arguments": {"on": true}}]}`
	runCallTests(t, []callTest{
		{"in the other order, among lookups", ruleContains, two,
			`[{"name": "get_status", "arguments": {}}, {"name": "toggle_data", "arguments": {"on": true}}, {"name": "get_status", "arguments": {}}, {"name": "toggle_airplane_mode", "arguments": {}}]`,
			nil, nil, &Pairing{Actual: []int{3, 1}, Unpaired: []int{0, 2}}},
		{"exactly the calls", ruleContains, two,
			`[{"name": "toggle_airplane_mode", "arguments": {}}, {"name": "toggle_data", "arguments": {"on": true}}]`, nil, nil, &Pairing{Actual: []int{0, 1}}},
		{"one missing", ruleContains, two,
			`[{"name": "get_status", "arguments": {}}, {"name": "toggle_data", "arguments": {"on": true}}]`,
			[]Code{ToolCall}, []string{"expected these calls in any order, among any others: toggle_airplane_mode, toggle_data; got 2: get_status, toggle_data", "missing expected.tool_calls[0] toggle_airplane_mode"},
			&Pairing{Actual: []int{-1, 1}, Unpaired: []int{0}}},
		{"no call", ruleContains, two, `[]`,
			[]Code{ToolCall}, []string{"got none; missing expected.tool_calls[0] toggle_airplane_mode; missing expected.tool_calls[1] toggle_data"}, nil},
		{"never out of order, never extra", ruleContains, two,
			`[{"name": "toggle_data", "arguments": {"on": true}}, {"name": "log", "arguments": {}}]`,
			[]Code{ToolCall}, []string{"missing expected.tool_calls[0] toggle_airplane_mode"}, nil},
		{"one call may not serve two expected calls", ruleContains,
			`{"tool_match": "contains", "tool_calls": [{"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {}}]}`,
			`[{"name": "get", "arguments": {"id": 1}}]`, []Code{ToolCall}, []string{"missing expected.tool_calls["}, nil},
		{"the names pair, an argument differs", ruleContains, two,
			`[{"name": "toggle_airplane_mode", "arguments": {}}, {"name": "toggle_data", "arguments": {"on": false}}, {"name": "toggle_data", "arguments": {"on": "yes"}}]`,
			[]Code{Arguments}, []string{"expected.tool_calls[1] toggle_data (output tool_calls[1]): arguments.on: expected true, got false"}, nil},
		{"a later call of the same name matches", ruleContains, two,
			`[{"name": "toggle_data", "arguments": {"on": false}}, {"name": "toggle_airplane_mode", "arguments": {}}, {"name": "toggle_data", "arguments": {"on": true}}]`,
			nil, nil, &Pairing{Actual: []int{1, 2}, Unpaired: []int{0}}},
		{"greedy choice would fail", ruleContains,
			`{"tool_match": "contains", "tool_calls": [{"name": "get", "arguments": {"id": {"$any": [1, 2]}}}, {"name": "get", "arguments": {"id": 1}}]}`,
			`[{"name": "get", "arguments": {"id": 3}}, {"name": "get", "arguments": {"id": 1}}, {"name": "get", "arguments": {"id": 2}}]`,
			nil, nil, &Pairing{Actual: []int{2, 1}, Unpaired: []int{0}}},
		{"one expected call among others", ruleContains, `{"tool_match": "contains", "tool_calls": [{"name": "book", "arguments": {"id": 1}}]}`,
			`[{"name": "book", "arguments": {"id": 2}}, {"name": "book", "arguments": {"id": 1}}]`, nil, nil, &Pairing{Actual: []int{1}, Unpaired: []int{0}}},
		{"a forbidden call among others", ruleContains, strings.Replace(two, `"tool_match"`, `"forbidden_tools": ["reset"], "tool_match"`, 1),
			`[{"name": "toggle_airplane_mode", "arguments": {}}, {"name": "reset", "arguments": {}}, {"name": "toggle_data", "arguments": {"on": true}}]`,
			[]Code{ForbiddenTool}, []string{"called forbidden tool reset"}, nil},
		{"nothing expected, anything allowed", ruleContains, `{"tool_match": "contains", "tool_calls": []}`,
			`[{"name": "a", "arguments": {}}]`, nil, nil, &Pairing{Actual: []int{}, Unpaired: []int{0}}},
	})
}

func TestMatcherUnordered(t *testing.T) {
	runMatcherTests(t, ruleUnordered, []matcherTest{
		{"another order", `{"seats": {"$unordered": ["12A", "12B", "12C"]}}`, `{"seats": ["12C", "12A", "12B"]}`, nil},
		{"the same order", `{"seats": {"$unordered": ["12A", "12B"]}}`, `{"seats": ["12A", "12B"]}`, nil},
		{"numbers by value", `{"ids": {"$unordered": [1, 2.5]}}`, `{"ids": [2.50, 1.0]}`, nil},
		{"repeats count", `{"tags": {"$unordered": ["a", "a", "b"]}}`, `{"tags": ["a", "b", "b"]}`,
			[]string{`arguments.tags: expected 3 items in any order, but at best 2 pair up: nothing left matches $unordered[1] "a"; left over: [2] "b"`}},
		{"a missing item", `{"tags": {"$unordered": ["a", "b"]}}`, `{"tags": ["a", "c"]}`,
			[]string{`arguments.tags: expected 2 items in any order, but at best 1 pair up: nothing left matches $unordered[1] "b"; left over: [1] "c"`}},
		{"too many elements", `{"tags": {"$unordered": ["a"]}}`, `{"tags": ["a", "b"]}`,
			[]string{`arguments.tags: expected an array of 1 items in any order, got 2`}},
		{"empty matches only empty", `{"tags": {"$unordered": []}}`, `{"tags": []}`, nil},
		{"empty refuses one", `{"tags": {"$unordered": []}}`, `{"tags": [1]}`, []string{`arguments.tags: expected an array of 0 items in any order, got 1`}},
		{"not an array", `{"tags": {"$unordered": ["a"]}}`, `{"tags": "a"}`, []string{`arguments.tags: expected in any order ["a"], got "a"`}},
		{"matchers inside, a matching that greedy choice misses", `{"v": {"$unordered": [{"$any": ["x", "y"]}, "x"]}}`, `{"v": ["x", "y"]}`, nil},
		{"text inside", `{"v": {"$unordered": [{"$text": "New York"}, "b"]}}`, `{"v": ["b", "new-york"]}`, nil},
		{"objects inside allow extra members", `{"pax": {"$unordered": [{"name": "Ana"}, {"name": "Bo"}]}}`, `{"pax": [{"name": "Bo", "age": 3}, {"name": "Ana"}]}`, nil},
		{"nested", `{"m": {"$unordered": [{"$unordered": [1, 2]}, [3]]}}`, `{"m": [[3], [2, 1]]}`, nil},
		{"optional member", `{"v": {"$optional": {"$unordered": [1, 2]}}}`, `{}`, nil},
		{"the whole arguments are never an array", `{"$unordered": []}`, `{}`, []string{`arguments: expected in any order [], got {}`}},
	})
}

func TestUnorderedRefusals(t *testing.T) {
	for _, tt := range []struct{ args, path, msg string }{
		{`{"v": {"$unordered": "a"}}`, "arguments.v", "$unordered needs an array of the items expected in any order (an empty array matches only []), got a string"},
		{`{"v": {"$unordered": {"a": 1}}}`, "arguments.v", "$unordered needs an array"},
		{`{"v": {"$unordered": [{"$optional": 1}]}}`, "arguments.v.$unordered[0]", "$optional may only be the value of an object member"},
		{`{"v": {"$unordered": [{"$nope": 1}]}}`, "arguments.v.$unordered[0]", `unknown matcher "$nope"`},
	} {
		v, err := jsontest.Decode([]byte(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		_, err = suite.CompileArguments(suite.FromTree(v), "arguments")
		me, ok := err.(*suite.MatcherError)
		if !ok || me.Path != tt.path || !strings.HasPrefix(me.Msg, tt.msg) {
			t.Errorf("%s: error %v, want %s: %s…", tt.args, err, tt.path, tt.msg)
		}
	}
}

func TestDecisionNotJudged(t *testing.T) {
	c := &suite.Case{ID: "[mobile]airplane|on", Severity: suite.Major, Expected: suite.Expected{
		ToolMatch: suite.MatchContains, ToolCalls: []suite.ExpectedCall{{Name: "toggle", Arguments: suite.Object{}}}}}
	calls := []suite.ToolCall{{Name: "look", Arguments: suite.Object{}}, {Name: "toggle", Arguments: suite.Object{}}}
	for _, d := range []suite.Decision{"", "escalate", "anything"} {
		if fs := Case(c, &suite.Output{Decision: d, ToolCalls: calls}, nil); fs != nil {
			t.Errorf("%s\ndecision %q: %+v", ruleNoDecide, d, fs)
		}
	}
	// With no expected call and no decision, the detail does not name
	// an empty decision.
	none := &suite.Case{ID: "x", Expected: suite.Expected{}}
	fs := Case(none, &suite.Output{ToolCalls: calls}, nil)
	if got := details(fs); got != "tool_call: expected no tool call, got 2: look, toggle" {
		t.Errorf("%s\ndetails %q", ruleNoDecide, got)
	}
	// A case with a decision still judges one, and says what was missing.
	judged := &suite.Case{ID: "y", Expected: suite.Expected{Decision: "approve"}}
	if got := details(Case(judged, &suite.Output{}, nil)); got != "decision: expected approve, got no decision" {
		t.Errorf("details %q", got)
	}
}

// TestPairingAgainstBruteForce runs FuzzPairing's check on random small
// cases of every mode, so that an ordinary test run covers thousands.
func TestPairingAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 10))
	n := 4000
	if testing.Short() {
		n = 400
	}
	for i := range n {
		data := make([]byte, 1+r.IntN(14))
		for k := range data {
			data[k] = byte(r.UintN(256))
		}
		ok := t.Run(fmt.Sprintf("case %d", i), func(t *testing.T) { checkAgainstBruteForce(t, data, uint8(i)) })
		if !ok {
			t.Fatalf("data %v, mode %s", data, pairingModes[i%len(pairingModes)])
		}
	}
}

// genUnordered builds, from fuzz bytes, the items of an $unordered
// matcher (plain values and matchers that overlap, so that one element
// may fit several items) and an array to match.
func genUnordered(data []byte) (items string, elems []any) {
	if len(data) == 0 {
		return "[]", nil
	}
	n := int(data[0]) % 6
	data = data[1:]
	var parts []string
	for i := 0; i < n && len(data) > 0; i++ {
		b := data[0]
		data = data[1:]
		v := int(b) % 3
		switch (b / 3) % 4 {
		case 0:
			parts = append(parts, fmt.Sprintf(`"x%d"`, v))
		case 1:
			parts = append(parts, fmt.Sprintf(`{"$any": ["x%d", "x%d"]}`, v, (v+1)%3))
		case 2:
			parts = append(parts, fmt.Sprintf(`{"$text": "X %d"}`, v))
		default:
			parts = append(parts, fmt.Sprintf(`{"k": "x%d"}`, v))
		}
	}
	for i := 0; i < 7 && len(data) > 0; i++ {
		b := data[0]
		data = data[1:]
		v := fmt.Sprintf("x%d", int(b)%3)
		if (b/3)%4 == 3 {
			elems = append(elems, suite.Object{{Name: "k", Value: v}})
		} else {
			elems = append(elems, v)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]", elems
}

// bruteUnordered tries every order of the elements: whether some order
// matches every item, and the most items any order matches.
func bruteUnordered(items, elems []any) (all bool, best int) {
	if len(items) != len(elems) {
		best = 0
	}
	perm := make([]int, len(elems))
	for i := range perm {
		perm[i] = i
	}
	var try func(k int)
	try = func(k int) {
		if k == len(perm) {
			got := 0
			for i := range min(len(items), len(perm)) {
				if matches(items[i], elems[perm[i]]) {
					got++
				}
			}
			best = max(best, got)
			return
		}
		for j := k; j < len(perm); j++ {
			perm[k], perm[j] = perm[j], perm[k]
			try(k + 1)
			perm[k], perm[j] = perm[j], perm[k]
		}
	}
	try(0)
	return len(items) == len(elems) && best == len(items), best
}

func checkUnordered(t *testing.T, data []byte) {
	itemsJSON, elems := genUnordered(data)
	compiled := mustExpected(t, `{"tool_calls": [{"name": "f", "arguments": {"v": {"$unordered": `+itemsJSON+`}}}]}`).ToolCalls[0].Arguments
	m := compiled.(suite.Object)[0].Value.(*suite.Matcher)
	if elems == nil {
		elems = []any{}
	}
	want, best := bruteUnordered(m.Options, elems)
	if got := matchers(m, elems); got != want {
		t.Fatalf("%s against %v: matched %v, brute force %v", itemsJSON, elems, got, want)
	}
	call := suite.ToolCall{Name: "f", Arguments: suite.Object{{Name: "v", Value: elems}}}
	ms := CompareArguments(compiled, call)
	if (len(ms) == 0) != want {
		t.Fatalf("%s against %v: comparison %v, brute force %v", itemsJSON, elems, paths(ms), want)
	}
	if len(elems) == len(m.Options) && !want {
		if n := unorderedPairs(m.Options, elems); n != best {
			t.Fatalf("%s against %v: %d pair up, brute force pairs %d", itemsJSON, elems, n, best)
		}
		if !strings.Contains(paths(ms)[0], fmt.Sprintf("at best %d pair up", best)) {
			t.Fatalf("detail %q does not say %d pair up", paths(ms)[0], best)
		}
	}
	// Reversing the items changes nothing.
	rev := slices.Clone(m.Options)
	slices.Reverse(rev)
	if got := matchers(&suite.Matcher{Kind: suite.Unordered, Options: rev}, elems); got != want {
		t.Fatalf("%s reversed against %v: matched %v, want %v", itemsJSON, elems, got, want)
	}
}

func matchers(m *suite.Matcher, v any) bool { return matcherMatches(m, v) }

// FuzzUnordered holds $unordered to a search over every order of the
// array's elements.
func FuzzUnordered(f *testing.F) {
	f.Add([]byte{2, 3, 0, 1, 0})
	f.Add([]byte{3, 0, 3, 6, 2, 1, 0})
	f.Add([]byte{0})
	f.Add([]byte{4, 9, 10, 11, 3, 0, 1, 2, 9, 10})
	f.Fuzz(checkUnordered)
}

// TestUnorderedAgainstBruteForce runs FuzzUnordered's check on random
// small cases.
func TestUnorderedAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 3))
	n := 5000
	if testing.Short() {
		n = 500
	}
	for range n {
		data := make([]byte, 1+r.IntN(14))
		for k := range data {
			data[k] = byte(r.UintN(256))
		}
		checkUnordered(t, data)
	}
}

// BenchmarkUnordered matches six items, each fitting two elements, in
// the order that makes greedy choice back up most.
func BenchmarkUnordered(b *testing.B) {
	exp := mustExpected(b, `{"tool_calls": [{"name": "f", "arguments": {"v": {"$unordered": [
		{"$any": ["a", "b"]}, {"$any": ["b", "c"]}, {"$any": ["c", "d"]}, {"$any": ["d", "e"]}, {"$any": ["e", "f"]}, "a"]}}}]}`)
	call := parseCalls(b, `[{"name": "f", "arguments": {"v": ["f", "e", "d", "c", "b", "a"]}}]`)[0]
	for b.Loop() {
		if !argumentsMatch(exp.ToolCalls[0].Arguments, &call) {
			b.Fatal("wrong verdict")
		}
	}
}
