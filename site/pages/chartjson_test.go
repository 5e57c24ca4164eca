package pages

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// barSpecs are charts of every shape a page draws: compact, grouped and
// irregular links, bars over a limit, reference lines, values written in
// exponent form, and text that encoding/json escapes.
func barSpecs() map[string]BarSpec {
	ids := []string{"GEN-000001", "GEN-000002", "case <3> & \"q\"", "ünïcode", "bad\xffutf8", "line\u2028sep", "\x00bar-keys", "tab\tnew\nline"}
	values := []float64{620, 0, 1e-7, 2.5e21, 0.0125, math.Copysign(0, -1), 123456789.125, 1e20}
	over := []bool{false, true, false, true}
	own := make([]string, len(ids))
	grouped := make([]string, len(ids))
	irregular := make([]string, len(ids))
	for i, id := range ids {
		own[i] = "snapshots/v1/" + id + ".html"
		grouped[i] = "../snapshots/v1/" + GroupFile(i/3) + "#" + id
		irregular[i] = fmt.Sprintf("page-%d.html", i*i)
	}
	lines := []RefLine{{Label: "limit <2500 ms>", Value: 2500, Color: LimitColour}}
	return map[string]BarSpec{
		"plain":     {ID: "plain", Categories: ids[:2], Values: values[:2]},
		"own-pages": {ID: "own", Root: "../", Categories: ids, Values: values, Over: over, Links: own, AxisName: "ms", Lines: lines},
		"grouped":   {ID: "grouped", Categories: ids, Values: values, Links: grouped, LinkKeys: ids, LinkPages: 3, Lines: lines, Height: 400},
		"irregular": {ID: "irregular", Categories: ids, Values: values, Over: []bool{true}, Links: irregular},
		"markers":   {ID: "markers", Categories: []string{"\x00bar-categories", "\x00bar-links"}, Values: []float64{1, 2}, AxisName: "\x00bar-values"},
		"empty":     {ID: "empty"},
	}
}

// The hand-written arrays give encoding/json's bytes exactly.
func TestBarDataBlockAsEncodingJSON(t *testing.T) {
	for name, spec := range barSpecs() {
		t.Run(name, func(t *testing.T) {
			fast, err := renderBar(spec, true)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := renderBar(spec, false)
			if err != nil {
				t.Fatal(err)
			}
			if fast.Script != whole.Script {
				t.Errorf("data block\n%s\nencoding/json writes\n%s", fast.Script, whole.Script)
			}
			if fmt.Sprint(fast.Assets) != fmt.Sprint(whole.Assets) || fast.Element != whole.Element {
				t.Errorf("assets or box differ: %v %s, %v %s", fast.Assets, fast.Element, whole.Assets, whole.Element)
			}
		})
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		_, fastErr := renderBar(BarSpec{ID: "x", Categories: []string{"a"}, Values: []float64{bad}}, true)
		_, wholeErr := renderBar(BarSpec{ID: "x", Categories: []string{"a"}, Values: []float64{bad}}, false)
		if fastErr == nil || wholeErr == nil || fastErr.Error() != wholeErr.Error() {
			t.Errorf("%v: error %v, encoding/json's %v", bad, fastErr, wholeErr)
		}
	}
}

func FuzzBarDataBlock(f *testing.F) {
	f.Add("GEN-1", "x<y>&z", 620.5, 1e-9, true, "limit")
	f.Add("\x00bar-keys", "\xff", 1e21, math.Copysign(0, -1), false, "\x00bar-values")
	f.Fuzz(func(t *testing.T, a, b string, x, y float64, over bool, label string) {
		spec := BarSpec{
			ID: "f", Categories: []string{a, b, a}, Values: []float64{x, y, x}, Over: []bool{over, !over},
			Links: []string{"p/" + a, "p/" + b, "q"}, LinkKeys: []string{a, b, "q"},
			AxisName: label, Lines: []RefLine{{Label: label, Value: math.Abs(y)}},
		}
		fast, fastErr := renderBar(spec, true)
		whole, wholeErr := renderBar(spec, false)
		if (fastErr == nil) != (wholeErr == nil) {
			t.Fatalf("errors differ: %v, encoding/json's %v", fastErr, wholeErr)
		}
		if fast.Script != whole.Script {
			t.Fatalf("data block\n%s\nencoding/json writes\n%s", fast.Script, whole.Script)
		}
	})
}

// A marker found twice sends the chart to encoding/json whole.
func TestSplicedChartJSONNeedsEachMarkerOnce(t *testing.T) {
	marked := ChartData{Keys: []string{keysMarker}, Links: []string{keysMarker}}
	if _, err := splicedChartJSON(marked, nil, nil, nil, []string{"a"}, nil); !errors.Is(err, errNoSplice) {
		t.Fatalf("error %v, want errNoSplice", err)
	}
}

// BenchmarkFastPathBarChart draws a snapshot's latency chart of 100,000
// cases on grouped pages, its arrays written by hand ("fast") and by
// encoding/json ("plain"), in turn.
//
//	go test ./site/pages -run '^$' -bench FastPathBarChart -benchmem -count 5
func BenchmarkFastPathBarChart(b *testing.B) {
	const n = 100_000
	spec := BarSpec{ID: "latency", Root: "../", AxisName: "ms", LinkPages: 500,
		Lines: []RefLine{{Label: "limit 2500 ms", Value: 2500, Color: LimitColour}}}
	for i := range n {
		id := fmt.Sprintf("GEN-%06d", i+1)
		spec.Categories = append(spec.Categories, id)
		spec.LinkKeys = append(spec.LinkKeys, id)
		spec.Values = append(spec.Values, float64(300+i%2900))
		spec.Over = append(spec.Over, i%2900 > 2200)
		spec.Links = append(spec.Links, "../snapshots/v1/"+GroupFile(i/500)+"#"+id)
	}
	for _, way := range []struct {
		name    string
		spliced bool
	}{{"plain", false}, {"fast", true}} {
		b.Run(way.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := renderBar(spec, way.spliced); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
