package pages

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Chart is one bar chart as a page carries it: an empty box that
// assets/site.js draws into, and the chart's options as a JSON data
// block. A data block is never executed, so pages need no inline script
// and satisfy the site's Content-Security-Policy. The box is hidden until
// the script draws, so a reader without JavaScript meets no empty frame.
type Chart struct {
	ID      string
	Element template.HTML // the box
	Script  template.HTML // the JSON data block the box names
	// Assets are the scripts the chart needs, relative to the page.
	Assets []string
}

// ChartData is what site.js reads from a chart's data block.
type ChartData struct {
	// Options are go-echarts' options for echarts.setOption.
	Options map[string]any `json:"options"`
	// Height of the box in CSS pixels; the width is the box's.
	Height int `json:"height"`
	// Floor is the least top of the value axis, so that every reference
	// line stays in view however far the reader zooms in; 0 for none.
	Floor float64 `json:"floor,omitempty"`
	// Links open the page of each bar: Links[i], or, when all follow one
	// pattern, LinkPrefix + Keys[i] + LinkSuffix, or, for results that
	// share pages, LinkPrefix + the page of bar i + "#" + Keys[i], where
	// LinkPages bars share a page (p0001.html, p0002.html, …).
	Links      []string `json:"links,omitempty"`
	LinkPrefix string   `json:"linkPrefix,omitempty"`
	LinkSuffix string   `json:"linkSuffix,omitempty"`
	LinkPages  int      `json:"linkPages,omitempty"`
	Keys       []string `json:"keys,omitempty"`
}

// chartID is what a chart may use as an element id: letters, digits and
// "_", so it is safe in any attribute and selector.
var chartID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// ChartText makes text from the data safe to place in chart options.
// "<", ">" and "&" become look-alike full-width signs, so that no label
// can be read as markup wherever the chart library shows it; go-echarts'
// "__f__" function marker is removed until none is left, so that no
// string ever looks like code to a tool that would unwrap it.
func ChartText(s string) string {
	s = markupLookalikes.Replace(s)
	for strings.Contains(s, "__f__") {
		s = strings.ReplaceAll(s, "__f__", "")
	}
	return s
}

// markupLookalikes replaces the characters HTML reads as markup with
// full-width signs. A Replacer is safe for concurrent use.
var markupLookalikes = strings.NewReplacer("<", "＜", ">", "＞", "&", "＆")

// RefLine is a horizontal reference line across a bar chart, such as a
// threshold.
type RefLine struct {
	Label string
	Value float64
	Color string
}

// BarSpec describes a bar chart: one bar per category.
type BarSpec struct {
	ID         string
	Root       string // the page's way back to the site root
	Categories []string
	Values     []float64
	Over       []bool   // bars drawn in the warning colour
	Links      []string // the page each bar opens, relative to the page; optional
	// LinkKeys, when set, are what tells one bar's link from another's
	// (a case's page name); Categories otherwise.
	LinkKeys []string
	// LinkPages, when above 0, says that Links lead to grouped result
	// pages of that many bars each, so the chart may carry them compactly.
	LinkPages int
	AxisName  string
	Lines     []RefLine
	Height    int // CSS pixels; 0 means defaultChartHeight
}

// DefaultChartHeight is the height of a chart box in CSS pixels.
const DefaultChartHeight = 320

// The chart palette has enough contrast on the light and the dark page.
const (
	barColour       = "#3c6fd1"
	barOverColour   = "#c2410c"
	LimitColour     = "#b91c1c"
	referenceColour = "#6b7280"
)

// RenderBar builds the chart's options with go-echarts and renders the box
// and the data block. How the chart fits its box (label rotation and
// truncation, zoom for many bars, resizing) is decided by site.js, which
// knows the box's size.
func RenderBar(spec BarSpec) (Chart, error) { return renderBar(spec, true) }

// renderBar is RenderBar; spliced says whether the arrays with a value
// per bar are written by hand into the encoding of the rest (see
// barDataBlock) or the whole is left to encoding/json.
func renderBar(spec BarSpec, spliced bool) (Chart, error) {
	if !chartID.MatchString(spec.ID) {
		return Chart{}, fmt.Errorf("site: chart id %q must be letters, digits and _ only", spec.ID)
	}
	if len(spec.Values) != len(spec.Categories) {
		return Chart{}, fmt.Errorf("site: chart %s has %d values for %d categories", spec.ID, len(spec.Values), len(spec.Categories))
	}
	if spec.Links != nil && len(spec.Links) != len(spec.Categories) {
		return Chart{}, fmt.Errorf("site: chart %s has %d links for %d categories", spec.ID, len(spec.Links), len(spec.Categories))
	}
	if spec.LinkKeys != nil && len(spec.LinkKeys) != len(spec.Categories) {
		return Chart{}, fmt.Errorf("site: chart %s has %d link keys for %d categories", spec.ID, len(spec.LinkKeys), len(spec.Categories))
	}
	height := spec.Height
	if height <= 0 {
		height = DefaultChartHeight
	}
	categories := make([]string, len(spec.Categories))
	for i := range spec.Categories {
		categories[i] = ChartText(spec.Categories[i])
	}
	cd := ChartData{Height: height}
	if floor := spec.floor(); floor > 0 {
		// The axis must reach every reference line, or echarts leaves
		// the line out: a tenth above the highest, rounded.
		cd.Floor = niceCeil(floor * 1.1)
	}
	keys := spec.LinkKeys
	if keys == nil {
		keys = spec.Categories
	}
	cd.Links, cd.LinkPrefix, cd.LinkSuffix, cd.Keys = compactLinks(spec.Links, keys)
	if cd.Links != nil && spec.LinkPages > 0 {
		if prefix, ok := groupedLinks(spec.Links, keys, spec.LinkPages); ok {
			cd.Links, cd.LinkPrefix, cd.LinkPages, cd.Keys = nil, prefix, spec.LinkPages, keys
		}
	}
	var block template.HTML
	var assets []string
	var err error
	if spliced {
		block, assets, err = barDataBlock(spec, cd, categories)
	} else {
		var bar *charts.Bar
		bar, cd.Options = spec.options(categories, barItems(spec.Values, spec.Over))
		assets = bar.JSAssets.Values
		block, err = dataBlock(spec.ID+"-data", cd)
	}
	if err != nil {
		return Chart{}, fmt.Errorf("site: chart %s: %w", spec.ID, err)
	}
	box := fmt.Sprintf(`<div class="chart-box" id="%s" data-chart="%s-data"></div>`, spec.ID, spec.ID)
	return Chart{
		ID:      spec.ID,
		Element: template.HTML(box),
		Script:  block,
		Assets:  append([]string(nil), assets...),
	}, nil
}

// barItems is a bar per value. The axis names the bars, and the series
// colours them: only bars over the limit carry a style of their own,
// which keeps the options of a 10,000-case chart small.
func barItems(values []float64, over []bool) []opts.BarData {
	data := make([]opts.BarData, len(values))
	for i, v := range values {
		data[i] = opts.BarData{Value: v}
		if i < len(over) && over[i] {
			data[i].ItemStyle = overStyle()
		}
	}
	return data
}

// overStyle is how a bar over the limit is drawn.
func overStyle() *opts.ItemStyle { return &opts.ItemStyle{Color: barOverColour} }

// floor is the highest reference line's value, 0 without one.
func (spec BarSpec) floor() float64 {
	floor := 0.0
	for _, l := range spec.Lines {
		floor = math.Max(floor, l.Value)
	}
	return floor
}

// options builds the chart with go-echarts and returns it and its options.
func (spec BarSpec) options(categories []string, data []opts.BarData) (*charts.Bar, map[string]any) {
	bar := charts.NewBar()
	bar.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: spec.ID, AssetsHost: spec.Root + EchartsDir}),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		// A bar's height is in proportion to its value: the axis starts at 0.
		charts.WithYAxisOpts(opts.YAxis{Name: ChartText(spec.AxisName), Min: 0}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category"}),
	)
	var lines []opts.MarkLineNameYAxisItem
	for _, l := range spec.Lines {
		// As a string the value escapes echarts' rounding of markLine
		// positions to two decimals, which would move a cost limit of
		// 0.025 to 0.03; echarts accepts strings there.
		lines = append(lines, opts.MarkLineNameYAxisItem{Name: ChartText(l.Label), YAxis: strconv.FormatFloat(l.Value, 'g', -1, 64)})
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
	bar.SetXAxis(categories).AddSeries(ChartText(spec.AxisName), data, series...)
	bar.Validate()
	return bar, bar.JSON()
}

// compactLinks writes the links of the bars as a prefix and a suffix
// around each bar's key when they all follow that pattern, as a case's
// drilldown links do; a 10,000-case chart then carries its ids once.
func compactLinks(links, keys []string) (full []string, prefix, suffix string, k []string) {
	if len(links) == 0 {
		return nil, "", "", nil
	}
	if i := strings.Index(links[0], keys[0]); i >= 0 && keys[0] != "" {
		prefix, suffix = links[0][:i], links[0][i+len(keys[0]):]
		same := true
		for j := range links {
			if links[j] != prefix+keys[j]+suffix {
				same = false
				break
			}
		}
		if same {
			return nil, prefix, suffix, keys
		}
	}
	return links, "", "", nil
}

// groupedLinks finds the folder that every link leads into when link i
// is that folder's grouped page of bar i, anchored at key i.
func groupedLinks(links, keys []string, per int) (prefix string, ok bool) {
	if len(links) == 0 {
		return "", false
	}
	prefix = links[0][:strings.LastIndex(links[0], "/")+1]
	var file string
	for i := range links {
		if i%per == 0 {
			file = GroupFile(i/per) + "#"
		}
		// links[i] == prefix+file+keys[i], without making that string.
		l := links[i]
		if len(l) != len(prefix)+len(file)+len(keys[i]) || !strings.HasPrefix(l, prefix) ||
			l[len(prefix):len(prefix)+len(file)] != file || l[len(prefix)+len(file):] != keys[i] {
			return "", false
		}
	}
	return prefix, true
}

// dataBlock encodes v as a JSON data block. encoding/json writes "<",
// ">" and "&" as \u escapes, so nothing in the data can end the block or
// open a comment in it.
func dataBlock(id string, v any) (template.HTML, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if breaksOut(body) {
		// Unreachable with encoding/json; kept as a guard for the page.
		return "", fmt.Errorf("options would break out of their data block")
	}
	return template.HTML(`<script type="application/json" id="` + id + `">` + string(body) + `</script>`), nil
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
		for _, a := range c.Assets {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}
