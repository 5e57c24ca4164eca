package pages

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/pagename"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// IDLinker turns case ids and current rule ids in rendered Markdown into
// links: a case id to the case's history page, a rule id to its anchor on
// policy.html. Headings are left as they are (a rule heading is the
// anchor itself), and so is text already inside a link.
type IDLinker struct {
	Cases map[string]bool
	rules *suite.Policy
	root  string // from the page to the site root
	// history is where a case's history lives, from the site root;
	// nil means a page per case, named as if it were the only one.
	history func(id string) string
}

// ruleID finds candidate rule identifiers; only current rules are linked.
var ruleID = regexp.MustCompile(`[A-Z][A-Z0-9]*-[0-9]{4}\.[0-9]{2} §[0-9]+(?:\.[0-9]+)*`)

// target returns where id leads, or "".
func (l IDLinker) target(id string) string {
	if l.Cases[id] {
		if l.history != nil {
			return l.root + l.history(id)
		}
		return l.root + HistoryPath(pagename.Stems([]string{id})[0])
	}
	if l.rules != nil {
		if r, ok := l.rules.Rule(id); ok {
			return l.root + PolicyPath + "#" + r.Anchor()
		}
	}
	return ""
}

// link rewrites doc in place.
func (l IDLinker) link(doc ast.Node, src []byte) {
	var texts []*ast.Text
	var spans []*ast.CodeSpan
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading, *ast.Link, *ast.AutoLink:
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			spans = append(spans, n)
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			texts = append(texts, n)
		}
		return ast.WalkContinue, nil
	})
	// A code span that is exactly an id is wrapped in a link.
	for _, c := range spans {
		txt, _ := blockText(c, src)
		if href := l.target(txt); href != "" {
			a := ast.NewLink()
			a.Destination = []byte(href)
			c.Parent().ReplaceChild(c.Parent(), c, a)
			a.AppendChild(a, c)
		}
	}
	for _, t := range texts {
		l.linkText(t, src)
	}
}

// linkText splits one text node around the ids it holds.
func (l IDLinker) linkText(t *ast.Text, src []byte) {
	seg := t.Segment
	s := string(seg.Value(src))
	var hits []hit
	for _, loc := range ruleID.FindAllStringIndex(s, -1) {
		if l.target(s[loc[0]:loc[1]]) != "" && (loc[1] == len(s) || !isDigit(s[loc[1]])) {
			hits = append(hits, hit{loc[0], loc[1]})
		}
	}
	if len(l.Cases) > 0 {
		for i := 0; i < len(s); {
			if i > 0 && idByte(s[i-1]) || !idByte(s[i]) {
				i++
				continue
			}
			j := i
			for j < len(s) && idByte(s[j]) {
				j++
			}
			// A word may end a sentence: "ER-004." names ER-004.
			end := j
			for end > i && !l.Cases[s[i:end]] && strings.ContainsRune(".-_", rune(s[end-1])) {
				end--
			}
			if l.Cases[s[i:end]] && !overlaps(hits, i, end) {
				hits = append(hits, hit{i, end})
			}
			i = j
		}
	}
	if len(hits) == 0 {
		return
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.start - b.start })
	parent := t.Parent()
	at := seg.Start
	var last ast.Node = t
	insert := func(n ast.Node) {
		parent.InsertAfter(parent, last, n)
		last = n
	}
	for _, h := range hits {
		if seg.Start+h.start > at {
			insert(ast.NewTextSegment(text.NewSegment(at, seg.Start+h.start)))
		}
		a := ast.NewLink()
		a.Destination = []byte(l.target(s[h.start:h.end]))
		a.AppendChild(a, ast.NewTextSegment(text.NewSegment(seg.Start+h.start, seg.Start+h.end)))
		insert(a)
		at = seg.Start + h.end
	}
	tail := ast.NewTextSegment(text.NewSegment(at, seg.Stop))
	tail.SetSoftLineBreak(t.SoftLineBreak())
	tail.SetHardLineBreak(t.HardLineBreak())
	insert(tail)
	parent.RemoveChild(parent, t)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// hit is an id's place in a text: [start, end).
type hit struct{ start, end int }

func overlaps(hits []hit, start, end int) bool {
	for _, h := range hits {
		if start < h.end && h.start < end {
			return true
		}
	}
	return false
}

// anchorHeadings gives every heading without an id one made of its text:
// lower case, runs of other characters than a-z and 0-9 as one "-", made
// unique with a number among the document's anchors and those in used,
// which it adds them to. It returns the headings in document order.
func anchorHeadings(doc ast.Node, src []byte, used map[string]bool) []*ast.Heading {
	hs := headings(doc)
	for _, h := range hs {
		if id, ok := h.AttributeString("id"); ok {
			used[string(id.([]byte))] = true
		}
	}
	for _, h := range hs {
		if _, ok := h.AttributeString("id"); ok {
			continue
		}
		base := slug(suite.HeadingText(h, src))
		if base == "" {
			base = "section"
		}
		id := base
		for n := 2; used[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		used[id] = true
		h.SetAttributeString("id", []byte(id))
	}
	return hs
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// handoffFlag marks a sentence of HANDOFF.md that contradicts a computed
// decision. It follows the block that holds the sentence (the table, for
// a table row).
type handoffFlag struct {
	ast.BaseBlock
	c Contradiction
}

var kindHandoffFlag = ast.NewNodeKind("HandoffFlag")

func (n *handoffFlag) Kind() ast.NodeKind { return kindHandoffFlag }

func (n *handoffFlag) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Label": n.c.Label}, nil)
}

type flagRenderer struct{}

func (flagRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindHandoffFlag, renderFlag)
}

func renderFlag(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	c := node.(*handoffFlag).c
	fmt.Fprintf(w, "<p class=\"contradiction\" id=\"%s\" role=\"note\"><span aria-hidden=\"true\">⚠</span> <strong>Contradicts the computed decision:</strong> this %s, but releasegate computed %s for %s (line %d of HANDOFF.md).</p>\n",
		html.EscapeString(c.Anchor), html.EscapeString(c.Claim()), html.EscapeString(string(c.Computed)), html.EscapeString(c.Label), c.Line)
	return ast.WalkSkipChildren, nil
}

// flagContradictions places a flag after the block of each contradiction.
func flagContradictions(cs []Contradiction) {
	for _, c := range cs {
		b := c.block
		// A row's flag goes after its table; a paragraph in a list item
		// or a quote stays beside its sentence.
		for b.Parent() != nil && b.Parent().Kind() != ast.KindDocument && b.Parent().Kind() != ast.KindListItem && b.Parent().Kind() != ast.KindBlockquote {
			b = b.Parent()
		}
		if p, ok := b.(*ast.Paragraph); ok {
			p.SetAttributeString("class", []byte("contradicted"))
		}
		// Flags of one block follow it in order.
		after := b
		for next := b.NextSibling(); next != nil; next = next.NextSibling() {
			if _, ok := next.(*handoffFlag); !ok {
				break
			}
			after = next
		}
		b.Parent().InsertAfter(b.Parent(), after, &handoffFlag{c: c})
	}
}
