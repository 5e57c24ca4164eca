//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/site"
)

// groupedSite builds 300 generated cases × 3 snapshots with results
// grouped above 100, so the site has the layout of a 100,000-case suite
// at a size a test can build.
func groupedSite(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	if err := gensuite.Write(sampleData, data, 300); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "public")
	if _, err := site.Build(data, out, site.BuildOptions{GroupAbove: 100}); err != nil {
		t.Fatal(err)
	}
	return out
}

// anchorProbe measures what the first screen shows of the element with
// the given id after the page opened at its #fragment.
const anchorProbe = `(() => {
	const el = document.getElementById(%q);
	if (!el) return {found: false};
	const r = el.getBoundingClientRect();
	return {found: true, top: r.top, bottom: r.bottom, left: r.left, right: r.right,
		text: el.textContent.trim().replace(/\s+/g, " "),
		width: window.innerWidth, height: window.innerHeight,
		scrollWidth: document.documentElement.scrollWidth, scrollY: window.scrollY};
})()`

type anchorState struct {
	Found       bool    `json:"found"`
	Top         float64 `json:"top"`
	Bottom      float64 `json:"bottom"`
	Left        float64 `json:"left"`
	Right       float64 `json:"right"`
	Text        string  `json:"text"`
	Width       float64 `json:"width"`
	Height      float64 `json:"height"`
	ScrollWidth float64 `json:"scrollWidth"`
	ScrollY     float64 `json:"scrollY"`
}

// TestGroupedResultOpensAtItsAnchor opens the shareable URL of a failing
// and of a passing result on a grouped page from file://, at desktop,
// laptop and phone sizes set before the page loads: the result's heading
// must be in the first screen, and the page must not scroll sideways.
func TestGroupedResultOpensAtItsAnchor(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveFiles(groupedSite(t), true)
	// Case 151 fails in baseline-v1 (a copy of ER-007), case 190 passes
	// (a copy of ER-010); both lie inside the second page of a hundred.
	results := []struct {
		page, id, heading, want string
	}{
		{"snapshots/baseline-v1/p0002.html", "GEN-000151", "GEN-000151~heading", "GEN-000151 in baseline-v1"},
		{"snapshots/baseline-v1/p0002.html", "GEN-000190", "GEN-000190", "GEN-000190"},
		{"cases/p0002.html", "GEN-000151", "GEN-000151", "GEN-000151"},
	}
	shots := os.Getenv("RELEASEGATE_SCREENSHOTS")
	for _, size := range []struct{ w, h int64 }{{1280, 900}, {1024, 768}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			for _, r := range results {
				tb := openTab(t, browser, s.inScope).withTimeout(t, 2*pageTimeout)
				if err := deviceViewport(size.w, size.h)(tb); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.open(s.url(r.page) + "#" + r.id); err != nil {
					t.Fatal(err)
				}
				if p := tb.log.snapshot().problems(); len(p) > 0 {
					t.Errorf("%s: %s", r.page, strings.Join(p, "; "))
				}
				got, err := eval[anchorState](tb, fmt.Sprintf(anchorProbe, r.heading))
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case !got.Found:
					t.Errorf("%s#%s: no element %s", r.page, r.id, r.heading)
				case got.Width != float64(size.w):
					t.Errorf("%s: viewport %v wide, want %d", r.page, got.Width, size.w)
				case got.Top < -0.5 || got.Bottom > got.Height+0.5 || got.Bottom-got.Top < 1:
					t.Errorf("%s#%s: the heading lies at %v–%v of a %v-pixel screen", r.page, r.id, got.Top, got.Bottom, got.Height)
				case got.ScrollY == 0:
					t.Errorf("%s#%s: the page did not move to the anchor", r.page, r.id)
				case !strings.HasPrefix(got.Text, r.want):
					t.Errorf("%s#%s: the heading reads %q, want it to start with %q", r.page, r.id, got.Text, r.want)
				case got.ScrollWidth > got.Width+0.5:
					t.Errorf("%s: the page scrolls sideways: %v > %v", r.page, got.ScrollWidth, got.Width)
				}
				if shots != "" && size.w != 1024 {
					shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("grouped-%s-%s-%dx%d.png", strings.NewReplacer("/", "_", ".html", "").Replace(r.page), r.id, size.w, size.h)
					if err := os.WriteFile(filepath.Join(screenshotDir(t), name), shot, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				tb.close()
			}
		})
	}
}

// TestGroupedSnapshotTableLinksResults opens a grouped site's snapshot
// page from file://: the case table loads its rows from the data scripts,
// and every row must link to its result's anchor on the right page.
func TestGroupedSnapshotTableLinksResults(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveFiles(groupedSite(t), true)
	tb := openTab(t, browser, s.inScope).withTimeout(t, 2*pageTimeout)
	defer tb.close()
	// Every row, passing ones included, sorted by case id.
	if _, err := tb.open(s.url("snapshots/candidate-v2.html") + "#sort=case-asc"); err != nil {
		t.Fatal(err)
	}
	if p := tb.log.snapshot().problems(); len(p) > 0 {
		t.Error(strings.Join(p, "; "))
	}
	hrefs, err := eval[[]string](tb, `Array.from(document.querySelectorAll("#case-table tbody th a")).map(a => a.getAttribute("href"))`)
	if err != nil {
		t.Fatal(err)
	}
	if len(hrefs) < 20 {
		t.Fatalf("the table shows %d rows", len(hrefs))
	}
	link := regexp.MustCompile(`^\.\./snapshots/candidate-v2/p([0-9]{4})\.html#GEN-([0-9]{6})$`)
	for _, h := range hrefs {
		m := link.FindStringSubmatch(h)
		if m == nil {
			t.Errorf("a row links to %q, not to a result on a grouped page", h)
			continue
		}
		page, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if want := (n-1)/100 + 1; page != want {
			t.Errorf("%s: GEN-%s is on page %d", h, m[2], want)
		}
	}
}

// groupedPages are the kinds of page a grouped site adds or changes.
var groupedPages = []string{
	"snapshots/baseline-v1/p0002.html",
	"snapshots/candidate-v2/p0003.html",
	"cases/p0002.html",
	"snapshots/baseline-v1.html",
}

// TestGroupedPagesValid checks the grouped pages with the Nu Html Checker.
func TestGroupedPagesValid(t *testing.T) {
	t.Parallel()
	java := shared.needJava(t)
	shared.needFile(t, "the Nu Html Checker (npm vnu-jar)", vnuJar)
	dir := groupedSite(t)
	var files []string
	for _, rel := range groupedPages {
		abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, abs)
	}
	report, err := runVNU(t, java, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range report.Messages {
		if m.Type != "info" {
			t.Errorf("%s: %s", m.URL, m)
		}
	}
}

// TestGroupedPagesAccessible runs axe-core on the grouped pages in the
// light and the dark colour scheme; serious and critical violations fail.
func TestGroupedPagesAccessible(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	shared.needFile(t, "axe-core (npm axe-core)", axeScript)
	s := serveFiles(groupedSite(t), true)
	for _, rel := range groupedPages {
		tb := openTab(t, browser, s.inScope).withTimeout(t, 4*pageTimeout)
		if _, err := tb.open(s.url(rel)); err != nil {
			t.Fatal(err)
		}
		got, err := axeProbe(tb)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range append(got.Light, got.Dark...) {
			if v.blocking() {
				t.Errorf("%s: %s", rel, v)
			}
		}
		tb.close()
	}
}
