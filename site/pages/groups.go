package pages

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
)

// Grouped pages hold the results and histories of a release too large
// for a page per result (see ResultPaths): each page covers a block of
// consecutive cases in suite order, and each case sits under an anchor
// named by its id.

// ResultGroupPage is snapshots/<label>/p0001.html: the results of one
// block of cases in one snapshot. A failing or flaky result shows its
// full drilldown; passing ones share compact tables.
type ResultGroupPage struct {
	Layout
	Label        string
	SnapshotHref string
	// Range names the block's first and last case: "ER-0001 to ER-0100".
	Range  string
	Counts string // "86 passed, 14 failed"
	Pages  GroupSteps
	Parts  []ResultPart
}

// GroupSteps lead to the neighbouring blocks of a grouped page.
type GroupSteps struct {
	Prev, Next *NavLink
	// Position is "page 3 of 1,000".
	Position string
}

// ResultPart is a run of the block in suite order: the full drilldown of
// one failing or flaky result, or the passing results that follow.
type ResultPart struct {
	Full    *DrilldownPage
	Passing []PassingRow
}

// PassingRow is a passing result in brief.
type PassingRow struct {
	ID          string
	Anchor      string // the row's id on the page (see ResultPaths.stem)
	Title       string
	Severity    string
	Decision    string
	Latency     string
	Cost        string
	HistoryHref string
	// Strip shows the trials, nil without trials.
	Strip *TrialStrip
}

// InputText is the case input as the text of an element. Quotes need no
// escaping there, and a grouped page shows thousands of inputs, so only
// &, < and > are escaped.
func (p *DrilldownPage) InputText() template.HTML { return elementText(p.Input) }

// RawText is the output as read, escaped as InputText is.
func (p *DrilldownPage) RawText() template.HTML { return elementText(p.Raw) }

// elementText escapes s for the content of an element (not an attribute).
func elementText(s string) template.HTML { return template.HTML(textEscaper.Replace(s)) }

// textEscaper is read-only once made, so pages share it.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// groupRange is the block g of per cases: its first and last position.
func (v *Model) groupRange(g, per int) (first, last int) {
	first = g * per
	last = min(first+per, len(v.In.Release.Suite.Cases)) - 1
	return first, last
}

// ResultGroupPage builds the g-th grouped page of snapshot s's results.
func (v *Model) ResultGroupPage(s *evaluator.Snapshot, g int) (*ResultGroupPage, error) {
	cases := v.In.Release.Suite.Cases
	label := s.Label()
	path := ResultGroupPath(label, g)
	root := rootFor(path)
	first, last := v.groupRange(g, v.Paths.PerPage)
	rangeText := cases[first].ID + " to " + cases[last].ID
	p := &ResultGroupPage{
		Layout:       v.Info.layout(path, label+": "+rangeText),
		Label:        label,
		SnapshotHref: root + SnapshotPath(label),
		Range:        rangeText,
		Pages:        groupSteps(g, v.Paths.ResultGroups(len(cases)), func(g int) string { return root + ResultGroupPath(label, g) }),
	}
	passed := 0
	for i := first; i <= last; i++ {
		res := &s.Result.Cases[i]
		if !res.Passed || res.Flaky() {
			full, err := v.resultDetail(s, i, path)
			if err != nil {
				return nil, err
			}
			p.Parts = append(p.Parts, ResultPart{Full: full})
		} else {
			if len(p.Parts) == 0 || p.Parts[len(p.Parts)-1].Full != nil {
				p.Parts = append(p.Parts, ResultPart{})
			}
			run := &p.Parts[len(p.Parts)-1]
			run.Passing = append(run.Passing, v.passingRow(s, i, root))
		}
		if res.Passed {
			passed++
		}
	}
	p.Counts = fmt.Sprintf("%d passed, %d failed", passed, last-first+1-passed)
	return p, nil
}

// passingRow is case i of s in brief, for the page whose way to the site
// root is root.
func (v *Model) passingRow(s *evaluator.Snapshot, i int, root string) PassingRow {
	c := v.In.Release.Suite.Cases[i]
	row := PassingRow{ID: c.ID, Anchor: v.Paths.Stem(i), Title: c.Title, Severity: string(c.Severity), HistoryHref: root + v.Paths.History(i),
		Decision: "no output", Latency: "no output", Cost: "no output"}
	if o := s.Outputs[i]; o != nil {
		row.Decision, row.Latency, row.Cost = outputDecision(o), measuredMS(o.LatencyMS), measuredUSD(o.CostUSD)
	}
	if s.Trials() > 0 {
		row.Strip = NewTrialStrip(&s.Result.Cases[i], s.Trials(), v.Paths.trialLinks(root, s.Label(), i))
		row.Decision = trialDecisions(s, i)
		lat, cost := trialMeasures(s, i)
		row.Latency, _, _ = measureText(lat, ms)
		row.Cost, _, _ = measureText(cost, usd)
	}
	return row
}

// groupSteps links block g's neighbours among n blocks; href gives a
// block's page.
func groupSteps(g, n int, href func(g int) string) GroupSteps {
	st := GroupSteps{Position: "page " + thousands(g+1) + " of " + thousands(n)}
	if g > 0 {
		st.Prev = &NavLink{Href: href(g - 1), Text: "page " + thousands(g)}
	}
	if g+1 < n {
		st.Next = &NavLink{Href: href(g + 1), Text: "page " + thousands(g+2)}
	}
	return st
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// HistoryGroupPage is cases/p0001.html: the histories of a block of
// cases, a row per case and a cell per snapshot linking to its result.
type HistoryGroupPage struct {
	Layout
	Range     string
	Snapshots []NavLink // the columns, oldest first
	Pages     GroupSteps
	Rows      []HistoryGroupRow
}

// HistoryGroupRow is one case across every snapshot.
type HistoryGroupRow struct {
	ID       string
	Anchor   string // the row's id on the page (see ResultPaths.stem)
	Title    string
	Severity string
	Cells    []HistoryCell
}

// HistoryCell is the case's result in one snapshot.
type HistoryCell struct {
	Href  string
	Class string // "cell-pass", "cell-fail"
	Text  string // "✓ pass", "✕ fail", "~ pass, flaky"
}

// HistoryGroupPage builds the g-th grouped page of case histories.
func (v *Model) HistoryGroupPage(g int) *HistoryGroupPage {
	rel := v.In.Release
	path := HistoryGroupPath(g)
	root := rootFor(path)
	first, last := v.groupRange(g, v.Paths.HistoryPerPage)
	rangeText := rel.Suite.Cases[first].ID + " to " + rel.Suite.Cases[last].ID
	p := &HistoryGroupPage{
		Layout: v.Info.layout(path, "Cases "+rangeText),
		Range:  rangeText,
		Pages:  groupSteps(g, v.Paths.HistoryGroups(len(rel.Suite.Cases)), func(g int) string { return root + HistoryGroupPath(g) }),
	}
	for _, s := range rel.Snapshots {
		p.Snapshots = append(p.Snapshots, NavLink{Href: root + SnapshotPath(s.Label()), Text: s.Label()})
	}
	for i := first; i <= last; i++ {
		c := rel.Suite.Cases[i]
		row := HistoryGroupRow{ID: c.ID, Anchor: v.Paths.Stem(i), Title: c.Title, Severity: string(c.Severity), Cells: make([]HistoryCell, len(rel.Snapshots))}
		for k, s := range rel.Snapshots {
			res := &s.Result.Cases[i]
			cell := HistoryCell{Href: root + v.Paths.Result(s.Label(), i), Class: "cell-pass", Text: "✓ pass"}
			switch {
			case res.Flaky() && res.Passed:
				cell.Class, cell.Text = "cell-flaky", "~ pass, flaky"
			case res.Flaky():
				cell.Class, cell.Text = "cell-fail", "✕ fail, flaky"
			case !res.Passed:
				cell.Class, cell.Text = "cell-fail", "✕ fail"
			}
			row.Cells[k] = cell
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}
