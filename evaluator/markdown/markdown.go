// Package markdown puts free text into generated Markdown, such as
// RELEASE_REPORT.md and the CI step summary, so that what an agent wrote
// (tool names, details) reads as the literal text and cannot change the
// document around it.
package markdown

import "strings"

// special are the characters Cell escapes with a backslash: those that
// end a table cell or start emphasis, code, links, HTML, entities,
// headings or images.
const special = "|\\`*_[]<>~&#!"

// Cell makes free text safe inside a Markdown table cell: it stays on one
// line, cannot end the cell, and renders as the literal text rather than
// as emphasis, links, code or HTML.
func Cell(s string) string {
	if !strings.ContainsAny(s, special+"\r\n") {
		return s // most details need nothing; keep them allocation-free
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r == '\r' || r == '\n':
			b.WriteByte(' ')
		case r < 0x80 && strings.ContainsRune(special, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
