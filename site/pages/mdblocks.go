package pages

import (
	"bytes"
	"html/template"
	"sync"
)

// MarkdownBlocks keeps the HTML of a Markdown document's blocks from one
// rendering to the next, so that a live server renders again only the
// blocks an edit changed. RELEASE_REPORT.md is the document it is for: at
// 100,000 cases it is megabytes of failure tables, most of which an edit
// of one snapshot's outputs or of a threshold leaves as they were (see
// docs/design.md, "serve --watch at 100,000 cases × 3"). It keeps the
// blocks of the last document only. The zero value is ready to use; a nil
// *MarkdownBlocks keeps nothing.
type MarkdownBlocks struct {
	mu   sync.Mutex
	html map[string][]byte // a block's text → its HTML
}

// RenderMarkdownBlocks is RenderMarkdown(src, nil), with the HTML of each
// block kept in kept (which may be nil) and taken from it when the block
// is unchanged. A document that cannot be cut into blocks safely (see
// markdownBlocks) is rendered whole. A large table is rendered from its
// distinct cells (tableCells), kept or not.
func RenderMarkdownBlocks(src []byte, kept *MarkdownBlocks) (markdownDoc, error) {
	h, err := renderBlocks(src, kept)
	if err != nil {
		return markdownDoc{}, err
	}
	// Safe as in convert: goldmark wrote every byte, but for the plain
	// cells of tableCells, which need no escaping.
	return markdownDoc{Body: template.HTML(wrapTables(string(h.tables))), HasH1: h.hasH1}, nil
}

// blocksHTML is a Markdown document rendered, its tables not yet wrapped
// (see wrapTables).
type blocksHTML struct {
	tables []byte
	hasH1  bool
}

// renderBlocks is RenderMarkdownBlocks before wrapTables.
func renderBlocks(src []byte, kept *MarkdownBlocks) (blocksHTML, error) {
	blocks, ok := markdownBlocks(src)
	if !ok {
		var b bytes.Buffer
		hs, err := convertInto(&b, newConverter(), src, nil, map[string]bool{})
		return blocksHTML{tables: b.Bytes(), hasH1: hasTop(hs)}, err
	}
	var last map[string][]byte
	if kept != nil {
		kept.mu.Lock()
		defer kept.mu.Unlock()
		last = kept.html
	}
	md := newConverter()
	used := map[string]bool{}
	var next map[string][]byte
	if kept != nil {
		next = make(map[string][]byte, len(blocks))
	}
	var out bytes.Buffer
	out.Grow(len(src) * 3 / 2)
	var hasH1 bool
	var tables tableCells
	for _, block := range blocks {
		if h, ok := last[string(block)]; ok {
			next[string(block)] = h
			out.Write(h)
			continue
		}
		start := out.Len()
		table, err := tables.render(&out, md, block)
		if err != nil {
			return blocksHTML{}, err
		}
		if !table {
			hs, err := convertInto(&out, md, block, nil, used)
			if err != nil {
				return blocksHTML{}, err
			}
			hasH1 = hasH1 || hasTop(hs)
			// A heading's anchor depends on the anchors before it: a
			// block with a heading is rendered every time (in a report,
			// a line).
			if len(hs) > 0 {
				continue
			}
		}
		if next != nil {
			next[string(block)] = bytes.Clone(out.Bytes()[start:])
		}
	}
	if kept != nil {
		kept.html = next
	}
	return blocksHTML{tables: out.Bytes(), hasH1: hasH1}, nil
}

// markdownBlocks cuts src at blank lines into blocks whose HTML, rendered
// one by one, is that of src rendered whole. ok is false when src has
// what a blank line does not end, or what refers across blocks: a fenced
// code block, raw HTML, a link reference definition or a block quote.
// A block that could continue the one before it (indented, or a list
// item, which makes a list loose across a blank line) stays with it.
func markdownBlocks(src []byte) (blocks [][]byte, ok bool) {
	start := 0
	blankBefore := false
	for pos := 0; pos < len(src); {
		end := bytes.IndexByte(src[pos:], '\n') + 1
		if end == 0 {
			end = len(src) - pos
		}
		line := src[pos : pos+end]
		if crossesBlocks(line) {
			return nil, false
		}
		blank := len(bytes.TrimSpace(line)) == 0
		if !blank && blankBefore && pos > start && startsBlock(line) {
			blocks = append(blocks, src[start:pos])
			start = pos
		}
		blankBefore = blank
		pos += end
	}
	if start < len(src) {
		blocks = append(blocks, src[start:])
	}
	return blocks, true
}

// crossesBlocks reports whether line, after up to three spaces, opens
// something a blank line may not end or that other blocks refer to. A
// link reference definition may also open a list item or a paragraph of
// one, after a marker or any indent: every line but a table row that
// holds "]:" is taken for one.
func crossesBlocks(line []byte) bool {
	if line[0] != '|' && bytes.Contains(line, []byte("]:")) {
		return true
	}
	t := bytes.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false // indented code: it stays with the block before
	}
	for _, p := range [][]byte{[]byte("```"), []byte("~~~"), []byte("<"), []byte("["), []byte(">")} {
		if bytes.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// startsBlock reports whether line, following a blank line, begins a
// block of its own: not indented, not a list item.
func startsBlock(line []byte) bool {
	switch c := line[0]; {
	case c == ' ' || c == '\t' || c == '\r':
		return false
	case c == '-' || c == '*' || c == '+':
		return len(line) > 1 && line[1] != ' ' && line[1] != '\t' && line[1] != '\n' && line[1] != '\r'
	case c >= '0' && c <= '9':
		i := 0
		for i < len(line) && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		return i == len(line) || line[i] != '.' && line[i] != ')'
	}
	return true
}
