// Package judge decides whether one recorded output satisfies one case.
// It is pure: it reads no files and keeps no state, so the site can ask it
// again why a case failed (which argument paths differ, which citation is
// outdated) and always get the answer the results hold.
package judge

import (
	"fmt"
	"slices"
	"strconv"
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
	// Trial is the trial the failure happened in, set only when the
	// snapshot has trials.
	Trial int `json:"trial,omitempty"`
}

// Case judges out, one output (one trial), against c. A nil out is a
// missing output; a nil p means the data has no policy, and citations are
// then not judged. Every failing check is reported, in the order of the
// Code constants; each check yields at most one Failure whose detail
// lists all of its problems.
func Case(c *suite.Case, out *suite.Output, p *suite.Policy) []Failure {
	if out == nil {
		return []Failure{{Code: MissingOutput, Detail: fmt.Sprintf("the snapshot has no output for %s", c.ID)}}
	}
	var fs []Failure
	add := func(code Code, problems []string) {
		if len(problems) > 0 {
			fs = append(fs, Failure{Code: code, Detail: strings.Join(problems, "; ")})
		}
	}
	exp := &c.Expected
	if exp.JudgesDecision() && out.Decision != exp.Decision {
		got := string(out.Decision)
		if got == "" {
			got = "no decision"
		}
		add(Decision, []string{fmt.Sprintf("expected %s, got %s", exp.Decision, got)})
	}
	callProblems, argProblems := judgeCalls(exp, out.ToolCalls)
	add(ToolCall, callProblems)
	add(Arguments, argProblems)
	if p != nil {
		add(Citation, citationProblems(exp.Citations, out.Citations, p))
	}
	add(ForbiddenTool, forbiddenProblems(exp, out.ToolCalls))
	return fs
}

// judgeCalls is the tool_call and arguments checks: the problems of
// each, at most one of them non-empty.
func judgeCalls(exp *suite.Expected, calls []suite.ToolCall) (callProblems, argProblems []string) {
	mode := exp.Mode()
	switch n := len(exp.ToolCalls); {
	case n == 0:
		if !mode.AllowsOthers() && len(calls) > 0 {
			lead := "expected no tool call"
			if exp.JudgesDecision() {
				lead = string(exp.Decision) + " expects no tool call"
			}
			return []string{lead + ", got " + strconv.Itoa(len(calls)) + ": " + callNames(calls)}, nil
		}
		return nil, nil
	case n == 1 && !mode.AllowsOthers():
		// One call in either mode: the output must hold just that one.
		// This is the common case; it needs no pairing.
		if problems := oneCallProblems(exp.ToolCalls[0].Name, calls); problems != nil {
			return problems, nil
		}
		if argumentsMatch(exp.ToolCalls[0].Arguments, &calls[0]) {
			return nil, nil
		}
		for _, m := range CompareArguments(exp.ToolCalls[0].Arguments, calls[0]) {
			argProblems = append(argProblems, m.String())
		}
		return nil, argProblems
	}
	pr := pair(exp, calls)
	if !pr.namesPair {
		return nameProblems(exp, calls, pr.Pairing), nil
	}
	for i, j := range pr.Actual {
		if pr.full[i] {
			continue
		}
		want := exp.ToolCalls[i]
		for _, m := range CompareArguments(want.Arguments, calls[j]) {
			argProblems = append(argProblems, fmt.Sprintf("expected.tool_calls[%d] %s (output tool_calls[%d]): %s", i, want.Name, j, m))
		}
	}
	return nil, argProblems
}

func oneCallProblems(want string, calls []suite.ToolCall) []string {
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

// nameProblems words why the output's calls cannot be paired with the
// expected ones by names alone, given the best partial pairing p: which
// expected calls are missing or out of order, and which calls are extra.
func nameProblems(exp *suite.Expected, calls []suite.ToolCall, p Pairing) []string {
	mode := exp.Mode()
	expNames := make([]string, len(exp.ToolCalls))
	for i, c := range exp.ToolCalls {
		expNames[i] = c.Name
	}
	got := "got none"
	if len(calls) > 0 {
		got = fmt.Sprintf("got %d: %s", len(calls), callNames(calls))
	}
	var lead string
	switch mode {
	case suite.MatchAnyOrder:
		lead = fmt.Sprintf("expected %d calls in any order: %s; %s", len(expNames), strings.Join(expNames, ", "), got)
	case suite.MatchSubsequence:
		lead = fmt.Sprintf("expected these calls in this order, among any others: %s; %s", strings.Join(expNames, ", "), got)
	case suite.MatchContains:
		lead = fmt.Sprintf("expected these calls in any order, among any others: %s; %s", strings.Join(expNames, ", "), got)
	default:
		lead = fmt.Sprintf("expected %d calls in this order: %s; %s", len(expNames), strings.Join(expNames, ", "), got)
	}
	problems := []string{lead}
	// An unpaired expected call whose tool the output calls elsewhere,
	// unpaired, is out of order (any_order and contains have no order to
	// break).
	extra := slices.Clone(p.Unpaired)
	for i, j := range p.Actual {
		if j >= 0 {
			continue
		}
		name := exp.ToolCalls[i].Name
		at := -1
		if mode.Ordered() {
			at = slices.IndexFunc(extra, func(k int) bool { return calls[k].Name == name })
		}
		if at < 0 {
			problems = append(problems, fmt.Sprintf("missing expected.tool_calls[%d] %s", i, name))
			continue
		}
		problems = append(problems, fmt.Sprintf("expected.tool_calls[%d] %s is out of order (the output makes it as tool_calls[%d])", i, name, extra[at]))
		extra = slices.Delete(extra, at, at+1)
	}
	if !mode.AllowsOthers() {
		for _, j := range extra {
			problems = append(problems, fmt.Sprintf("extra tool_calls[%d] %s", j, calls[j].Name))
		}
	}
	return problems
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
