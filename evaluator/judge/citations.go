package judge

import (
	"fmt"
	"slices"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// CitationState says how a cited identifier relates to the current policy.
type CitationState int

// The states of a citation.
const (
	Current  CitationState = iota // a rule of the current policy
	Outdated                      // another version of a current rule
	Unknown                       // no current rule at all
)

// CitationCheck is one cited identifier checked against the policy.
type CitationCheck struct {
	ID    string
	State CitationState
	// Rule is the cited rule when Current, its current successor when
	// Outdated and one exists, and zero otherwise.
	Rule suite.Rule
}

// CheckCitation looks id up in the current policy.
func CheckCitation(id string, p *suite.Policy) CitationCheck {
	if r, ok := p.Rule(id); ok {
		return CitationCheck{ID: id, State: Current, Rule: r}
	}
	if r, ok := p.Successor(id); ok {
		return CitationCheck{ID: id, State: Outdated, Rule: r}
	}
	if p.OtherVersion(id) {
		return CitationCheck{ID: id, State: Outdated}
	}
	return CitationCheck{ID: id, State: Unknown}
}

// String words a citation that is not current, for failure details.
func (c CitationCheck) String() string {
	switch {
	case c.State == Current:
		return "cites " + c.ID
	case c.State == Outdated && c.Rule.ID != "":
		return fmt.Sprintf("cites outdated %s; the current rule is %s", c.ID, c.Rule.ID)
	case c.State == Outdated:
		return fmt.Sprintf("cites %s from another policy version; the current policy has no such section", c.ID)
	}
	return fmt.Sprintf("cites %q, which is not a rule of the current policy", c.ID)
}

// citationProblems words what is wrong with the citations of an output:
// each expected rule it does not cite, and each citation that is not
// current. Most outputs have none, so citationsOK answers first (see
// "Fast paths" in docs/design.md).
func citationProblems(expected, actual []string, p *suite.Policy) []string {
	if citationsOK(expected, actual, p) {
		return nil
	}
	return listCitationProblems(expected, actual, p)
}

// listCitationProblems is citationProblems without the quick answer.
func listCitationProblems(expected, actual []string, p *suite.Policy) []string {
	var problems []string
	cited := make(map[string]bool, len(actual))
	for _, id := range actual {
		cited[id] = true
	}
	reported := map[string]bool{}
	for _, id := range expected {
		if !cited[id] && !reported[id] {
			reported[id] = true
			problems = append(problems, "missing "+id)
		}
	}
	for _, id := range actual {
		if reported[id] {
			continue
		}
		reported[id] = true
		if c := CheckCitation(id, p); c.State != Current {
			problems = append(problems, c.String())
		}
	}
	return problems
}

// citationsOK is the common case of citationProblems without allocating:
// every expected rule cited and every citation current.
func citationsOK(expected, actual []string, p *suite.Policy) bool {
	for _, id := range expected {
		if !slices.Contains(actual, id) {
			return false
		}
	}
	for _, id := range actual {
		if _, ok := p.Rule(id); !ok {
			return false
		}
	}
	return true
}
