//go:build e2e

package e2e

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// glanceViewports are a laptop's and a phone's window, set before the
// page loads.
var glanceViewports = []viewport{
	{"1366x768", 1366, 768, false},
	{"390x844", 390, 844, true},
}

// chartText is one piece of text a chart drew, with its box on the page.
type chartText struct {
	Text string `json:"text"`
	Box  rect   `json:"box"`
}

// chartGlance is what a reader takes in of one chart at a glance.
type chartGlance struct {
	Name    string `json:"name"`
	Frame   rect   `json:"frame"`
	Box     rect   `json:"box"`
	Caption *rect  `json:"caption"` // the figure's caption, nil without one
	Note    string `json:"note"`    // the caption's words
	// Plot is echarts' grid: where the data is drawn; nil when the chart
	// was not drawn.
	Plot   *rect       `json:"plot"`
	Rotate float64     `json:"rotate"` // of the category labels, degrees
	YMin   float64     `json:"yMin"`
	Limit  bool        `json:"limit"` // the chart has a limit line
	Texts  []chartText `json:"texts"`
}

// chartGlanceJS measures every chart of the page once drawn: the grid
// rectangle echarts plots in, and every piece of text on the canvas
// (axis labels, axis name, the limit's label) from zrender's display
// list, in page coordinates.
const chartGlanceJS = `new Promise(done => {
	const rect = r => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom});
	const measure = () => Array.from(document.querySelectorAll(".chart"), frame => {
		const box = frame.querySelector(".chart-box");
		const b = box.getBoundingClientRect();
		const fig = frame.closest("figure");
		const cap = fig && fig.querySelector("figcaption");
		const out = {name: box.id, frame: rect(frame.getBoundingClientRect()), box: rect(b),
			caption: cap ? rect(cap.getBoundingClientRect()) : null, note: cap ? cap.textContent : "",
			plot: null, rotate: 0, yMin: -1, limit: false, texts: []};
		const chart = window.echarts && echarts.getInstanceByDom(box);
		if (!chart || !chart.getDom().querySelector("canvas")) return out;
		const g = chart.getModel().getComponent("grid", 0).coordinateSystem.getRect();
		out.plot = {left: b.left + g.x, top: b.top + g.y, right: b.left + g.x + g.width, bottom: b.top + g.y + g.height};
		const option = chart.getOption();
		out.rotate = (option.xAxis[0].axisLabel || {}).rotate || 0;
		out.yMin = chart.getModel().getComponent("yAxis", 0).axis.scale.getExtent()[0];
		out.limit = ((option.series[0].markLine || {}).data || []).length > 0;
		chart.getZr().storage.getDisplayList(true).forEach(el => {
			if ((el.type !== "tspan" && el.type !== "text") || el.invisible || !el.style || !el.style.text) return;
			const r = el.getBoundingRect().clone();
			r.applyTransform(el.getComputedTransform());
			out.texts.push({text: String(el.style.text), box: {left: b.left + r.x, top: b.top + r.y, right: b.left + r.x + r.width, bottom: b.top + r.y + r.height}});
		});
		return out;
	});
	const deadline = Date.now() + 10000;
	const poll = () => {
		const charts = measure();
		if (charts.every(c => c.plot && c.texts.length > 0) || Date.now() > deadline) done(charts);
		else setTimeout(poll, 100);
	};
	poll();
})`

// height is a rectangle's height.
func (r rect) height() float64 { return r.Bottom - r.Top }

// TestChartsReadAtAGlance opens the overview and a snapshot page at a
// laptop's and a phone's width and checks what a glance takes in: the
// plot fills most of its box, the labels are level where they fit and
// never overlap, every value axis starts at 0, the limit line is
// labelled, a p95 resting on few answers says so, and no chart overlaps
// its caption, another chart or the page's edge. It saves a
// viewport-sized screenshot of each page's charts to look at.
func TestChartsReadAtAGlance(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	pages := []struct {
		rel string
		// level: every category label fits level at both widths.
		level bool
		// minShare is the least share of its box the plot must take.
		minShare float64
		charts   int
	}{
		{"index.html", true, 0.7, 3},
		{"snapshots/candidate-v2.html", false, 0.6, 2},
	}
	for _, pg := range pages {
		for _, vp := range glanceViewports {
			t.Run(vp.name+"/"+pg.rel, func(t *testing.T) {
				tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
				if err := sized(vp.width, vp.height, vp.mobile)(tb); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.open(s.url(pg.rel)); err != nil {
					t.Fatal(err)
				}
				charts, err := eval[[]chartGlance](tb, chartGlanceJS)
				if err != nil {
					t.Fatal(err)
				}
				if len(charts) != pg.charts {
					t.Fatalf("%d charts, want %d", len(charts), pg.charts)
				}
				checkGlance(t, charts, pg.level, pg.minShare)
				wide, err := eval[[]float64](tb, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`)
				if err != nil {
					t.Fatal(err)
				}
				if wide[0] > wide[1] {
					t.Errorf("the page is %.0f px wide in a %.0f px viewport", wide[0], wide[1])
				}
				if _, err := eval[bool](tb, strings.Replace(scrollToJS, "%q", `".chart"`, 1)); err != nil {
					t.Fatal(err)
				}
				shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if img, err := png.Decode(bytes.NewReader(shot)); err != nil {
					t.Fatal(err)
				} else if b := img.Bounds(); int64(b.Dx()) != vp.width || int64(b.Dy()) != vp.height {
					t.Errorf("screenshot is %dx%d, want the %dx%d viewport", b.Dx(), b.Dy(), vp.width, vp.height)
				}
				name := "glance-" + strings.NewReplacer("/", "_", ".html", "").Replace(pg.rel) + "-" + vp.name + ".png"
				if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
					t.Fatal(err)
				}
				for _, p := range tb.log.snapshot().problems() {
					t.Error(p)
				}
			})
		}
	}
}

// checkGlance fails for every chart a reader cannot take in at a glance.
func checkGlance(t *testing.T, charts []chartGlance, level bool, minShare float64) {
	t.Helper()
	for i, c := range charts {
		if c.Plot == nil {
			t.Errorf("chart %s: not drawn", c.Name)
			continue
		}
		share := c.Plot.height() / c.Box.height()
		t.Logf("chart %s: plot %.0f of %.0f px (%.0f%%), labels turned %v°", c.Name, c.Plot.height(), c.Box.height(), 100*share, c.Rotate)
		if share < minShare {
			t.Errorf("chart %s: the plot is %.0f px of its %.0f px box (%.0f%%), want at least %.0f%%",
				c.Name, c.Plot.height(), c.Box.height(), 100*share, 100*minShare)
		}
		if !c.Plot.inside(c.Box) {
			t.Errorf("chart %s: the plot %s leaves its box %s", c.Name, c.Plot, c.Box)
		}
		if level && c.Rotate != 0 {
			t.Errorf("chart %s: labels turned %v° though they fit level", c.Name, c.Rotate)
		}
		if c.YMin != 0 {
			t.Errorf("chart %s: the value axis starts at %v, want 0", c.Name, c.YMin)
		}
		if c.Limit {
			labelled := false
			for _, tx := range c.Texts {
				if strings.HasPrefix(tx.Text, "limit") || strings.HasPrefix(tx.Text, "min") || strings.HasPrefix(tx.Text, "p95 limit") {
					labelled = labelled || tx.Box.inside(c.Box)
				}
			}
			if !labelled {
				t.Errorf("chart %s: the limit line has no label inside the chart", c.Name)
			}
		}
		for j, a := range c.Texts {
			if !a.Box.inside(c.Box) {
				t.Errorf("chart %s: text %q %s leaves the box %s", c.Name, a.Text, a.Box, c.Box)
			}
			for _, b := range c.Texts[j+1:] {
				if a.Box.overlaps(b.Box) {
					t.Errorf("chart %s: texts %q %s and %q %s overlap", c.Name, a.Text, a.Box, b.Text, b.Box)
				}
			}
		}
		if c.Caption != nil && c.Caption.overlaps(c.Frame) {
			t.Errorf("chart %s: its caption %s overlaps the chart %s", c.Name, c.Caption, c.Frame)
		}
		for _, o := range charts[i+1:] {
			if c.Frame.overlaps(o.Frame) {
				t.Errorf("charts %s %s and %s %s overlap", c.Name, c.Frame, o.Name, o.Frame)
			}
			if o.Caption != nil && o.Caption.overlaps(c.Frame) {
				t.Errorf("chart %s %s overlaps the caption of %s %s", c.Name, c.Frame, o.Name, o.Caption)
			}
		}
		if strings.Contains(c.Name, "p95") || strings.Contains(c.Name, "latency") {
			// The sample has 12 answers a snapshot: its p95 is the slowest.
			if !strings.Contains(c.Note, "p95 of 12 answers is the slowest one") {
				t.Errorf("chart %s: the note %q does not say that the p95 of 12 answers is the slowest one", c.Name, c.Note)
			}
		}
	}
}
