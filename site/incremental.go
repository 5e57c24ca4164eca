package site

import (
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
	// Before, when set, is the release the site was last rendered from,
	// with the same cases in the same order. The drilldowns whose
	// next-failing link changed are then found exactly, by comparing
	// each snapshot with its namesake in Before, instead of taking every
	// drilldown whose link may lead to a listed case.
	Before *evaluator.Release
}

// nextFailingMoved marks the case positions whose next failing case
// differs between two judgings of one snapshot against the same cases:
// only a verdict that flips between passing and failing moves any.
func nextFailingMoved(before, after *evaluator.Snapshot) map[int]bool {
	// Views of their own: failingAfter caches by label.
	was, is := (&view{}).failingAfter(before), (&view{}).failingAfter(after)
	moved := map[int]bool{}
	for i := range is {
		if was[i] != is[i] {
			moved[i] = true
		}
	}
	return moved
}

// RenderParts renders the files parts selects (with the drilldowns whose
// next-failing link may lead to a selected one, or with parts.Before
// those whose link changed) and
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
	var jobs []job
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
		// case are rendered too; knowing the snapshot's
		// last judging, only those whose link did change.
		var linking map[int]bool
		if old := snapshotOf(parts.Before, label); old != nil && len(old.Result.Cases) == len(s.Result.Cases) {
			linking = nextFailingMoved(old, s)
		} else {
			linking = linkingDrilldowns(s.Result.Cases, in.Release.Suite.Cases, listed)
		}
		for i, c := range in.Release.Suite.Cases {
			if listed[c.ID] || linking[i] {
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
	return r.run(uniqueJobs(jobs), emit, runOptions{})
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
// the same for two inputs. When it is not, every page changes, and only
// RenderAll brings a site up to date. The footer is left out: it is the
// same on every page (see Renderer.Footer), so a change of it alone is
// one new footer, not a new site.
func SameFrame(a, b *Input) bool {
	va, errA := newView(a)
	vb, errB := newView(b)
	if errA != nil || errB != nil {
		return false
	}
	x, y := va.info, vb.info
	// Where results live is part of every page's links.
	return slices.Equal(x.Labels, y.Labels) && x.HasHandoff == y.HasHandoff && x.HasPolicy == y.HasPolicy && va.paths == vb.paths
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
