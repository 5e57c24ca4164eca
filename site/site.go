// Package site renders an evaluated release as a static report site.
package site

import (
	"errors"
	"io/fs"

	"github.com/releasegate/releasegate/evaluator"
)

// Input is everything the site shows.
type Input struct {
	Release *evaluator.Release // evaluated with Options.KeepOutputs
	Handoff []byte             // HANDOFF.md, Markdown
}

// Renderer renders pages with one parsed template set.
type Renderer struct{ web fs.FS }

// NewRenderer parses the templates of web (templates/ and assets/).
func NewRenderer(web fs.FS) (*Renderer, error) { return &Renderer{web: web}, nil }

// Emit receives one rendered file at its slash path relative to the site root.
type Emit func(path string, data []byte) error

// RenderAll renders every file of the site.
func (r *Renderer) RenderAll(in *Input, emit Emit) error { return errors.New("site: not implemented") }

// RenderSnapshot renders the files that belong to one snapshot only: its page,
// its case drilldowns and its results JSON.
func (r *Renderer) RenderSnapshot(in *Input, label string, emit Emit) error {
	return errors.New("site: not implemented")
}

// RenderShared renders the files that depend on every snapshot: the overview,
// the per-case history pages, policy.html, handoff.html, RELEASE_REPORT.md,
// 404.html, .nojekyll and the assets.
func (r *Renderer) RenderShared(in *Input, emit Emit) error { return errors.New("site: not implemented") }

// BuildOptions tune Build.
type BuildOptions struct {
	// Web holds templates/ and assets/; nil means the embedded copies.
	Web fs.FS
	// Progress, when set, is told how many files are written so far.
	Progress func(done, total int)
}

// Build evaluates the data folder and writes the whole site to out
// atomically: a failed build leaves out as it was.
func Build(data, out string, opts BuildOptions) (*evaluator.Release, error) {
	return nil, errors.New("site: not implemented")
}
