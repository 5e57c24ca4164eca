package pages

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/util"
)

// A large release report is mostly failure tables: at 100,000 cases × 3
// RELEASE_REPORT.md has about 90,000 table rows, and goldmark took about
// a second of a build's processor time to render them. Their cells
// repeat (a severity, a failure code, the same detail for many cases) or
// are plain words and numbers (a case id), so tableCells renders such a
// table a row at a time: a plain cell is written as it is, and any other
// cell's HTML is taken from goldmark once per column and text. A row with
// a cell not seen before goes through goldmark whole, with the table's
// header, so each cell is what goldmark makes of it in that column; the
// first row always does, which gives the table's opening and each
// column's cell tag. FuzzTableCells holds it to goldmark's output; what
// it saves is in docs/design.md, "Fast paths".

// minTableRows is the fewest body rows a table needs to be rendered a
// row at a time; a smaller one goes to goldmark whole.
const minTableRows = 16

// tableCells renders large GFM tables a row at a time (see above). The
// zero value is ready to use.
type tableCells struct {
	known []map[string][]byte // per column: a cell's text → its HTML
	open  [][]byte            // per column: the cell's opening tag
	texts [][]byte            // the current row's cell texts
	html  [][]byte            // their HTML, nil for a plain cell
	mini  bytes.Buffer        // a row rendered by goldmark
	src   []byte              // the text goldmark renders
}

// render writes the HTML of block to out when block is one GFM table
// that can be rendered a row at a time, and reports whether it did; when
// it did not, out is as it was.
func (c *tableCells) render(out *bytes.Buffer, md goldmark.Markdown, block []byte) (bool, error) {
	lines, ok := tableLines(block)
	if !ok {
		return false, nil
	}
	head, delim, rows := lines[0], lines[1], lines[2:]
	cols := bytes.Count(head, pipe) - 1
	if !plainTableRow(head, cols) {
		return false, nil
	}
	for _, r := range rows {
		if !plainTableRow(r, cols) {
			return false, nil
		}
	}
	c.known = c.known[:0]
	for range cols {
		c.known = append(c.known, map[string][]byte{})
	}
	c.open = c.open[:0]
	opening, ok, err := c.goldmarkRow(md, head, delim, rows[0])
	if err != nil || !ok {
		return false, err
	}
	for _, cell := range c.html {
		c.open = append(c.open, cell[:bytes.IndexByte(cell, '>')+1])
	}
	start := out.Len()
	out.Write(opening)
	c.writeRow(out)
	for _, row := range rows[1:] {
		if ok, err := c.row(md, head, delim, row); err != nil || !ok {
			out.Truncate(start)
			return false, err
		}
		c.writeRow(out)
	}
	out.WriteString("</tbody>\n</table>\n")
	return true, nil
}

// row leaves row's cells in c.texts and c.html, taken from what is known
// when it can be.
func (c *tableCells) row(md goldmark.Markdown, head, delim, row []byte) (bool, error) {
	c.cutCells(row)
	for i, text := range c.texts {
		if plainCell(text) {
			c.html[i] = nil
			continue
		}
		h, ok := c.known[i][string(text)]
		if !ok {
			_, ok, err := c.goldmarkRow(md, head, delim, row)
			return ok, err
		}
		c.html[i] = h
	}
	return true, nil
}

// goldmarkRow renders head, delim and row as a table with goldmark,
// leaves each cell's HTML in c.html, learns the ones that are not plain,
// and returns what goldmark writes before the row.
func (c *tableCells) goldmarkRow(md goldmark.Markdown, head, delim, row []byte) ([]byte, bool, error) {
	c.src = append(append(append(append(append(c.src[:0], head...), '\n'), delim...), '\n'), row...)
	c.mini.Reset()
	if _, err := convertInto(&c.mini, md, c.src, nil, map[string]bool{}); err != nil {
		return nil, false, err
	}
	html := c.mini.Bytes()
	const bodyStart, bodyEnd = "<tbody>\n<tr>\n", "</tr>\n</tbody>\n</table>\n"
	at := bytes.Index(html, []byte(bodyStart))
	if at < 0 || !bytes.HasPrefix(html, []byte("<table>\n<thead>\n")) || !bytes.HasSuffix(html, []byte(bodyEnd)) {
		return nil, false, nil
	}
	body := html[at+len(bodyStart) : len(html)-len(bodyEnd)]
	cells := bytes.SplitAfter(body, []byte("</td>\n"))
	if len(cells) != len(c.known)+1 || len(cells[len(cells)-1]) != 0 {
		return nil, false, nil
	}
	c.cutCells(row)
	for i, h := range cells[:len(c.known)] {
		if !bytes.HasPrefix(h, []byte("<td")) {
			return nil, false, nil
		}
		h = bytes.Clone(h)
		if !plainCell(c.texts[i]) {
			c.known[i][string(c.texts[i])] = h
		}
		c.html[i] = h
	}
	return html[:at+len("<tbody>\n")], true, nil
}

// cutCells leaves in c.texts the texts of row's cells as goldmark cuts
// them, between the '|' with spaces trimmed, and makes c.html as long.
// row is a plainTableRow.
func (c *tableCells) cutCells(row []byte) {
	c.texts = c.texts[:0]
	row = row[1 : len(row)-1]
	for {
		end := bytes.IndexByte(row, '|')
		if end < 0 {
			c.texts = append(c.texts, util.TrimRightSpace(util.TrimLeftSpace(row)))
			break
		}
		c.texts = append(c.texts, util.TrimRightSpace(util.TrimLeftSpace(row[:end])))
		row = row[end+1:]
	}
	c.html = append(c.html[:0], c.texts...) // the length; each is set before it is read
}

// writeRow writes the row left in c.texts and c.html.
func (c *tableCells) writeRow(out *bytes.Buffer) {
	out.WriteString("<tr>\n")
	for i, h := range c.html {
		if h == nil {
			out.Write(c.open[i])
			out.Write(c.texts[i])
			out.WriteString("</td>\n")
			continue
		}
		out.Write(h)
	}
	out.WriteString("</tr>\n")
}

var pipe = []byte{'|'}

// tableLines cuts block into its lines, trailing blank lines dropped,
// when it has a header, a delimiter row and at least minTableRows rows.
func tableLines(block []byte) ([][]byte, bool) {
	block = util.TrimRightSpace(block)
	if bytes.Count(block, []byte{'\n'}) < 1+minTableRows {
		return nil, false
	}
	return bytes.Split(block, []byte{'\n'}), true
}

// plainTableRow reports whether line is a row goldmark cuts into cols
// cells at every '|': it starts and ends with one, holds no escaped '|'
// and no empty last cell (which goldmark would drop). It holds no control
// character either: goldmark trims a cell of white space such as '\v'
// in one row and not in another.
func plainTableRow(line []byte, cols int) bool {
	n := len(line)
	if n < 3 || line[0] != '|' || line[n-1] != '|' || line[n-2] == '|' ||
		bytes.Count(line, pipe)-1 != cols || bytes.Contains(line, []byte(`\|`)) {
		return false
	}
	for _, b := range line {
		if b < ' ' {
			return false
		}
	}
	return true
}

// plainCell reports whether goldmark writes text as it is: letters,
// digits, spaces and '-' are never markup, never escaped, and never start
// a link (which needs "www.", ':' or '@').
func plainCell(text []byte) bool {
	for _, b := range text {
		if !plainCellByte[b] {
			return false
		}
	}
	return true
}

var plainCellByte = func() (t [256]bool) {
	for b := range t {
		t[b] = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == ' ' || b == '-'
	}
	return t
}()
