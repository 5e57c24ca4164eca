package site

// RenderCases renders what can differ after the outputs of some cases of
// one snapshot changed, the rest of the release staying as it was: the
// snapshot's page and results JSON, the drilldowns in that snapshot and
// the history pages of the cases listed, and every page that is not about
// one case (the overview, policy.html, handoff.html, RELEASE_REPORT.md,
// 404.html, .nojekyll and the assets). It is RenderSnapshot and
// RenderShared without the per-case pages of the cases not listed, which
// show nothing such a change alters. A live server uses it to keep a
// one-line edit of a large suite fast; it must render the same bytes as
// RenderAll for every file it emits.
func (r *Renderer) RenderCases(in *Input, label string, caseIDs []string, emit Emit) error {
	v, s, err := newSnapshotView(in, label)
	if err != nil {
		return err
	}
	listed := make(map[string]bool, len(caseIDs))
	for _, id := range caseIDs {
		listed[id] = true
	}
	// The per-case pages of the cases not listed are left out.
	skip := map[string]bool{}
	for _, c := range in.Release.Suite.Cases {
		if !listed[c.ID] {
			skip[drilldownPath(label, c.ID)] = true
			skip[historyPath(c.ID)] = true
		}
	}
	var jobs []job
	for _, j := range append(r.snapshotJobs(v, s), r.sharedJobs(v)...) {
		if !skip[j.path] {
			jobs = append(jobs, j)
		}
	}
	return r.run(jobs, emit, runOptions{})
}
