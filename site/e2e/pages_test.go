package e2e

import (
	"context"
	"net/http"
	"testing"
)

// TestSampleSiteOverHTTP opens every page of the sample site from a
// loopback server under a sub-path, the way a project site on a static
// host is seen.
func TestSampleSiteOverHTTP(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	checkEveryPage(t, browser, serveHTTP(t, shared.sampleSite(t)), http.StatusOK)
}

// TestSampleSiteFromDisk opens every page of the sample site from file://,
// the way someone who downloaded the folder sees it: no server, and
// nothing may come from any host.
func TestSampleSiteFromDisk(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	checkEveryPage(t, browser, serveFiles(shared.sampleSite(t), false), 0)
}

// checkEveryPage crawls the site from index.html and checks each page: the
// document loads with wantStatus, nothing fails, nothing leaves the site,
// no script errs, no dialog opens and every chart draws. Then it checks
// the links between the pages.
func checkEveryPage(t *testing.T, browser context.Context, s served, wantStatus int64) {
	t.Helper()
	views := crawl(browser, s, nil, chartProbe)
	forEachPage(t, views, func(t *testing.T, v *pageView[[]chartState]) {
		if v.Status != wantStatus {
			t.Errorf("document status %d, want %d", v.Status, wantStatus)
		}
		for _, p := range v.Log.problems() {
			t.Error(p)
		}
		checkCharts(t, v.Probe)
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
			if v.Rel == "index.html" && len(v.Probe) < 2 {
				t.Errorf("index.html: %d chart containers found, want the p95 and the cost chart", len(v.Probe))
			}
		}
	})
}
