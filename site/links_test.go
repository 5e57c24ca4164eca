package site

import (
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

// TestLinksResolve crawls the sample site from index.html. Every href and
// src must be relative and lead to a file of the site, every #fragment to
// an element with that id, and every page must be reached. No reference
// may leave the site: no scheme, no host, no root-relative path.
func TestLinksResolve(t *testing.T) {
	dir := builtSample(t)
	pageIDs := checkLinks(t, dir)
	// Every rule of the policy is the target of some link.
	for _, r := range sampleInput(t).Release.Suite.Policy.Rules {
		if !pageIDs("policy.html")[r.Anchor()] {
			t.Errorf("policy.html has no anchor for %s", r.ID)
		}
	}
}

// checkLinks crawls the site built in dir from index.html, as
// TestLinksResolve says, and returns the element ids of a page.
func checkLinks(t *testing.T, dir string) (pageIDs func(page string) map[string]bool) {
	t.Helper()
	files := readTree(t, dir)
	ids := map[string]map[string]bool{} // page → element ids
	pageIDs = func(page string) map[string]bool {
		if m, ok := ids[page]; ok {
			return m
		}
		m := map[string]bool{}
		for _, n := range findAll(parsePage(t, dir, page), sel("")) {
			if v := attr(n, "id"); v != "" {
				if m[v] {
					t.Errorf("%s: id %q is not unique", page, v)
				}
				m[v] = true
			}
		}
		ids[page] = m
		return m
	}

	reached := map[string]bool{"index.html": true}
	queue := []string{"index.html"}
	fragments := 0
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		doc := parsePage(t, dir, page)
		for _, n := range findAll(doc, sel("")) {
			for _, key := range []string{"href", "src"} {
				ref, ok := attrOK(n, key)
				if !ok {
					continue
				}
				target, frag, err := resolve(page, ref)
				if err != nil {
					t.Errorf("%s: <%s %s=%q>: %v", page, n.Data, key, ref, err)
					continue
				}
				if _, exists := files[target]; !exists {
					t.Errorf("%s: <%s %s=%q> leads to %s, which the site does not hold", page, n.Data, key, ref, target)
					continue
				}
				// A fragment with "=" names a view of a case table
				// (#result=fail), which the page's script reads.
				if frag != "" && !strings.Contains(frag, "=") {
					fragments++
					if !strings.HasSuffix(target, ".html") || !pageIDs(target)[frag] {
						t.Errorf("%s: %q: %s has no element with id %q", page, ref, target, frag)
					}
				}
				if strings.HasSuffix(target, ".html") && !reached[target] {
					reached[target] = true
					queue = append(queue, target)
				}
			}
		}
	}
	var pageList []string
	for f := range files {
		// 404.html is served by the host for missing addresses, never
		// linked; it is checked on its own below.
		if strings.HasSuffix(f, ".html") && f != pages.NotFoundPath && !reached[f] {
			pageList = append(pageList, f)
		}
	}
	slices.Sort(pageList)
	if len(pageList) > 0 {
		t.Errorf("%d pages are not reached from index.html: %v", len(pageList), pageList)
	}
	if fragments == 0 {
		t.Error("no #fragment link was checked; the policy links must use them")
	}
	return pageIDs
}

// Test404LinksOnlyToTheTop checks the page a host shows for any missing
// address, at any depth: it loads nothing and links only to the main
// pages of the top folder, which its script resolves from the address.
func Test404LinksOnlyToTheTop(t *testing.T) {
	doc := parsePage(t, builtSample(t), pages.NotFoundPath)
	for _, n := range findAll(doc, sel("")) {
		if src, ok := attrOK(n, "src"); ok {
			t.Errorf("404.html loads %q", src)
		}
		href, ok := attrOK(n, "href")
		switch {
		case !ok:
		case n.Data == "link" && attr(n, "rel") == "icon":
			// The icon is inline, so the browser asks for no file.
			if !strings.HasPrefix(href, "data:image/svg+xml,") {
				t.Errorf("404.html icon %q is not inline", href)
			}
		case strings.Contains(href, "/") && !strings.HasPrefix(href, "snapshots/"), strings.Contains(href, ".."), strings.Contains(href, ":"):
			t.Errorf("404.html links to %q", href)
		case attr(n, "data-page") != href:
			t.Errorf("404.html link %q has no data-page for its script", href)
		}
	}
	var pageList []string
	for _, a := range findAll(doc, within(sel("ul", class("not-found-pages")), sel("a"))) {
		pageList = append(pageList, attr(a, "href"))
	}
	want := "index.html policy.html handoff.html report.html glossary.html snapshots/candidate-v3.html snapshots/candidate-v2.html snapshots/baseline-v1.html"
	if got := strings.Join(pageList, " "); got != want {
		t.Errorf("404.html lists %s, want %s", got, want)
	}
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// resolve turns a reference on page into a slash path inside the site and
// a fragment. It refuses anything that is not a plain relative reference.
func resolve(page, ref string) (target, fragment string, err error) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", "", err
	}
	switch {
	case u.Scheme != "" || u.Host != "" || strings.HasPrefix(ref, "//"):
		return "", "", errorf("not relative: it names a scheme or a host")
	case strings.HasPrefix(u.Path, "/"):
		return "", "", errorf("not relative: it starts at the domain root")
	case u.RawQuery != "":
		return "", "", errorf("has a query, which a static host ignores")
	}
	if u.Path == "" {
		return page, u.Fragment, nil
	}
	target = path.Join(path.Dir(page), u.Path)
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", "", errorf("leaves the site's folder")
	}
	return target, u.Fragment, nil
}

type linkError string

func (e linkError) Error() string { return string(e) }

func errorf(s string) error { return linkError(s) }

func TestResolve(t *testing.T) {
	tests := []struct {
		page, ref, target, frag string
		bad                     bool
	}{
		{"index.html", "policy.html#rule-er-2026-10-6-1", "policy.html", "rule-er-2026-10-6-1", false},
		{"snapshots/a/ER-1.html", "../../policy.html#x", "policy.html", "x", false},
		{"snapshots/a.html", "../assets/site.css", "assets/site.css", "", false},
		{"index.html", "#top", "index.html", "top", false},
		{"index.html", "https://cdn.example/echarts.js", "", "", true},
		{"index.html", "//cdn.example/echarts.js", "", "", true},
		{"index.html", "/assets/site.css", "", "", true},
		{"index.html", "../outside.html", "", "", true},
		{"index.html", "javascript:alert(1)", "", "", true},
	}
	for _, tt := range tests {
		target, frag, err := resolve(tt.page, tt.ref)
		if (err != nil) != tt.bad || target != tt.target || frag != tt.frag {
			t.Errorf("resolve(%q, %q) = %q, %q, %v", tt.page, tt.ref, target, frag, err)
		}
	}
}
