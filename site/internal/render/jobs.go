package render

import (
	"bytes"
	"fmt"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/site/pages"
)

// Job makes one file of the site, writing its bytes to w.
type Job struct {
	path string
	Make func(w *bytes.Buffer) error
	// Made, when set instead of Make, makes the file's bytes in a slice
	// of their own, which Run hands to emit as they are: a results file
	// or a case table's data of a large snapshot is tens of megabytes,
	// and copying it into a buffer and out again cost as much as making
	// it.
	Made func() ([]byte, error)
}

// bufferMake is the job's Make, or its Made writing into the buffer.
func (j Job) bufferMake() func(w *bytes.Buffer) error {
	if j.Made == nil {
		return j.Make
	}
	return func(w *bytes.Buffer) error {
		b, err := j.Made()
		w.Write(b)
		return err
	}
}

// pageJob renders the page that build makes with the template set name.
func pageJob[P any](r *Renderer, v *View, p, name string, build func() (P, error)) Job {
	return Job{path: p, Make: func(w *bytes.Buffer) error {
		data, err := build()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if f, ok := any(data).(pages.Framed); ok {
			if err := r.Frame(v, name, f.Frame()); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		if err := r.Execute(w, name, data); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		return nil
	}}
}

// FileJob publishes bytes made elsewhere; make is called when the job
// runs, so a large suite's results files are encoded in parallel too.
func FileJob(p string, make func() []byte) Job {
	return Job{path: p, Make: func(w *bytes.Buffer) error {
		w.Write(make())
		return nil
	}}
}

// dataJob publishes a data script made when the job runs, in a slice of
// its own.
func dataJob(p string, make func() ([]byte, error)) Job {
	return Job{path: p, Made: func() ([]byte, error) {
		b, err := make()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return b, nil
	}}
}

// resultsJob publishes a snapshot's results file, encoded when the job
// runs into a slice of its own.
func resultsJob(s *evaluator.Snapshot) Job {
	return Job{path: pages.ResultsPath(s.Label()), Made: func() ([]byte, error) { return s.JSON(), nil }}
}

// resultJobs are the pages of a snapshot's results: a drilldown per case,
// or a grouped page per block of cases.
func (r *Renderer) resultJobs(v *View, s *evaluator.Snapshot) []Job {
	var jobs []Job
	if v.Paths.Grouped() {
		for g := range v.Paths.ResultGroups(len(v.In.Release.Suite.Cases)) {
			jobs = append(jobs, r.resultGroupJob(v, s, g))
		}
		return jobs
	}
	for i := range v.In.Release.Suite.Cases {
		jobs = append(jobs, r.drilldownJob(v, s, i))
	}
	return jobs
}

// historyJobs are the case histories: a page per case, or grouped.
func (r *Renderer) historyJobs(v *View) []Job {
	var jobs []Job
	if v.Paths.Grouped() {
		for g := range v.Paths.HistoryGroups(len(v.In.Release.Suite.Cases)) {
			jobs = append(jobs, r.historyGroupJob(v, g))
		}
		return jobs
	}
	for i := range v.In.Release.Suite.Cases {
		jobs = append(jobs, r.historyJob(v, i))
	}
	return jobs
}

// snapshotOwnJobs are a snapshot's page and results JSON.
func (r *Renderer) snapshotOwnJobs(v *View, s *evaluator.Snapshot) []Job {
	return []Job{
		pageJob(r, v, pages.SnapshotPath(s.Label()), "snapshot", func() (*pages.SnapshotPage, error) { return v.SnapshotPage(s) }),
		resultsJob(s),
		dataJob(pages.SnapshotDataPath(s.Label()), func() ([]byte, error) { return v.SnapshotData(s) }),
	}
}

// drilldownJob renders the page that holds the result of case i in s:
// its drilldown, or the grouped page of its block.
func (r *Renderer) drilldownJob(v *View, s *evaluator.Snapshot, i int) Job {
	if v.Paths.Grouped() {
		return r.resultGroupJob(v, s, i/v.Paths.PerPage)
	}
	return pageJob(r, v, pages.DrilldownPath(s.Label(), v.Paths.Stem(i)), "drilldown",
		func() (*pages.DrilldownPage, error) { return v.DrilldownPage(s, i) })
}

func (r *Renderer) resultGroupJob(v *View, s *evaluator.Snapshot, g int) Job {
	return pageJob(r, v, pages.ResultGroupPath(s.Label(), g), "results",
		func() (*pages.ResultGroupPage, error) { return v.ResultGroupPage(s, g) })
}

func (r *Renderer) historyGroupJob(v *View, g int) Job {
	return pageJob(r, v, pages.HistoryGroupPath(g), "histories",
		func() (*pages.HistoryGroupPage, error) { return v.HistoryGroupPage(g), nil })
}

// historyJob renders the page that holds case i's history: its own, or
// the grouped page of its block.
func (r *Renderer) historyJob(v *View, i int) Job {
	if v.Paths.Grouped() {
		return r.historyGroupJob(v, i/v.Paths.HistoryPerPage)
	}
	return pageJob(r, v, pages.HistoryPath(v.Paths.Stem(i)), "history",
		func() (*pages.HistoryPage, error) { return v.HistoryPage(i), nil })
}

// sharedOwnJobs are the shared files but the case histories.
func (r *Renderer) sharedOwnJobs(v *View) []Job {
	jobs := []Job{
		pageJob(r, v, pages.OverviewPath, "overview", v.OverviewPage),
		pageJob(r, v, pages.ComparePath, "compare", v.ComparePage),
		pageJob(r, v, pages.MatrixPath, "matrix", v.MatrixPage),
		dataJob(pages.CasesDataPath, v.casesData),
		dataJob(pages.MatrixDataPath, v.MatrixData),
		pageJob(r, v, pages.ReportPagePath, "report", v.ReportPage),
		pageJob(r, v, pages.GlossaryPath, "glossary", v.GlossaryPage),
	}
	if v.Info.HasPolicy {
		jobs = append(jobs, pageJob(r, v, pages.PolicyPath, "policy", v.PolicyPage))
	}
	if v.Info.HasHandoff {
		jobs = append(jobs, pageJob(r, v, pages.HandoffPath, "handoff", v.HandoffPage))
	}
	jobs = append(jobs,
		pageJob(r, v, pages.NotFoundPath, notFoundTemplate, func() (*pages.NotFoundPage, error) {
			return v.NotFoundPage(r.css, r.icon), nil
		}),
		FileJob(pages.ReportPath, v.Report),
		FileJob(pages.NoJekyllPath, func() []byte { return nil }),
	)
	for _, a := range r.Assets {
		jobs = append(jobs, FileJob(a.Path, func() []byte { return a.Data }))
	}
	return jobs
}

// AllJobs lists every file of the site. The big pages come first, so
// that no worker is left with one at the end. Then, case by case, its
// drilldowns and its history: consecutive files lie in different
// folders, because writers creating files in one folder at once wait on
// each other. Grouped results are few and large, so they simply follow.
func (r *Renderer) AllJobs(v *View) []Job {
	return append(r.frontJobs(v), r.caseJobs(v)...)
}

// frontJobs are the files that are about no one case: the snapshot pages,
// results and table data, and the pages every snapshot shares.
func (r *Renderer) frontJobs(v *View) []Job {
	var jobs []Job
	for _, s := range v.In.Release.Snapshots {
		jobs = append(jobs, r.snapshotOwnJobs(v, s)...)
	}
	return append(jobs, r.sharedOwnJobs(v)...)
}

// caseJobs are the case pages: a drilldown per result and a history per
// case, or their grouped pages. They are nearly all of a large site.
func (r *Renderer) caseJobs(v *View) []Job {
	var jobs []Job
	if v.Paths.Grouped() {
		for _, s := range v.In.Release.Snapshots {
			jobs = append(jobs, r.resultJobs(v, s)...)
		}
		return append(jobs, r.historyJobs(v)...)
	}
	for i := range v.In.Release.Suite.Cases {
		for _, s := range v.In.Release.Snapshots {
			jobs = append(jobs, r.drilldownJob(v, s, i))
		}
		jobs = append(jobs, r.historyJob(v, i))
	}
	return jobs
}
