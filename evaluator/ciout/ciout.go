// Package ciout writes what CI systems read about an evaluated release:
// a JUnit XML report (one test case per regression case) and a GitHub
// step summary in Markdown. Both are pure functions of an
// evaluator.Release, so the same release always gives the same bytes.
package ciout

import (
	"math/big"
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

// gateView is one gate of a snapshot with its exact observed value, limit
// and margin, ready to print. The margin is the room left before the
// gate fails: positive or zero passes, negative fails.
type gateView struct {
	name     string // the contract's gate name, e.g. "p95_latency_ms"
	label    string // for people, e.g. "p95 latency"
	bound    string // "at least" or "at most"
	observed string // "n/a" when nothing was measured
	limit    string
	margin   string // "n/a" when nothing was measured
	passed   bool
}

// gateViews computes every gate of snap against the suite's thresholds.
// The margins are exact: they come from the decimal metrics, not from the
// floats of the results file.
func gateViews(g suite.Gate, snap *evaluator.Snapshot) []gateView {
	m := snap.Metrics
	passed := map[string]bool{}
	for _, gr := range snap.Result.Gates {
		passed[gr.Gate] = gr.Passed
	}
	views := []gateView{
		{name: decide.GatePassRate, label: "pass rate", bound: "at least",
			observed: percent(m.PassRate), limit: percent(g.MinPassRate.Rat()),
			margin: signed(new(big.Rat).Sub(m.PassRate, g.MinPassRate.Rat()), percentPoints)},
		{name: decide.GateCriticalFailures, label: "critical failures", bound: "at most",
			observed: big.NewRat(int64(m.CriticalFailures), 1).RatString(),
			limit:    big.NewRat(int64(g.MaxCriticalFailures), 1).RatString(),
			margin:   signed(big.NewRat(int64(g.MaxCriticalFailures-m.CriticalFailures), 1), (*big.Rat).RatString)},
		{name: decide.GateP95Latency, label: "p95 latency", bound: "at most",
			observed: "n/a", limit: evaluator.FormatMS(g.MaxP95LatencyMS.Rat()), margin: "n/a"},
		{name: decide.GateAvgCost, label: "average cost", bound: "at most",
			observed: "n/a", limit: usd(g.MaxAvgCostUSD.Rat()), margin: "n/a"},
	}
	if m.P95LatencyMS != nil {
		p95 := m.P95LatencyMS.Rat()
		views[2].observed = evaluator.FormatMS(p95)
		views[2].margin = signed(new(big.Rat).Sub(g.MaxP95LatencyMS.Rat(), p95), evaluator.FormatMS)
	}
	if m.AvgCostUSD != nil {
		views[3].observed = usd(m.AvgCostUSD)
		views[3].margin = signed(new(big.Rat).Sub(g.MaxAvgCostUSD.Rat(), m.AvgCostUSD), usd)
	}
	for i := range views {
		views[i].passed = passed[views[i].name]
	}
	return views
}

// percent writes a rate as a percentage with at most two decimals: 91.67%.
func percent(r *big.Rat) string {
	return evaluator.FormatDecimal(new(big.Rat).Mul(r, big.NewRat(100, 1)), 2) + "%"
}

// percentPoints writes a difference of rates in percentage points.
func percentPoints(r *big.Rat) string {
	p := new(big.Rat).Mul(r, big.NewRat(100, 1))
	if p.Sign() != 0 && p.Cmp(big.NewRat(1, 200)) < 0 {
		// Rounding would show a real difference as zero.
		return "<0.01 pp"
	}
	return evaluator.FormatDecimal(p, 2) + " pp"
}

// usd writes an exact amount of money: USD 0.0125.
func usd(r *big.Rat) string { return evaluator.FormatUSD(r) }

// signed writes r with an explicit sign ("+", "-", or none for zero) in
// front of format's rendering of its absolute value, so formats need not
// know about negative numbers.
func signed(r *big.Rat, format func(*big.Rat) string) string {
	abs := new(big.Rat).Abs(r)
	switch r.Sign() {
	case 1:
		return "+" + format(abs)
	case -1:
		return "-" + format(abs)
	}
	return format(abs)
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
