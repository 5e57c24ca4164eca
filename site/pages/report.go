package pages

// ReportPage is report.html: RELEASE_REPORT.md rendered, with a link to
// the file itself.
type ReportPage struct {
	Layout
	Doc     markdownDoc
	RawHref string
}

// ReportPage builds report.html from RELEASE_REPORT.md.
func (v *Model) ReportPage() (*ReportPage, error) {
	doc, err := RenderMarkdownBlocks(v.Report(), v.In.ReportBlocks)
	if err != nil {
		return nil, err
	}
	return &ReportPage{Layout: v.Info.layout(ReportPagePath, "Release report"), Doc: doc, RawHref: ReportPath}, nil
}
