// Package render turns a site's page model (site/pages) into files: it
// executes the embedded templates, one set per page on the shared frame,
// and makes the data scripts, the results files and the assets, handing
// each file's bytes to an Emit in parallel. Besides the whole site it
// renders parts of one (RenderParts, Later), which only a live server
// needs; it lives under site/internal so that only the site's own
// packages can call it (see docs/design.md, "The pipeline").
package render

import (
	"bytes"
	"html/template"
	"io/fs"
	"net/url"
	"sync"

	"github.com/releasegate/releasegate/site/pages"
)

// Renderer renders pages with one parsed template set. It is safe for
// concurrent use.
type Renderer struct {
	web       fs.FS
	templates map[string]*template.Template
	Assets    []Asset
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
	r := &Renderer{web: web, templates: ts, Assets: as}
	if r.steps, err = stepsMarks(ts["drilldown"]); err != nil {
		return nil, err
	}
	// Trusted: the stylesheet and the icon ship with the program.
	for _, a := range as {
		switch a.Path {
		case pages.StylePath:
			r.css = template.CSS(a.Data)
		case pages.IconPath:
			r.icon = template.URL("data:image/svg+xml," + url.PathEscape(string(a.Data)))
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
func (r *Renderer) RenderAll(in *pages.Input, emit Emit) error {
	v, err := NewView(in)
	if err != nil {
		return err
	}
	return r.Run(r.AllJobs(v), emit, RunOptions{})
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
func (r *Renderer) RenderAllLater(in *pages.Input, emit Emit) ([]Later, error) {
	v, err := NewView(in)
	if err != nil {
		return nil, err
	}
	if err := r.Run(r.frontJobs(v), emit, RunOptions{}); err != nil {
		return nil, err
	}
	return laters(r.caseJobs(v), nil), nil
}

// MakeLater returns how to make the case pages at paths for in, those put
// off under an earlier input that are still to make. A path that in's site
// has no case page at is left out.
func (r *Renderer) MakeLater(in *pages.Input, paths []string) ([]Later, error) {
	v, err := NewView(in)
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
func laters(jobs []Job, want map[string]bool) []Later {
	out := make([]Later, 0, len(jobs))
	for _, j := range jobs {
		if want == nil || want[j.path] {
			out = append(out, Later{Path: j.path, make: j.bufferMake()})
		}
	}
	return out
}
