//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/releasegate/releasegate/site"
)

// siteCache builds each site a test needs once per run, however many tests
// ask for it and in whatever order.
type siteCache struct {
	sample  func() (string, error)
	hostile func() (string, error)
	// The crawl of the sample site over HTTP, shared by two tests.
	crawlOnce sync.Once
	crawled   crawledSite
}

func newSiteCache(tmp string) *siteCache {
	c := &siteCache{}
	c.sample = sync.OnceValues(func() (string, error) {
		return buildSite(sampleData, filepath.Join(tmp, "sample-site"))
	})
	c.hostile = sync.OnceValues(func() (string, error) {
		data := filepath.Join(tmp, "hostile-data")
		if err := writeHostileData(sampleData, data); err != nil {
			return "", fmt.Errorf("make hostile data: %w", err)
		}
		return buildSite(data, filepath.Join(tmp, "hostile-site"))
	})
	return c
}

// sampleCrawl crawls the sample site over HTTP on the first call and
// returns that crawl to every call.
func (c *siteCache) sampleCrawl(browser context.Context, dir string) crawledSite {
	c.crawlOnce.Do(func() { c.crawled = crawlSampleOverHTTP(browser, dir) })
	return c.crawled
}

func buildSite(data, out string) (string, error) {
	if _, err := site.Build(data, out, site.BuildOptions{}); err != nil {
		return "", fmt.Errorf("build the site from %s: %w", data, err)
	}
	return out, nil
}

// sampleSite returns the folder of the site built from the sample data.
func (e *environment) sampleSite(t testing.TB) string {
	t.Helper()
	dir, err := e.sites.sample()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// hostileSite returns the folder of the site built from the hostile data.
func (e *environment) hostileSite(t testing.TB) string {
	t.Helper()
	dir, err := e.sites.hostile()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// served is a built site as a browser reaches it: base is the URL of the
// site's root folder and ends with a slash.
type served struct {
	dir  string
	base string
	// inScope tells which URLs the site's pages may request.
	inScope func(string) bool
}

// subPath is where the HTTP server puts the site, as GitHub Pages does for
// a project site: relative links must work below a domain's root.
const subPath = "/releasegate/"

// serveHTTP serves dir from a loopback server under subPath. Pages may load
// whatever comes from the same origin.
func serveHTTP(t testing.TB, dir string) served {
	t.Helper()
	srv := httptest.NewServer(siteHandler(dir, false))
	t.Cleanup(srv.Close)
	return served{dir: dir, base: srv.URL + subPath, inScope: sameOrigin(srv.URL)}
}

// siteHandler serves the files of dir under subPath the way a static host
// does: a folder means its index.html, a missing file is a 404, with the
// site's own 404.html as its body when notFoundPage is set, as GitHub Pages
// does. It does not redirect /index.html to the folder as http.FileServer
// would, so a page's recorded requests are the ones its links make.
func siteHandler(dir string, notFoundPage bool) http.Handler {
	return siteHandlerAt(dir, subPath, notFoundPage)
}

// siteHandlerAt is siteHandler with the site under prefix, which starts
// and ends with a slash.
func siteHandlerAt(dir, prefix string, notFoundPage bool) http.Handler {
	root := os.DirFS(dir)
	notFound := http.NotFound
	if notFoundPage {
		notFound = func(w http.ResponseWriter, r *http.Request) {
			body, err := fs.ReadFile(root, "404.html")
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write(body)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The browser is shared by every test, and a closed test server's
		// port is given to the next one: without this, a page could run
		// the data/*.js another test's site left in the cache.
		w.Header().Set("Cache-Control", "no-store")
		rel, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			notFound(w, r)
			return
		}
		if rel == "" || strings.HasSuffix(rel, "/") {
			rel += "index.html"
		}
		rel = path.Clean(rel)
		if !fs.ValidPath(rel) {
			notFound(w, r)
			return
		}
		f, err := root.Open(rel)
		if err != nil {
			notFound(w, r)
			return
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil || info.IsDir() {
			notFound(w, r)
			return
		}
		http.ServeContent(w, r, rel, info.ModTime(), f.(readSeeker))
	})
}

// serveAt serves dir under prefix as the host of a project site does,
// with the site's 404.html for a missing address.
func serveAt(t testing.TB, dir, prefix string) served {
	t.Helper()
	srv := httptest.NewServer(siteHandlerAt(dir, prefix, true))
	t.Cleanup(srv.Close)
	return served{dir: dir, base: srv.URL + prefix, inScope: sameOrigin(srv.URL)}
}

type readSeeker interface {
	Read([]byte) (int, error)
	Seek(int64, int) (int64, error)
}

// serveFiles opens dir from disk. Pages may load files only: any http(s)
// request is off scope. With confined set, only files inside dir are in
// scope, as for an unpacked bundle that must not reach out of its folder.
func serveFiles(dir string, confined bool) served {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	base := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs) + "/"}).String()
	inScope := func(u string) bool { return strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "data:") }
	if confined {
		inScope = func(u string) bool { return strings.HasPrefix(u, base) || strings.HasPrefix(u, "data:") }
	}
	return served{dir: abs, base: base, inScope: inScope}
}

// url returns the address of a file of the site, given by its slash path.
func (s served) url(rel string) string { return s.base + rel }

// rel returns the slash path of u inside the site, without query and
// fragment, and whether u lies inside the site at all.
func (s served) rel(u string) (string, bool) {
	u, _, _ = strings.Cut(u, "#")
	u, _, _ = strings.Cut(u, "?")
	rest, ok := strings.CutPrefix(u, s.base)
	if !ok {
		return "", false
	}
	rest, err := url.PathUnescape(rest)
	if err != nil {
		return "", false
	}
	if rest == "" || strings.HasSuffix(rest, "/") {
		rest += "index.html"
	}
	return rest, true
}

// htmlFiles lists the slash paths of every HTML file of a built site.
func htmlFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".html") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = errors.New("no HTML files in " + dir)
	}
	sort.Strings(files)
	return files, err
}

func TestServedRel(t *testing.T) {
	s := served{base: "http://127.0.0.1:8080/releasegate/"}
	tests := []struct {
		url    string
		want   string
		inside bool
	}{
		{"http://127.0.0.1:8080/releasegate/", "index.html", true},
		{"http://127.0.0.1:8080/releasegate/policy.html#rule-er-2026-10-4-2", "policy.html", true},
		{"http://127.0.0.1:8080/releasegate/snapshots/a/ER-1.html?x=1", "snapshots/a/ER-1.html", true},
		{"http://127.0.0.1:8080/releasegate/cases/", "cases/index.html", true},
		{"http://127.0.0.1:8080/releasegate/a%20b.html", "a b.html", true},
		{"http://127.0.0.1:8080/other/index.html", "", false},
		{"http://127.0.0.2:8080/releasegate/index.html", "", false},
		{"http://127.0.0.1:8080/releasegate/%zz", "", false},
	}
	for _, tt := range tests {
		got, ok := s.rel(tt.url)
		if got != tt.want || ok != tt.inside {
			t.Errorf("rel(%q) = %q, %v; want %q, %v", tt.url, got, ok, tt.want, tt.inside)
		}
	}
}
