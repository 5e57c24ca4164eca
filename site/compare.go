package site

import (
	"slices"

	"github.com/releasegate/releasegate/evaluator"
)

// ComparePage is compare.html: any two snapshots side by side, their gate
// deltas and the cases fixed, regressed and still failing between them.
// The page script computes the comparison from data/matrix.js for the
// pair picked, so the page is one file however many snapshots exist.
type ComparePage struct {
	Layout
	Labels []string
	// From and To are the pair shown first: the snapshot before the
	// latest and the latest.
	From, To string
	// DataRoot is the way to the site root, for the script's links.
	DataRoot string
	// Trials: some snapshot has trials, so the page lists flaky cases.
	Trials bool
}

// MatrixPage is cases.html: cases as rows and snapshots as columns, each
// cell linking to the case's drilldown in that snapshot. The script draws
// the rows from data/cases.js and data/matrix.js a page at a time.
type MatrixPage struct {
	Layout
	Labels    []NavLink
	CaseCount int
	DataRoot  string
	// Trials: some snapshot has trials, so the page can show the flaky
	// cases.
	Trials bool
}

func (v *model) comparePage() (*ComparePage, error) {
	l := v.info.layout(comparePath, "Compare snapshots")
	l.Scripts = append(l.Scripts, l.Root+casesDataPath, l.Root+matrixDataPath)
	p := &ComparePage{Layout: l, Labels: v.info.Labels, DataRoot: l.Root, Trials: v.anyTrials()}
	if n := len(p.Labels); n > 0 {
		p.From, p.To = p.Labels[max(0, n-2)], p.Labels[n-1]
	}
	return p, nil
}

func (v *model) matrixPage() (*MatrixPage, error) {
	l := v.info.layout(matrixPath, "Cases")
	l.Scripts = append(l.Scripts, l.Root+casesDataPath, l.Root+matrixDataPath)
	p := &MatrixPage{Layout: l, CaseCount: v.info.CaseCount, DataRoot: l.Root, Trials: v.anyTrials()}
	for _, label := range v.info.Labels {
		p.Labels = append(p.Labels, NavLink{Href: l.Root + snapshotPath(label), Text: label})
	}
	return p, nil
}

// anyTrials reports whether some snapshot has trials.
func (v *model) anyTrials() bool {
	return slices.ContainsFunc(v.in.Release.Snapshots, func(s *evaluator.Snapshot) bool { return s.Trials() > 0 })
}
