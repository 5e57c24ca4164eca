package pages

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// tableCellSeeds are cell texts that goldmark writes in every way a
// cell can be written: plain, escaped, as markup, linked, dropped.
var tableCellSeeds = []string{
	"GEN-000004", "critical", "`decision`", "expected no\\_op, got approve",
	"*em* and **strong**", "_a_", "<b>raw</b>", "a & b", "\"quoted\"", "www.example.com",
	"a@b.co", "http://x.test/y", "![img](x.png)", "[link](http://x)", "~~gone~~",
	"", "x  y", "\\", "trailing\\", "1. item", "# not a heading", "- dash", "é ü", "a\tb", "\v",
	"`a|b`", "&amp;", "&#x27;", "<!-- c -->", "line\\", "[ref]", "a|b",
}

// table is a GFM table of cols columns, aligned by align (two bits a
// column), with rows of the given cells in turn, at least n rows.
func table(cols int, align uint, cells []string, n int) string {
	var b strings.Builder
	for i := range cols {
		fmt.Fprintf(&b, "| h%d ", i)
	}
	b.WriteString("|\n")
	for i := range cols {
		b.WriteString([]string{"|---", "|:---", "|---:", "|:---:"}[(align>>(2*i))&3])
	}
	b.WriteString("|\n")
	for r := range max(n, 1) {
		for c := range cols {
			b.WriteString("| ")
			if len(cells) > 0 {
				b.WriteString(cells[(r*cols+c)%len(cells)])
			}
			b.WriteByte(' ')
		}
		b.WriteString("|\n")
	}
	return b.String()
}

// renderedAsWhole fails t unless src renders in blocks as goldmark
// renders it whole, and reports whether a table was rendered from its
// distinct cells.
func renderedAsWhole(t *testing.T, src string) bool {
	t.Helper()
	sameAsWhole(t, src, nil)
	blocks, ok := markdownBlocks([]byte(src))
	if !ok {
		return false
	}
	var tc tableCells
	var out bytes.Buffer
	for _, block := range blocks {
		if ok, err := tc.render(&out, newConverter(), block); err != nil {
			t.Fatal(err)
		} else if ok {
			return true
		}
	}
	return false
}

func TestTableCells(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		table bool // rendered from its distinct cells
	}{
		{"plain cells", table(4, 0, []string{"GEN-1", "critical", "a b", "x"}, 40), true},
		{"every seed, aligned", table(3, 0b100111, tableCellSeeds, 100), false}, // a seed holds "a|b"
		{"aligned", table(4, 0b11100100, tableCellSeeds[:23], 60), true},
		{"a tab", table(2, 0, []string{"a\tb", "c"}, 30), false},
		{"too few rows", table(2, 0, []string{"a"}, minTableRows-1), false},
		{"after a paragraph", "Failing cases:\n\n" + table(2, 0, tableCellSeeds[:20], 30) + "\nAfter.\n", true},
		{"a paragraph line first", "Failing cases:\n" + table(2, 0, tableCellSeeds[:20], 30), false},
		{"a lazy line", table(2, 0, []string{"a"}, 30) + "lazy\n", false},
		{"an escaped pipe", table(2, 0, []string{"a \\| b", "c"}, 30), false},
		{"an empty last cell", table(2, 0, []string{"a", ""}, 30) + "| x ||\n", false},
		{"empty cells", table(2, 0, []string{"a", ""}, 30), true},
		{"a short row", table(3, 0, []string{"a"}, 30) + "| x |\n", false},
		{"a long row", table(2, 0, []string{"a"}, 30) + "| x | y | z |\n", false},
		{"not a delimiter", strings.Replace(table(2, 0, []string{"a"}, 30), "|---|---|", "|---|x|", 1), false},
		{"delimiter too short", strings.Replace(table(2, 0, []string{"a"}, 30), "|---|---|", "|---|", 1), false},
		{"CRLF", strings.ReplaceAll(table(2, 0, []string{"a", "b"}, 30), "\n", "\r\n"), false},
		{"every row new", uniqueRows(0, 200), false},
		{"new rows after repeated ones", table(4, 0, []string{"GEN-1", "critical", "`decision`", "x"}, 80) + uniqueRows(0, 100)[len(tableHead):], true},
		{"new rows among repeated ones", interleaved(300), true},
		{"two tables", table(2, 0, []string{"a", "`b`"}, 30) + "\n" + table(3, 0b10, []string{"*c*", "d"}, 30), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := renderedAsWhole(t, tc.src); got != tc.table {
				t.Errorf("rendered from its distinct cells: %v, want %v", got, tc.table)
			}
		})
	}
}

func FuzzTableCells(f *testing.F) {
	f.Add(strings.Join(tableCellSeeds, "\n"), uint8(3), uint16(0b100111), uint8(40))
	f.Add("GEN-1\ncritical\n`decision`\nexpected no\\_op", uint8(4), uint16(0), uint8(20))
	f.Add("a\n\nb", uint8(2), uint16(0b1011), uint8(17))
	f.Fuzz(func(t *testing.T, cells string, cols uint8, align uint16, rows uint8) {
		if len(cells) > 512 {
			t.Skip("a table of long cells takes goldmark seconds") // which says nothing more
		}
		renderedAsWhole(t, table(int(cols%6)+1, uint(align), strings.Split(cells, "\n"), int(rows)))
	})
}

// tableHead is the header and delimiter rows of uniqueRows.
const tableHead = "| h0 | h1 | h2 | h3 |\n|---|---|---|---|\n"

// uniqueRows is a table of n rows from the first, each with a detail of
// its own, as arguments expected and got make them.
func uniqueRows(first, n int) string {
	var b strings.Builder
	b.WriteString(tableHead)
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "| GEN-%d | critical | `arguments` | arguments.amount: expected %d, got %d |\n", i, i, i+1)
	}
	return b.String()
}

// interleaved is a table of n rows, every third with a detail of its own.
func interleaved(n int) string {
	var b strings.Builder
	b.WriteString(tableHead)
	for i := range n {
		detail := "expected no\\_op, got *approve*"
		if i%3 == 0 {
			detail = fmt.Sprintf("arguments.amount: expected %d", i)
		}
		fmt.Fprintf(&b, "| GEN-%d | major | `decision` | %s |\n", i, detail)
	}
	return b.String()
}

// BenchmarkFastPathNewRows renders a table of 20,000 rows each with a
// detail of its own, and one where every third row has: /fast as a
// build does, /plain by goldmark whole. A table of new rows must cost no
// more than goldmark (see docs/design.md, Fast paths).
func BenchmarkFastPathNewRows(b *testing.B) {
	for _, tc := range []struct{ name, src string }{
		{"every-row", uniqueRows(0, 20000)},
		{"every-third-row", interleaved(20000)},
	} {
		src := []byte(tc.src)
		b.Run(tc.name+"/fast", func(b *testing.B) {
			for b.Loop() {
				if _, err := RenderMarkdownBlocks(src, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/plain", func(b *testing.B) {
			for b.Loop() {
				if _, err := RenderMarkdown(src, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
