//go:build e2e

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/internal/bundle"
)

// TestBundleOpensFromDisk packs the sample into a handoff bundle, unpacks
// it with the bundle's own extractor and opens it from file:// with every
// request outside the unpacked folder refused: a reader who gets only the
// zip file sees every page and every chart.
func TestBundleOpensFromDisk(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	tmp := t.TempDir()
	created, err := bundle.Create(bundle.Options{Data: sampleData, Dir: tmp})
	if err != nil {
		t.Fatalf("create the bundle: %v", err)
	}
	unpacked, err := bundle.Extract(created.Path, filepath.Join(tmp, "unpacked"), bundle.Limits{})
	if err != nil {
		t.Fatalf("extract %s: %v", created.Path, err)
	}
	s := serveFiles(unpacked.Dir, true)
	views := crawl(browser, s, nil, chartProbe)
	if len(views) < 2 {
		t.Fatalf("the crawl of %s found %d pages", s.base, len(views))
	}
	forEachPage(t, views, func(t *testing.T, v *pageView[[]chartState]) {
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
}
