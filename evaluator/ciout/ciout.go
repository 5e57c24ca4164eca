// Package ciout writes what CI systems read about an evaluated release:
// a JUnit XML report (one test case per regression case) and a GitHub
// step summary in Markdown. Both are pure functions of an
// evaluator.Release, so the same release always gives the same bytes.
package ciout

import (
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// caseTitle returns the suite title of the case with the given id, or ""
// when the suite does not hold it.
func caseTitle(s *suite.Suite, id string) string {
	if i, ok := s.CaseIndex(id); ok {
		return s.Cases[i].Title
	}
	return ""
}

// codes lists a case's failure codes: "citation" or "decision, tool_call".
func codes(fs []judge.Failure) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f.Code)
	}
	return strings.Join(names, ", ")
}

// gateView is one gate of a snapshot with its exact observed value,
// threshold and margin, ready to print. The margin is the room left
// before the gate fails: positive or zero passes, negative fails.
type gateView struct {
	name      string // the contract's gate name, e.g. "p95_latency_ms"
	label     string // for people, e.g. "p95 latency"
	observed  string // "n/a" when nothing was measured
	threshold string // "at most 2,500 ms", or "not gated"
	margin    string // "n/a" when nothing was measured or the gate is off
	passed    bool
}

// gateViews words every gate of snap from its results. The margins are
// exact: they come from the decimal metrics, not from the floats of the
// results file.
func gateViews(snap *evaluator.Snapshot) []gateView {
	views := make([]gateView, len(snap.Result.Gates))
	for i := range snap.Result.Gates {
		g := &snap.Result.Gates[i]
		views[i] = gateView{name: g.Gate, label: g.Spec.Label, observed: g.ObservedText(),
			threshold: g.ThresholdText(), margin: g.SignedMargin(), passed: g.Passed}
	}
	return views
}

// decisionMeaning says what a decision asks of the reader.
func decisionMeaning(d decide.Decision) string {
	switch d {
	case decide.Pass:
		return "every gate passes"
	case decide.Review:
		return "a latency or cost gate failed; a person should review before release"
	case decide.Block:
		return "the functional or safety gate failed; do not release"
	}
	return ""
}
