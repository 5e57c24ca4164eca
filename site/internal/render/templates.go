package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"sync"

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
	start := w.Len()
	if err := r.templates[name].ExecuteTemplate(w, entry, data); err != nil {
		return fmt.Errorf("site: templates/%s.html: %w", name, err)
	}
	if s, ok := data.(pages.Spliced); ok {
		return splice(w, start, s, name)
	}
	return nil
}

// splice writes the parts of s where the page that starts at start in
// w holds pages.SpliceMark.
func splice(w *bytes.Buffer, start int, s pages.Spliced, name string) error {
	at := bytes.Index(w.Bytes()[start:], []byte(pages.SpliceMark))
	if at < 0 {
		return fmt.Errorf("site: templates/%s.html writes no place for the page's parts (.Splice)", name)
	}
	at += start
	tail := bytes.Clone(w.Bytes()[at+len(pages.SpliceMark):])
	w.Truncate(at)
	w.Grow(s.SplicedSize() + len(tail))
	s.WriteSpliced(w)
	w.Write(tail)
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
