package site

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site/internal/render"
	"golang.org/x/net/html"
)

// sampleData is the repository's sample data folder.
const sampleData = "../data"

// sampleSite builds the sample once per test run; tests only read it.
var sampleSite = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "releasegate-site-test-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "public")
	if _, err := Build(sampleData, out, BuildOptions{}); err != nil {
		return "", err
	}
	return out, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := sampleSite(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

// builtSample returns the folder of the sample site.
func builtSample(t testing.TB) string {
	t.Helper()
	dir, err := sampleSite()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// parsePage reads and parses one page of a built site.
func parsePage(t testing.TB, dir, rel string) *html.Node {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return doc
}

// match tells whether an element is wanted.
type match func(*html.Node) bool

// sel is a small selector: a tag ("" for any), and optionally a class,
// an id and attribute values that must all hold.
func sel(tag string, conds ...match) match {
	return func(n *html.Node) bool {
		if n.Type != html.ElementNode || (tag != "" && n.Data != tag) {
			return false
		}
		for _, c := range conds {
			if !c(n) {
				return false
			}
		}
		return true
	}
}

func class(c string) match {
	return func(n *html.Node) bool {
		for _, f := range strings.Fields(attr(n, "class")) {
			if f == c {
				return true
			}
		}
		return false
	}
}

func id(v string) match { return func(n *html.Node) bool { return attr(n, "id") == v } }

func hasAttr(k, v string) match { return func(n *html.Node) bool { return attr(n, k) == v } }

// within narrows a match to elements inside an element matching outer.
func within(outer match, inner match) match {
	return func(n *html.Node) bool {
		if !inner(n) {
			return false
		}
		for p := n.Parent; p != nil; p = p.Parent {
			if outer(p) {
				return true
			}
		}
		return false
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// findAll returns every node below n that m accepts, in document order.
func findAll(n *html.Node, m match) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if m(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// textOf is the text content of n with runs of white space collapsed.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// copyDir copies a folder of plain files, for tests that change inputs.
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// readTree maps every file of dir by slash path to its bytes.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == publish.MarkerName {
			return nil // the list of releasegate's files, not a page of the site
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// copySample copies the sample data folder to a new temporary folder.
func copySample(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	copyDir(t, sampleData, dst)
	return dst
}

// embeddedRenderer is a renderer with the embedded templates and assets.
func embeddedRenderer(t testing.TB) *render.Renderer {
	t.Helper()
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
