package site

import (
	"fmt"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
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
	// Provenance is the snapshot's meta.json, nil without one.
	Provenance *Provenance
	// Trials sums up the snapshot's trials, nil without trials.
	Trials *TrialSummary
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
	// Flaky are the cases flaky in either snapshot, kept out of the
	// three lists above.
	Flaky   []FlakyChange
	Summary string
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
		Provenance:  provenance(r.Meta),
		Trials:      trialSummary(s),
	}
}

func (v *view) overview() (*OverviewPage, error) {
	rel := v.in.Release
	g := rel.Suite.Gate
	p := &OverviewPage{Layout: v.info.layout(overviewPath, "Release overview")}
	p.Summary = p.Footer
	for _, s := range rel.Snapshots {
		p.Cards = append(p.Cards, snapshotCard(s, gateRows(s), ""))
		p.Files = append(p.Files, NavLink{Href: resultsPath(s.Label()), Text: "results/" + s.Label() + ".json"})
	}
	p.Files = append(p.Files, NavLink{Href: reportPath, Text: reportPath})
	if n := len(p.Cards); n > 0 {
		p.Latest = p.Cards[n-1]
	}
	for _, t := range decide.Thresholds(g) {
		p.Thresholds = append(p.Thresholds, Threshold{t.Spec.Topic, t.Text()})
	}
	if t, ok := trialThreshold(rel); ok {
		p.Thresholds = append(p.Thresholds, t)
	}

	labels := v.info.Labels
	p95s, costs := make([]float64, len(labels)), make([]float64, len(labels))
	p95Over, costOver := make([]bool, len(labels)), make([]bool, len(labels))
	for i, s := range rel.Snapshots {
		row := func(name string) (ChartRow, float64, bool) {
			r := ChartRow{Label: s.Label(), Href: snapshotPath(s.Label())}
			g, _ := s.Result.Gate(name)
			r.Value, r.Verdict, r.Note = g.ObservedText(), verdictBadge(g.Passed), g.MarginText()
			switch {
			case !g.Measured():
				r.Note = "not measured"
			case g.Off():
				r.Verdict, r.Note = notGatedBadge, ""
			}
			var v float64
			if g.Value != nil {
				v, _ = g.Value.Float64()
			}
			return r, v, !g.Passed
		}
		var r ChartRow
		r, p95s[i], p95Over[i] = row(decide.GateP95Latency)
		p.P95Rows = append(p.P95Rows, r)
		r, costs[i], costOver[i] = row(decide.GateAvgCost)
		p.CostRows = append(p.CostRows, r)
	}
	var err error
	p.P95Chart, err = renderBar(barSpec{ID: "overview_p95", Categories: labels, Values: p95s, Over: p95Over,
		AxisName: "p95 latency (ms)", Height: "300px",
		Lines: limitLines(g, decide.GateP95Latency, "limit ")})
	if err != nil {
		return nil, err
	}
	p.CostChart, err = renderBar(barSpec{ID: "overview_cost", Categories: labels, Values: costs, Over: costOver,
		AxisName: "average cost (USD)", Height: "300px",
		Lines: limitLines(g, decide.GateAvgCost, "limit ")})
	if err != nil {
		return nil, err
	}
	p.Scripts = chartAssets(p.P95Chart, p.CostChart)
	p.Changes = changes(rel)
	return p, nil
}

// limitLines is the dashed line of a gate's threshold on a chart, none
// when the gate is off.
func limitLines(g suite.Gate, gate, prefix string) []refLine {
	limit, on := decide.Limit(g, gate)
	if !on {
		return nil
	}
	spec, _ := decide.SpecOf(gate)
	v, _ := limit.Float64()
	return []refLine{{Label: prefix + spec.Unit.Format(limit), Value: v, Color: limitColour}}
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
			case flakyEither(prev, cur, j):
				c.Flaky = append(c.Flaky, FlakyChange{CaseLink: link, Was: verdictWithTrials(prev, j), Is: verdictWithTrials(cur, j)})
			case !was && is:
				c.Fixed = append(c.Fixed, link)
			case was && !is:
				c.Regressed = append(c.Regressed, link)
			case !was && !is:
				c.StillFailing = append(c.StillFailing, link)
			}
		}
		c.Summary = fmt.Sprintf("%d fixed, %d regressed, %d still failing", len(c.Fixed), len(c.Regressed), len(c.StillFailing))
		if len(c.Flaky) > 0 {
			c.Summary += fmt.Sprintf("; %d flaky, not counted as changes", len(c.Flaky))
		}
		out = append(out, c)
	}
	return out
}
