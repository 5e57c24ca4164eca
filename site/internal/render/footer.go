package render

import (
	"fmt"
	"html/template"

	"github.com/releasegate/releasegate/site/pages"
)

// footer renders the site footer with the template set of name, once per
// View: every framed page carries the same bytes.
func (r *Renderer) footer(v *View, name string) (template.HTML, error) {
	if f := v.footer.Load(); f != nil {
		return *f, nil
	}
	b := r.buffer()
	defer r.buffers.Put(b)
	if err := r.templates[name].ExecuteTemplate(b, "footer", v.Info.FooterData()); err != nil {
		return "", fmt.Errorf("site: templates/base.html: %w", err)
	}
	f := template.HTML(b.String())
	v.footer.CompareAndSwap(nil, &f)
	return *v.footer.Load(), nil
}

// Footer renders the footer that every framed page of in's site carries,
// byte for byte as it appears on the page. A live server keeps its pages
// without it and joins the current one when it serves a page, so an edit
// that changes nothing but the footer renders no page.
func (r *Renderer) Footer(in *pages.Input) ([]byte, error) {
	v, err := NewView(in)
	if err != nil {
		return nil, err
	}
	f, err := r.footer(v, "overview")
	return []byte(f), err
}
