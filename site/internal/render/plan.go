package render

import (
	releasegate "github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/site/pages"
)

// Paths lists the slash path of every file RenderAll hands to emit for
// in, without rendering any, so a caller that must fit the site into
// limits (a bundle's entry count) can refuse it before the work.
func (r *Renderer) Paths(in *pages.Input) ([]string, error) {
	v, err := NewView(in)
	if err != nil {
		return nil, err
	}
	jobs := r.AllJobs(v)
	paths := make([]string, len(jobs))
	for i, j := range jobs {
		paths[i] = j.path
	}
	return paths, nil
}

// Paths is Renderer.Paths with the embedded templates and assets.
func Paths(in *pages.Input) ([]string, error) {
	r, err := NewRenderer(releasegate.Web())
	if err != nil {
		return nil, err
	}
	return r.Paths(in)
}
