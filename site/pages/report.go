package pages

import (
	"bytes"
	"html/template"
)

// ReportPage is report.html: RELEASE_REPORT.md rendered, with a link to
// the file itself. A large release's report is megabytes of tables, so
// its HTML is written into the page where the template marks it (see
// SpliceMark), not copied through the template.
type ReportPage struct {
	Layout
	HasH1   bool // the report brings its own top heading
	RawHref string
	body    []byte // the report's HTML, its tables not yet wrapped
}

// ReportPage builds report.html from RELEASE_REPORT.md.
func (v *Model) ReportPage() (*ReportPage, error) {
	h, err := renderBlocks(v.Report(), v.In.ReportBlocks)
	if err != nil {
		return nil, err
	}
	return &ReportPage{Layout: v.Info.layout(ReportPagePath, "Release report"), HasH1: h.hasH1, RawHref: ReportPath, body: h.tables}, nil
}

// Splice is where the template puts the report.
func (p *ReportPage) Splice() template.HTML { return SpliceMark }

// SplicedSize is about the length of the report's HTML, a little more.
func (p *ReportPage) SplicedSize() int {
	return len(p.body) + bytes.Count(p.body, []byte("<table>"))*96
}

// WriteSpliced writes the report's HTML, each table wrapped as
// wrapTables wraps it. Safe as RenderMarkdownBlocks is.
func (p *ReportPage) WriteSpliced(w *bytes.Buffer) { writeWrappedTables(w, p.body) }
