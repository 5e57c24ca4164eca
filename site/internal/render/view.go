package render

import (
	"html/template"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/site/pages"
)

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

// NewView models the pages of in for rendering.
func NewView(in *pages.Input) (*View, error) {
	m, err := pages.NewModel(in)
	if err != nil {
		return nil, err
	}
	return &View{Model: m}, nil
}
