package site

import (
	"fmt"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// SnapshotPage is snapshots/<label>.html: the gates, the per-case charts
// and the case table.
type SnapshotPage struct {
	Layout
	Card         SnapshotCard
	Gates        []GateRow
	LatencyChart Chart
	LatencyNote  string
	CostChart    Chart
	CostNote     string
	Cases        []CaseRow
	Counts       string // "8 passed, 4 failed (2 critical)"
}

// CaseRow is one case in a snapshot's case table. The *Sort fields are
// the machine-readable values the table script sorts by.
type CaseRow struct {
	ID           string
	Href         string
	Title        string
	Severity     string
	SeverityRank int // 0 critical, 1 major, 2 minor
	Verdict      Badge
	Codes        string
	Latency      string
	LatencySort  string
	Cost         string
	CostSort     string
}

func severityRank(s suite.Severity) int {
	switch s {
	case suite.Critical:
		return 0
	case suite.Major:
		return 1
	}
	return 2
}

func failureCodes(fs []judge.Failure) string {
	codes := make([]string, len(fs))
	for i, f := range fs {
		codes[i] = string(f.Code)
	}
	return strings.Join(codes, ", ")
}

func (v *view) snapshotPage(s *evaluator.Snapshot) (*SnapshotPage, error) {
	label := s.Label()
	path := snapshotPath(label)
	root := rootFor(path)
	g := v.in.Release.Suite.Gate
	gates := gateRows(s)
	p := &SnapshotPage{
		Layout: v.info.layout(path, "Snapshot "+label),
		Card:   snapshotCard(s, gates, root),
		Gates:  gates,
	}
	cases := v.in.Release.Suite.Cases
	ids := make([]string, len(cases))
	latencies, costs := make([]float64, len(cases)), make([]float64, len(cases))
	slow := make([]bool, len(cases))
	latencyLimit, latencyGated := decide.Limit(g, decide.GateP95Latency)
	critical := 0
	p.Cases = make([]CaseRow, len(cases))
	for i, c := range cases {
		res := s.Result.Cases[i]
		row := CaseRow{
			ID: c.ID, Href: root + drilldownPath(label, c.ID), Title: c.Title,
			Severity: string(c.Severity), SeverityRank: severityRank(c.Severity),
			Verdict: verdictBadge(res.Passed), Codes: failureCodes(res.Failures),
			Latency: "no output", Cost: "no output",
		}
		if !res.Passed && c.Severity == suite.Critical {
			critical++
		}
		if o := s.Outputs[i]; o != nil {
			row.Latency, row.Cost = "not measured", "not measured"
			if o.LatencyMS != nil {
				row.Latency, row.LatencySort = ms(o.LatencyMS.Rat()), o.LatencyMS.String()
				latencies[i] = o.LatencyMS.Float64()
				slow[i] = latencyGated && o.LatencyMS.Rat().Cmp(latencyLimit) > 0
			}
			if o.CostUSD != nil {
				row.Cost, row.CostSort = usd(o.CostUSD.Rat()), o.CostUSD.String()
				costs[i] = o.CostUSD.Float64()
			}
		}
		ids[i] = c.ID
		p.Cases[i] = row
	}
	failed := s.Result.CasesTotal - s.Result.CasesPassed
	p.Counts = fmt.Sprintf("%d passed, %d failed (%d critical)", s.Result.CasesPassed, failed, critical)

	slowCount := 0
	for _, b := range slow {
		if b {
			slowCount++
		}
	}
	slowText := "no output is slower than the limit"
	if slowCount > 0 {
		slowText = fmt.Sprintf("%d %s slower than the limit, drawn in orange", slowCount, plural(slowCount, "output is", "outputs are"))
	}
	p.LatencyNote = fmt.Sprintf("One bar per case. p95 latency is not gated. p95 of this snapshot: %s.", s.P95Text())
	if latencyGated {
		p.LatencyNote = fmt.Sprintf("One bar per case. The dashed line is the p95 limit of %s; %s. p95 of this snapshot: %s.",
			ms(latencyLimit), slowText, s.P95Text())
	}
	lines := limitLines(g, decide.GateP95Latency, "p95 limit ")
	var err error
	p.LatencyChart, err = renderBar(barSpec{ID: "case_latency", Root: root, Categories: ids, Values: latencies, Over: slow,
		AxisName: "latency (ms)", Lines: lines})
	if err != nil {
		return nil, err
	}
	costLines := limitLines(g, decide.GateAvgCost, "limit on the average ")
	p.CostNote = fmt.Sprintf("One bar per case. The average cost is not gated; the average of this snapshot is %s.", s.AvgCostText())
	if costLimit, on := decide.Limit(g, decide.GateAvgCost); on {
		p.CostNote = fmt.Sprintf("One bar per case. The dashed line is the limit of %s on the average cost; the average of this snapshot is %s.",
			usd(costLimit), s.AvgCostText())
	}
	p.CostChart, err = renderBar(barSpec{ID: "case_cost", Root: root, Categories: ids, Values: costs,
		AxisName: "cost (USD)", Lines: costLines})
	if err != nil {
		return nil, err
	}
	p.Scripts = chartAssets(p.LatencyChart, p.CostChart)
	return p, nil
}
