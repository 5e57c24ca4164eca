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
	name      string // the gate's name in results files, e.g. "p95_latency_ms"
	label     string // for people, e.g. "p95 latency"
	observed  string // "n/a" when nothing was measured
	threshold string // "at most 2,500 ms", or "not gated"
	margin    string // "n/a" when nothing was measured or the gate is off
	passed    bool
	outcome   decide.Outcome
	// unproven says, for an inconclusive gate, why and what would
	// settle it; "" otherwise.
	unproven string
}

// gateViews words every gate of snap from its results. The margins are
// exact: they come from the decimal metrics, not from the floats of the
// results file.
func gateViews(snap *evaluator.Snapshot) []gateView {
	views := make([]gateView, len(snap.Result.Gates))
	for i := range snap.Result.Gates {
		g := &snap.Result.Gates[i]
		views[i] = gateView{name: g.Gate, label: g.Spec.Label, observed: g.ObservedText(),
			threshold: g.ThresholdText(), margin: g.SignedMargin(), passed: g.Passed, outcome: g.Outcome()}
		if g.Inconclusive {
			views[i].unproven = g.FailureText() + "; " + g.SettleText()
		}
	}
	return views
}

// verdict words a gate's outcome in capitals for JUnit: "pass", "FAIL",
// "INCONCLUSIVE".
func (g gateView) verdict() string {
	switch g.outcome {
	case decide.Failed:
		return "FAIL"
	case decide.Inconclusive:
		return "INCONCLUSIVE"
	}
	return "pass"
}

// decisionMeaning says what the decision of snapshot s asks of the
// reader, naming the gates that can force it under g ("the functional or
// safety gate failed; do not release") and, for a review, whether the
// pass rate is unproven.
func decisionMeaning(gates decide.Gates, s *evaluator.Snapshot, g suite.Gate) string {
	var block, review, unproven []string
	for _, spec := range gates.Applicable(g) {
		aspect, _, _ := strings.Cut(spec.Topic, ":")
		aspect = strings.ToLower(aspect)
		if spec.Fails == decide.Block {
			block = append(block, aspect)
		} else {
			review = append(review, aspect)
		}
	}
	failed := false
	for i := range s.Result.Gates {
		gr := &s.Result.Gates[i]
		switch {
		case gr.Inconclusive:
			unproven = append(unproven, gr.Spec.Label)
		case gr.Forces() == decide.Review:
			failed = true
		}
	}
	switch s.Result.Decision {
	case decide.Pass:
		return "every gate passes"
	case decide.Review:
		var why []string
		if failed {
			why = append(why, "a "+orList(review)+" gate failed")
		}
		if len(unproven) > 0 {
			why = append(why, "the "+orList(unproven)+" is not proven")
		}
		return strings.Join(why, " and ") + "; a person should review before release"
	case decide.Block:
		return "the " + orList(block) + " gate failed; do not release"
	}
	return ""
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// evidenceNote words the evidence behind one case's change: "one run
// each: could be chance", "within noise (Fisher p = 0.5)".
func evidenceNote(ch decide.CaseChange) string {
	note := ch.Evidence.Words()
	if ch.PValue != nil {
		note += " (Fisher " + decide.FormatP(ch.P) + ")"
	}
	return note
}

// comparisonNote words a comparison for CI properties, the test named:
// "baseline-v1: 3 fixed, 0 regressed — could be chance (exact McNemar
// p = 0.25)".
func comparisonNote(c *decide.Comparison) string {
	s := c.Label + ": " + c.Counts() + " — " + c.Verdict()
	if c.Regressions+c.Fixes > 0 {
		s += " (exact McNemar " + decide.FormatP(c.P) + ")"
	}
	return s
}
