// Package judge decides whether one recorded output satisfies one case.
// It is pure: it reads no files and keeps no state, so the site can ask it
// again why a case failed (which argument paths differ, which citation is
// outdated) and always get the answer the results hold.
package judge

import (
	"fmt"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Code names the check that failed.
type Code string

// The failure codes, in the order checks are reported.
const (
	MissingOutput Code = "missing_output"
	Decision      Code = "decision"
	ToolCall      Code = "tool_call"
	Arguments     Code = "arguments"
	Citation      Code = "citation"
	ForbiddenTool Code = "forbidden_tool"
)

// Failure is one failed check with a detail a reviewer can act on.
type Failure struct {
	Code   Code   `json:"code"`
	Detail string `json:"detail"`
}

// Case judges out against c. A nil out is a missing output. Every failing
// check is reported, in the order of the Code constants; each check yields
// at most one Failure whose detail lists all of its problems.
func Case(c *suite.Case, out *suite.Output, p *suite.Policy) []Failure {
	if out == nil {
		return []Failure{{MissingOutput, fmt.Sprintf("the snapshot has no output for %s", c.ID)}}
	}
	var fs []Failure
	add := func(code Code, problems []string) {
		if len(problems) > 0 {
			fs = append(fs, Failure{code, strings.Join(problems, "; ")})
		}
	}
	exp := &c.Expected
	if out.Decision != exp.Decision {
		add(Decision, []string{fmt.Sprintf("expected %s, got %s", exp.Decision, out.Decision)})
	}
	add(ToolCall, toolCallProblems(exp, out.ToolCalls))
	if call, ok := MatchedCall(exp, out.ToolCalls); ok {
		var problems []string
		for _, m := range CompareArguments(exp.ToolCalls[0].Arguments, call) {
			problems = append(problems, m.String())
		}
		add(Arguments, problems)
	}
	if p != nil {
		add(Citation, citationProblems(exp.Citations, out.Citations, p))
	}
	add(ForbiddenTool, forbiddenProblems(exp, out.ToolCalls))
	return fs
}

// Pairing is how an output's calls were paired with the expected ones.
type Pairing struct {
	Actual   []int // per expected call, the index of the output call paired with it, or -1
	Unpaired []int // indexes of output calls paired with no expected call
}

// PairCalls returns the pairing the judge used: the one that matched the
// most calls.
func PairCalls(exp *suite.Expected, calls []suite.ToolCall) Pairing {
	p := Pairing{Actual: make([]int, len(exp.ToolCalls))}
	for i := range p.Actual {
		p.Actual[i] = -1
		if i < len(calls) && calls[i].Name == exp.ToolCalls[i].Name {
			p.Actual[i] = i
		}
	}
	for j := range calls {
		if j >= len(p.Actual) || p.Actual[j] != j {
			p.Unpaired = append(p.Unpaired, j)
		}
	}
	return p
}

// MatchedCall returns the output's tool call when the arguments check
// applies: the case expects a call and the output holds exactly one call,
// of the expected name.
func MatchedCall(exp *suite.Expected, calls []suite.ToolCall) (suite.ToolCall, bool) {
	if len(exp.ToolCalls) != 1 || len(calls) != 1 || calls[0].Name != exp.ToolCalls[0].Name {
		return suite.ToolCall{}, false
	}
	return calls[0], true
}

func toolCallProblems(exp *suite.Expected, calls []suite.ToolCall) []string {
	if len(exp.ToolCalls) == 0 {
		if len(calls) > 0 {
			return []string{fmt.Sprintf("%s expects no tool call, got %d: %s", exp.Decision, len(calls), callNames(calls))}
		}
		return nil
	}
	want := exp.ToolCalls[0].Name
	switch {
	case len(calls) == 0:
		return []string{fmt.Sprintf("expected one call to %s, got none", want)}
	case len(calls) > 1:
		return []string{fmt.Sprintf("expected exactly one call to %s, got %d: %s", want, len(calls), callNames(calls))}
	case calls[0].Name != want:
		return []string{fmt.Sprintf("expected a call to %s, got %s", want, calls[0].Name)}
	}
	return nil
}

func callNames(calls []suite.ToolCall) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func forbiddenProblems(exp *suite.Expected, calls []suite.ToolCall) []string {
	var problems []string
	seen := map[string]bool{}
	for _, c := range calls {
		if exp.Forbids(c.Name) && !seen[c.Name] {
			seen[c.Name] = true
			problems = append(problems, fmt.Sprintf("called forbidden tool %s", c.Name))
		}
	}
	return problems
}
