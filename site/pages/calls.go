package pages

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// CallPairs sets an output's tool calls beside the expected ones, paired
// as the judge paired them under the case's tool_match.
type CallPairs struct {
	Mode     string // "exact", "any_order", "subsequence", "contains"
	ModeText string // what the mode asks, in words
	Pairs    []CallPair
	// Unpaired are the output's calls that no expected call was paired
	// with, in output order.
	Unpaired []CallView
	// UnpairedNote says whether those calls are allowed.
	UnpairedNote string
	// NoneExpected says that the case expects no call; with HasOutput
	// false the page shows the expected side only.
	NoneExpected bool
	HasOutput    bool
	NoCalls      bool // the output made no call at all
	// Mismatches word every differing argument of every pair.
	Mismatches []string
}

// CallPair is one expected call and the output call paired with it.
type CallPair struct {
	Expected CallView
	Actual   *CallView // nil: no output call was paired with it
	// Verdict is "matches", "arguments differ" or "call not made".
	Verdict Badge
}

// modeText words each tool_match mode for the page.
var modeText = map[suite.ToolMatch]string{
	suite.MatchExact:       "exactly these calls, in this order",
	suite.MatchAnyOrder:    "exactly these calls, in any order",
	suite.MatchSubsequence: "these calls in this order; other calls may come before, between and after",
	suite.MatchContains:    "these calls in any order; other calls may come before, between and after",
}

// The badges of a call pair.
var (
	callMatches = newBadge("matches", "pass", "✓")
	callDiffers = newBadge("arguments differ", "fail", "✕")
	callMissing = newBadge("call not made", "fail", "✕")
)

// callPairs builds the comparison of out's calls with the case's expected
// ones; out is nil when the snapshot holds no output for the case.
func callPairs(exp *suite.Expected, out *suite.Output) CallPairs {
	mode := exp.Mode()
	cp := CallPairs{Mode: string(mode), ModeText: modeText[mode], NoneExpected: len(exp.ToolCalls) == 0, HasOutput: out != nil}
	if len(exp.ToolCalls) == 0 && !mode.AllowsOthers() {
		cp.ModeText = "no call at all"
	}
	expectedView := func(i int) CallView {
		c := exp.ToolCalls[i]
		cv := CallView{Index: i + 1, Name: c.Name, Lines: expectedLines(c.Arguments), Note: "with at least these arguments"}
		if m, ok := c.Arguments.(*suite.Matcher); ok && m.Kind == suite.ExactObject {
			cv.Note = "with exactly these arguments"
		}
		return cv
	}
	if out == nil {
		for i := range exp.ToolCalls {
			cp.Pairs = append(cp.Pairs, CallPair{Expected: expectedView(i)})
		}
		cp.finish()
		return cp
	}
	cp.NoCalls = len(out.ToolCalls) == 0
	pairing := judge.PairCalls(exp, out.ToolCalls)
	for i := range exp.ToolCalls {
		pair := CallPair{Expected: expectedView(i), Verdict: callMissing}
		if i < len(pairing.Actual) && pairing.Actual[i] >= 0 && pairing.Actual[i] < len(out.ToolCalls) {
			j := pairing.Actual[i]
			actual := actualView(exp, out.ToolCalls[j], j)
			ms := judge.CompareArguments(exp.ToolCalls[i].Arguments, out.ToolCalls[j])
			markMismatches(pair.Expected.Lines, ms, true)
			markMismatches(actual.Lines, ms, false)
			pair.Verdict = callMatches
			if len(ms) > 0 {
				pair.Verdict = callDiffers
			}
			for _, m := range ms {
				text := m.String()
				if len(exp.ToolCalls) > 1 {
					text = fmt.Sprintf("call %d: %s", i+1, text)
				}
				cp.Mismatches = append(cp.Mismatches, text)
			}
			pair.Actual = &actual
		}
		cp.Pairs = append(cp.Pairs, pair)
	}
	for _, j := range pairing.Unpaired {
		if j < 0 || j >= len(out.ToolCalls) {
			continue
		}
		cp.Unpaired = append(cp.Unpaired, actualView(exp, out.ToolCalls[j], j))
	}
	switch {
	case len(cp.Unpaired) == 0:
	case mode.AllowsOthers():
		cp.UnpairedNote = "Calls paired with no expected call; " + string(mode) + " allows them."
	default:
		cp.UnpairedNote = "Calls paired with no expected call; " + string(mode) + " allows none."
	}
	cp.finish()
	return cp
}

// finish renders the argument lines of every call for the page.
func (cp *CallPairs) finish() {
	for i := range cp.Pairs {
		p := &cp.Pairs[i]
		p.Expected.Code = jsonHTML(p.Expected.Lines)
		if p.Actual != nil {
			p.Actual.Code = jsonHTML(p.Actual.Lines)
		}
	}
	for i := range cp.Unpaired {
		cp.Unpaired[i].Code = jsonHTML(cp.Unpaired[i].Lines)
	}
}

// actualView shows the output's call j; a forbidden tool is noted.
func actualView(exp *suite.Expected, call suite.ToolCall, j int) CallView {
	cv := CallView{Index: j + 1, Name: call.Name}
	if call.Unreadable {
		cv.Unreadable = true
		cv.Raw = call.Raw
		cv.Note = "arguments are not a JSON object"
	} else {
		cv.Lines = jsonLines("arguments", call.Arguments.Map())
	}
	if exp.Forbids(call.Name) {
		cv.Note = "forbidden for this case"
	}
	return cv
}

// expectedLines prints expected arguments with each matcher in words.
func expectedLines(args any) []JSONLine {
	var lines []JSONLine
	writeExpected(&lines, 0, "", "arguments", args, "")
	return lines
}

// writeExpected is writeJSON for compiled expected values: objects are
// suite.Objects and matchers are written as what they accept. An $exact
// object is laid out member by member under its words, so a differing
// member can be marked on its own line.
func writeExpected(lines *[]JSONLine, depth int, key, path string, v any, comma string) {
	if depth >= maxIndentDepth {
		*lines = append(*lines, JSONLine{Text: indentOf(depth) + key + suite.DescribeValue(v) + comma, Path: path})
		return
	}
	switch x := v.(type) {
	case *suite.Matcher:
		if x.Kind == suite.ExactObject {
			if o, ok := x.Value.(suite.Object); ok {
				writeObject(lines, depth, key, path, o, comma, "exactly these members, no others")
				return
			}
		}
		*lines = append(*lines, JSONLine{Text: indentOf(depth) + key, Path: path, Matcher: x.Describe() + comma})
	case suite.Object:
		writeObject(lines, depth, key, path, x, comma, "")
	case []any:
		if len(x) == 0 {
			*lines = append(*lines, JSONLine{Text: indentOf(depth) + key + "[]" + comma, Path: path})
			return
		}
		*lines = append(*lines, JSONLine{Text: indentOf(depth) + key + "[", Path: path})
		for i, e := range x {
			writeExpected(lines, depth+1, "", path+"["+strconv.Itoa(i)+"]", e, commaAfter(i, len(x)))
		}
		*lines = append(*lines, JSONLine{Text: indentOf(depth) + "]" + comma})
	default:
		*lines = append(*lines, JSONLine{Text: indentOf(depth) + key + scalarJSON(suite.ToTree(v)) + comma, Path: path})
	}
}

// writeObject lays out an expected object; words, when set, say what the
// matcher around it accepts.
func writeObject(lines *[]JSONLine, depth int, key, path string, o suite.Object, comma, words string) {
	if len(o) == 0 {
		*lines = append(*lines, JSONLine{Text: indentOf(depth) + key + "{}" + comma, Path: path, Matcher: words})
		return
	}
	open := JSONLine{Text: indentOf(depth) + key + "{", Path: path}
	if words != "" {
		open.Text += " "
		open.Matcher = words
	}
	*lines = append(*lines, open)
	for i, m := range o {
		writeExpected(lines, depth+1, quote(m.Name)+": ", path+judge.KeySegment(m.Name), m.Value, commaAfter(i, len(o)))
	}
	*lines = append(*lines, JSONLine{Text: indentOf(depth) + "}" + comma})
}

func indentOf(depth int) string { return strings.Repeat("  ", depth) }

func commaAfter(i, n int) string {
	if i == n-1 {
		return ""
	}
	return ","
}

// callIndex finds a call named by its place in a list as the results
// files write it, counted from 0: "tool_calls[0]", "expected.tool_calls[2]".
var callIndex = regexp.MustCompile(`(expected\.)?tool_calls\[(\d+)\]`)

// CallsFromOne rewrites a failure detail for people, who count calls from
// 1 as the call panels do: "expected.tool_calls[0] lookup (output
// tool_calls[1])" reads "expected call 1 lookup (output call 2)". The
// results file keeps its own words.
func CallsFromOne(detail string) string {
	if !strings.Contains(detail, "tool_calls[") {
		return detail
	}
	return callIndex.ReplaceAllStringFunc(detail, func(m string) string {
		sub := callIndex.FindStringSubmatch(m)
		n, err := strconv.Atoi(sub[2])
		if err != nil {
			return m
		}
		if sub[1] != "" {
			return "expected call " + strconv.Itoa(n+1)
		}
		return "call " + strconv.Itoa(n+1)
	})
}

// readableFailures are failures with their details worded by
// callsFromOne.
func readableFailures(fs []judge.Failure) []judge.Failure {
	out := make([]judge.Failure, len(fs))
	for i, f := range fs {
		f.Detail = CallsFromOne(f.Detail)
		out[i] = f
	}
	return out
}
