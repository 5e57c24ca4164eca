//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// screenshotPages are the pages people look at first: the overview, a
// snapshot with failures, a failing case's drilldown, the comparison of
// the first and the last snapshot and the cases matrix.
var screenshotPages = []string{
	"index.html",
	"snapshots/candidate-v2.html",
	"snapshots/candidate-v2/ER-007.html",
	"compare.html#from=baseline-v1&to=candidate-v3",
	"cases.html",
}

// screenshotDir is where screenshots go: $RELEASEGATE_SCREENSHOTS, or
// else a folder of the test's own, removed after it.
func screenshotDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("RELEASEGATE_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// allScreenshots reports whether the whole set of screenshots, which is
// for people to look at, is wanted: only when $RELEASEGATE_SCREENSHOTS
// names a folder to keep them in. Otherwise the checks run on a few.
func allScreenshots() bool { return os.Getenv("RELEASEGATE_SCREENSHOTS") != "" }

// TestScreenshots saves what a reader first sees of the key pages, in
// both colour schemes, at each width (the viewport set before the page
// loads, never changed after), for people to look at: of the sample, and
// the overview and a snapshot of the generated suite with 44-character
// labels. It checks only what a machine can judge: every shot is a real
// image of the viewport, and the dark one is darker. The whole set is
// for people, so it is shot only into $RELEASEGATE_SCREENSHOTS; without
// it the checks run on the sample's overview and one large page.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	generated, err := generatedSite()
	if err != nil {
		t.Fatal(err)
	}
	sample, large, airline := serveHTTP(t, shared.sampleSite(t)), serveHTTP(t, generated), serveHTTP(t, airlineDir(t))
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	type shot struct {
		name    string
		site    served
		rel     string
		schemes []string
		timeout time.Duration
	}
	var shots []shot
	for _, rel := range screenshotPages {
		name := strings.NewReplacer("/", "_", ".html", "", "#", "_", "&", "_", "=", "-").Replace(rel)
		shots = append(shots, shot{name, sample, rel, []string{"light", "dark"}, pageTimeout})
	}
	shots = append(shots,
		shot{"generated_index", large, "index.html", []string{"light", "dark"}, 3 * pageTimeout},
		shot{"generated_snapshot", large, "snapshots/" + generatedLabels["candidate-v2"] + ".html", []string{"light"}, 3 * pageTimeout},
		shot{"generated_compare", large, "compare.html", []string{"light", "dark"}, 3 * pageTimeout},
		shot{"airline_compare", airline, "compare.html#from=retrained&to=candidate", []string{"light", "dark"}, pageTimeout},
		shot{"airline_cases", airline, "cases.html", []string{"light", "dark"}, pageTimeout},
		shot{"generated_cases", large, "cases.html", []string{"light", "dark"}, 3 * pageTimeout})
	if !allScreenshots() {
		shots = []shot{shots[0], shots[len(screenshotPages)]}
	}
	for _, sh := range shots {
		for _, vp := range viewports {
			t.Run(sh.name+"/"+vp.name, func(t *testing.T) {
				brightness := map[string]float64{}
				for _, scheme := range sh.schemes {
					tb := openTab(t, browser, sh.site.inScope).withTimeout(t, sh.timeout)
					for _, prepare := range []setup{sized(vp.width, vp.height, vp.mobile), colorScheme(scheme)} {
						if err := prepare(tb); err != nil {
							t.Fatal(err)
						}
					}
					if _, err := tb.open(sh.site.url(sh.rel)); err != nil {
						t.Fatal(err)
					}
					if _, err := eval[[]chartFit](tb, chartFitJS); err != nil {
						t.Fatal(err)
					}
					// The first screen, then, scrolled to them, the charts
					// and the cases a comparison lists.
					for _, part := range []string{"", "-gates", "-charts", "-changes"} {
						if part != "" {
							found, err := eval[bool](tb, fmt.Sprintf(scrollToJS, scrollTargets[part]))
							if err != nil {
								t.Fatal(err)
							}
							if !found {
								continue
							}
						}
						png64, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
						if err != nil {
							t.Fatal(err)
						}
						img, err := png.Decode(bytes.NewReader(png64))
						if err != nil {
							t.Fatalf("%s screenshot: %v", scheme, err)
						}
						if b := img.Bounds(); int64(b.Dx()) != vp.width || int64(b.Dy()) != vp.height {
							t.Errorf("%s screenshot is %dx%d, want the %dx%d viewport", scheme, b.Dx(), b.Dy(), vp.width, vp.height)
						}
						if part == "" {
							brightness[scheme] = meanBrightness(img)
						}
						name := sh.name + part + "-" + vp.name + "-" + scheme + ".png"
						if err := os.WriteFile(filepath.Join(dir, name), png64, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					tb.close()
				}
				if len(sh.schemes) == 2 && brightness["dark"] >= brightness["light"] {
					t.Errorf("dark scheme is not darker: mean brightness %.2f dark vs %.2f light", brightness["dark"], brightness["light"])
				}
			})
		}
	}
}

// scrollTargets are the parts of a page shot apart from its first
// screen, by the suffix of their file names.
var scrollTargets = map[string]string{"-gates": "table.gates", "-charts": ".chart-grid", "-changes": "#compare-result .compare-summary"}

// scrollToJS scrolls the part of the page the selector %q finds, with
// its section's heading, to the top of the viewport and waits for the
// next frame; false when the page has no such part.
const scrollToJS = `new Promise(done => {
	const part = document.querySelector(%q);
	if (!part) return done(false);
	const section = part.closest("section") || part;
	section.scrollIntoView({block: "start"});
	requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
})`

// meanBrightness is the average luma of img, 0 (black) to 1 (white),
// sampled on a grid so a tall page costs no more than a short one.
func meanBrightness(img image.Image) float64 {
	b := img.Bounds()
	const steps = 64
	var sum float64
	var n int
	for y := b.Min.Y; y < b.Max.Y; y += max(1, b.Dy()/steps) {
		for x := b.Min.X; x < b.Max.X; x += max(1, b.Dx()/steps) {
			r, g, bl, _ := img.At(x, y).RGBA()
			sum += (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 0xffff
			n++
		}
	}
	return sum / float64(n)
}
