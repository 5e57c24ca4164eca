package pages

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/releasegate/releasegate/evaluator/decide"
)

// trendSpec describes a line over every snapshot in order: one value per
// snapshot (nil when there is none to show), the limit as a dashed line,
// and each point shaped by the snapshot's decision.
type trendSpec struct {
	ID        string
	Labels    []string
	Values    []*float64
	Decisions []decide.Decision
	AxisName  string
	Limit     *RefLine // nil: the gate is off
	Height    string
	// Max is the top of the value axis; 0 lets the values and the limit
	// decide.
	Max float64
	// Intervals, when set, hold each value's interval in the values'
	// scale (nil for a snapshot without one), drawn as a whisker from the
	// lower bound to the upper one through the point; IntervalName names
	// them ("95% interval").
	Intervals    []*[2]float64
	IntervalName string
}

// decisionSymbol shapes a trend point by its snapshot's decision, so the
// mark does not rest on colour alone.
func decisionSymbol(d decide.Decision) (symbol string, size int) {
	switch d {
	case decide.Pass:
		return "circle", 6
	case decide.Review:
		return "triangle", 10
	}
	return "rect", 9
}

// intervalWhiskers draws each interval of spec as a whisker: a boxplot
// item whose box has shrunk to the point (lower quartile, median and
// upper quartile all the value), so only its two whiskers and their caps
// show, from the lower bound to the upper one. The tooltip leaves it
// out: the table of every snapshot words each interval.
func intervalWhiskers(spec trendSpec, labels []string) *charts.BoxPlot {
	data := make([]opts.BoxPlotData, len(spec.Intervals))
	for i, iv := range spec.Intervals {
		data[i] = opts.BoxPlotData{Name: labels[i], Value: "-"}
		if iv != nil && spec.Values[i] != nil {
			v := *spec.Values[i]
			data[i].Value = []float64{iv[0], v, v, v, iv[1]}
		}
	}
	box := charts.NewBoxPlot()
	box.SetXAxis(labels).AddSeries(ChartText(spec.IntervalName), data,
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "transparent", BorderColor: referenceColour, BorderWidth: 1.5}),
		charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarWidth = "24%"; s.BarMaxWidth = "18" }),
	)
	return box
}

// renderTrend builds a trend line and renders it as a snippet, the way
// renderBar renders a bar chart.
func renderTrend(spec trendSpec) (Chart, error) {
	if !chartID.MatchString(spec.ID) {
		return Chart{}, fmt.Errorf("site: chart id %q must be letters, digits and _ only", spec.ID)
	}
	if len(spec.Values) != len(spec.Labels) || len(spec.Decisions) != len(spec.Labels) {
		return Chart{}, fmt.Errorf("site: chart %s has %d values and %d decisions for %d snapshots", spec.ID, len(spec.Values), len(spec.Decisions), len(spec.Labels))
	}
	labels := make([]string, len(spec.Labels))
	data := make([]opts.LineData, len(spec.Values))
	top := 0.0
	if spec.Limit != nil {
		top = spec.Limit.Value
	}
	for i := range spec.Labels {
		labels[i] = ChartText(spec.Labels[i])
		symbol, size := decisionSymbol(spec.Decisions[i])
		data[i] = opts.LineData{Name: string(spec.Decisions[i]), Value: "-", Symbol: symbol, SymbolSize: size}
		if v := spec.Values[i]; v != nil {
			data[i].Value = *v
			top = max(top, *v)
		}
	}
	axisTop := spec.Max
	if axisTop == 0 {
		axisTop = niceCeil(top * 1.1)
	}
	var yMax any
	if axisTop > 0 {
		yMax = axisTop
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{ChartID: spec.ID, Width: "100%", Height: spec.Height, AssetsHost: EchartsDir}),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		// The axis reaches the limit line, or echarts leaves it out.
		// It starts at 0, so a point's height is in proportion to its value.
		charts.WithYAxisOpts(opts.YAxis{Name: ChartText(spec.AxisName), Min: 0, Max: yMax}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true)}}),
		charts.WithGridOpts(opts.Grid{Left: "8", Right: "16", Top: "32", Bottom: "8", ContainLabel: opts.Bool(true)}),
	)
	series := []charts.SeriesOpts{
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), ConnectNulls: opts.Bool(false)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: barColour}),
	}
	if l := spec.Limit; l != nil {
		series = append(series,
			charts.WithMarkLineNameYAxisItemOpts(opts.MarkLineNameYAxisItem{
				Name: ChartText(l.Label), YAxis: strconv.FormatFloat(l.Value, 'g', -1, 64)}),
			charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
				Symbol:    []string{"none", "none"},
				Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideEndTop"},
				LineStyle: &opts.LineStyle{Color: l.Color, Type: "dashed", Width: 2},
			}))
	}
	line.SetXAxis(labels).AddSeries(ChartText(spec.AxisName), data, series...)
	if spec.Intervals != nil {
		line.Overlap(intervalWhiskers(spec, labels))
	}

	line.Validate()
	height, err := strconv.Atoi(strings.TrimSuffix(spec.Height, "px"))
	if err != nil || height <= 0 {
		height = DefaultChartHeight
	}
	// A click on a snapshot's point opens its page (the trend is on the
	// overview, at the site's top).
	options := line.JSON()
	if spec.Intervals != nil {
		var err error
		if options, err = hideFromTooltip(options, 1); err != nil {
			return Chart{}, fmt.Errorf("site: chart %s: %w", spec.ID, err)
		}
	}
	cd := ChartData{Options: options, Height: height, Floor: axisTop}
	hrefs := make([]string, len(spec.Labels))
	for i, l := range spec.Labels {
		hrefs[i] = SnapshotPath(l)
	}
	cd.Links, cd.LinkPrefix, cd.LinkSuffix, cd.Keys = compactLinks(hrefs, spec.Labels)
	block, err := dataBlock(spec.ID+"-data", cd)
	if err != nil {
		return Chart{}, fmt.Errorf("site: chart %s: %w", spec.ID, err)
	}
	return Chart{
		ID:      spec.ID,
		Element: template.HTML(fmt.Sprintf(`<div class="chart-box" id="%s" data-chart="%s-data"></div>`, spec.ID, spec.ID)),
		Script:  block,
		Assets:  append([]string(nil), line.JSAssets.Values...),
	}, nil
}

// hideFromTooltip leaves series i out of the chart's tooltip, which
// go-echarts has no option for: the options are read back as plain JSON
// and the series given "tooltip": {"show": false}.
func hideFromTooltip(options map[string]any, i int) (map[string]any, error) {
	src, err := json.Marshal(options)
	if err != nil {
		return nil, err
	}
	var plain map[string]any
	if err := json.Unmarshal(src, &plain); err != nil {
		return nil, err
	}
	series, _ := plain["series"].([]any)
	if i >= len(series) {
		return nil, fmt.Errorf("no series %d", i)
	}
	if s, ok := series[i].(map[string]any); ok {
		s["tooltip"] = map[string]any{"show": false}
	}
	return plain, nil
}
