package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/site/pages"
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
	Path string
	Data []byte
}

// readAssets reads every file below assets/ in path order.
func readAssets(web fs.FS) ([]asset, error) {
	var out []asset
	err := fs.WalkDir(web, pages.AssetsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(web, p)
		if err != nil {
			return err
		}
		out = append(out, asset{Path: p, Data: b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("site: assets: %w", err)
	}
	for _, need := range []string{pages.StylePath, pages.ScriptPath, pages.TablesScript, pages.IconPath, pages.EchartsDir + "echarts.min.js"} {
		if !hasAsset(out, need) {
			return nil, fmt.Errorf("site: assets: %s is missing", need)
		}
	}
	return out, nil
}

func hasAsset(as []asset, p string) bool {
	for _, a := range as {
		if a.Path == p {
			return true
		}
	}
	return false
}

// View is the page model with the parts of the frame every page shares,
// rendered once and reused: the links of a page's head, its navigation and
// the site footer. It is read-only once made but for those caches, so pages
// render from it in parallel.
type View struct {
	*pages.Model
	// headers caches rendered navigation by Layout.headerKey, heads the
	// links of a page's head by headKey.
	headers sync.Map
	heads   sync.Map
	// footer caches the site footer once rendered.
	footer atomic.Pointer[template.HTML]
}

func NewView(in *pages.Input) (*View, error) {
	m, err := pages.NewModel(in)
	if err != nil {
		return nil, err
	}
	return &View{Model: m}, nil
}

// Job makes one file of the site, writing its bytes to w.
type Job struct {
	path string
	Make func(w *bytes.Buffer) error
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

// Execute renders a page struct with the template set of name into w.
func (r *Renderer) Execute(w *bytes.Buffer, name string, data any) error {
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
func (r *Renderer) fragment(cache *sync.Map, key, name, part string, l *pages.Layout) (template.HTML, error) {
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

// Frame renders the shared parts of a page's frame: the links of its
// head, its navigation and the site footer.
func (r *Renderer) Frame(v *View, name string, l *pages.Layout) (err error) {
	if l.Head, err = r.fragment(&v.heads, l.HeadKey(), name, "head", l); err != nil {
		return err
	}
	if l.Header, err = r.fragment(&v.headers, l.HeaderKey, name, "header", l); err != nil {
		return err
	}
	l.SiteFooter, err = r.footer(v, name)
	return err
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

// dataJob publishes a data script made when the job runs.
func dataJob(p string, make func() ([]byte, error)) Job {
	return Job{path: p, Make: func(w *bytes.Buffer) error {
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
		FileJob(pages.ResultsPath(s.Label()), s.JSON),
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
		func() (*pages.DrilldownPage, error) { return v.DrilldownPage(s, i), nil })
}

func (r *Renderer) resultGroupJob(v *View, s *evaluator.Snapshot, g int) Job {
	return pageJob(r, v, pages.ResultGroupPath(s.Label(), g), "results",
		func() (*pages.ResultGroupPage, error) { return v.ResultGroupPage(s, g), nil })
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
		FileJob(pages.ReportPath, v.In.Release.Report),
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

// RunOptions say how run hands files to emit.
type RunOptions struct {
	// writers, when above zero, is the number of goroutines that call
	// emit while the render workers go on: for an emit that writes
	// files, which waits on the disk rather than the processor.
	// Otherwise emit is called by one goroutine at a time.
	Writers int
	// Reuse says that emit is done with the bytes when it returns, so
	// their buffer may hold the next file. Otherwise each file gets a
	// copy of its own, which emit may keep.
	Reuse    bool
	Progress func(done, total int)
}

// made is one file on its way to emit.
type made struct {
	index int
	buf   *bytes.Buffer
}

// Run makes every job on GOMAXPROCS workers and hands each file to emit.
// The first error stops the work; the error of the earliest failed job in
// list order is returned.
func (r *Renderer) Run(jobs []Job, emit Emit, opts RunOptions) error {
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
		if !opts.Reuse {
			data = bytes.Clone(data)
		}
		if err := emit(jobs[f.index].path, data); err != nil {
			fail(f.index, fmt.Errorf("site: %s: %w", jobs[f.index].path, err))
			return
		}
		if opts.Progress != nil {
			doneMu.Lock()
			done++
			opts.Progress(done, len(jobs))
			doneMu.Unlock()
		}
	}
	if opts.Writers > 0 {
		toWriter = make(chan made, 2*opts.Writers)
		for range opts.Writers {
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
				if err := jobs[i].Make(b); err != nil {
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
