package render

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/releasegate/releasegate/site/pages"
)

// StepsMarks enclose the case-steps part of a drilldown as a renderer's
// templates write it: Start is what the part writes before its
// snapshot's label, End its last closing tag. The renderer finds them by
// rendering the part once, so no constant has to repeat the template;
// nothing a page shows of its inputs can hold them, since every input is
// escaped.
type StepsMarks struct{ Start, End []byte }

// At finds the case-steps part of a rendered drilldown, so that a caller
// keeping pages may replace it with what Parts.Steps gives:
// page[start:end] is that part. ok is false for any other page.
func (m StepsMarks) At(page []byte) (start, end int, ok bool) {
	if len(m.Start) == 0 || len(m.End) == 0 {
		return 0, 0, false
	}
	start = bytes.Index(page, m.Start)
	if start < 0 {
		return 0, 0, false
	}
	n := bytes.Index(page[start:], m.End)
	if n < 0 {
		return 0, 0, false
	}
	return start, start + n + len(m.End), true
}

// stepsMarks renders the case-steps part of t with a label no snapshot
// has, and reads the marks off it.
func stepsMarks(t *template.Template) (StepsMarks, error) {
	const label = "case-steps-label-mark"
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "case-steps", pages.CaseSteps{Label: label}); err != nil {
		return StepsMarks{}, fmt.Errorf("site: templates/drilldown.html: %w", err)
	}
	out := b.Bytes()
	at, closing := bytes.Index(out, []byte(label)), bytes.LastIndex(out, []byte("</"))
	if at <= 0 || closing < at {
		return StepsMarks{}, fmt.Errorf("site: templates/drilldown.html: the case-steps part must write its snapshot's label inside one element")
	}
	return StepsMarks{Start: bytes.Clone(out[:at]), End: bytes.Clone(bytes.TrimSpace(out[closing:]))}, nil
}
