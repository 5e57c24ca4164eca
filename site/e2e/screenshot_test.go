package e2e

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// screenshotPages are the pages people look at first: the overview, a
// snapshot with failures and a failing case's drilldown.
var screenshotPages = []string{
	"index.html",
	"snapshots/candidate-v2.html",
	"snapshots/candidate-v2/ER-007.html",
}

// screenshotDir is where screenshots go: $RELEASEGATE_SCREENSHOTS, or a new
// temporary folder that outlives the run so people can open the files.
func screenshotDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("RELEASEGATE_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir, err := os.MkdirTemp("", "releasegate-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestScreenshots saves full-page screenshots of the key pages in both
// colour schemes, for people to look at. It checks only what a machine can
// judge: every shot is a real image, and the dark one is darker.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	for _, rel := range screenshotPages {
		t.Run(rel, func(t *testing.T) {
			brightness := map[string]float64{}
			for _, scheme := range []string{"light", "dark"} {
				tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
				if err := colorScheme(scheme)(tb); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.open(s.url(rel)); err != nil {
					t.Fatal(err)
				}
				shot, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader(shot))
				if err != nil {
					t.Fatalf("%s screenshot: %v", scheme, err)
				}
				if b := img.Bounds(); b.Dx() < 320 || b.Dy() < 200 {
					t.Errorf("%s screenshot is only %dx%d", scheme, b.Dx(), b.Dy())
				}
				brightness[scheme] = meanBrightness(img)
				name := strings.NewReplacer("/", "_", ".html", "").Replace(rel) + "-" + scheme + ".png"
				if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
					t.Fatal(err)
				}
				tb.close()
			}
			if brightness["dark"] >= brightness["light"] {
				t.Errorf("dark scheme is not darker: mean brightness %.2f dark vs %.2f light", brightness["dark"], brightness["light"])
			}
		})
	}
}

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
