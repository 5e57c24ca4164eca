package site

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/suite"
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
	failedBefore, failedAfter := (&view{}).failingAfter(before), (&view{}).failingAfter(after)
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
func (r *Renderer) RenderParts(in *Input, parts Parts, emit Emit) error {
	v, err := newView(in)
	if err != nil {
		return err
	}
	caseAt := func(id string) (int, error) {
		i, ok := in.Release.Suite.CaseIndex(id)
		if !ok {
			return 0, fmt.Errorf("site: no case %q", id)
		}
		return i, nil
	}
	var jobs, steps []job
	// A case new since Before has no page whose steps could be replaced.
	isNew := func(id string) bool {
		if parts.Before == nil {
			return false
		}
		_, ok := parts.Before.Suite.CaseIndex(id)
		return !ok
	}
	for _, j := range r.sharedOwnJobs(v) {
		if !parts.SameReport || j.path != reportPath && j.path != reportPagePath {
			jobs = append(jobs, j)
		}
	}
	// A snapshot's own files, those of them wanted.
	own := func(label string, want func(path string) bool) error {
		s, ok := v.snapshot(label)
		if !ok {
			return fmt.Errorf("site: no snapshot labelled %q", label)
		}
		for _, j := range r.snapshotOwnJobs(v, s) {
			if want(j.path) {
				jobs = append(jobs, j)
			}
		}
		return nil
	}
	for _, label := range parts.Snapshots {
		if err := own(label, func(p string) bool { return p != snapshotDataPath(label) }); err != nil {
			return err
		}
	}
	for _, label := range parts.Results {
		if err := own(label, func(p string) bool { return p == resultsPath(label) }); err != nil {
			return err
		}
	}
	for _, label := range parts.Tables {
		if err := own(label, func(p string) bool { return p == snapshotDataPath(label) }); err != nil {
			return err
		}
	}
	for _, label := range slices.Sorted(maps.Keys(parts.Drilldowns)) {
		s, ok := v.snapshot(label)
		if !ok {
			return fmt.Errorf("site: no snapshot labelled %q", label)
		}
		listed := map[string]bool{}
		for _, id := range parts.Drilldowns[label] {
			if _, err := caseAt(id); err != nil {
				return err
			}
			listed[id] = true
		}
		// The drilldowns whose next-failing link may lead to a listed
		// case are rendered too; knowing the snapshot's last judging,
		// only those whose links did change.
		var linking map[int]bool
		if old := snapshotOf(parts.Before, label); old != nil {
			linking = linksMoved(parts.Before.Suite.Cases, old, in.Release.Suite.Cases, s)
		} else {
			linking = linkingDrilldowns(s.Result.Cases, in.Release.Suite.Cases, listed)
		}
		for i, c := range in.Release.Suite.Cases {
			switch {
			case listed[c.ID]:
				jobs = append(jobs, r.drilldownJob(v, s, i))
			case linking[i] && parts.Steps != nil && !v.paths.grouped() && !isNew(c.ID):
				steps = append(steps, r.stepsJob(v, s, i))
			case linking[i]:
				jobs = append(jobs, r.drilldownJob(v, s, i))
			}
		}
	}
	for _, id := range parts.Histories {
		i, err := caseAt(id)
		if err != nil {
			return err
		}
		jobs = append(jobs, r.historyJob(v, i))
	}
	if err := r.run(uniqueJobs(jobs), emit, runOptions{}); err != nil {
		return err
	}
	return r.run(steps, parts.Steps, runOptions{})
}

// stepsJob renders the case-steps part of case i's drilldown in s.
func (r *Renderer) stepsJob(v *view, s *evaluator.Snapshot, i int) job {
	return job{path: drilldownPath(s.Label(), v.paths.stem(i)), make: func(w *bytes.Buffer) error {
		if err := r.templates["drilldown"].ExecuteTemplate(w, "case-steps", v.caseSteps(s, i)); err != nil {
			return fmt.Errorf("site: templates/drilldown.html: %w", err)
		}
		return nil
	}}
}

// uniqueJobs keeps the first job of each path: in a grouped site the
// cases of one block share a page, which is rendered once.
func uniqueJobs(jobs []job) []job {
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
func SameFrame(a, b *Input) bool {
	va, errA := newView(a)
	vb, errB := newView(b)
	if errA != nil || errB != nil {
		return false
	}
	x, y := va.info, vb.info
	// Where results live is part of every page's links. In a grouped
	// site a case's place in the suite decides its page, so a case that
	// comes, goes or moves moves the ones after it.
	// A case's page is named after its id unless another id would share
	// it on a disk that ignores case: a case that comes or goes may rename
	// one that stays.
	return slices.Equal(x.Labels, y.Labels) && x.HasHandoff == y.HasHandoff && x.HasPolicy == y.HasPolicy &&
		va.paths.sameScheme(vb.paths, caseIDs(a.Release.Suite.Cases), caseIDs(b.Release.Suite.Cases)) &&
		(!va.paths.grouped() || slices.EqualFunc(a.Release.Suite.Cases, b.Release.Suite.Cases, func(c, d *suite.Case) bool { return c.ID == d.ID }))
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
