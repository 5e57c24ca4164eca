package pages

import (
	"bytes"
	"encoding/json"
	"errors"
	"html/template"
	"math"
	"slices"

	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/releasegate/releasegate/internal/jsonappend"
)

// A bar chart's options carry four arrays with an entry per bar: the
// categories, the bars, the keys of their links and, where the links
// follow no pattern, the links. At 100,000 cases encoding/json spent most
// of a snapshot page's chart time walking them by reflection, and every
// edit of a gate or of outputs makes the charts again. barDataBlock
// encodes the chart with a marker in place of each array and writes the
// arrays by hand where the markers stand (docs/design.md, Fast paths):
// BenchmarkFastPathBarChart measures it, and FuzzBarDataBlock holds it
// to encoding/json's bytes.

// The markers begin with a NUL, which encoding/json writes as \u0000:
// no text a chart shows is written so and makes an array of one string.
const (
	categoriesMarker = "\x00bar-categories"
	barsMarker       = "\x00bar-values"
	keysMarker       = "\x00bar-keys"
	linksMarker      = "\x00bar-links"
)

// errNoSplice sends a chart whose markers cannot be found once each to
// encoding/json whole.
var errNoSplice = errors.New("the chart's markers are not each found once")

// barDataBlock is the data block of the bar chart spec draws, cd carrying
// everything but the options.
func barDataBlock(spec BarSpec, cd ChartData, categories []string) (template.HTML, []string, error) {
	bar, options := spec.options([]string{categoriesMarker}, []opts.BarData{{Value: barsMarker}})
	marked := cd
	marked.Options = options
	if cd.Keys != nil {
		marked.Keys = []string{keysMarker}
	}
	if cd.Links != nil {
		marked.Links = []string{linksMarker}
	}
	body, err := splicedChartJSON(marked, categories, spec.Values, spec.Over, cd.Keys, cd.Links)
	if errors.Is(err, errNoSplice) {
		bar, cd.Options = spec.options(categories, barItems(spec.Values, spec.Over))
		return blockOf(spec.ID+"-data", cd, bar.JSAssets.Values)
	}
	if err != nil {
		return "", nil, err
	}
	if breaksOut(body) {
		return "", nil, errors.New("options would break out of their data block")
	}
	return template.HTML(`<script type="application/json" id="` + spec.ID + `-data">` + string(body) + `</script>`), bar.JSAssets.Values, nil
}

// blockOf is dataBlock with the assets passed through.
func blockOf(id string, v any, assets []string) (template.HTML, []string, error) {
	block, err := dataBlock(id, v)
	return block, assets, err
}

// splicedChartJSON encodes marked and writes the arrays where its markers
// stand.
func splicedChartJSON(marked ChartData, categories []string, values []float64, over []bool, keys, links []string) ([]byte, error) {
	head, err := json.Marshal(marked)
	if err != nil {
		return nil, err
	}
	overStyle, err := json.Marshal(overStyle())
	if err != nil {
		return nil, err
	}
	type splice struct {
		at     int
		marker []byte
		write  func([]byte) ([]byte, error)
	}
	strs := func(s []string) func([]byte) ([]byte, error) {
		return func(b []byte) ([]byte, error) { return jsonappend.Strings(b, s, true), nil }
	}
	splices := []splice{
		{marker: markerArray(categoriesMarker), write: strs(categories)},
		{marker: []byte(`[{"value":` + string(jsonString(barsMarker)) + `}]`), write: func(b []byte) ([]byte, error) {
			return appendBars(b, values, over, overStyle)
		}},
	}
	if keys != nil {
		splices = append(splices, splice{marker: markerArray(keysMarker), write: strs(keys)})
	}
	if links != nil {
		splices = append(splices, splice{marker: markerArray(linksMarker), write: strs(links)})
	}
	size := len(head)
	for i := range splices {
		if bytes.Count(head, splices[i].marker) != 1 {
			return nil, errNoSplice
		}
		splices[i].at = bytes.Index(head, splices[i].marker)
		size += 16 * len(values)
	}
	slices.SortFunc(splices, func(a, b splice) int { return a.at - b.at })
	out := make([]byte, 0, size)
	from := 0
	for _, s := range splices {
		if s.at < from {
			return nil, errNoSplice // overlapping markers
		}
		out = append(out, head[from:s.at]...)
		if out, err = s.write(out); err != nil {
			return nil, err
		}
		from = s.at + len(s.marker)
	}
	return append(out, head[from:]...), nil
}

func markerArray(marker string) []byte {
	return []byte("[" + string(jsonString(marker)) + "]")
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// appendBars appends the bars as encoding/json writes a []opts.BarData
// holding only values and, for bars over the limit, overStyle.
func appendBars(b []byte, values []float64, over []bool, overStyle []byte) ([]byte, error) {
	b = append(b, '[')
	for i, v := range values {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, errNoSplice // encoding/json gives the error
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"value":`...)
		b = jsonappend.Float(b, v)
		if i < len(over) && over[i] {
			b = append(b, `,"itemStyle":`...)
			b = append(b, overStyle...)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// breaksOut reports whether body holds "<", ">" or "&", which could end
// a data block or open a comment in it. Three vectorised searches beat
// bytes.ContainsAny's byte loop on a chart's megabytes.
func breaksOut(body []byte) bool {
	return bytes.IndexByte(body, '<') >= 0 || bytes.IndexByte(body, '>') >= 0 || bytes.IndexByte(body, '&') >= 0
}
