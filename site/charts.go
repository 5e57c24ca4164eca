package site

import (
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Chart is one go-echarts chart rendered as a snippet for a page: the
// element it draws into and the inline script that draws it.
type Chart struct {
	ID      string
	Element template.HTML
	Script  template.HTML
	// assets are the scripts the chart needs, relative to the page.
	assets []string
}

// chartID is what go-echarts may use as an element id and, prefixed, as a
// JavaScript variable name: a "-" would be a syntax error there.
var chartID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// chartText makes text from the data safe to place in chart options.
// go-echarts writes options into <script> without HTML escaping, so "<",
// ">" and "&" become look-alike full-width signs that no HTML parser
// reads as markup; and it turns any string wrapped in "__f__" into live
// JavaScript, so that marker is removed until none is left.
func chartText(s string) string {
	s = markupLookalikes.Replace(s)
	for strings.Contains(s, "__f__") {
		s = strings.ReplaceAll(s, "__f__", "")
	}
	return s
}

// markupLookalikes replaces the characters HTML reads as markup with
// full-width signs. A Replacer is safe for concurrent use.
var markupLookalikes = strings.NewReplacer("<", "＜", ">", "＞", "&", "＆")

// refLine is a horizontal reference line across a bar chart, such as a
// threshold.
type refLine struct {
	Label string
	Value float64
	Color string
}

// barSpec describes a bar chart: one bar per category.
type barSpec struct {
	ID         string
	Root       string // the page's way back to the site root
	Categories []string
	Values     []float64
	Over       []bool // bars drawn in the warning colour
	AxisName   string
	Lines      []refLine
	Height     string
}

// The chart palette has enough contrast on the light and the dark page.
const (
	barColour       = "#3c6fd1"
	barOverColour   = "#c2410c"
	limitColour     = "#b91c1c"
	referenceColour = "#6b7280"
)

// manyBars is the count above which a chart gets a zoom slider, so a
// suite of thousands of cases stays readable.
const manyBars = 25

// renderBar builds the chart and renders it as a snippet.
func renderBar(spec barSpec) (Chart, error) {
	if !chartID.MatchString(spec.ID) {
		return Chart{}, fmt.Errorf("site: chart id %q must be letters, digits and _ only", spec.ID)
	}
	if len(spec.Values) != len(spec.Categories) {
		return Chart{}, fmt.Errorf("site: chart %s has %d values for %d categories", spec.ID, len(spec.Values), len(spec.Categories))
	}
	height := spec.Height
	if height == "" {
		height = "320px"
	}
	categories := make([]string, len(spec.Categories))
	data := make([]opts.BarData, len(spec.Values))
	for i := range spec.Categories {
		categories[i] = chartText(spec.Categories[i])
		// The axis names the bars, and the series colours them: only
		// bars over the limit carry a style of their own, which keeps the
		// options of a 10,000-case chart small.
		data[i] = opts.BarData{Value: spec.Values[i]}
		if i < len(spec.Over) && spec.Over[i] {
			data[i].ItemStyle = &opts.ItemStyle{Color: barOverColour}
		}
	}

	bar := charts.NewBar()
	xAxis := opts.XAxis{Type: "category", AxisLabel: &opts.AxisLabel{}}
	global := []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{
			ChartID:    spec.ID,
			Width:      "100%",
			Height:     height,
			AssetsHost: spec.Root + echartsDir,
		}),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		// The axis must reach every reference line, or echarts leaves
		// the line out.
		charts.WithYAxisOpts(opts.YAxis{Name: chartText(spec.AxisName), Max: axisMax(spec)}),
		charts.WithGridOpts(opts.Grid{Left: "64", Right: "24", Top: "40", Bottom: "56", ContainLabel: opts.Bool(true)}),
	}
	if len(categories) > manyBars {
		xAxis.AxisLabel.Rotate = 90
		end := 100 * float32(manyBars) / float32(len(categories))
		global = append(global, charts.WithDataZoomOpts(
			opts.DataZoom{Type: "slider", Start: 0, End: end},
			opts.DataZoom{Type: "inside", Start: 0, End: end},
		))
	}
	global = append(global, charts.WithXAxisOpts(xAxis))
	bar.SetGlobalOptions(global...)

	var lines []opts.MarkLineNameYAxisItem
	for _, l := range spec.Lines {
		// As a string the value escapes echarts' rounding of markLine
		// positions to two decimals, which would move a cost limit of
		// 0.025 to 0.03; echarts accepts strings there.
		lines = append(lines, opts.MarkLineNameYAxisItem{Name: chartText(l.Label), YAxis: strconv.FormatFloat(l.Value, 'g', -1, 64)})
	}
	series := []charts.SeriesOpts{
		charts.WithBarChartOpts(opts.BarChart{BarCategoryGap: "40%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: barColour}),
	}
	if len(lines) > 0 {
		series = append(series,
			charts.WithMarkLineNameYAxisItemOpts(lines...),
			charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
				Symbol:    []string{"none", "none"},
				Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideEndTop"},
				LineStyle: &opts.LineStyle{Color: spec.Lines[0].Color, Type: "dashed", Width: 2},
			}))
	}
	bar.SetXAxis(categories).AddSeries(chartText(spec.AxisName), data, series...)

	snippet := bar.RenderSnippet()
	script := strings.Replace(strings.TrimSpace(snippet.Script), `<script type="text/javascript">`, "<script>", 1)
	if err := checkScript(spec.ID, script, string(bar.JSONNotEscaped())); err != nil {
		return Chart{}, err
	}
	return Chart{
		ID:      spec.ID,
		Element: template.HTML(strings.TrimSpace(snippet.Element)),
		Script:  template.HTML(script),
		assets:  append([]string(nil), bar.JSAssets.Values...),
	}, nil
}

// checkScript is defence in depth: whatever the data, a chart's script
// must be one element holding its options exactly as encoded. A "<"
// inside could let the HTML parser end the script early; options that
// changed on the way mean go-echarts found a "__f__" marker and made
// code of a string.
func checkScript(id, script, options string) error {
	body, ok := strings.CutPrefix(script, "<script>")
	if ok {
		body, ok = strings.CutSuffix(body, "</script>")
	}
	if !ok || strings.Contains(body, "<") {
		return fmt.Errorf("site: chart %s: options would break out of their script", id)
	}
	if !strings.Contains(body, options) {
		return fmt.Errorf("site: chart %s: options hold a function marker", id)
	}
	return nil
}

// axisMax returns a round upper bound for the value axis above every bar
// and every reference line, or nil to let echarts choose when the lines
// lie within the bars.
func axisMax(spec barSpec) any {
	top, line := 0.0, 0.0
	for _, v := range spec.Values {
		top = math.Max(top, v)
	}
	for _, l := range spec.Lines {
		line = math.Max(line, l.Value)
	}
	if line < top || line <= 0 {
		return nil
	}
	return niceCeil(line * 1.1)
}

// niceCeil rounds x up to a round multiple of a power of ten.
func niceCeil(x float64) float64 {
	if x <= 0 {
		return 0
	}
	pow := math.Pow(10, math.Floor(math.Log10(x)))
	for _, step := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if x <= step*pow*(1+1e-9) {
			return step * pow
		}
	}
	return 10 * pow
}

// chartAssets lists the scripts a page's charts need, each once, in order.
func chartAssets(cs ...Chart) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		for _, a := range c.assets {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}
