package pages

import (
	"fmt"
	"strings"
)

// HistoryPage is cases/<id>.html: one case across every snapshot, from
// the first to the latest.
type HistoryPage struct {
	Layout
	ID string
	// CaseTitle is the case's title; the page's own title, in its
	// Layout, names the case.
	CaseTitle         string
	Severity          string
	ExpectedDecision  string // "—" when the case's decision is not judged
	ExpectedCitations []CitationRow
	Rows              []HistoryRow
	Summary           string
}

// HistoryRow is the case in one snapshot.
type HistoryRow struct {
	Label        string
	Href         string // the drilldown
	SnapshotHref string
	Verdict      Badge
	Decision     string
	Codes        string
	Latency      string
	Cost         string
	// Strip shows the case's trials in the snapshot, nil without trials.
	Strip *TrialStrip
}

// HistoryPage builds the page of case i's history across the snapshots.
func (v *Model) HistoryPage(i int) *HistoryPage {
	rel := v.In.Release
	c := rel.Suite.Cases[i]
	path := v.Paths.historyPage(i)
	root := rootFor(path)
	p := &HistoryPage{
		Layout:           v.Info.layout(path, "Case "+c.ID),
		ID:               c.ID,
		CaseTitle:        c.Title,
		Severity:         string(c.Severity),
		ExpectedDecision: expectedDecision(&c.Expected),
	}
	for _, id := range dedupe(c.Expected.Citations) {
		p.ExpectedCitations = append(p.ExpectedCitations, citationRow(id, rel.Suite.Policy, root+PolicyPath))
	}
	var passedIn, failedIn []string
	for _, s := range rel.Snapshots {
		res := s.Result.Cases[i]
		row := HistoryRow{
			Label:        s.Label(),
			Href:         root + v.Paths.Result(s.Label(), i),
			SnapshotHref: root + SnapshotPath(s.Label()),
			Verdict:      verdictBadge(res.Passed),
			Codes:        FailureText(res.Failures),
			Decision:     "no output",
			Latency:      "no output",
			Cost:         "no output",
		}
		if o := s.Outputs[i]; o != nil {
			row.Decision, row.Latency, row.Cost = outputDecision(o), measuredMS(o.LatencyMS), measuredUSD(o.CostUSD)
		}
		if row.Strip = NewTrialStrip(&res, s.Trials(), v.Paths.trialLinks(root, s.Label(), i)); row.Strip != nil {
			row.Decision = trialDecisions(s, i)
			lat, cost := trialMeasures(s, i)
			row.Latency, _, _ = measureText(lat, ms)
			row.Cost, _, _ = measureText(cost, usd)
		}
		if res.Passed {
			passedIn = append(passedIn, s.Label())
		} else {
			failedIn = append(failedIn, s.Label())
		}
		p.Rows = append(p.Rows, row)
	}
	p.Summary = historySummary(passedIn, failedIn, p.Rows)
	return p
}

// historySummary says in one sentence how the case fared over time.
func historySummary(passedIn, failedIn []string, rows []HistoryRow) string {
	switch {
	case len(rows) == 0:
		return "No snapshot has been judged."
	case len(failedIn) == 0:
		return fmt.Sprintf("Passes in every snapshot (%d).", len(rows))
	case len(passedIn) == 0:
		return fmt.Sprintf("Fails in every snapshot (%d).", len(rows))
	}
	last := rows[len(rows)-1]
	now := "passes"
	if last.Verdict.Class == "fail" {
		now = "fails"
	}
	return fmt.Sprintf("Fails in %s; passes in %s. The latest snapshot, %s, %s.",
		strings.Join(failedIn, ", "), strings.Join(passedIn, ", "), last.Label, now)
}
