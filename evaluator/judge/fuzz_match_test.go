package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/internal/jsontest"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// compileText decodes and compiles expected arguments written as JSON.
func compileText(s string) (any, error, bool) {
	v, err := jsontest.Decode([]byte(s))
	if _, ok := v.(map[string]any); err != nil || !ok {
		return nil, nil, false
	}
	c, err := suite.CompileArguments(suite.FromTree(v), "arguments")
	return c, err, true
}

// FuzzMatcher: no panic; the quick check agrees with the full comparison;
// the verdict, and any refusal, survive re-serialising both sides with
// other spacing and key order.
func FuzzMatcher(f *testing.F) {
	f.Add(`{"city": {"$any": [{"$text": "New York"}, "NYC"]}}`, `{"city": "new york"}`)
	f.Add(`{"$exact": {"a": 1, "b": {"$optional": [1, {"$text": "x"}]}}}`, `{"a": 1.0, "b": [1, "X"], "c": null}`)
	f.Add(`{"q": {"$literal": {"$gt": 5}}, "r": {"$optional": {"$any": [1, {"s": 2}]}}}`, `{"q": {"$gt": 5}, "r": {"s": 2, "t": 3}}`)
	f.Add(`{"a": {"$optional": 1}, "b": [{"$any": []}]}`, `{}`)
	f.Add(`{"$any": [{"a": 1}, {"$literal": {"$x": 1}}]}`, `{"$x": 1}`)
	f.Add(`{"s": {"$text": "ΟΔΟΣ\u00a0!"}}`, `{"s": "οδος"}`)
	f.Add(`{"seats": {"$unordered": ["12A", {"$any": ["12B", "12C"]}, {"$text": "12 c"}]}}`, `{"seats": ["12C", "12A", "12b"]}`)
	f.Add(`{"m": {"$unordered": [{"$unordered": [1, 2]}, {"$exact": {"a": 1}}]}}`, `{"m": [{"a": 1.0}, [2, 1]]}`)
	f.Fuzz(func(t *testing.T, expected, actual string) {
		exp, cerr, ok := compileText(expected)
		if !ok {
			return
		}
		av, err := jsontest.Decode([]byte(actual))
		am, isObj := av.(map[string]any)
		if err != nil || !isObj {
			return
		}
		ev, _ := jsontest.Decode([]byte(expected))
		exp2, cerr2, ok := compileText(string(jsontest.Respace(ev)))
		if !ok {
			t.Fatalf("re-serialised expected arguments do not decode")
		}
		if cerr != nil || cerr2 != nil {
			var m1, m2 *suite.MatcherError
			if !errors.As(cerr, &m1) || !errors.As(cerr2, &m2) || *m1 != *m2 {
				t.Fatalf("refusal changed after re-serialising: %v / %v", cerr, cerr2)
			}
			return
		}
		act := suite.ToolCall{Arguments: suite.NewObject(am)}
		ms := CompareArguments(exp, act)
		if argumentsMatch(exp, &act) != (len(ms) == 0) {
			t.Fatalf("quick check %v, comparison %v", argumentsMatch(exp, &act), paths(ms))
		}
		am2, _ := jsontest.Decode(jsontest.Respace(am))
		act2 := suite.ToolCall{Arguments: suite.NewObject(am2.(map[string]any))}
		if got, want := paths(CompareArguments(exp2, act2)), paths(ms); !slices.Equal(got, want) {
			t.Fatalf("verdict changed after re-serialising:\n got %v\nwant %v", got, want)
		}
		_ = suite.DescribeValue(exp)
	})
}

// genCase builds expected calls and output calls from fuzz bytes: three
// tool names, a few values, each matcher kind, unreadable arguments.
// It returns the expected calls' JSON, to be compiled, and the output's
// calls.
func genCase(data []byte) (expJSON []string, names []string, calls []suite.ToolCall) {
	if len(data) == 0 {
		return nil, nil, nil
	}
	n := int(data[0]) % 6
	data = data[1:]
	for i := 0; i < n && len(data) > 0; i++ {
		b := data[0]
		data = data[1:]
		v := int(b/3) % 3
		var arg string
		switch (b / 9) % 5 {
		case 0:
			arg = fmt.Sprintf(`{"v": "x%d"}`, v)
		case 1:
			arg = fmt.Sprintf(`{"v": {"$any": ["x%d", "x%d"]}}`, v, v+1)
		case 2:
			arg = fmt.Sprintf(`{"v": {"$optional": "x%d"}, "w": {"$optional": 1}}`, v)
		case 3:
			arg = fmt.Sprintf(`{"v": {"$text": "X-%d"}}`, v)
		default:
			arg = fmt.Sprintf(`{"$exact": {"v": {"$any": ["x%d", {"$text": " x %d"}]}}}`, v, v+1)
		}
		names = append(names, string(rune('a'+b%3)))
		expJSON = append(expJSON, arg)
	}
	for i := 0; i < 8 && len(data) > 0; i++ {
		b := data[0]
		data = data[1:]
		call := suite.ToolCall{Name: string(rune('a' + b%3))}
		switch w := int(b/3) % 5; {
		case (b/15)%6 == 5:
			call.Unreadable, call.Raw = true, "{v: x0}"
		case w == 3:
			call.Arguments = suite.Object{}
		case w == 4:
			call.Arguments = suite.Object{{Name: "v", Value: "x0"}, {Name: "w", Value: "extra"}}
		default:
			call.Arguments = suite.Object{{Name: "v", Value: fmt.Sprintf("x%d", w)}}
		}
		calls = append(calls, call)
	}
	return expJSON, names, calls
}

func buildExpected(t *testing.T, mode suite.ToolMatch, names, args []string, respace bool) *suite.Expected {
	var parts []string
	for i := range names {
		parts = append(parts, fmt.Sprintf(`{"name": %q, "arguments": %s}`, names[i], args[i]))
	}
	js := fmt.Sprintf(`{"decision": "act", "tool_match": %q, "tool_calls": [%s]}`, mode, strings.Join(parts, ", "))
	if respace {
		v, _ := jsontest.Decode([]byte(js))
		js = string(jsontest.Respace(v))
	}
	return mustExpected(t, js)
}

// bruteForce tries every pairing the mode allows that pairs calls by
// name: whether one exists, and the most calls any of them matches fully.
func bruteForce(exp *suite.Expected, calls []suite.ToolCall) (exists bool, best int) {
	n, m := len(exp.ToolCalls), len(calls)
	mode := exp.Mode()
	if !mode.AllowsOthers() && n != m {
		return false, 0
	}
	best = -1
	used := make([]bool, m)
	var try func(i, last, full int)
	try = func(i, last, full int) {
		if i == n {
			best = max(best, full)
			return
		}
		for j := 0; j < m; j++ {
			if used[j] || calls[j].Name != exp.ToolCalls[i].Name ||
				mode == suite.MatchExact && j != i || mode == suite.MatchSubsequence && j <= last {
				continue
			}
			used[j] = true
			f := full
			if CompareArguments(exp.ToolCalls[i].Arguments, calls[j]) == nil {
				f++
			}
			try(i+1, j, f)
			used[j] = false
		}
	}
	try(0, -1, 0)
	return best >= 0, best
}

// checkPairing verifies that p is a pairing the mode allows and returns
// how many calls it matches fully.
func checkPairing(t *testing.T, exp *suite.Expected, calls []suite.ToolCall, p Pairing) int {
	t.Helper()
	if len(p.Actual) != len(exp.ToolCalls) {
		t.Fatalf("pairing %+v has the wrong length", p)
	}
	paired := make([]bool, len(calls))
	last, full := -1, 0
	for i, j := range p.Actual {
		if j < 0 {
			continue
		}
		if j >= len(calls) || paired[j] || calls[j].Name != exp.ToolCalls[i].Name {
			t.Fatalf("pairing %+v pairs %d with %d wrongly", p, i, j)
		}
		if exp.Mode().Ordered() && j <= last {
			t.Fatalf("pairing %+v breaks the order", p)
		}
		paired[j], last = true, j
		if CompareArguments(exp.ToolCalls[i].Arguments, calls[j]) == nil {
			full++
		}
	}
	var unpaired []int
	for j, ok := range paired {
		if !ok {
			unpaired = append(unpaired, j)
		}
	}
	if !slices.Equal(unpaired, p.Unpaired) {
		t.Fatalf("pairing %+v: unpaired should be %v", p, unpaired)
	}
	return full
}

// pairingModes are the match modes FuzzPairing picks from.
var pairingModes = []suite.ToolMatch{suite.MatchExact, suite.MatchAnyOrder, suite.MatchSubsequence, suite.MatchContains}

// FuzzPairing holds the four match modes to an exhaustive search on
// small cases: the verdict's code, and a pairing that matches the most
// calls. It also checks that the verdict survives re-serialising the case
// and, for the modes without an order, reordering the expected calls.
func FuzzPairing(f *testing.F) {
	f.Add([]byte{2, 1, 10, 1, 4}, uint8(1))
	f.Add([]byte{3, 0, 1, 2, 2, 1, 0, 5, 7}, uint8(2))
	f.Add([]byte{2, 0, 0, 0, 3, 0}, uint8(0))
	f.Add([]byte{0, 1, 2}, uint8(2))
	f.Add([]byte{4, 9, 18, 27, 36, 37, 28, 19, 10, 1, 77}, uint8(1))
	f.Add([]byte{3, 0, 9, 1, 0, 4, 7, 1, 3, 0}, uint8(3))
	f.Add([]byte{2, 1, 1, 5, 4, 1, 2, 0}, uint8(3))
	f.Fuzz(checkAgainstBruteForce)
}

// checkAgainstBruteForce is the body of FuzzPairing.
func checkAgainstBruteForce(t *testing.T, data []byte, modeByte uint8) {
	mode := pairingModes[int(modeByte)%len(pairingModes)]
	args, names, calls := genCase(data)
	exp := buildExpected(t, mode, names, args, false)
	fs := judgeOutput(exp, calls)
	exists, best := bruteForce(exp, calls)
	got := codes(fs)
	hasCode := func(c Code) bool { return slices.Contains(got, c) }
	if hasCode(ToolCall) == exists {
		t.Fatalf("%s: tool_call %v, but a pairing by names exists: %v (%s)", mode, hasCode(ToolCall), exists, details(fs))
	}
	if wantArgs := exists && best < len(names); hasCode(Arguments) != wantArgs {
		t.Fatalf("%s: arguments %v, want %v (best %d of %d) (%s)", mode, hasCode(Arguments), wantArgs, best, len(names), details(fs))
	}
	p := PairCalls(exp, calls)
	if full := checkPairing(t, exp, calls, p); exists && full != best {
		t.Fatalf("%s: the pairing %+v matches %d calls, the best matches %d", mode, p, full, best)
	}
	again := judgeOutput(buildExpected(t, mode, names, args, true), calls)
	if details(again) != details(fs) {
		t.Fatalf("verdict changed after re-serialising:\n got %s\nwant %s", details(again), details(fs))
	}
	if mode.Ordered() || len(names) < 2 {
		return
	}
	// Reverse and rotate the expected calls: the same codes, and a
	// pairing that matches as many calls.
	for _, perm := range [][]int{reversed(len(names)), rotated(len(names))} {
		pn, pa := make([]string, len(names)), make([]string, len(names))
		for k, from := range perm {
			pn[k], pa[k] = names[from], args[from]
		}
		exp2 := buildExpected(t, mode, pn, pa, false)
		fs2 := judgeOutput(exp2, calls)
		if !slices.Equal(codes(fs2), got) {
			t.Fatalf("reordering the expected calls changed the codes: %v / %v", codes(fs2), got)
		}
		p2 := PairCalls(exp2, calls)
		if checkPairing(t, exp2, calls, p2) != checkPairing(t, exp, calls, p) {
			t.Fatalf("reordering the expected calls changed how many match: %+v / %+v", p2, p)
		}
		// Each expected call keeps its output call; equal expected
		// calls may trade theirs.
		if a, b := pairedByContent(names, args, p.Actual), pairedByContent(pn, pa, p2.Actual); !maps.EqualFunc(a, b, slices.Equal) {
			t.Fatalf("reordering the expected calls changed the pairing: %v / %v", b, a)
		}
	}
}

func reversed(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = n - 1 - i
	}
	return p
}

func rotated(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = (i + 1) % n
	}
	return p
}

// pairedByContent maps each distinct expected call, written as its name
// and arguments, to the sorted output calls paired with its copies.
func pairedByContent(names, args []string, actual []int) map[string][]int {
	m := map[string][]int{}
	for i, j := range actual {
		k := names[i] + " " + args[i]
		m[k] = append(m[k], j)
	}
	for _, v := range m {
		slices.Sort(v)
	}
	return m
}
