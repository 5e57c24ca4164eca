package site

import releasegate "github.com/releasegate/releasegate"

// Paths lists the slash path of every file RenderAll hands to emit for
// in, without rendering any, so a caller that must fit the site into
// limits (a bundle's entry count) can refuse it before the work.
func (r *Renderer) Paths(in *Input) ([]string, error) {
	v, err := newView(in)
	if err != nil {
		return nil, err
	}
	jobs := r.allJobs(v)
	paths := make([]string, len(jobs))
	for i, j := range jobs {
		paths[i] = j.path
	}
	return paths, nil
}

// Paths is Renderer.Paths with the embedded templates and assets.
func Paths(in *Input) ([]string, error) {
	r, err := NewRenderer(releasegate.Web())
	if err != nil {
		return nil, err
	}
	return r.Paths(in)
}
