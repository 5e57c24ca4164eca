package pages

import (
	"strings"
	"testing"
)

// mdBlockCases are documents whose blocks must render as the whole does;
// the comments say what a careless cut would get wrong.
var mdBlockCases = []string{
	"# Report\n\nPara one.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Next\n\nText.\n",
	"- a\n- b\n\n- c\n\nAfter.\n",             // one loose list across the blank line
	"1. a\n\n2. b\n\n10) c\n",                 // ordered items stay together
	"- a\n\n  continued\n\nOut.\n",            // an item's second paragraph
	"    code\n\n    more code\n\nx\n",        // indented code spans the blank line
	"## Same\n\ntext\n\n## Same\n\n## Same\n", // anchors made unique across blocks
	"Title\n=====\n\nSub\n---\n\n---\n\n***\n\n*em* and **strong**\n",
	"| a |\n|---|\n| x |\n\n| b |\n|---|\n| y |\n", // tables numbered in order
	"66667 of 100000 cases passed.\n\n+1 for this\n\n-dash\n",
	"a\r\n\r\n- b\r\n\r\n- c\r\n",
	"no newline at the end",
	"- [a]: /x\n\nsee [a]\n",              // a definition in a list item serves the whole document
	"1.  x\n\n    [a]: /x\n\nsee [a]\n",   // and in an item's second paragraph
	"| a |\n|---|\n| [x]: y |\n\nText.\n", // a table cell defines nothing
	"\n\n\nleading blanks\n\n\n",
}

func TestMarkdownBlocksRenderAsTheWhole(t *testing.T) {
	for _, src := range mdBlockCases {
		sameAsWhole(t, src, nil)
	}
	// Kept blocks from an earlier document are taken only where they
	// are the same.
	kept := &MarkdownBlocks{}
	for _, src := range mdBlockCases {
		sameAsWhole(t, src, kept)
	}
	for _, src := range []string{"```\ncode\n\nstill code\n```\n", "<pre>\n\nx\n</pre>\n", "[a]: /x\n\n[a]\n", "> q\n\n> r\n",
		// Link reference definitions in list items, used in another block.
		"- [a]: /x\n\nsee [a]\n", "- > [a]: /x\n\nsee [a]\n", "1.  x\n\n    [a]: /x\n\nsee [a]\n", "- [a\n  b]: /x\n\nsee [a b]\n"} {
		if _, ok := markdownBlocks([]byte(src)); ok {
			t.Errorf("%q is cut into blocks; what it opens crosses a blank line", src)
		}
	}
}

// TestMarkdownBlocksKeepsOnlyTheLastDocument: a server renders report
// after report; what it keeps must not grow with them.
func TestMarkdownBlocksKeepsOnlyTheLastDocument(t *testing.T) {
	kept := &MarkdownBlocks{}
	for i := range 5 {
		src := strings.Repeat("| a |\n|---|\n| x |\n\nText "+strings.Repeat("y", i)+".\n\n", 3)
		sameAsWhole(t, src, kept)
	}
	if n := len(kept.html); n != 2 {
		t.Errorf("%d blocks kept, want the last document's 2", n)
	}
}

// sameAsWhole fails t unless src renders through kept as it does whole.
func sameAsWhole(t *testing.T, src string, kept *MarkdownBlocks) {
	t.Helper()
	whole, err := RenderMarkdown([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RenderMarkdownBlocks([]byte(src), kept)
	if err != nil {
		t.Fatal(err)
	}
	if got != whole {
		t.Fatalf("%q in blocks:\n%s\nwhole:\n%s", src, got.Body, whole.Body)
	}
}

func FuzzMarkdownBlocks(f *testing.F) {
	for _, src := range mdBlockCases {
		f.Add(src, "## x\n\n"+src)
	}
	f.Fuzz(func(t *testing.T, first, second string) {
		kept := &MarkdownBlocks{}
		for _, src := range []string{first, second, first} {
			sameAsWhole(t, src, kept)
		}
	})
}
