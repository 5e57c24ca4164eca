//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// sampleFindings is what the crawl of the sample site over HTTP reads from
// each page: the charts, and what axe-core reports when it is installed.
type sampleFindings struct {
	Charts []chartState
	Axe    *schemeViolations
}

// crawledSite is a finished crawl: the pages and how they were reached.
type crawledSite struct {
	site  served
	views []*pageView[sampleFindings]
}

// crawlSampleOverHTTP crawls the sample site from a loopback server under
// subPath, the way a project site on a static host is seen, reading
// charts and accessibility in one visit per page. TestSampleSiteOverHTTP
// and TestAccessibility share it, which saves loading every page twice.
func crawlSampleOverHTTP(browser context.Context, dir string) crawledSite {
	srv := httptest.NewServer(siteHandler(dir, false))
	defer srv.Close()
	s := served{dir: dir, base: srv.URL + subPath, inScope: sameOrigin(srv.URL)}
	_, axeErr := os.Stat(axeScript)
	look := func(tb *tab) (sampleFindings, error) {
		var f sampleFindings
		var err error
		if f.Charts, err = chartProbe(tb); err != nil {
			return f, fmt.Errorf("measure charts: %w", err)
		}
		if axeErr == nil {
			a, err := axeProbe(tb)
			if err != nil {
				return f, err
			}
			f.Axe = &a
		}
		return f, nil
	}
	views := crawl(browser, s, colorScheme("light"), look)
	return crawledSite{site: s, views: views}
}

// sampleOverHTTP returns the shared crawl of the sample site over HTTP.
func (e *environment) sampleOverHTTP(t *testing.T) crawledSite {
	t.Helper()
	browser := e.needBrowser(t)
	dir := e.sampleSite(t)
	return e.sites.sampleCrawl(browser, dir)
}

// TestSampleSiteOverHTTP checks every page of the sample site served over
// HTTP under a sub-path.
func TestSampleSiteOverHTTP(t *testing.T) {
	t.Parallel()
	c := shared.sampleOverHTTP(t)
	checkEveryPage(t, c.site, c.views, func(f sampleFindings) []chartState { return f.Charts })
}

// TestSampleSiteFromDisk opens every page of the sample site from file://,
// the way someone who downloaded the folder sees it: no server, and
// nothing may come from any host.
func TestSampleSiteFromDisk(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveFiles(shared.sampleSite(t), false)
	views := crawl(browser, s, nil, chartProbe)
	checkEveryPage(t, s, views, func(c []chartState) []chartState { return c })
}

// checkEveryPage checks each crawled page: the document loaded (chromium
// reports 200 for a file too), nothing failed, nothing left the site, no
// script erred, no dialog opened and every chart drew. Then it checks the
// links between the pages.
func checkEveryPage[T any](t *testing.T, s served, views []*pageView[T], charts func(T) []chartState) {
	t.Helper()
	forEachPage(t, views, func(t *testing.T, v *pageView[T]) {
		if v.Status != http.StatusOK {
			t.Errorf("document status %d, want 200", v.Status)
		}
		for _, p := range v.Log.problems() {
			t.Error(p)
		}
		checkCharts(t, charts(v.Probe))
	})
	t.Run("links", func(t *testing.T) {
		for _, p := range brokenLinks(s, views) {
			t.Error(p)
		}
	})
	t.Run("charts found", func(t *testing.T) {
		// Guards the chart check itself: if the containers lost the class
		// it looks for, every page would pass with no chart checked.
		for _, v := range views {
			if n := len(charts(v.Probe)); v.Rel == "index.html" && n < 2 {
				t.Errorf("index.html: %d chart containers found, want the p95 and the cost chart", n)
			}
		}
	})
}

// TestNotFoundPage asks for a missing page two folders down, where a static
// host shows the site's 404.html in place of the page: it must show
// without loading anything that fails or lies elsewhere.
func TestNotFoundPage(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	srv := httptest.NewServer(siteHandler(shared.sampleSite(t), true))
	t.Cleanup(srv.Close)
	missing := srv.URL + subPath + "snapshots/no-such-snapshot/ER-000.html"
	tb := openTab(t, browser, sameOrigin(srv.URL)).withTimeout(t, pageTimeout)
	status, err := tb.open(missing)
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusNotFound {
		t.Errorf("status %d, want 404", status)
	}
	heading, err := eval[string](tb, `(document.querySelector("h1") || {textContent: ""}).textContent.trim()`)
	if err != nil {
		t.Fatal(err)
	}
	if heading == "" {
		t.Error("the page has no heading: the site's 404.html was not shown")
	}
	got := tb.log.snapshot()
	for _, p := range got.problems() {
		// The document's own 404 is the point of the page.
		if !strings.HasPrefix(p, "failed load: "+missing+": HTTP 404") && !strings.Contains(p, "status of 404 (Not Found) [network] "+missing) {
			t.Error(p)
		}
	}
}
