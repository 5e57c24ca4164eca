package site

import (
	"fmt"
	"html"
	"html/template"
	"math/big"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
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
)

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

// GateRow is one threshold of a snapshot, worded for people.
type GateRow struct {
	Name      string // "Latency (p95)"
	Gate      string // "p95_latency_ms", as in the results file
	Observed  string
	Threshold string // "at most 2,500 ms"
	Margin    string // "2,700 ms over the limit"
	Verdict   Badge
	Passed    bool
	// failure says what went wrong, for the decision's reason; "" when
	// the gate holds.
	failure string
}

// gateRows words the four gates of a snapshot from its exact metrics.
func gateRows(m decide.Metrics, g suite.Gate) []GateRow {
	minRate := g.MinPassRate.Rat()
	rows := make([]GateRow, 0, 4)

	rate := GateRow{Name: "Functional (pass rate)", Gate: decide.GatePassRate,
		Observed:  fmt.Sprintf("%s (%d of %d cases)", percent(m.PassRate), m.CasesPassed, m.CasesTotal),
		Threshold: "at least " + percent(minRate)}
	diff := new(big.Rat).Sub(m.PassRate, minRate)
	rate.Passed = diff.Sign() >= 0
	rate.Margin = marginText(diff, "percentage points", func(r *big.Rat) string {
		return evaluator.FormatDecimal(new(big.Rat).Mul(r, big.NewRat(100, 1)), 2)
	}, "above the minimum", "below the minimum")
	if !rate.Passed {
		rate.failure = fmt.Sprintf("pass rate %s is below the minimum of %s", percent(m.PassRate), percent(minRate))
	}
	rows = append(rows, rate)

	crit := GateRow{Name: "Safety (failed critical cases)", Gate: decide.GateCriticalFailures,
		Observed:  fmt.Sprint(m.CriticalFailures),
		Threshold: fmt.Sprintf("at most %d", g.MaxCriticalFailures),
		Passed:    m.CriticalFailures <= g.MaxCriticalFailures}
	spare := g.MaxCriticalFailures - m.CriticalFailures
	crit.Margin = marginText(big.NewRat(int64(spare), 1), "", func(r *big.Rat) string { return r.RatString() }, "to spare", "over the limit")
	if !crit.Passed {
		crit.failure = fmt.Sprintf("%d critical %s failed, at most %d allowed", m.CriticalFailures, plural(m.CriticalFailures, "case", "cases"), g.MaxCriticalFailures)
	}
	rows = append(rows, crit)

	lat := GateRow{Name: "Latency (p95, nearest rank)", Gate: decide.GateP95Latency,
		Threshold: "at most " + ms(g.MaxP95LatencyMS.Rat())}
	cost := GateRow{Name: "Cost (average per output)", Gate: decide.GateAvgCost,
		Threshold: "at most " + usd(g.MaxAvgCostUSD.Rat())}
	if m.P95LatencyMS == nil {
		for _, r := range []*GateRow{&lat, &cost} {
			r.Observed, r.Margin = "n/a (no outputs)", "n/a"
		}
		lat.failure = "there are no outputs to measure latency and cost on"
	} else {
		limit := g.MaxP95LatencyMS.Rat()
		lat.Observed = ms(m.P95LatencyMS.Rat())
		d := new(big.Rat).Sub(limit, m.P95LatencyMS.Rat())
		lat.Passed = d.Sign() >= 0
		lat.Margin = marginText(d, "", ms, "under the limit", "over the limit")
		if !lat.Passed {
			lat.failure = fmt.Sprintf("p95 latency %s is over the limit of %s", lat.Observed, ms(limit))
		}
		costLimit := g.MaxAvgCostUSD.Rat()
		cost.Observed = usd(m.AvgCostUSD)
		d = new(big.Rat).Sub(costLimit, m.AvgCostUSD)
		cost.Passed = d.Sign() >= 0
		cost.Margin = marginText(d, "", usd, "under the limit", "over the limit")
		if !cost.Passed {
			cost.failure = fmt.Sprintf("average cost %s is over the limit of %s", cost.Observed, usd(costLimit))
		}
	}
	rows = append(rows, lat, cost)
	for i := range rows {
		rows[i].Verdict = verdictBadge(rows[i].Passed)
	}
	return rows
}

// marginText words a signed distance to a limit: positive is headroom,
// zero is exactly at the limit (which passes), negative is a breach.
func marginText(d *big.Rat, unit string, format func(*big.Rat) string, good, bad string) string {
	if d.Sign() == 0 {
		return "exactly at the limit"
	}
	word := good
	if d.Sign() < 0 {
		word = bad
	}
	s := format(new(big.Rat).Abs(d))
	if unit != "" {
		s += " " + unit
	}
	return s + " " + word
}

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
