//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// sized sizes a fresh tab before it loads anything, to one of the
// viewports the charts must fit.
func sized(width, height int64, mobile bool) setup {
	return func(tb *tab) error {
		_, err := chromedp.Call(tb.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: height, DeviceScaleFactor: 1, Mobile: mobile,
		})
		return err
	}
}

// printMedia lays the page out as for paper.
func printMedia(tb *tab) error {
	_, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
	return err
}

// generatedLabels rename the sample's snapshots to labels of a real
// benchmark's length: 44 characters, kept in the sample's order.
var generatedLabels = map[string]string{
	"baseline-v1":  "a-baseline-v1-2026-11-12T0930Z-gpt-large-eu1",
	"candidate-v2": "b-candidate-v2-2026-11-19T0930Z-gpt-large-eu",
	"candidate-v3": "c-candidate-v3-2026-11-26T0930Z-gpt-large-eu",
}

// generatedCases is the size of the generated suite.
const generatedCases = 3000

var generatedSite = sync.OnceValues(func() (string, error) {
	for _, l := range generatedLabels {
		if len(l) != 44 {
			return "", fmt.Errorf("label %s has %d characters, want 44", l, len(l))
		}
	}
	data := filepath.Join(shared.tmp, "generated-data")
	if err := gensuite.Write(sampleData, data, generatedCases); err != nil {
		return "", err
	}
	for from, to := range generatedLabels {
		if err := os.Rename(filepath.Join(data, "outputs", from+".jsonl"), filepath.Join(data, "outputs", to+".jsonl")); err != nil {
			return "", err
		}
	}
	return buildSite(data, filepath.Join(shared.tmp, "generated-site"))
})

// rect is an element's box in CSS pixels of the viewport.
type rect struct {
	Left, Top, Right, Bottom float64
}

func (r rect) String() string {
	return fmt.Sprintf("(%.0f,%.0f)-(%.0f,%.0f)", r.Left, r.Top, r.Right, r.Bottom)
}

// inside reports whether r lies within o, to half a pixel.
func (r rect) inside(o rect) bool {
	const slack = 0.5
	return r.Left >= o.Left-slack && r.Top >= o.Top-slack && r.Right <= o.Right+slack && r.Bottom <= o.Bottom+slack
}

// overlaps reports whether r and o share any area.
func (r rect) overlaps(o rect) bool {
	return math.Min(r.Right, o.Right)-math.Max(r.Left, o.Left) > 0.5 && math.Min(r.Bottom, o.Bottom)-math.Max(r.Top, o.Top) > 0.5
}

// chartFit is what a reader sees of one chart.
type chartFit struct {
	Name     string  `json:"name"`
	Frame    rect    `json:"frame"`  // the visible frame around the chart
	Box      rect    `json:"box"`    // the box the chart draws into
	Canvas   *rect   `json:"canvas"` // nil when nothing was drawn
	Viewport float64 `json:"viewport"`
	// YMax is the top of the value axis; Limit the highest reference line.
	YMax  float64  `json:"yMax"`
	Limit *float64 `json:"limit"`
	// Categories and Labels count the bars and the axis labels shown.
	Categories int `json:"categories"`
	Labels     int `json:"labels"`
	// Zoom is the shown range of the category axis in percent; nil
	// without a zoom.
	Zoom []float64 `json:"zoom"`
}

// chartFitJS measures every chart once the page has drawn them.
const chartFitJS = `new Promise(done => {
	const rect = el => { const r = el.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
	const measure = () => Array.from(document.querySelectorAll(".chart"), frame => {
		const box = frame.querySelector(".chart-box");
		const canvas = frame.querySelector("canvas");
		const out = {name: box ? box.id : "?", frame: rect(frame), box: box ? rect(box) : rect(frame),
			canvas: canvas ? rect(canvas) : null, viewport: document.documentElement.clientWidth,
			yMax: 0, limit: null, categories: 0, labels: 0, zoom: null};
		const chart = box && window.echarts && echarts.getInstanceByDom(box);
		if (chart) {
			const option = chart.getOption();
			out.yMax = chart.getModel().getComponent("yAxis", 0).axis.scale.getExtent()[1];
			const lines = (option.series[0].markLine || {}).data || [];
			if (lines.length) out.limit = Math.max(...lines.map(l => Number(l.yAxis)));
			out.categories = option.xAxis[0].data.length;
			out.labels = chart.getModel().getComponent("xAxis", 0).axis.getViewLabels().length;
			if (option.dataZoom && option.dataZoom.length) out.zoom = [option.dataZoom[0].start, option.dataZoom[0].end];
		}
		return out;
	});
	const deadline = Date.now() + 10000;
	const poll = () => {
		const charts = measure();
		if (charts.every(c => c.canvas) || Date.now() > deadline) done(charts);
		else setTimeout(poll, 100);
	};
	poll();
})`

// checkFit fails for every chart that does not fit its box or the page,
// overlaps another, hides its limit line or shows too few labels.
func checkFit(t *testing.T, charts []chartFit, wantCharts int) {
	t.Helper()
	if len(charts) < wantCharts {
		t.Errorf("%d charts, want at least %d", len(charts), wantCharts)
	}
	for i, c := range charts {
		switch {
		case c.Canvas == nil:
			t.Errorf("chart %s: nothing drawn", c.Name)
			continue
		case !c.Canvas.inside(c.Box):
			t.Errorf("chart %s: canvas %s outside its box %s", c.Name, c.Canvas, c.Box)
		case c.Canvas.Right-c.Canvas.Left < 0.9*(c.Box.Right-c.Box.Left):
			t.Errorf("chart %s: canvas %s does not fill its box %s", c.Name, c.Canvas, c.Box)
		}
		if c.Frame.Left < -0.5 || c.Frame.Right > c.Viewport+0.5 {
			t.Errorf("chart %s: frame %s wider than the page (%.0f px)", c.Name, c.Frame, c.Viewport)
		}
		if c.Limit != nil && c.YMax < *c.Limit {
			t.Errorf("chart %s: the value axis ends at %v, below the limit line at %v", c.Name, c.YMax, *c.Limit)
		}
		if c.Zoom != nil && (c.Zoom[0] > 0 || c.Zoom[1] < 100) {
			t.Errorf("chart %s: shows %v%%–%v%% of the bars, want the whole range", c.Name, c.Zoom[0], c.Zoom[1])
		}
		switch {
		case c.Categories <= 12 && c.Labels != c.Categories:
			t.Errorf("chart %s: %d of %d labels shown", c.Name, c.Labels, c.Categories)
		case c.Categories > 12 && c.Labels < 3:
			t.Errorf("chart %s: only %d labels for %d bars", c.Name, c.Labels, c.Categories)
		}
		for _, o := range charts[i+1:] {
			if c.Frame.overlaps(o.Frame) {
				t.Errorf("charts %s %s and %s %s overlap", c.Name, c.Frame, o.Name, o.Frame)
			}
		}
	}
}

// TestChartsFit opens the overview and a snapshot page of the sample and
// of a generated suite of 3,000 cases with 44-character labels, at each
// width and in print, and checks every chart against its box.
func TestChartsFit(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	generated, err := generatedSite()
	if err != nil {
		t.Fatal(err)
	}
	sites := []struct {
		name  string
		dir   string
		pages []string
		// timeout bounds a page: the generated snapshot page is 1.7 MB of
		// HTML, which takes a busy two-core machine many seconds to parse.
		timeout time.Duration
	}{
		{"sample", shared.sampleSite(t), []string{"index.html", "snapshots/candidate-v2.html"}, pageTimeout},
		{"generated", generated, []string{"index.html", "snapshots/" + generatedLabels["candidate-v2"] + ".html"}, 3 * pageTimeout},
	}
	for _, st := range sites {
		s := serveHTTP(t, st.dir)
		t.Run(st.name, func(t *testing.T) {
			for _, vp := range viewports {
				for _, media := range []string{"screen", "print"} {
					if media == "print" && vp.width != 1024 {
						continue
					}
					for _, page := range st.pages {
						t.Run(vp.name+"/"+media+"/"+page, func(t *testing.T) {
							prepare := []setup{sized(vp.width, vp.height, vp.mobile)}
							if media == "print" {
								prepare = append(prepare, printMedia)
							}
							tb := openTab(t, browser, s.inScope).withTimeout(t, st.timeout)
							for _, p := range prepare {
								if err := p(tb); err != nil {
									t.Fatal(err)
								}
							}
							if _, err := tb.open(s.url(page)); err != nil {
								t.Fatal(err)
							}
							charts, err := eval[[]chartFit](tb, chartFitJS)
							if err != nil {
								t.Fatal(err)
							}
							checkFit(t, charts, 2)
							for _, p := range tb.log.snapshot().problems() {
								t.Error(p)
							}
						})
					}
				}
			}
		})
	}
}

// barPointJS finds the point of the screen that shows bar i of the first
// chart, halfway up the bar.
const barPointJS = `((i) => {
	const box = document.querySelector(".chart-box");
	const chart = echarts.getInstanceByDom(box);
	const value = chart.getOption().series[0].data[i].value;
	const [x, y] = chart.convertToPixel({seriesIndex: 0}, [i, value / 2]);
	const r = box.getBoundingClientRect();
	// Input events are placed in the visual viewport, which a phone may
	// have moved or scaled over the page.
	const v = window.visualViewport;
	return [(r.left + x - v.offsetLeft) * v.scale, (r.top + y - v.offsetTop) * v.scale];
})`

// TestBarClickOpensItsPage clicks a bar as a reader does and follows it.
func TestBarClickOpensItsPage(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))
	tests := []struct {
		page  string
		bar   int
		wants string
	}{
		{"index.html", 1, "snapshots/candidate-v2.html"},
		{"snapshots/candidate-v2.html", 6, "snapshots/candidate-v2/ER-007.html"},
	}
	for _, tt := range tests {
		for _, vp := range []int{0, 2} {
			vp := viewports[vp]
			t.Run(vp.name+"/"+tt.page, func(t *testing.T) {
				tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
				if err := sized(vp.width, vp.height, vp.mobile)(tb); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.open(s.url(tt.page)); err != nil {
					t.Fatal(err)
				}
				if _, err := eval[[]chartFit](tb, chartFitJS); err != nil {
					t.Fatal(err)
				}
				// Bring the chart into view first: a click lands on what
				// is on the screen.
				if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector(".chart").scrollIntoView({block: "center"})`)); err != nil {
					t.Fatal(err)
				}
				at, err := eval[[]float64](tb, fmt.Sprintf("%s(%d)", barPointJS, tt.bar))
				if err != nil {
					t.Fatal(err)
				}
				if err := chromedp.Do(tb.ctx, chromedp.MouseClickXY(at[0], at[1])); err != nil {
					t.Fatal(err)
				}
				want := s.url(tt.wants)
				var got string
				deadline := time.Now().Add(5 * time.Second)
				for time.Now().Before(deadline) {
					got, err = eval[string](tb, `document.readyState === "complete" ? location.href : ""`)
					if err == nil && got == want {
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
				t.Errorf("after a click on bar %d at (%.0f, %.0f): at %q, want %q", tt.bar, at[0], at[1], got, want)
			})
		}
	}
}

// TestChartsWithoutJavaScript opens the pages as a reader without
// JavaScript sees them: no empty chart frame shows, and the numbers are
// there in tables. The pages are served with a policy that runs no script
// at all; the test's own probes are not subject to it.
func TestChartsWithoutJavaScript(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	files := siteHandler(shared.sampleSite(t), false)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "script-src 'none'")
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	for _, page := range []string{"index.html", "snapshots/candidate-v2.html"} {
		t.Run(page, func(t *testing.T) {
			tb := openTab(t, browser, sameOrigin(srv.URL)).withTimeout(t, pageTimeout)
			if _, err := tb.open(srv.URL + subPath + page); err != nil {
				t.Fatal(err)
			}
			got, err := eval[struct {
				Ran                         bool
				Frames, Shown, Tables, Rows int
			}](tb, `({
				ran: typeof echarts !== "undefined",
				frames: document.querySelectorAll(".chart").length,
				shown: Array.from(document.querySelectorAll(".chart")).filter(c => c.getBoundingClientRect().height > 0).length,
				tables: Array.from(document.querySelectorAll("table")).filter(t => t.getBoundingClientRect().height > 0).length,
				rows: Array.from(document.querySelectorAll("table tbody tr")).filter(r => r.getBoundingClientRect().height > 0).length,
			})`)
			if err != nil {
				t.Fatal(err)
			}
			if got.Ran {
				t.Fatal("the page's scripts ran")
			}
			if got.Frames < 2 {
				t.Errorf("%d chart frames in the page, want at least 2", got.Frames)
			}
			if got.Shown != 0 {
				t.Errorf("%d empty chart frames shown without JavaScript", got.Shown)
			}
			if got.Tables == 0 || got.Rows < 3 {
				t.Errorf("%d tables with %d rows shown: the numbers are missing", got.Tables, got.Rows)
			}
		})
	}
}

// TestLongLabelsInTooltip checks that a label cut short on the axis is
// whole in the tooltip of its bar.
func TestLongLabelsInTooltip(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	generated, err := generatedSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, generated)
	tb := openTab(t, browser, s.inScope).withTimeout(t, 3*pageTimeout)
	if err := sized(1024, 768, false)(tb); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.open(s.url("index.html")); err != nil {
		t.Fatal(err)
	}
	if _, err := eval[[]chartFit](tb, chartFitJS); err != nil {
		t.Fatal(err)
	}
	got, err := eval[struct {
		Axis    []string
		Tooltip string
	}](tb, `new Promise(done => {
		const box = document.querySelector(".chart-box");
		const chart = echarts.getInstanceByDom(box);
		const axis = chart.getModel().getComponent("xAxis", 0).axis;
		const shown = axis.getViewLabels().map(l => l.formattedLabel);
		chart.dispatchAction({type: "showTip", seriesIndex: 0, dataIndex: 1});
		setTimeout(() => {
			const tips = Array.from(box.querySelectorAll("div")).filter(d => d.style.position === "absolute" && d.textContent.trim() !== "");
			done({axis: shown, tooltip: tips.map(d => d.textContent).join(" | ")});
		}, 300);
	})`)
	if err != nil {
		t.Fatal(err)
	}
	full := generatedLabels["candidate-v2"]
	if !strings.Contains(got.Tooltip, full) {
		t.Errorf("the tooltip %q does not hold the whole label %q", got.Tooltip, full)
	}
	t.Logf("axis labels as drawn: %q", got.Axis)
}
