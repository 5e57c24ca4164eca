package site

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/evaluator"
)

// The page templates. Each is parsed together with templates/base.html
// into a set of its own, so every page can define "content" without
// clashing with the others.
var pageTemplates = []string{"overview", "snapshot", "drilldown", "history", "policy", "handoff"}

// notFoundTemplate stands alone: it must work at any depth, so it does
// not use the shared frame with its relative stylesheet.
const notFoundTemplate = "404"

// parseTemplates parses every page's template set from web.
func parseTemplates(web fs.FS) (map[string]*template.Template, error) {
	sets := make(map[string]*template.Template, len(pageTemplates)+1)
	for _, name := range pageTemplates {
		t, err := template.New(name).ParseFS(web, "templates/base.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("site: templates: %w", err)
		}
		if t.Lookup("base") == nil || t.Lookup("content") == nil {
			return nil, fmt.Errorf("site: templates/%s.html: must define \"content\" for the \"base\" frame of templates/base.html", name)
		}
		sets[name] = t
	}
	t, err := template.New(notFoundTemplate).ParseFS(web, "templates/"+notFoundTemplate+".html")
	if err != nil {
		return nil, fmt.Errorf("site: templates: %w", err)
	}
	sets[notFoundTemplate] = t
	return sets, nil
}

// asset is one static file, published under the same path.
type asset struct {
	path string
	data []byte
}

// readAssets reads every file below assets/ in path order.
func readAssets(web fs.FS) ([]asset, error) {
	var out []asset
	err := fs.WalkDir(web, assetsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(web, p)
		if err != nil {
			return err
		}
		out = append(out, asset{path: p, data: b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("site: assets: %w", err)
	}
	for _, need := range []string{stylePath, scriptPath, echartsDir + "echarts.min.js"} {
		if !hasAsset(out, need) {
			return nil, fmt.Errorf("site: assets: %s is missing", need)
		}
	}
	return out, nil
}

func hasAsset(as []asset, p string) bool {
	for _, a := range as {
		if a.path == p {
			return true
		}
	}
	return false
}

// view is the evaluated release as every page sees it. It is read-only
// once made, so pages render from it in parallel.
type view struct {
	in   *Input
	info siteInfo
}

func newView(in *Input) (*view, error) {
	if in == nil || in.Release == nil || in.Release.Suite == nil {
		return nil, errors.New("site: no evaluated release to render")
	}
	rel := in.Release
	info := siteInfo{HasHandoff: len(in.Handoff) > 0, PolicyVersion: rel.Suite.Policy.Version, CaseCount: len(rel.Suite.Cases)}
	seen := map[string]bool{}
	for _, s := range rel.Snapshots {
		if len(s.Outputs) != len(rel.Suite.Cases) || len(s.Result.Cases) != len(rel.Suite.Cases) {
			return nil, fmt.Errorf("site: snapshot %s was evaluated without its outputs (use evaluator.Options{KeepOutputs: true})", s.Label())
		}
		if seen[s.Label()] {
			return nil, fmt.Errorf("site: two snapshots are labelled %s", s.Label())
		}
		seen[s.Label()] = true
		info.Labels = append(info.Labels, s.Label())
	}
	return &view{in: in, info: info}, nil
}

func (v *view) snapshot(label string) (*evaluator.Snapshot, bool) {
	for _, s := range v.in.Release.Snapshots {
		if s.Label() == label {
			return s, true
		}
	}
	return nil, false
}

// job makes one file of the site.
type job struct {
	path string
	make func() ([]byte, error)
}

// buffers recycles render buffers: a page grows its buffer once, and the
// next page of the same worker reuses the room.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// execute renders a page struct with the template set of name.
func (r *Renderer) execute(name string, data any) ([]byte, error) {
	t := r.templates[name]
	b := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	b.Reset()
	entry := "base"
	if name == notFoundTemplate {
		entry = notFoundTemplate
	}
	if err := t.ExecuteTemplate(b, entry, data); err != nil {
		return nil, fmt.Errorf("site: templates/%s.html: %w", name, err)
	}
	return bytes.Clone(b.Bytes()), nil
}

// pageJob renders the page that build makes with the template set name.
func pageJob[P any](r *Renderer, p, name string, build func() (P, error)) job {
	return job{path: p, make: func() ([]byte, error) {
		data, err := build()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		b, err := r.execute(name, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return b, nil
	}}
}

func fileJob(p string, data []byte) job {
	return job{path: p, make: func() ([]byte, error) { return data, nil }}
}

// snapshotJobs are the files of one snapshot: its page, its results JSON
// and a drilldown per case.
func (r *Renderer) snapshotJobs(v *view, s *evaluator.Snapshot) []job {
	jobs := []job{
		pageJob(r, snapshotPath(s.Label()), "snapshot", func() (*SnapshotPage, error) { return v.snapshotPage(s) }),
		{path: resultsPath(s.Label()), make: func() ([]byte, error) { return s.JSON(), nil }},
	}
	for i, c := range v.in.Release.Suite.Cases {
		jobs = append(jobs, pageJob(r, drilldownPath(s.Label(), c.ID), "drilldown",
			func() (*DrilldownPage, error) { return v.drilldown(s, i), nil }))
	}
	return jobs
}

// sharedJobs are the files that depend on every snapshot.
func (r *Renderer) sharedJobs(v *view) []job {
	rel := v.in.Release
	jobs := []job{
		pageJob(r, overviewPath, "overview", v.overview),
		pageJob(r, policyPath, "policy", v.policy),
	}
	if v.info.HasHandoff {
		jobs = append(jobs, pageJob(r, handoffPath, "handoff", v.handoff))
	}
	jobs = append(jobs,
		pageJob(r, notFoundPath, notFoundTemplate, func() (*NotFoundPage, error) {
			return &NotFoundPage{Title: "Page not found", CSS: r.css, Home: overviewPath}, nil
		}),
		job{path: reportPath, make: func() ([]byte, error) { return rel.Report(), nil }},
		fileJob(noJekyllPath, nil),
	)
	for _, a := range r.assets {
		jobs = append(jobs, fileJob(a.path, a.data))
	}
	for i, c := range rel.Suite.Cases {
		jobs = append(jobs, pageJob(r, historyPath(c.ID), "history", func() (*HistoryPage, error) { return v.history(i), nil }))
	}
	return jobs
}

// allJobs lists every file of the site, the big pages first so that no
// worker is left with one at the end.
func (r *Renderer) allJobs(v *view) []job {
	var jobs []job
	var rest []job
	for _, s := range v.in.Release.Snapshots {
		sj := r.snapshotJobs(v, s)
		jobs = append(jobs, sj[0])
		rest = append(rest, sj[1:]...)
	}
	shared := r.sharedJobs(v)
	jobs = append(jobs, shared...)
	return append(jobs, rest...)
}

// run makes every job on GOMAXPROCS workers and hands each file to emit.
// With serial set, emit is called by one goroutine at a time. The first
// error stops the workers; the error of the earliest failed job in list
// order is returned.
func run(jobs []job, emit Emit, serial bool, progress func(done, total int)) error {
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	var (
		next   atomic.Int64
		failed atomic.Bool
		mu     sync.Mutex // serialises emit (when serial) and progress
		done   int
		errs   = make([]error, len(jobs))
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				err := make1(jobs[i], emit, serial, &mu)
				if err != nil {
					errs[i] = err
					failed.Store(true)
					return
				}
				if progress != nil {
					mu.Lock()
					done++
					progress(done, len(jobs))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return firstError(errs)
}

func make1(j job, emit Emit, serial bool, mu *sync.Mutex) error {
	data, err := j.make()
	if err != nil {
		return err
	}
	if serial {
		mu.Lock()
		defer mu.Unlock()
	}
	if err := emit(j.path, data); err != nil {
		return fmt.Errorf("site: %s: %w", path.Clean(j.path), err)
	}
	return nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
