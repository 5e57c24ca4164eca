package site

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/evaluator"
)

// The page templates. Each is parsed together with templates/base.html
// into a set of its own, so every page can define "content" without
// clashing with the others.
var pageTemplates = []string{"overview", "snapshot", "drilldown", "history", "results", "histories", "policy", "handoff", "compare", "matrix", "report", "glossary"}

// agentTemplate holds the parts that show what an agent did (outputs,
// paired tool calls, trials, provenance), shared by several pages.
const agentTemplate = "templates/agent.html"

// notFoundTemplate stands alone: it must work at any depth, so it does
// not use the shared frame with its relative stylesheet.
const notFoundTemplate = "404"

// templateFuncs are the functions every template may call. The policy
// element is made once: every page's head holds it.
func templateFuncs() template.FuncMap {
	csp := cspMeta()
	return template.FuncMap{"csp": func() template.HTML { return csp }}
}

// parseTemplates parses every page's template set from web.
func parseTemplates(web fs.FS) (map[string]*template.Template, error) {
	funcs := templateFuncs()
	sets := make(map[string]*template.Template, len(pageTemplates)+1)
	for _, name := range pageTemplates {
		t, err := template.New(name).Funcs(funcs).ParseFS(web, "templates/base.html", agentTemplate, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("site: templates: %w", err)
		}
		if t.Lookup("base") == nil || t.Lookup("content") == nil {
			return nil, fmt.Errorf("site: templates/%s.html: must define \"content\" for the \"base\" frame of templates/base.html", name)
		}
		sets[name] = t
	}
	t, err := template.New(notFoundTemplate).Funcs(funcs).ParseFS(web, "templates/"+notFoundTemplate+".html")
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
	for _, need := range []string{stylePath, scriptPath, tablesScript, iconPath, echartsDir + "echarts.min.js"} {
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

// view is the page model with the parts of the frame every page shares,
// rendered once and reused: the links of a page's head, its navigation and
// the site footer. It is read-only once made but for those caches, so pages
// render from it in parallel.
type view struct {
	*model
	// headers caches rendered navigation by Layout.headerKey, heads the
	// links of a page's head by headKey.
	headers sync.Map
	heads   sync.Map
	// footer caches the site footer once rendered.
	footer atomic.Pointer[template.HTML]
}

func newView(in *Input) (*view, error) {
	m, err := newModel(in)
	if err != nil {
		return nil, err
	}
	return &view{model: m}, nil
}

// job makes one file of the site, writing its bytes to w.
type job struct {
	path string
	make func(w *bytes.Buffer) error
}

// buffer returns an empty buffer from the pool. A page grows its buffer
// once, and the next page of the same size reuses the room.
func (r *Renderer) buffer() *bytes.Buffer {
	b, ok := r.buffers.Get().(*bytes.Buffer)
	if !ok {
		return new(bytes.Buffer)
	}
	b.Reset()
	return b
}

// execute renders a page struct with the template set of name into w.
func (r *Renderer) execute(w *bytes.Buffer, name string, data any) error {
	entry := "base"
	if name == notFoundTemplate {
		entry = notFoundTemplate
	}
	if err := r.templates[name].ExecuteTemplate(w, entry, data); err != nil {
		return fmt.Errorf("site: templates/%s.html: %w", name, err)
	}
	return nil
}

// fragment renders the part of base.html named part for the frame l of
// a page of the template set name, or reuses the one rendered for an
// earlier page with the same key in cache. Pages of one kind share their
// frame's parts, and each action a template runs costs more than the
// lookup.
func (r *Renderer) fragment(cache *sync.Map, key, name, part string, l *Layout) (template.HTML, error) {
	if h, ok := cache.Load(key); ok {
		return h.(template.HTML), nil
	}
	b := r.buffer()
	defer r.buffers.Put(b)
	if err := r.templates[name].ExecuteTemplate(b, part, l); err != nil {
		return "", fmt.Errorf("site: templates/base.html: %w", err)
	}
	h, _ := cache.LoadOrStore(key, template.HTML(b.String()))
	return h.(template.HTML), nil
}

// frame renders the shared parts of a page's frame: the links of its
// head, its navigation and the site footer.
func (r *Renderer) frame(v *view, name string, l *Layout) (err error) {
	if l.Head, err = r.fragment(&v.heads, l.headKey(), name, "head", l); err != nil {
		return err
	}
	if l.Header, err = r.fragment(&v.headers, l.headerKey, name, "header", l); err != nil {
		return err
	}
	l.SiteFooter, err = r.footer(v, name)
	return err
}

// pageJob renders the page that build makes with the template set name.
func pageJob[P any](r *Renderer, v *view, p, name string, build func() (P, error)) job {
	return job{path: p, make: func(w *bytes.Buffer) error {
		data, err := build()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if f, ok := any(data).(framed); ok {
			if err := r.frame(v, name, f.frame()); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		if err := r.execute(w, name, data); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		return nil
	}}
}

// fileJob publishes bytes made elsewhere; make is called when the job
// runs, so a large suite's results files are encoded in parallel too.
func fileJob(p string, make func() []byte) job {
	return job{path: p, make: func(w *bytes.Buffer) error {
		w.Write(make())
		return nil
	}}
}

// dataJob publishes a data script made when the job runs.
func dataJob(p string, make func() ([]byte, error)) job {
	return job{path: p, make: func(w *bytes.Buffer) error {
		b, err := make()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		w.Write(b)
		return nil
	}}
}

// resultJobs are the pages of a snapshot's results: a drilldown per case,
// or a grouped page per block of cases.
func (r *Renderer) resultJobs(v *view, s *evaluator.Snapshot) []job {
	var jobs []job
	if v.paths.grouped() {
		for g := range v.paths.resultGroups(len(v.in.Release.Suite.Cases)) {
			jobs = append(jobs, r.resultGroupJob(v, s, g))
		}
		return jobs
	}
	for i := range v.in.Release.Suite.Cases {
		jobs = append(jobs, r.drilldownJob(v, s, i))
	}
	return jobs
}

// historyJobs are the case histories: a page per case, or grouped.
func (r *Renderer) historyJobs(v *view) []job {
	var jobs []job
	if v.paths.grouped() {
		for g := range v.paths.historyGroups(len(v.in.Release.Suite.Cases)) {
			jobs = append(jobs, r.historyGroupJob(v, g))
		}
		return jobs
	}
	for i := range v.in.Release.Suite.Cases {
		jobs = append(jobs, r.historyJob(v, i))
	}
	return jobs
}

// snapshotOwnJobs are a snapshot's page and results JSON.
func (r *Renderer) snapshotOwnJobs(v *view, s *evaluator.Snapshot) []job {
	return []job{
		pageJob(r, v, snapshotPath(s.Label()), "snapshot", func() (*SnapshotPage, error) { return v.snapshotPage(s) }),
		fileJob(resultsPath(s.Label()), s.JSON),
		dataJob(snapshotDataPath(s.Label()), func() ([]byte, error) { return v.snapshotData(s) }),
	}
}

// drilldownJob renders the page that holds the result of case i in s:
// its drilldown, or the grouped page of its block.
func (r *Renderer) drilldownJob(v *view, s *evaluator.Snapshot, i int) job {
	if v.paths.grouped() {
		return r.resultGroupJob(v, s, i/v.paths.perPage)
	}
	return pageJob(r, v, drilldownPath(s.Label(), v.paths.stem(i)), "drilldown",
		func() (*DrilldownPage, error) { return v.drilldown(s, i), nil })
}

func (r *Renderer) resultGroupJob(v *view, s *evaluator.Snapshot, g int) job {
	return pageJob(r, v, resultGroupPath(s.Label(), g), "results",
		func() (*ResultGroupPage, error) { return v.resultGroup(s, g), nil })
}

func (r *Renderer) historyGroupJob(v *view, g int) job {
	return pageJob(r, v, historyGroupPath(g), "histories",
		func() (*HistoryGroupPage, error) { return v.historyGroup(g), nil })
}

// historyJob renders the page that holds case i's history: its own, or
// the grouped page of its block.
func (r *Renderer) historyJob(v *view, i int) job {
	if v.paths.grouped() {
		return r.historyGroupJob(v, i/v.paths.historyPerPage)
	}
	return pageJob(r, v, historyPath(v.paths.stem(i)), "history",
		func() (*HistoryPage, error) { return v.history(i), nil })
}

// sharedOwnJobs are the shared files but the case histories.
func (r *Renderer) sharedOwnJobs(v *view) []job {
	jobs := []job{
		pageJob(r, v, overviewPath, "overview", v.overview),
		pageJob(r, v, comparePath, "compare", v.comparePage),
		pageJob(r, v, matrixPath, "matrix", v.matrixPage),
		dataJob(casesDataPath, v.casesData),
		dataJob(matrixDataPath, v.matrixData),
		pageJob(r, v, reportPagePath, "report", v.reportPage),
		pageJob(r, v, glossaryPath, "glossary", v.glossaryPage),
	}
	if v.info.HasPolicy {
		jobs = append(jobs, pageJob(r, v, policyPath, "policy", v.policy))
	}
	if v.info.HasHandoff {
		jobs = append(jobs, pageJob(r, v, handoffPath, "handoff", v.handoff))
	}
	jobs = append(jobs,
		pageJob(r, v, notFoundPath, notFoundTemplate, func() (*NotFoundPage, error) {
			return v.notFound(r.css, r.icon), nil
		}),
		fileJob(reportPath, v.in.Release.Report),
		fileJob(noJekyllPath, func() []byte { return nil }),
	)
	for _, a := range r.assets {
		jobs = append(jobs, fileJob(a.path, func() []byte { return a.data }))
	}
	return jobs
}

// allJobs lists every file of the site. The big pages come first, so
// that no worker is left with one at the end. Then, case by case, its
// drilldowns and its history: consecutive files lie in different
// folders, because writers creating files in one folder at once wait on
// each other. Grouped results are few and large, so they simply follow.
func (r *Renderer) allJobs(v *view) []job {
	return append(r.frontJobs(v), r.caseJobs(v)...)
}

// frontJobs are the files that are about no one case: the snapshot pages,
// results and table data, and the pages every snapshot shares.
func (r *Renderer) frontJobs(v *view) []job {
	var jobs []job
	for _, s := range v.in.Release.Snapshots {
		jobs = append(jobs, r.snapshotOwnJobs(v, s)...)
	}
	return append(jobs, r.sharedOwnJobs(v)...)
}

// caseJobs are the case pages: a drilldown per result and a history per
// case, or their grouped pages. They are nearly all of a large site.
func (r *Renderer) caseJobs(v *view) []job {
	var jobs []job
	if v.paths.grouped() {
		for _, s := range v.in.Release.Snapshots {
			jobs = append(jobs, r.resultJobs(v, s)...)
		}
		return append(jobs, r.historyJobs(v)...)
	}
	for i := range v.in.Release.Suite.Cases {
		for _, s := range v.in.Release.Snapshots {
			jobs = append(jobs, r.drilldownJob(v, s, i))
		}
		jobs = append(jobs, r.historyJob(v, i))
	}
	return jobs
}

// runOptions say how run hands files to emit.
type runOptions struct {
	// writers, when above zero, is the number of goroutines that call
	// emit while the render workers go on: for an emit that writes
	// files, which waits on the disk rather than the processor.
	// Otherwise emit is called by one goroutine at a time.
	writers int
	// reuse says that emit is done with the bytes when it returns, so
	// their buffer may hold the next file. Otherwise each file gets a
	// copy of its own, which emit may keep.
	reuse    bool
	progress func(done, total int)
}

// made is one file on its way to emit.
type made struct {
	index int
	buf   *bytes.Buffer
}

// run makes every job on GOMAXPROCS workers and hands each file to emit.
// The first error stops the work; the error of the earliest failed job in
// list order is returned.
func (r *Renderer) run(jobs []job, emit Emit, opts runOptions) error {
	var (
		next     atomic.Int64
		failed   atomic.Bool
		emitMu   sync.Mutex // serialises emit when there are no writers
		doneMu   sync.Mutex // guards done and serialises progress
		done     int
		errs     = make([]error, len(jobs))
		workers  sync.WaitGroup
		writing  sync.WaitGroup
		toWriter chan made
	)
	fail := func(i int, err error) {
		errs[i] = err
		failed.Store(true)
	}
	// deliver hands a made file to emit and recycles its buffer.
	deliver := func(f made) {
		defer r.buffers.Put(f.buf)
		data := f.buf.Bytes()
		if !opts.reuse {
			data = bytes.Clone(data)
		}
		if err := emit(jobs[f.index].path, data); err != nil {
			fail(f.index, fmt.Errorf("site: %s: %w", jobs[f.index].path, err))
			return
		}
		if opts.progress != nil {
			doneMu.Lock()
			done++
			opts.progress(done, len(jobs))
			doneMu.Unlock()
		}
	}
	if opts.writers > 0 {
		toWriter = make(chan made, 2*opts.writers)
		for range opts.writers {
			writing.Go(func() {
				for f := range toWriter {
					if failed.Load() {
						r.buffers.Put(f.buf)
						continue
					}
					deliver(f)
				}
			})
		}
	}
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		workers.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				b := r.buffer()
				if err := jobs[i].make(b); err != nil {
					r.buffers.Put(b)
					fail(i, err)
					return
				}
				if toWriter != nil {
					toWriter <- made{i, b}
					continue
				}
				emitMu.Lock()
				deliver(made{i, b})
				emitMu.Unlock()
			}
		})
	}
	workers.Wait()
	if toWriter != nil {
		close(toWriter)
		writing.Wait()
	}
	return firstError(errs)
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
