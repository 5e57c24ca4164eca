package load

import (
	"bytes"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// A case line is mostly read to be checked: the schema, the id, the
// vocabulary, the policy's rules. Building it into a tree first and
// reading the tree into a Case costs more than the checks, so a line
// found valid (jsonDecoder.valid) is read straight into its Case,
// checked against the quick form of the schema from its text
// (checkText), and only the expected arguments are built, as the judge
// needs them. Anything short of a certain pass (an unsure schema
// verdict, a missing or mistyped field, an unknown decision or rule)
// gives up, and the line is parsed the exact way (parseTree), which
// words the problem. FuzzQuickCase holds the two to the same cases and
// errors; what the fast path saves is in "Fast paths", docs/design.md.

// Bits of the members a case must have.
const (
	caseIDBit = 1 << iota
	titleBit
	severityBit
	inputBit
	expectedBit
	requiredCaseFields = caseIDBit | titleBit | severityBit | inputBit | expectedBit
)

// quickCase is parse for a line that d.valid accepted, just before;
// false means the line must be parsed the exact way.
func (p *caseParser) quickCase(d *jsonDecoder, text []byte, line int) (*suite.Case, bool) {
	if p.schema != nil && p.schema.quick == nil {
		return nil, false
	}
	s := newValidScanner(text, d)
	s.ends = &d.ends // what quickValid found, when it decided
	if s.next() != '{' {
		return nil, false
	}
	c := &suite.Case{Line: line}
	var seen uint8
	ok := s.members(func(name []byte) bool {
		ok := true
		switch string(name) {
		case "case_id":
			seen |= caseIDBit
			c.ID, ok = s.quickString(false)
			ok = ok && suite.ValidCaseID(c.ID) == nil
		case "title":
			seen |= titleBit
			c.Title, ok = s.quickString(false)
			ok = ok && c.Title != ""
		case "severity":
			seen |= severityBit
			var sev string
			sev, ok = s.quickString(true)
			c.Severity = suite.Severity(sev)
			ok = ok && c.Severity.Valid()
		case "input":
			seen |= inputBit
			if ok = s.next() == '{'; ok {
				start := s.i
				s.skip()
				if p.keepInput {
					c.Input = bytes.Clone(text[start:s.i])
				}
			}
		case "expected":
			seen |= expectedBit
			ok = p.quickExpected(s, &c.Expected)
		default:
			s.skip()
		}
		return ok
	})
	if !ok || seen != requiredCaseFields {
		return nil, false
	}
	// The schema reads the line again, passing over at once the objects
	// and arrays it does not look into.
	if p.schema != nil && p.schema.quick.checkText(&validScanner{b: text, d: d, ends: s.ends, plain: s.plain}) != yes {
		return nil, false
	}
	return c, true
}

// quickExpected reads a case's expected member into e; false for
// anything parse would refuse.
func (p *caseParser) quickExpected(s *validScanner, e *suite.Expected) bool {
	if s.next() != '{' {
		return false
	}
	const callsBit, forbiddenBit = 1, 2
	var seen uint8
	ok := s.members(func(name []byte) bool {
		ok := true
		switch string(name) {
		case "decision":
			var dec string
			dec, ok = s.quickString(true)
			e.Decision = suite.Decision(dec)
			ok = ok && p.decisions.Allows(e.Decision)
		case "tool_calls":
			seen |= callsBit
			e.ToolCalls, ok = s.expectedCalls()
		case "citations":
			e.Citations, ok = s.quickCitations()
			ok = ok && p.knownRules(e.Citations)
		case "forbidden_tools":
			seen |= forbiddenBit
			e.ForbiddenTools, ok = s.quickCitations()
		case "tool_match":
			var m string
			m, ok = s.quickString(true)
			e.ToolMatch = suite.ToolMatch(m)
			ok = ok && e.ToolMatch.Valid()
		default:
			s.skip()
		}
		return ok
	})
	if !ok || seen != callsBit|forbiddenBit {
		return false
	}
	if e.Citations == nil {
		e.Citations = []string{}
	}
	for _, call := range e.ToolCalls {
		if e.Forbids(call.Name) {
			return false
		}
	}
	return true
}

// knownRules reports whether every citation is a rule of the policy.
func (p *caseParser) knownRules(citations []string) bool {
	for _, id := range citations {
		if p.policy == nil {
			return false
		}
		if _, ok := p.policy.Rule(id); !ok {
			return false
		}
	}
	return true
}

// expectedCalls reads an array of {"name": string, "arguments": object}
// as fieldReader.expectedCalls does; false for anything it would refuse.
func (s *validScanner) expectedCalls() ([]suite.ExpectedCall, bool) {
	if s.next() != '[' {
		return nil, false
	}
	calls := make([]suite.ExpectedCall, 0, 1) // one call is the common case
	ok := s.elements(func() bool {
		if s.next() != '{' {
			return false
		}
		var call suite.ExpectedCall
		var args any
		hasName, hasArgs := false, false
		ok := s.members(func(name []byte) bool {
			switch string(name) {
			case "name":
				var ok bool
				call.Name, ok = s.quickString(false)
				hasName = true
				return ok && call.Name != ""
			case "arguments":
				if s.next() != '{' {
					return false
				}
				args, hasArgs = s.value(), true
			default:
				s.skip()
			}
			return true
		})
		if !ok || !hasName || !hasArgs {
			return false
		}
		// The path names a matcher's mistake, and a mistake sends the
		// line to the exact parser, which words it with the real path.
		compiled, err := suite.CompileArguments(args, "expected.tool_calls")
		if err != nil {
			return false
		}
		call.Arguments = compiled
		calls = append(calls, call)
		return true
	})
	return calls, ok
}
