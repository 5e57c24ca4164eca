//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// airlineData is the example that uses every extension of the data
// docs/data-format.md, "Real agents".
const airlineData = "../../examples/airline"

// airlineSite builds examples/airline once per run.
var airlineSite = sync.OnceValues(func() (string, error) {
	return buildSite(airlineData, filepath.Join(shared.tmp, "airline-site"))
})

// airlineDir returns the folder of the airline example's site.
func airlineDir(t testing.TB) string {
	t.Helper()
	dir, err := airlineSite()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// deviceViewport sizes a fresh tab before it loads anything, so a page
// is laid out once at that size, as on a phone, and never resized.
func deviceViewport(width, height int64) func(tb *tab) error {
	return func(tb *tab) error {
		_, err := chromedp.Call(tb.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: height, DeviceScaleFactor: 1, Mobile: width < 600,
		})
		return err
	}
}

// agentElements are the parts of a page that show docs/data-format.md, "Real agents": each must lie
// inside the viewport, or inside its table cell when it sits in a table
// (a wide table scrolls in its own frame, not the page).
const agentElements = ".trial-strip, .trial-count, .badge-flaky, .badge-off, .recording, .trial-summary, .card-trials, " +
	".call-pair, .call-mode, .matcher, .raw-arguments, .flaky-changes, section.trial > h2"

// fitProbe reports what sticks out: the page's own sideways scroll, and
// each agent element outside the viewport or its cell.
const fitProbe = `(() => {
	const out = [];
	const vw = window.innerWidth;
	const doc = document.documentElement;
	if (doc.scrollWidth > vw) out.push("the page scrolls sideways: " + doc.scrollWidth + " > " + vw);
	let seen = 0;
	document.querySelectorAll(%q).forEach(el => {
		const r = el.getBoundingClientRect();
		if (r.width === 0 && r.height === 0) return;
		seen++;
		const name = el.tagName.toLowerCase() + "." + (el.className || "") + " " + JSON.stringify(el.textContent.trim().slice(0, 30));
		const cell = el.closest("td, th");
		if (cell) {
			const c = cell.getBoundingClientRect();
			if (r.left < c.left - 0.5 || r.right > c.right + 0.5) out.push(name + " overflows its cell: " + r.left + "–" + r.right + " in " + c.left + "–" + c.right);
		} else if (r.left < -0.5 || r.right > vw + 0.5) {
			out.push(name + " is outside the viewport: " + r.left + "–" + r.right + " of " + vw);
		}
	});
	return {problems: out, seen: seen};
})()`

type fitResult struct {
	Problems []string `json:"problems"`
	Seen     int      `json:"seen"`
}

// TestAirlinePagesFit opens the pages that show trials, provenance and
// paired calls at desktop, laptop and phone sizes and checks that the new
// elements fit without sideways scrolling.
func TestAirlinePagesFit(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	dir, err := airlineSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, dir)
	pages := []string{
		"index.html",
		"snapshots/retrained.html",
		"snapshots/retrained/NA-003.html",
		"snapshots/candidate/NA-006.html",
		"snapshots/baseline/NA-009.html",
	}
	sizes := []struct{ w, h int64 }{{1280, 900}, {1024, 768}, {390, 844}}
	shots := os.Getenv("RELEASEGATE_SCREENSHOTS")
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			for _, rel := range pages {
				// A shared machine can take long to lay out a page.
				tb := openTab(t, browser, s.inScope).withTimeout(t, 2*pageTimeout)
				if err := deviceViewport(size.w, size.h)(tb); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.open(s.url(rel)); err != nil {
					t.Fatal(err)
				}
				if p := tb.log.snapshot().problems(); len(p) > 0 {
					t.Errorf("%s: %s", rel, strings.Join(p, "; "))
				}
				width, err := eval[int64](tb, "window.innerWidth")
				if err != nil || width != size.w {
					t.Fatalf("%s: viewport %d wide, want %d (%v)", rel, width, size.w, err)
				}
				got, err := eval[fitResult](tb, fmt.Sprintf(fitProbe, agentElements))
				if err != nil {
					t.Fatal(err)
				}
				if got.Seen == 0 {
					t.Errorf("%s: none of the trial, provenance or call elements is on the page", rel)
				}
				for _, p := range got.Problems {
					t.Errorf("%s: %s", rel, p)
				}
				if shots != "" && (rel == "snapshots/retrained.html" || rel == "snapshots/retrained/NA-003.html") && size.w != 1024 {
					shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("airline-%s-%dx%d.png", strings.NewReplacer("/", "_", ".html", "").Replace(rel), size.w, size.h)
					if err := os.WriteFile(filepath.Join(screenshotDir(t), name), shot, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				tb.close()
			}
		})
	}
}

// TestAirlineFlakyFilter shows only the flaky cases when the filter asks.
func TestAirlineFlakyFilter(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	dir, err := airlineSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, dir)
	tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
	if _, err := tb.open(s.url("snapshots/candidate.html")); err != nil {
		t.Fatal(err)
	}
	const js = `(() => {
		const box = document.querySelector('form[data-filter-for] select[name="flaky"]');
		box.value = "true";
		box.dispatchEvent(new Event("change", {bubbles: true}));
		return Array.from(document.querySelectorAll("#case-table tbody tr")).filter(r => !r.hidden).map(r => r.querySelector("th").textContent.trim()).sort();
	})()`
	shown, err := eval[[]string](tb, js)
	if err != nil {
		t.Fatal(err)
	}
	// examples/airline/README.md: NA-005, NA-007 and NA-009 are flaky in
	// candidate.
	if strings.Join(shown, " ") != "NA-005 NA-007 NA-009" {
		t.Errorf("flaky filter shows %q, want NA-005 NA-007 NA-009", shown)
	}
}

// TestAirlineAccessibility runs axe-core on the pages that show trials,
// provenance and paired calls, in both colour schemes.
func TestAirlineAccessibility(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	shared.needFile(t, "axe-core (npm axe-core)", axeScript)
	s := serveHTTP(t, airlineDir(t))
	for _, rel := range []string{"index.html", "snapshots/retrained.html", "snapshots/retrained/NA-003.html", "snapshots/baseline/NA-009.html"} {
		tb := openTab(t, browser, s.inScope).withTimeout(t, 3*pageTimeout) // axe runs twice a page on a busy machine
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
