package releasegate

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// TestDocsLinksResolve reads every Markdown document of the repository
// (README.md, docs/, examples/) and checks each relative link: its file
// must exist and, when it names a heading (#fragment), that heading must
// be in the file as GitHub would anchor it.
func TestDocsLinksResolve(t *testing.T) {
	docs := []string{"README.md"}
	for _, glob := range []string{"docs/*.md", "examples/*/README.md"} {
		more, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, more...)
	}
	if len(docs) < 5 {
		t.Fatalf("found only %v; the documents moved?", docs)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		a := headingAnchors(src)
		anchors[path] = a
		return a
	}
	for _, doc := range docs {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, dest := range links(src) {
			if dest == "" || strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(dest, "#")
			target := doc
			if file != "" {
				target = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: %v", doc, dest, err)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if !anchorsOf(target)[frag] {
				t.Errorf("%s: link %q: %s has no heading with that anchor", doc, dest, target)
			}
		}
	}
}

// links returns the destinations of a Markdown document's links and images.
func links(src []byte) []string {
	var dests []string
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			dests = append(dests, string(n.Destination))
		case *ast.Image:
			dests = append(dests, string(n.Destination))
		}
		return ast.WalkContinue, nil
	})
	return dests
}

var anchorDrop = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)

// headingAnchors returns the anchors GitHub gives a document's headings:
// lower case, punctuation dropped, spaces turned into hyphens, repeats
// numbered.
func headingAnchors(src []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var b bytes.Buffer
		for c := h.FirstChild(); c != nil; c = c.NextSibling() {
			b.Write(plainText(c, src))
		}
		slug := strings.Map(func(r rune) rune {
			if r == ' ' {
				return '-'
			}
			return unicode.ToLower(r)
		}, anchorDrop.ReplaceAllString(b.String(), ""))
		if k := seen[slug]; k > 0 {
			anchors[slug+"-"+itoa(k)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
		return ast.WalkSkipChildren, nil
	})
	return anchors
}

func plainText(n ast.Node, src []byte) []byte {
	if t, ok := n.(*ast.Text); ok {
		return t.Segment.Value(src)
	}
	if s, ok := n.(*ast.String); ok {
		return s.Value
	}
	var b bytes.Buffer
	if cs, ok := n.(*ast.CodeSpan); ok {
		for c := cs.FirstChild(); c != nil; c = c.NextSibling() {
			b.Write(plainText(c, src))
		}
		return b.Bytes()
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.Write(plainText(c, src))
	}
	return b.Bytes()
}

func itoa(i int) string { return strconv.Itoa(i) }
