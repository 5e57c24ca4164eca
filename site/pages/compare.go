package pages

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

// ComparePage builds compare.html: any two snapshots side by side.
func (v *Model) ComparePage() (*ComparePage, error) {
	l := v.Info.layout(ComparePath, "Compare snapshots")
	l.Scripts = append(l.Scripts, l.Root+CasesDataPath, l.Root+MatrixDataPath)
	p := &ComparePage{Layout: l, Labels: v.Info.Labels, DataRoot: l.Root, Trials: v.anyTrials()}
	if n := len(p.Labels); n > 0 {
		p.From, p.To = p.Labels[max(0, n-2)], p.Labels[n-1]
	}
	return p, nil
}

// MatrixPage builds cases.html: every case in every snapshot.
func (v *Model) MatrixPage() (*MatrixPage, error) {
	l := v.Info.layout(MatrixPath, "Cases")
	l.Scripts = append(l.Scripts, l.Root+CasesDataPath, l.Root+MatrixDataPath)
	p := &MatrixPage{Layout: l, CaseCount: v.Info.CaseCount, DataRoot: l.Root, Trials: v.anyTrials()}
	for _, label := range v.Info.Labels {
		p.Labels = append(p.Labels, NavLink{Href: l.Root + SnapshotPath(label), Text: label})
	}
	return p, nil
}

// anyTrials reports whether some snapshot has trials.
func (v *Model) anyTrials() bool {
	return slices.ContainsFunc(v.In.Release.Snapshots, func(s *evaluator.Snapshot) bool { return s.Trials() > 0 })
}
