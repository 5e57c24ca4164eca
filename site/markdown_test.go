package site

import (
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

func TestMarkdownKeepsDangerOut(t *testing.T) {
	tests := []struct {
		name, src string
		absent    []string // must not appear in the HTML
		present   []string
	}{
		{"javascript link", "[x](javascript:alert(1))", []string{"javascript:"}, []string{"<a href=\"\">x</a>"}},
		{"javascript autolink", "<javascript:alert(1)>", []string{`href="javascript:`}, nil},
		{"vbscript and data links", "[a](vbscript:msgbox) [b](data:text/html;base64,PHNjcmlwdD4=)", []string{"vbscript:", "data:text/html"}, nil},
		{"raw script block", "<script>alert(1)</script>", []string{"<script"}, []string{"raw HTML omitted"}},
		{"raw inline element", "text <img src=x onerror=alert(1)> more", []string{"<img", "onerror"}, nil},
		{"image from another host", "![logo](https://example.invalid/logo.png)", []string{"<img"}, []string{`<a href="https://example.invalid/logo.png">logo</a>`}},
		{"image without alt", "![](pic.png)", []string{"<img"}, []string{`<a href="pic.png">image</a>`}},
		{"gfm table", "| a | b |\n|---|--:|\n| 1 | 2 |", nil, []string{"<table>", "<th>a</th>", `style="text-align:right"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := pages.RenderMarkdown([]byte(tt.src), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := string(doc.Body)
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("output holds %q:\n%s", a, got)
				}
			}
			for _, p := range tt.present {
				if !strings.Contains(got, p) {
					t.Errorf("output lacks %q:\n%s", p, got)
				}
			}
		})
	}
}

const policySource = `# Policy

Intro.

## 1. Part

### ER-2026.10 §1.1 First rule

Text one.

#### A sub-heading

More of rule one.

### ER-2026.10 §1.2 Second rule

Text two.

## Change log

Cites ER-2026.10 §1.1 in passing.
`

func TestRenderPolicyAnchorsAndCoverage(t *testing.T) {
	p, err := suite.ParsePolicy("POLICY.md", []byte(policySource))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := pages.RenderPolicy(p, map[string][]pages.CaseLink{
		"ER-2026.10 §1.1": {{ID: "C-1", Href: "cases/C-1.html"}, {ID: "C-2", Href: "cases/C-2.html"}},
	}, pages.IDLinker{})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.HasH1 {
		t.Error("the policy's own h1 was not noticed")
	}
	root, err := html.Parse(strings.NewReader(string(doc.Body)))
	if err != nil {
		t.Fatal(err)
	}
	// The body in document order: headings and coverage notes.
	var order []string
	for _, n := range findAll(root, sel("")) {
		switch {
		case strings.HasPrefix(n.Data, "h") && len(n.Data) == 2:
			order = append(order, n.Data+"#"+attr(n, "id")+" "+textOf(n))
		case attr(n, "class") == "coverage" || attr(n, "class") == "coverage uncovered":
			order = append(order, "note: "+textOf(n))
		}
	}
	want := []string{
		"h1#policy Policy",
		"h2#1-part 1. Part",
		"h3#rule-er-2026-10-1-1 ER-2026.10 §1.1 First rule",
		"h4#a-sub-heading A sub-heading",
		"note: Cited by 2 cases: C-1, C-2.",
		"h3#rule-er-2026-10-1-2 ER-2026.10 §1.2 Second rule",
		"note: ⚠ Not covered: no case cites ER-2026.10 §1.2.",
		"h2#change-log Change log",
	}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Errorf("policy structure:\n%s\nwant:\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
}

func FuzzRenderMarkdown(f *testing.F) {
	f.Add(policySource)
	f.Add("<script>alert(1)</script>\n\n[x](javascript:alert(1))")
	f.Add("### ER-2026.10 §9.9 <img src=x onerror=alert(1)> __f__alert(1)__f__")
	f.Add("![a](//evil.invalid/x.png) <https://example.invalid>")
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := pages.RenderMarkdown([]byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		root, err := html.Parse(strings.NewReader(string(doc.Body)))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range findAll(root, sel("")) {
			switch n.Data {
			case "script", "img", "iframe", "object", "embed", "style":
				t.Fatalf("markdown made a <%s> from %q", n.Data, src)
			}
			for _, a := range n.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if strings.HasPrefix(a.Key, "on") || (a.Key == "href" && strings.HasPrefix(v, "javascript:")) {
					t.Fatalf("markdown made %s=%q from %q", a.Key, a.Val, src)
				}
			}
		}
		if p, err := suite.ParsePolicy("POLICY.md", []byte(src)); err == nil {
			if _, err := pages.RenderPolicy(p, nil, pages.IDLinker{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
