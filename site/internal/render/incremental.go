package render

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/site/pages"
)

// linkingDrilldowns marks the cases whose drilldown's next-failing link
// may change when the listed cases change: for each listed case, those
// before it back to the previous failing case (wrapping round), since
// the link skips passing cases only.
func linkingDrilldowns(results []evaluator.CaseResult, cases []*suite.Case, listed map[string]bool) map[int]bool {
	marked := map[int]bool{}
	n := len(cases)
	for k, c := range cases {
		if !listed[c.ID] {
			continue
		}
		for step := 1; step < n; step++ {
			j := (k - step + n) % n
			marked[j] = true
			if !results[j].Passed {
				break
			}
		}
	}
	return marked
}

// Parts selects the files of a site that depend on one snapshot or one
// case. RenderParts renders them with the files that are about no single
// case or snapshot.
type Parts struct {
	// Snapshots are the labels whose page and results JSON are rendered.
	Snapshots []string
	// Results are the labels whose results JSON alone is rendered.
	Results []string
	// Tables are the labels whose case table data (the script a large
	// snapshot page loads its rows from) is rendered. The rows show each
	// case's verdict, failures, latency and cost, and whether these are
	// over their limits: nothing else changes them.
	Tables []string
	// Drilldowns lists, by label, the cases whose drilldown is rendered.
	Drilldowns map[string][]string
	// Histories are the cases whose history page is rendered.
	Histories []string
	// SameReport says that the release report (RELEASE_REPORT.md) is the
	// one the site was last rendered with: it and its page are left out.
	// It holds no title or description, so most edits of the suite leave
	// it as it was, and its page is among the costliest to render.
	SameReport bool
	// SamePolicy says that POLICY.md and what policy.html shows of the
	// cases (their ids, in order, and the rules each cites) are those the
	// site was last rendered with: the policy page is left out. With the
	// frame the same (SameFrame), nothing else reaches it.
	SamePolicy bool
	// SameCases says that the cases' ids, titles and severities, in
	// order, are those the site was last rendered with: data/cases.js,
	// which holds them and where each case's pages are (which follows from
	// the ids), is left out. An edit of a snapshot, the gate or the policy
	// leaves it as it was, and at 100,000 cases it is 8 MB.
	SameCases bool
	// SizeOf, when set, gives the size of each file in the site last
	// rendered (see RunOptions.SizeOf).
	SizeOf func(path string) int
	// Last, when set with Before, gives the files of the site last
	// rendered, from Before: a results file whose case results did not
	// change takes them from its last version as they were written
	// (evaluator.Snapshot.JSONAfter).
	Last func(path string) ([]byte, bool)
	// Before, when set, is the release the site was last rendered from;
	// SameFrame must hold for the two. Cases may have come, gone or
	// moved since. The drilldowns whose links to the previous, the next
	// and the next failing case changed are then found exactly, by
	// comparing each snapshot with its namesake in Before by case id,
	// instead of taking every drilldown whose next-failing link may
	// lead to a listed case. Pages of cases that went are the caller's
	// to drop: RenderParts only renders.
	Before *evaluator.Release
	// Steps, when set, takes the drilldowns whose links changed but whose
	// case did not (those RenderParts adds to the listed ones, but for a
	// case new since Before, which is rendered whole): for each,
	// the drilldown's path and its new case-steps part, which StepsMarks.At
	// finds in the page, instead of the whole page. A live server keeps
	// that part of each page apart, so that a case that starts failing
	// in a snapshot where none did, which changes every drilldown's link
	// to the next failing case, is not a new site.
	Steps Emit
}

// linksMoved marks the case positions of after whose drilldown links
// (to the previous, the next and the next failing case) lead elsewhere
// than those of the same case's drilldown in before, and the cases new
// in after. Cases may have come, gone or moved in between; when they did
// not, only a verdict that flips between passing and failing moves any.
func linksMoved(beforeCases []*suite.Case, before *evaluator.Snapshot, afterCases []*suite.Case, after *evaluator.Snapshot) map[int]bool {
	was := make(map[string]int, len(beforeCases))
	for j, c := range beforeCases {
		was[c.ID] = j
	}
	// Views of their own: failingAfter caches by label.
	failedBefore, failedAfter := (&pages.Model{}).FailingAfter(before), (&pages.Model{}).FailingAfter(after)
	// The case at j, or "" for none (j is -1 or past the end).
	idAt := func(cases []*suite.Case, j int) string {
		if j < 0 || j >= len(cases) {
			return ""
		}
		return cases[j].ID
	}
	moved := map[int]bool{}
	for i, c := range afterCases {
		j, ok := was[c.ID]
		if !ok || idAt(beforeCases, j-1) != idAt(afterCases, i-1) || idAt(beforeCases, j+1) != idAt(afterCases, i+1) ||
			idAt(beforeCases, failedBefore[j]) != idAt(afterCases, failedAfter[i]) {
			moved[i] = true
		}
	}
	return moved
}

// RenderParts renders the files parts selects (with the drilldowns whose
// next-failing link may lead to a selected one, or with parts.Before
// those whose links changed) and
// every page that is not about one case or one snapshot (the overview, policy.html,
// handoff.html, RELEASE_REPORT.md, 404.html, .nojekyll and the assets).
// A live server uses it after an edit of the thresholds, the cases or the
// policy, which changes the pages of a few cases and the pages that show
// totals and decisions; it must render the same bytes as RenderAll for
// every file it emits.
func (r *Renderer) RenderParts(in *pages.Input, parts Parts, emit Emit) error {
	v, err := NewView(in)
	if err != nil {
		return err
	}
	p := &partsPlan{r: r, v: v, in: in, parts: parts}
	p.sharedJobs()
	for _, add := range []func() error{
		func() error {
			return p.ownJobs(parts.Snapshots, func(label, path string) bool { return path != pages.SnapshotDataPath(label) })
		},
		func() error {
			return p.ownJobs(parts.Results, func(label, path string) bool { return path == pages.ResultsPath(label) })
		},
		func() error {
			return p.ownJobs(parts.Tables, func(label, path string) bool { return path == pages.SnapshotDataPath(label) })
		},
		p.drilldownJobs,
		p.historyJobs,
	} {
		if err := add(); err != nil {
			return err
		}
	}
	if err := r.Run(p.longestFirst(uniqueJobs(p.jobs)), emit, RunOptions{SizeOf: parts.SizeOf}); err != nil {
		return err
	}
	return r.Run(p.steps, parts.Steps, RunOptions{})
}

// partsPlan collects the jobs RenderParts runs: whole files in jobs, and
// in steps the drilldowns of which only the case-steps part is rendered.
type partsPlan struct {
	r           *Renderer
	v           *View
	in          *pages.Input
	parts       Parts
	jobs, steps []Job
}

// longestFirst moves the snapshot pages and then the release report
// page to the front of jobs, which keep their order otherwise. The
// workers take the jobs in order, and on a large suite these take
// longest by far: started after the shared pages, the last of them kept
// a core busy while the other had nothing left (in a rebuild timed at
// 100,000 cases × 3, 0.89 s for about 1.1 s of work on two cores). A
// snapshot's table data, which waits for the rows its page makes, stays
// behind.
func (p *partsPlan) longestFirst(jobs []Job) []Job {
	rank := func(j Job) int {
		switch {
		case slices.ContainsFunc(p.parts.Snapshots, func(label string) bool { return j.path == pages.SnapshotPath(label) }):
			return 0
		case j.path == pages.ReportPagePath:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(jobs, func(a, b Job) int { return rank(a) - rank(b) })
	return jobs
}

// sharedJobs adds the pages that are not about one case or one snapshot,
// but for the release report, the policy page and the cases' data when
// the edit left them as they were.
func (p *partsPlan) sharedJobs() {
	for _, j := range p.r.sharedOwnJobs(p.v) {
		switch {
		case p.parts.SameReport && (j.path == pages.ReportPath || j.path == pages.ReportPagePath):
		case p.parts.SamePolicy && j.path == pages.PolicyPath:
		case p.parts.SameCases && j.path == pages.CasesDataPath:
		default:
			p.jobs = append(p.jobs, j)
		}
	}
}

// ownJobs adds the files of each snapshot of labels that want accepts.
func (p *partsPlan) ownJobs(labels []string, want func(label, path string) bool) error {
	for _, label := range labels {
		s, err := p.snapshot(label)
		if err != nil {
			return err
		}
		for _, j := range p.r.snapshotOwnJobs(p.v, s) {
			if want(label, j.path) {
				if j.path == pages.ResultsPath(label) {
					j = p.resultsJob(s)
				}
				p.jobs = append(p.jobs, j)
			}
		}
	}
	return nil
}

// resultsJob is the results file of s, which takes its case results from
// the file last rendered for the snapshot of that label in Before when
// they are the same.
func (p *partsPlan) resultsJob(s *evaluator.Snapshot) Job {
	before := snapshotOf(p.parts.Before, s.Label())
	if before == nil || p.parts.Last == nil {
		return resultsJob(s)
	}
	path := pages.ResultsPath(s.Label())
	return Job{path: path, Made: func() ([]byte, error) {
		last, _ := p.parts.Last(path)
		return s.JSONAfter(before, last), nil
	}}
}

// drilldownJobs adds, per snapshot of parts.Drilldowns, the drilldowns of
// the listed cases and those whose next-failing link may lead to one:
// knowing the snapshot's last judging, only those whose links did change,
// and of those only the steps when the page can keep the rest.
func (p *partsPlan) drilldownJobs() error {
	cases := p.in.Release.Suite.Cases
	for _, label := range slices.Sorted(maps.Keys(p.parts.Drilldowns)) {
		s, err := p.snapshot(label)
		if err != nil {
			return err
		}
		listed := map[string]bool{}
		for _, id := range p.parts.Drilldowns[label] {
			if _, err := p.caseAt(id); err != nil {
				return err
			}
			listed[id] = true
		}
		var linking map[int]bool
		if old := snapshotOf(p.parts.Before, label); old != nil {
			linking = linksMoved(p.parts.Before.Suite.Cases, old, cases, s)
		} else {
			linking = linkingDrilldowns(s.Result.Cases, cases, listed)
		}
		for i, c := range cases {
			switch {
			case listed[c.ID]:
				p.jobs = append(p.jobs, p.r.drilldownJob(p.v, s, i))
			case linking[i] && p.stepsOnly(c.ID):
				p.steps = append(p.steps, p.r.stepsJob(p.v, s, i))
			case linking[i]:
				p.jobs = append(p.jobs, p.r.drilldownJob(p.v, s, i))
			}
		}
	}
	return nil
}

// stepsOnly reports whether the drilldowns of case id can be brought up
// to date by replacing their steps: the caller takes steps, pages are not
// grouped, and the case had a page before (a new one has none to patch).
func (p *partsPlan) stepsOnly(id string) bool {
	if p.parts.Steps == nil || p.v.Paths.Grouped() {
		return false
	}
	if p.parts.Before == nil {
		return true
	}
	_, existed := p.parts.Before.Suite.CaseIndex(id)
	return existed
}

// historyJobs adds the history pages of parts.Histories.
func (p *partsPlan) historyJobs() error {
	for _, id := range p.parts.Histories {
		i, err := p.caseAt(id)
		if err != nil {
			return err
		}
		p.jobs = append(p.jobs, p.r.historyJob(p.v, i))
	}
	return nil
}

func (p *partsPlan) snapshot(label string) (*evaluator.Snapshot, error) {
	s, ok := p.v.Snapshot(label)
	if !ok {
		return nil, fmt.Errorf("site: no snapshot labelled %q", label)
	}
	return s, nil
}

func (p *partsPlan) caseAt(id string) (int, error) {
	i, ok := p.in.Release.Suite.CaseIndex(id)
	if !ok {
		return 0, fmt.Errorf("site: no case %q", id)
	}
	return i, nil
}

// stepsJob renders the case-steps part of case i's drilldown in s.
func (r *Renderer) stepsJob(v *View, s *evaluator.Snapshot, i int) Job {
	return Job{path: pages.DrilldownPath(s.Label(), v.Paths.Stem(i)), Make: func(w *bytes.Buffer) error {
		if err := r.templates["drilldown"].ExecuteTemplate(w, "case-steps", v.CaseSteps(s, i)); err != nil {
			return fmt.Errorf("site: templates/drilldown.html: %w", err)
		}
		return nil
	}}
}

// uniqueJobs keeps the first job of each path: in a grouped site the
// cases of one block share a page, which is rendered once.
func uniqueJobs(jobs []Job) []Job {
	seen := make(map[string]bool, len(jobs))
	out := jobs[:0]
	for _, j := range jobs {
		if !seen[j.path] {
			seen[j.path] = true
			out = append(out, j)
		}
	}
	return out
}

// SameFrame reports whether every page's frame but its footer (the
// navigation, which links the snapshots, the policy and the handoff) is
// the same for two inputs, and whether each result and case history is
// where it was. When not, every page changes, and only RenderAll brings
// a site up to date. The footer is left out: it is the same on every page
// (see Renderer.Footer), so a change of it alone is one new footer, not a
// new site.
func SameFrame(a, b *pages.Input) bool {
	va, errA := NewView(a)
	vb, errB := NewView(b)
	if errA != nil || errB != nil {
		return false
	}
	x, y := va.Info, vb.Info
	// Where results live is part of every page's links. In a grouped
	// site a case's place in the suite decides its page, so a case that
	// comes, goes or moves moves the ones after it.
	// A case's page is named after its id unless another id would share
	// it on a disk that ignores case: a case that comes or goes may rename
	// one that stays.
	return slices.Equal(x.Labels, y.Labels) && x.HasHandoff == y.HasHandoff && x.HasPolicy == y.HasPolicy &&
		va.Paths.SameScheme(vb.Paths, pages.CaseIDs(a.Release.Suite.Cases), pages.CaseIDs(b.Release.Suite.Cases)) &&
		(!va.Paths.Grouped() || slices.EqualFunc(a.Release.Suite.Cases, b.Release.Suite.Cases, func(c, d *suite.Case) bool { return c.ID == d.ID }))
}

// snapshotOf finds the snapshot labelled label in rel; nil when rel is nil
// or has none.
func snapshotOf(rel *evaluator.Release, label string) *evaluator.Snapshot {
	if rel == nil {
		return nil
	}
	for _, s := range rel.Snapshots {
		if s.Label() == label {
			return s
		}
	}
	return nil
}
