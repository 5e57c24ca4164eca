// Package site renders an evaluated release as a static report site:
// the release overview, a page per snapshot, a drilldown per case of each
// snapshot, a history page per case, the policy with its rule anchors,
// the handoff note, the results files and the release report. Above
// DefaultGroupAbove results, results and histories share pages of
// consecutive cases, each under an anchor (see resultPaths).
//
// Pages are typed structs built from the evaluation (the logic lives in
// their builders) and rendered with html/template: templates/base.html is
// the frame, and each page template is parsed with it into a set of its
// own. Every link is relative, so a build works at a domain root, under a
// sub-path and from disk, and two builds of the same inputs are
// byte-identical.
package site

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"io/fs"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/internal/publish"
)

// Input is everything the site shows.
type Input struct {
	Release *evaluator.Release // evaluated with Options.KeepOutputs
	Handoff []byte             // HANDOFF.md, Markdown; empty: no handoff page
	// GroupAbove is the number of results (cases × snapshots) above which
	// results and case histories share pages; 0 means DefaultGroupAbove.
	GroupAbove int
}

// Renderer renders pages with one parsed template set. It is safe for
// concurrent use.
type Renderer struct {
	web       fs.FS
	templates map[string]*template.Template
	assets    []asset
	css       template.CSS // the stylesheet, inlined into 404.html
	icon      template.URL // the site icon as a data URL, for 404.html
	steps     StepsMarks   // of the case-steps part of a drilldown
	buffers   sync.Pool    // of *bytes.Buffer, for rendering
}

// NewRenderer parses the templates of web (templates/ and assets/).
func NewRenderer(web fs.FS) (*Renderer, error) {
	ts, err := parseTemplates(web)
	if err != nil {
		return nil, err
	}
	as, err := readAssets(web)
	if err != nil {
		return nil, err
	}
	r := &Renderer{web: web, templates: ts, assets: as}
	if r.steps, err = stepsMarks(ts["drilldown"]); err != nil {
		return nil, err
	}
	// Trusted: the stylesheet and the icon ship with the program.
	for _, a := range as {
		switch a.path {
		case stylePath:
			r.css = template.CSS(a.data)
		case iconPath:
			r.icon = template.URL("data:image/svg+xml," + url.PathEscape(string(a.data)))
		}
	}
	return r, nil
}

// StepsMarks are the marks of the case-steps part of the drilldowns r
// renders.
func (r *Renderer) StepsMarks() StepsMarks { return r.steps }

// Emit receives one rendered file at its slash path relative to the site
// root. The Render methods call it from one goroutine at a time, and each
// call gets a slice of its own that emit may keep.
type Emit func(path string, data []byte) error

// RenderAll renders every file of the site, pages in parallel.
func (r *Renderer) RenderAll(in *Input, emit Emit) error {
	v, err := newView(in)
	if err != nil {
		return err
	}
	return r.run(r.allJobs(v), emit, runOptions{})
}

// Later is a file of a site whose rendering was put off: a live server
// renders a case page when it is first asked for, or when it has time.
type Later struct {
	// Path is the file's slash path relative to the site root.
	Path string
	make func(w *bytes.Buffer) error
}

// Make renders the file: the bytes RenderAll gives it for the same input.
// It may be called from any goroutine.
func (l Later) Make() ([]byte, error) {
	var b bytes.Buffer
	if err := l.make(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// RenderAllLater renders the files of the site that are about no one case
// (the overview, the snapshot pages, the shared pages, data and assets)
// and returns the case pages, nearly all of a large site, to be made
// later. A live server uses it when every page changes, as when a
// snapshot is added, so that the pages an author looks at are up to date
// at once.
func (r *Renderer) RenderAllLater(in *Input, emit Emit) ([]Later, error) {
	v, err := newView(in)
	if err != nil {
		return nil, err
	}
	if err := r.run(r.frontJobs(v), emit, runOptions{}); err != nil {
		return nil, err
	}
	return laters(r.caseJobs(v), nil), nil
}

// MakeLater returns how to make the case pages at paths for in, those put
// off under an earlier input that are still to make. A path that in's site
// has no case page at is left out.
func (r *Renderer) MakeLater(in *Input, paths []string) ([]Later, error) {
	v, err := newView(in)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	return laters(r.caseJobs(v), want), nil
}

// laters are the jobs whose path is wanted (all when want is nil).
func laters(jobs []job, want map[string]bool) []Later {
	out := make([]Later, 0, len(jobs))
	for _, j := range jobs {
		if want == nil || want[j.path] {
			out = append(out, Later{Path: j.path, make: j.make})
		}
	}
	return out
}

// BuildOptions tune Build.
type BuildOptions struct {
	// Context stops the build when done: files stop being written and the
	// staged site is removed. Nil means never.
	Context context.Context
	// Web holds templates/ and assets/; nil means the embedded copies.
	Web fs.FS
	// Progress, when set, is told how many files are written so far.
	Progress func(done, total int)
	// Warn, when set, is told of what is worth a warning but does not
	// stop the build: a sentence of HANDOFF.md that contradicts a
	// computed decision.
	Warn func(msg string)
	// Written, when set, is told the size of the site written.
	Written func(files int, bytes int64)
	// GroupAbove is the number of results (cases × snapshots) above which
	// results and case histories share pages; 0 means DefaultGroupAbove.
	GroupAbove int
	// Gates are the gates the release is decided by and the pages show;
	// nil is decide.DefaultGates.
	Gates decide.Gates
}

// Warnings are what a build warns about in the evaluated input: each
// sentence of HANDOFF.md that names a snapshot with a decision other than
// the computed one.
func (in *Input) Warnings() []string {
	if len(in.Handoff) == 0 || in.Release == nil {
		return nil
	}
	decisions := map[string]decide.Decision{}
	for _, s := range in.Release.Snapshots {
		decisions[s.Label()] = s.Result.Decision
	}
	var out []string
	for _, c := range CheckHandoff(in.Handoff, decisions) {
		out = append(out, c.String())
	}
	return out
}

// Build evaluates the data folder and writes the whole site to out
// atomically: a failed build leaves out as it was. A missing HANDOFF.md
// is no error: the site then has no handoff page and links to none.
func Build(data, out string, opts BuildOptions) (*evaluator.Release, error) {
	if err := CheckOut(data, out); err != nil {
		return nil, err
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	web := opts.Web
	if web == nil {
		web = releasegate.Web()
	}
	r, err := NewRenderer(web)
	if err != nil {
		return nil, err
	}
	in, err := LoadGates(data, opts.Gates)
	if err != nil {
		return nil, err
	}
	in.GroupAbove = opts.GroupAbove
	v, err := newView(in)
	if err != nil {
		return nil, err
	}
	tree, err := publish.NewTree(ctx, out)
	if err != nil {
		return nil, err
	}
	// The tree takes writes from any goroutine. Creating a file waits on
	// the disk rather than the processor, so several writers keep the
	// render workers busy meanwhile (see "Fast paths" in docs/design.md).
	var files atomic.Int64
	var size atomic.Int64
	write := func(path string, data []byte) error {
		files.Add(1)
		size.Add(int64(len(data)))
		return tree.Write(path, data)
	}
	if err := r.run(r.allJobs(v), write, runOptions{writers: fileWriters, reuse: true, progress: opts.Progress}); err != nil {
		tree.Abort()
		return nil, err
	}
	if err := tree.Commit(); err != nil {
		return nil, err
	}
	if opts.Warn != nil {
		for _, w := range in.Warnings() {
			opts.Warn(w)
		}
	}
	if opts.Written != nil {
		opts.Written(int(files.Load()), size.Load())
	}
	return in.Release, nil
}

// BuildMemoryLimit is the soft limit on the Go heap that the build
// command sets when GOMEMLIMIT is not set. The garbage collector then
// works harder near it instead of letting the heap double: a 100,000-case
// × 3 build holds about 270 MiB of evaluated release and peaks near
// 1.2 GiB of resident memory without a limit.
const BuildMemoryLimit = 768 << 20

// fileWriters is how many goroutines write a build's files.
const fileWriters = 4

// Load is the pipeline of every command that shows or packs a release
// (build, bundle, verify, serve): it runs load → judge → decide over the
// data folder (evaluator.EvaluateDir) with every output kept for the
// pages, and reads its HANDOFF.md, which may be missing.
func Load(data string) (*Input, error) { return LoadGates(data, nil) }

// LoadGates is Load deciding by gates (nil is decide.DefaultGates).
func LoadGates(data string, gates decide.Gates) (*Input, error) {
	rel, err := evaluator.EvaluateDir(data, evaluator.Options{KeepOutputs: true, KeepInputs: true, Gates: gates})
	if err != nil {
		return nil, err
	}
	handoff, err := ReadHandoff(data)
	if err != nil {
		return nil, err
	}
	return &Input{Release: rel, Handoff: handoff}, nil
}

// ReadHandoff reads the data folder's HANDOFF.md under the rules of every
// input (a regular file inside the folder, at most 16 MiB); nil when there
// is none.
func ReadHandoff(data string) ([]byte, error) {
	handoff, err := load.ReadFile(data, filepath.Join(data, load.HandoffFile), load.MaxDocumentBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return handoff, err
}

// Render renders every file of the site of in with the embedded templates
// and assets, handing each to emit: what Build writes, without a folder.
func Render(in *Input, emit Emit) error {
	r, err := NewRenderer(releasegate.Web())
	if err != nil {
		return err
	}
	return r.RenderAll(in, emit)
}

// CheckOut refuses an output folder whose replacement would destroy
// something releasegate did not write (docs/ownership.md): the data
// folder, a folder holding it or inside it, however the paths are
// spelled, or a folder that is not empty and not wholly releasegate's.
func CheckOut(data, out string) error {
	var paths publish.Paths
	paths.Input("the data folder (--data)", data)
	paths.Output("--out", out)
	if err := paths.Check(); err != nil {
		return err
	}
	return publish.CheckOwned(out)
}
