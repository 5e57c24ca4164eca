package pages

import (
	"html"
	"html/template"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Badge shows a release decision or a verdict. The icon is decoration;
// the text carries the meaning, so colour is never the only signal.
type Badge struct {
	Text  string // "PASS"
	Class string // "pass", for the stylesheet
	Icon  string
	// HTML is the badge's markup. There are only five badges and a large
	// site shows them tens of thousands of times, so each is written once
	// here instead of by a template call per use.
	HTML template.HTML
}

func newBadge(text, class, icon string) Badge {
	b := Badge{Text: text, Class: class, Icon: icon}
	b.HTML = template.HTML(`<span class="badge badge-` + html.EscapeString(class) + `"><span class="badge-icon" aria-hidden="true">` +
		html.EscapeString(icon) + `</span> ` + html.EscapeString(text) + `</span>`)
	return b
}

// The badges, made once.
var (
	passDecision   = newBadge("PASS", "pass", "✓")
	reviewDecision = newBadge("REVIEW", "review", "!")
	blockDecision  = newBadge("BLOCK", "block", "✕")
	passVerdict    = newBadge("pass", "pass", "✓")
	failVerdict    = newBadge("fail", "fail", "✕")
	notGatedBadge  = newBadge("not gated", "off", "–")
	// An inconclusive gate asks for review, as the decision it forces.
	inconclusiveBadge = newBadge("inconclusive", "review", "!")
)

// longIDLength is the most characters of a case id that its table cell
// keeps on one line; a longer id (docs/real-data.md) wraps in a column of
// its own width. assets/tables.js draws rows with the same bound.
const longIDLength = 24

// isLongID reports whether id wraps in its table cell.
func isLongID(id string) bool { return utf8.RuneCountInString(id) > longIDLength }

// LongID reports whether the row's id wraps in its cell.
func (r CaseRow) LongID() bool { return isLongID(r.ID) }

// LongID reports whether the row's id wraps in its cell.
func (r PassingRow) LongID() bool { return isLongID(r.ID) }

// LongID reports whether the row's id wraps in its cell.
func (r HistoryGroupRow) LongID() bool { return isLongID(r.ID) }

// notJudged stands for a decision that a case does not judge, or that an
// output does not give.
const notJudged = "—"

// expectedDecision is the decision a case expects, or notJudged.
func expectedDecision(e *suite.Expected) string {
	if !e.JudgesDecision() {
		return notJudged
	}
	return string(e.Decision)
}

// outputDecision is the decision an output gives, or notJudged.
func outputDecision(o *suite.Output) string {
	if o.Decision == "" {
		return notJudged
	}
	return string(o.Decision)
}

func decisionBadge(d decide.Decision) Badge {
	switch d {
	case decide.Pass:
		return passDecision
	case decide.Review:
		return reviewDecision
	}
	return blockDecision
}

// verdictBadge shows whether one case or one gate passed.
func verdictBadge(passed bool) Badge {
	if passed {
		return passVerdict
	}
	return failVerdict
}

// percent writes a rate as a percentage with at most two decimals.
func percent(r *big.Rat) string {
	return evaluator.FormatDecimal(new(big.Rat).Mul(r, big.NewRat(100, 1)), 2) + "%"
}

func usd(r *big.Rat) string { return evaluator.FormatUSD(r) }

func ms(r *big.Rat) string { return evaluator.FormatMS(r) }

// measuredMS and measuredUSD word an output's latency and cost, which
// may not have been measured.
func measuredMS(n *suite.Number) string {
	if n == nil {
		return "not measured"
	}
	return decide.FormatMSNumber(*n)
}

func measuredUSD(n *suite.Number) string {
	if n == nil {
		return "not measured"
	}
	return decide.FormatUSDNumber(*n)
}

// GateRow is one threshold of a snapshot, worded for people.
type GateRow struct {
	Name      string // "Latency (p95)"
	Gate      string // "p95_latency_ms", as in the results file
	Observed  string
	Threshold string // "at most 2,500 ms"
	Margin    string // "2,700 ms over the limit"
	Verdict   Badge
	Passed    bool
	// Off: the threshold is null in gate.json, so the gate is not
	// gated and decides nothing.
	Off bool
	// Inconclusive: the value meets the threshold, the evidence does not
	// prove it (require_evidence).
	Inconclusive bool
	// failure says what went wrong, for the decision's reason; "" when
	// the gate holds.
	failure string
	// spec is the gate's spec.
	spec *decide.Spec
}

// GateRows words the gates of a snapshot from its results, which hold
// the exact values.
func GateRows(s *evaluator.Snapshot) []GateRow {
	rows := make([]GateRow, len(s.Result.Gates))
	cov := coverageOf(s)
	for i := range s.Result.Gates {
		g := &s.Result.Gates[i]
		observed := g.ObservedText()
		switch {
		case !g.Measured():
			observed = "n/a (not measured)"
		case g.Spec.Detail != nil:
			observed += " " + g.Spec.Detail(s.Metrics)
		}
		if cov.Known && (g.Spec.Drivers == decide.SlowestOutputs || g.Spec.Drivers == decide.CostliestOutputs) {
			observed = gateCoverage(g, g.ObservedText(), cov)
		}
		// A gate with an interval (the pass rate) carries it, rounded as
		// the results file writes it.
		if iv := g.Interval; iv != nil {
			observed += "; " + g.Level.Percent() + " interval " +
				intervalText(stats.RoundDecimals(iv.Lo, 6), stats.RoundDecimals(iv.Hi, 6))
		}
		rows[i] = GateRow{Name: g.Spec.Title, Gate: g.Gate, Observed: observed, Threshold: g.ThresholdText(),
			Margin: g.MarginText(), Verdict: verdictBadge(g.Passed), Passed: g.Passed, failure: g.FailureText(), spec: g.Spec}
		switch {
		case g.Off():
			rows[i].Verdict, rows[i].Margin, rows[i].Off = notGatedBadge, "none: decides nothing", true
		case g.Inconclusive:
			rows[i].Verdict, rows[i].Inconclusive = inconclusiveBadge, true
		}
	}
	return rows
}

// noneAtZero reports a gate whose limit and value are both 0, such as no

// decisionReason explains a decision in one sentence from its gates.
func decisionReason(d decide.Decision, gates []GateRow) string {
	var failures []string
	for _, g := range gates {
		if g.failure != "" {
			failures = append(failures, g.failure)
		}
	}
	switch d {
	case decide.Pass:
		return "Every gate holds."
	case decide.Review:
		return "Functionally sound, but " + joinClauses(failures) + "."
	}
	// BLOCK is decided by the first two gates alone; performance
	// failures are worth knowing but do not cause it.
	return "Blocked: " + joinClauses(failures) + "."
}

func joinClauses(cs []string) string {
	switch len(cs) {
	case 0:
		return "no gate failed"
	case 1:
		return cs[0]
	}
	return strings.Join(cs[:len(cs)-1], "; ") + "; and " + cs[len(cs)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
