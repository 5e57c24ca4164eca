package site

import (
	"fmt"
	"math/big"

	"github.com/releasegate/releasegate/evaluator"
)

// OverviewPage is index.html: every snapshot side by side, the
// thresholds, the performance charts and what changed between snapshots.
type OverviewPage struct {
	Layout
	Summary    string
	Latest     SnapshotCard
	Cards      []SnapshotCard
	Thresholds []Threshold
	P95Chart   Chart
	P95Rows    []ChartRow
	CostChart  Chart
	CostRows   []ChartRow
	Changes    []Change
	Files      []NavLink
}

// SnapshotCard sums up one snapshot.
type SnapshotCard struct {
	Label       string
	Href        string
	ResultsHref string
	Badge       Badge
	Reason      string
	Functional  string // "11/12"
	PassRate    string // "91.67%"
	Critical    string
	P95         string
	AvgCost     string
	Failing     int
}

// Threshold is one frozen limit of gate.json, worded.
type Threshold struct {
	Name  string
	Limit string
}

// ChartRow is one bar of a chart as text, for readers without the chart.
type ChartRow struct {
	Label   string
	Href    string
	Value   string
	Verdict Badge
	Note    string // "within the limit", "over the limit by 2,700 ms"
}

// Change is what changed between two consecutive snapshots.
type Change struct {
	From, To     NavLink
	Fixed        []CaseLink
	Regressed    []CaseLink
	StillFailing []CaseLink
	Summary      string
}

func snapshotCard(s *evaluator.Snapshot, gates []GateRow, root string) SnapshotCard {
	r := s.Result
	return SnapshotCard{
		Label:       r.Label,
		Href:        root + snapshotPath(r.Label),
		ResultsHref: root + resultsPath(r.Label),
		Badge:       decisionBadge(r.Decision),
		Reason:      decisionReason(r.Decision, gates),
		Functional:  s.PassCount(),
		PassRate:    percent(s.Metrics.PassRate),
		Critical:    fmt.Sprint(r.CriticalFailures),
		P95:         s.P95Text(),
		AvgCost:     s.AvgCostText(),
		Failing:     r.CasesTotal - r.CasesPassed,
	}
}

func (v *view) overview() (*OverviewPage, error) {
	rel := v.in.Release
	g := rel.Suite.Gate
	p := &OverviewPage{Layout: v.info.layout(overviewPath, "Release overview")}
	p.Summary = p.Footer
	for _, s := range rel.Snapshots {
		p.Cards = append(p.Cards, snapshotCard(s, gateRows(s.Metrics, g), ""))
		p.Files = append(p.Files, NavLink{Href: resultsPath(s.Label()), Text: "results/" + s.Label() + ".json"})
	}
	p.Files = append(p.Files, NavLink{Href: reportPath, Text: reportPath})
	if n := len(p.Cards); n > 0 {
		p.Latest = p.Cards[n-1]
	}
	p.Thresholds = []Threshold{
		{"Functional: pass rate", "at least " + percent(g.MinPassRate.Rat())},
		{"Safety: failed critical cases", fmt.Sprintf("at most %d", g.MaxCriticalFailures)},
		{"Latency: p95 (nearest rank)", "at most " + ms(g.MaxP95LatencyMS.Rat())},
		{"Cost: average per output", "at most " + usd(g.MaxAvgCostUSD.Rat())},
	}

	labels := v.info.Labels
	p95Limit, costLimit := g.MaxP95LatencyMS.Rat(), g.MaxAvgCostUSD.Rat()
	p95s, costs := make([]float64, len(labels)), make([]float64, len(labels))
	p95Over, costOver := make([]bool, len(labels)), make([]bool, len(labels))
	for i, s := range rel.Snapshots {
		m := s.Metrics
		row := func(value *big.Rat, limit *big.Rat, format func(*big.Rat) string) (ChartRow, bool) {
			r := ChartRow{Label: s.Label(), Href: snapshotPath(s.Label())}
			if value == nil {
				r.Value, r.Verdict, r.Note = "n/a", verdictBadge(false), "no outputs to measure"
				return r, false
			}
			d := new(big.Rat).Sub(limit, value)
			r.Value = format(value)
			r.Verdict = verdictBadge(d.Sign() >= 0)
			r.Note = marginText(d, "", format, "under the limit", "over the limit")
			return r, d.Sign() < 0
		}
		var p95 *big.Rat
		if m.P95LatencyMS != nil {
			p95 = m.P95LatencyMS.Rat()
			p95s[i], _ = p95.Float64()
		}
		r, over := row(p95, p95Limit, ms)
		p.P95Rows, p95Over[i] = append(p.P95Rows, r), over
		if m.AvgCostUSD != nil {
			costs[i], _ = m.AvgCostUSD.Float64()
		}
		r, over = row(m.AvgCostUSD, costLimit, usd)
		p.CostRows, costOver[i] = append(p.CostRows, r), over
	}
	var err error
	p.P95Chart, err = renderBar(barSpec{ID: "overview_p95", Categories: labels, Values: p95s, Over: p95Over,
		AxisName: "p95 latency (ms)", Height: "300px",
		Lines: []refLine{{Label: "limit " + ms(p95Limit), Value: g.MaxP95LatencyMS.Float64(), Color: limitColour}}})
	if err != nil {
		return nil, err
	}
	p.CostChart, err = renderBar(barSpec{ID: "overview_cost", Categories: labels, Values: costs, Over: costOver,
		AxisName: "average cost (USD)", Height: "300px",
		Lines: []refLine{{Label: "limit " + usd(costLimit), Value: g.MaxAvgCostUSD.Float64(), Color: limitColour}}})
	if err != nil {
		return nil, err
	}
	p.Scripts = chartAssets(p.P95Chart, p.CostChart)
	p.Changes = changes(rel)
	return p, nil
}

// changes compares each snapshot with the one before it, case by case.
func changes(rel *evaluator.Release) []Change {
	var out []Change
	for i := 1; i < len(rel.Snapshots); i++ {
		prev, cur := rel.Snapshots[i-1], rel.Snapshots[i]
		c := Change{
			From: NavLink{Href: snapshotPath(prev.Label()), Text: prev.Label()},
			To:   NavLink{Href: snapshotPath(cur.Label()), Text: cur.Label()},
		}
		for j, cs := range rel.Suite.Cases {
			link := CaseLink{ID: cs.ID, Href: historyPath(cs.ID)}
			was, is := prev.Result.Cases[j].Passed, cur.Result.Cases[j].Passed
			switch {
			case !was && is:
				c.Fixed = append(c.Fixed, link)
			case was && !is:
				c.Regressed = append(c.Regressed, link)
			case !was && !is:
				c.StillFailing = append(c.StillFailing, link)
			}
		}
		c.Summary = fmt.Sprintf("%d fixed, %d regressed, %d still failing", len(c.Fixed), len(c.Regressed), len(c.StillFailing))
		out = append(out, c)
	}
	return out
}
