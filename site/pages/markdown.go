package pages

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// CaseLink links to one case's page.
type CaseLink struct {
	ID   string
	Href string
}

// markdownDoc is Markdown rendered for a page.
type markdownDoc struct {
	Body  template.HTML
	HasH1 bool // the document brings its own top heading
}

// RenderMarkdown renders HANDOFF.md-style text with the converter the
// policy is read with: GFM, raw HTML omitted, dangerous link targets
// dropped, images shown as links so a page never loads another host.
// Case and rule ids become links (ids may be nil).
func RenderMarkdown(src []byte, ids *IDLinker) (markdownDoc, error) {
	return convert(src, func(doc ast.Node, src []byte) {
		if ids != nil {
			ids.link(doc, src)
		}
	})
}

// RenderHandoff renders HANDOFF.md with case and rule ids linked and a
// flag after every sentence whose claim about a snapshot's decision
// contradicts decisions, which it returns.
func RenderHandoff(src []byte, ids IDLinker, decisions map[string]decide.Decision) (markdownDoc, []Contradiction, error) {
	var found []Contradiction
	doc, err := convert(src, func(doc ast.Node, src []byte) {
		found = findContradictions(doc, src, decisions)
		ids.link(doc, src)
		// The page has its own h1; the note's headings go one level down.
		for _, h := range headings(doc) {
			h.Level = min(h.Level+1, 6)
		}
		flagContradictions(found)
	})
	return doc, found, err
}

// RenderPolicy renders POLICY.md. Each rule heading gets the anchor of
// suite.Anchor, and at the end of each rule's section a note lists the
// cases whose expectations cite the rule, or says that none does.
// citedBy maps rule ids to those cases, already linked for policy.html.
// Case and rule ids in the text become links.
func RenderPolicy(p *suite.Policy, citedBy map[string][]CaseLink, ids IDLinker) (markdownDoc, error) {
	return convert(p.Source, func(doc ast.Node, src []byte) {
		ids.link(doc, src)
		for _, h := range headings(doc) {
			r, ok := suite.ParseRuleID(suite.HeadingText(h, src))
			if !ok {
				continue
			}
			if _, current := p.Rule(r.ID); !current {
				continue
			}
			h.SetAttributeString("id", []byte(suite.Anchor(r.ID)))
			h.SetAttributeString("class", []byte("rule"))
			insertAtSectionEnd(h, &ruleCoverage{ruleID: r.ID, cases: citedBy[r.ID]})
		}
	})
}

func convert(src []byte, transform func(doc ast.Node, src []byte)) (markdownDoc, error) {
	var b bytes.Buffer
	hs, err := convertInto(&b, newConverter(), src, transform, map[string]bool{})
	if err != nil {
		return markdownDoc{}, err
	}
	// Safe: goldmark escapes text, omits raw HTML (no html.WithUnsafe)
	// and drops dangerous URLs; the coverage notes escape their own text.
	return markdownDoc{Body: template.HTML(wrapTables(b.String())), HasH1: hasTop(hs)}, nil
}

// hasTop reports whether hs has a top (level 1) heading.
func hasTop(hs []*ast.Heading) bool {
	return slices.ContainsFunc(hs, func(h *ast.Heading) bool { return h.Level == 1 })
}

// newConverter is the policy's Markdown converter with the renderers of
// the notes the site adds.
func newConverter() goldmark.Markdown {
	md := suite.Markdown()
	md.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(coverageRenderer{}, 500), util.Prioritized(flagRenderer{}, 500)))
	return md
}

// convertInto renders src into b, its headings anchored apart from the
// anchors in used, which it adds to; it returns the headings.
func convertInto(b *bytes.Buffer, md goldmark.Markdown, src []byte, transform func(doc ast.Node, src []byte), used map[string]bool) ([]*ast.Heading, error) {
	doc := md.Parser().Parse(text.NewReader(src))
	imagesToLinks(doc)
	if transform != nil {
		transform(doc, src)
	}
	hs := anchorHeadings(doc, src, used)
	return hs, md.Renderer().Render(b, src, doc)
}

// headings lists every heading of doc in document order.
func headings(doc ast.Node) []*ast.Heading {
	var hs []*ast.Heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			hs = append(hs, h)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return hs
}

// insertAtSectionEnd places n before the next heading of the same or a
// higher level among h's siblings, or last in h's parent.
func insertAtSectionEnd(h *ast.Heading, n ast.Node) {
	parent := h.Parent()
	for next := h.NextSibling(); next != nil; next = next.NextSibling() {
		if nh, ok := next.(*ast.Heading); ok && nh.Level <= h.Level {
			parent.InsertBefore(parent, next, n)
			return
		}
	}
	parent.AppendChild(parent, n)
}

// imagesToLinks replaces each image with a link to it labelled by its
// alt text: the site publishes only its own files, and no page may load
// anything from another host.
func imagesToLinks(doc ast.Node) {
	var images []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering {
			images = append(images, img)
		}
		return ast.WalkContinue, nil
	})
	for _, img := range images {
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c)
			c = next
		}
		if !link.HasChildren() {
			link.AppendChild(link, ast.NewString([]byte("image")))
		}
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
}

// ruleCoverage is the note under a rule listing the cases that cite it.
type ruleCoverage struct {
	ast.BaseBlock
	ruleID string
	cases  []CaseLink
}

var kindRuleCoverage = ast.NewNodeKind("RuleCoverage")

func (n *ruleCoverage) Kind() ast.NodeKind { return kindRuleCoverage }

func (n *ruleCoverage) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Rule": n.ruleID}, nil)
}

type coverageRenderer struct{}

func (coverageRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindRuleCoverage, renderCoverage)
}

func renderCoverage(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ruleCoverage)
	if len(n.cases) == 0 {
		fmt.Fprintf(w, "<p class=\"coverage uncovered\"><span aria-hidden=\"true\">⚠</span> <strong>Not covered:</strong> no case cites %s.</p>\n", html.EscapeString(n.ruleID))
		return ast.WalkSkipChildren, nil
	}
	fmt.Fprintf(w, "<p class=\"coverage\"><strong>Cited by %d %s:</strong> ", len(n.cases), plural(len(n.cases), "case", "cases"))
	for i, c := range n.cases {
		if i > 0 {
			_, _ = w.WriteString(", ")
		}
		fmt.Fprintf(w, "<a href=\"%s\">%s</a>", html.EscapeString(c.Href), html.EscapeString(c.ID))
	}
	_, _ = w.WriteString(".</p>\n")
	return ast.WalkSkipChildren, nil
}

// wrapTables puts each table in a region that scrolls sideways on its own
// and can be reached with the keyboard, so a wide table never widens the
// page. Raw HTML is omitted, so every "<table>" is one goldmark wrote.
func wrapTables(h string) string {
	var b bytes.Buffer
	// A release report is megabytes of tables: one allocation, not one
	// per doubling.
	b.Grow(wrappedSize(h))
	writeWrappedTables(&b, []byte(h))
	return b.String()
}

// wrappedSize is about the length of wrapTables(h), a little more.
func wrappedSize(h string) int { return len(h) + strings.Count(h, "<table>")*96 }

// writeWrappedTables writes wrapTables(h) to b.
func writeWrappedTables(b *bytes.Buffer, h []byte) {
	n := 0
	for {
		i := bytes.Index(h, []byte("<table>"))
		if i < 0 {
			break
		}
		j := bytes.Index(h[i:], []byte("</table>"))
		if j < 0 {
			break
		}
		j += i + len("</table>")
		n++
		b.Write(h[:i])
		b.WriteString(`<div class="table-wrap" tabindex="0" role="region" aria-label="Table `)
		b.WriteString(strconv.Itoa(n))
		b.WriteString(`">`)
		b.Write(h[i:j])
		b.WriteString("</div>")
		h = h[j:]
	}
	b.Write(h)
}
