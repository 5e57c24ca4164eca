//go:build e2e

package e2e

import (
	"testing"
)

// chartState is what one chart container of a page holds once the page
// has settled.
type chartState struct {
	Name    string  `json:"name"`    // the chart element's id
	Surface string  `json:"surface"` // "canvas", "svg" or "" for none
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	// Painted counts non-transparent pixels of the canvas, scaled down to
	// 64×64, or the drawn shapes of the svg.
	Painted int `json:"painted"`
}

// chartProbeJS finds the site's chart containers (the "chart" class its
// templates wrap every chart in) and measures what each one drew. The chart
// library paints on an animation frame, so it polls for up to five seconds
// until every container has painted something.
const chartProbeJS = `new Promise(done => {
	const measure = () => Array.from(document.querySelectorAll(".chart"), (box, i) => {
		const el = box.querySelector("[id]");
		const name = el ? el.id : "chart " + (i + 1);
		const surface = box.querySelector("canvas, svg");
		if (!surface) return {name, surface: "", width: 0, height: 0, painted: 0};
		const r = surface.getBoundingClientRect();
		let painted = 0;
		if (surface.localName === "canvas") {
			if (surface.width > 0 && surface.height > 0) {
				const small = document.createElement("canvas");
				small.width = small.height = 64;
				const g = small.getContext("2d");
				g.drawImage(surface, 0, 0, 64, 64);
				const px = g.getImageData(0, 0, 64, 64).data;
				for (let k = 3; k < px.length; k += 4) if (px[k] > 0) painted++;
			}
		} else {
			painted = surface.querySelectorAll("path, rect, line, polyline, polygon, text, circle").length;
		}
		return {name, surface: surface.localName, width: r.width, height: r.height, painted};
	});
	const deadline = Date.now() + 5000;
	const poll = () => {
		const charts = measure();
		if (charts.every(c => c.painted > 0) || Date.now() > deadline) done(charts);
		else setTimeout(poll, 100);
	};
	poll();
})`

func chartProbe(tb *tab) ([]chartState, error) { return eval[[]chartState](tb, chartProbeJS) }

// checkCharts fails for every chart container that holds no drawn surface
// of non-zero size.
func checkCharts(t *testing.T, charts []chartState) {
	t.Helper()
	for _, c := range charts {
		switch {
		case c.Surface == "":
			t.Errorf("chart %s: nothing drawn (no canvas or svg in its container)", c.Name)
		case c.Width < 1 || c.Height < 1:
			t.Errorf("chart %s: the %s is %.0f×%.0f", c.Name, c.Surface, c.Width, c.Height)
		case c.Painted == 0:
			t.Errorf("chart %s: the %s is blank", c.Name, c.Surface)
		}
	}
}
