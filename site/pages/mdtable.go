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
// table from its distinct cells: a plain cell is written as it is, and
// any other cell's HTML is taken from goldmark once per column and text.
// The rows that hold a cell no row before them holds go through goldmark
// together, under the table's header, so each cell is what goldmark
// makes of it in that column; that rendering also gives the table's
// opening and each column's cell tag. A table whose rows are mostly new
// (each detail different) gains nothing and goes to goldmark whole.
// FuzzTableCells holds it to goldmark's output; what it saves is in
// docs/design.md, "Fast paths".

const (
	// minTableRows is the fewest body rows a table needs to be rendered
	// from its distinct cells; a smaller one goes to goldmark whole.
	minTableRows = 16
	// newRowsSampled is how many rows are read before a table whose rows
	// are mostly new is given up on.
	newRowsSampled = 64
)

// tableCells renders large GFM tables from their distinct cells (see
// above). The zero value is ready to use.
type tableCells struct {
	known []map[string][]byte // per column: a cell's text → its HTML
	open  [][]byte            // per column: the cell's opening tag
	texts [][]byte            // the current row's cell texts
	html  bytes.Buffer        // the new rows rendered by goldmark
	src   []byte              // the text goldmark renders
	fresh []int               // the rows with a new cell
}

// render writes the HTML of block to out when block is one GFM table
// that can be rendered from its distinct cells, and reports whether it
// did; when it did not, out is as it was.
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
	if !c.findFresh(head, delim, rows, cols) {
		return false, nil
	}
	opening, ok, err := c.learn(md, rows)
	if err != nil || !ok {
		return false, err
	}
	out.Write(opening)
	for _, row := range rows {
		c.cutCells(row)
		out.WriteString("<tr>\n")
		for i, text := range c.texts {
			if plainCell(text) {
				out.Write(c.open[i])
				out.Write(text)
				out.WriteString("</td>\n")
				continue
			}
			out.Write(c.known[i][string(text)])
		}
		out.WriteString("</tr>\n")
	}
	out.WriteString("</tbody>\n</table>\n")
	return true, nil
}

// findFresh marks in c.known each column's distinct texts that are not
// plain, lists in c.fresh the rows that hold one first, and makes c.src
// the table of the head and those rows. It reports false for a table
// whose sampled rows are mostly fresh.
func (c *tableCells) findFresh(head, delim []byte, rows [][]byte, cols int) bool {
	c.known = c.known[:0]
	for range cols {
		c.known = append(c.known, map[string][]byte{})
	}
	c.fresh = c.fresh[:0]
	c.src = append(append(append(append(c.src[:0], head...), '\n'), delim...), '\n')
	for i, row := range rows {
		c.cutCells(row)
		fresh := i == 0 // the first row gives every column's tag
		for j, text := range c.texts {
			if plainCell(text) {
				continue
			}
			if _, seen := c.known[j][string(text)]; !seen {
				c.known[j][string(text)] = nil // its HTML is learnt below
				fresh = true
			}
		}
		if fresh {
			c.fresh = append(c.fresh, i)
			c.src = append(append(c.src, row...), '\n')
		}
		if i+1 == newRowsSampled && 2*len(c.fresh) > newRowsSampled {
			return false
		}
	}
	return true
}

// learn renders c.src with goldmark and takes from it the HTML of every
// cell of the fresh rows and each column's cell tag; it returns what
// goldmark writes before the rows.
func (c *tableCells) learn(md goldmark.Markdown, rows [][]byte) ([]byte, bool, error) {
	c.html.Reset()
	if _, err := convertInto(&c.html, md, c.src, nil, map[string]bool{}); err != nil {
		return nil, false, err
	}
	html := c.html.Bytes()
	const bodyStart, bodyEnd = "<tbody>\n", "</tbody>\n</table>\n"
	at := bytes.Index(html, []byte(bodyStart))
	if at < 0 || !bytes.HasPrefix(html, []byte("<table>\n<thead>\n")) || !bytes.HasSuffix(html, []byte(bodyEnd)) {
		return nil, false, nil
	}
	body := html[at+len(bodyStart) : len(html)-len(bodyEnd)]
	c.open = c.open[:0]
	for _, i := range c.fresh {
		end := bytes.Index(body, []byte("</tr>\n"))
		if end < 0 || !bytes.HasPrefix(body, []byte("<tr>\n")) {
			return nil, false, nil
		}
		cells := bytes.SplitAfter(body[len("<tr>\n"):end], []byte("</td>\n"))
		body = body[end+len("</tr>\n"):]
		if len(cells) != len(c.known)+1 || len(cells[len(cells)-1]) != 0 {
			return nil, false, nil
		}
		c.cutCells(rows[i])
		for j, h := range cells[:len(c.known)] {
			if !bytes.HasPrefix(h, []byte("<td")) {
				return nil, false, nil
			}
			if len(c.open) < len(c.known) {
				c.open = append(c.open, h[:bytes.IndexByte(h, '>')+1])
			}
			if text := c.texts[j]; !plainCell(text) {
				c.known[j][string(text)] = h
			}
		}
	}
	if len(body) != 0 {
		return nil, false, nil
	}
	return html[:at+len(bodyStart)], true, nil
}

// cutCells leaves in c.texts the texts of row's cells as goldmark cuts
// them, between the '|' with spaces trimmed. row is a plainTableRow.
func (c *tableCells) cutCells(row []byte) {
	c.texts = c.texts[:0]
	row = row[1 : len(row)-1]
	for {
		end := bytes.IndexByte(row, '|')
		if end < 0 {
			c.texts = append(c.texts, util.TrimRightSpace(util.TrimLeftSpace(row)))
			return
		}
		c.texts = append(c.texts, util.TrimRightSpace(util.TrimLeftSpace(row[:end])))
		row = row[end+1:]
	}
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
