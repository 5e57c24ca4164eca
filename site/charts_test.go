package site

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

// chartBlock parses a rendered chart and decodes its data block.
func chartBlock(t *testing.T, c pages.Chart) (box *html.Node, data pages.ChartData) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader("<!DOCTYPE html><html><body>" + string(c.Element) + string(c.Script) + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	boxes := findAll(doc, sel("div", class("chart-box")))
	blocks := findAll(doc, sel("script"))
	if len(boxes) != 1 || len(blocks) != 1 {
		t.Fatalf("chart renders %d boxes and %d scripts, want one of each", len(boxes), len(blocks))
	}
	if got, want := attr(boxes[0], "data-chart"), attr(blocks[0], "id"); got != want || got == "" {
		t.Fatalf("box names data block %q, the block is %q", got, want)
	}
	if attr(blocks[0], "type") != "application/json" {
		t.Fatalf("the data block has type %q: a browser would run it", attr(blocks[0], "type"))
	}
	if err := json.Unmarshal([]byte(textOf(blocks[0])), &data); err != nil {
		t.Fatalf("data block: %v", err)
	}
	return boxes[0], data
}

func TestRenderBarWritesDataNotCode(t *testing.T) {
	c, err := pages.RenderBar(pages.BarSpec{
		ID: "case_latency", Root: "../",
		Categories: []string{"ER-001", "ER-002", "ER-003"},
		Values:     []float64{800, 5200, 1200},
		Over:       []bool{false, true, false},
		Links:      []string{"../snapshots/v1/ER-001.html", "../snapshots/v1/ER-002.html", "../snapshots/v1/ER-003.html"},
		AxisName:   "latency (ms)",
		Lines:      []pages.RefLine{{Label: "limit", Value: 2500, Color: pages.LimitColour}},
	})
	if err != nil {
		t.Fatal(err)
	}
	box, data := chartBlock(t, c)
	if attr(box, "id") != "case_latency" {
		t.Errorf("box id %q", attr(box, "id"))
	}
	if data.Height != pages.DefaultChartHeight {
		t.Errorf("height %d, want %d", data.Height, pages.DefaultChartHeight)
	}
	// The axis reaches a tenth above the limit, rounded, even when the
	// tallest bar is above it: zoomed in on short bars the line stays.
	if data.Floor != 3000 {
		t.Errorf("floor %v, want 3000", data.Floor)
	}
	if data.LinkPrefix != "../snapshots/v1/" || data.LinkSuffix != ".html" || strings.Join(data.Keys, ",") != "ER-001,ER-002,ER-003" || data.Links != nil {
		t.Errorf("links not compacted: prefix %q suffix %q keys %q links %q", data.LinkPrefix, data.LinkSuffix, data.Keys, data.Links)
	}
	series := data.Options["series"].([]any)[0].(map[string]any)
	bars := series["data"].([]any)
	if len(bars) != 3 || bars[1].(map[string]any)["itemStyle"] == nil || bars[0].(map[string]any)["itemStyle"] != nil {
		t.Errorf("only the bar over the limit should carry its own colour: %v", bars)
	}
	if got := c.Assets; len(got) != 1 || got[0] != "../assets/vendor/echarts/echarts.min.js" {
		t.Errorf("assets %q", got)
	}
}

func TestRenderBarKeepsIrregularLinks(t *testing.T) {
	links := []string{"snapshots/a.html", "elsewhere/b.html"}
	c, err := pages.RenderBar(pages.BarSpec{ID: "x", Categories: []string{"a", "b"}, Values: []float64{1, 2}, Links: links})
	if err != nil {
		t.Fatal(err)
	}
	_, data := chartBlock(t, c)
	if strings.Join(data.Links, " ") != strings.Join(links, " ") || data.Keys != nil {
		t.Errorf("links %q keys %q, want the links as given", data.Links, data.Keys)
	}
	if _, err := pages.RenderBar(pages.BarSpec{ID: "x", Categories: []string{"a", "b"}, Values: []float64{1, 2}, Links: links[:1]}); err == nil {
		t.Error("a chart with fewer links than bars was accepted")
	}
}

func TestRenderBarWithoutLines(t *testing.T) {
	c, err := pages.RenderBar(pages.BarSpec{ID: "x", Categories: []string{"a"}, Values: []float64{math.Pi}, Height: 300})
	if err != nil {
		t.Fatal(err)
	}
	_, data := chartBlock(t, c)
	if data.Floor != 0 || data.Height != 300 || data.Links != nil || data.Keys != nil {
		t.Errorf("floor %v height %d links %q keys %q", data.Floor, data.Height, data.Links, data.Keys)
	}
}

// TestPagesCarryTheirPolicy checks every built page: the policy is the
// first thing after the charset, so it covers everything the page loads,
// and the page holds no script the policy would refuse.
func TestPagesCarryTheirPolicy(t *testing.T) {
	if strings.ContainsAny(render.ContentSecurityPolicy, "\"<>&") || strings.Contains(render.ContentSecurityPolicy, "unsafe-eval") ||
		strings.Contains(render.ContentSecurityPolicy, "frame-ancestors") {
		t.Fatalf("policy %q cannot go into a meta element as it is", render.ContentSecurityPolicy)
	}
	script, _, _ := strings.Cut(strings.SplitAfter(render.ContentSecurityPolicy, "script-src")[1], ";")
	if strings.Contains(script, "unsafe-inline") {
		t.Fatalf("scripts allowed inline: %q", script)
	}
	dir := builtSample(t)
	files := readTree(t, dir)
	pageList := 0
	for rel := range files {
		if !strings.HasSuffix(rel, ".html") {
			continue
		}
		pageList++
		doc := parsePage(t, dir, rel)
		head := findAll(doc, sel("head"))
		if len(head) != 1 {
			t.Fatalf("%s: %d heads", rel, len(head))
		}
		var first []*html.Node
		for n := head[0].FirstChild; n != nil && len(first) < 2; n = n.NextSibling {
			if n.Type == html.ElementNode {
				first = append(first, n)
			}
		}
		if len(first) < 2 || attr(first[1], "http-equiv") != "Content-Security-Policy" || attr(first[1], "content") != render.ContentSecurityPolicy {
			t.Errorf("%s: the policy is not the element after the charset", rel)
		}
		for _, s := range findAll(doc, sel("script")) {
			if attr(s, "src") == "" && attr(s, "type") != "application/json" && !strings.Contains(render.ContentSecurityPolicy, render.ScriptHash(rawText(s))) {
				t.Errorf("%s: inline script %q", rel, textOf(s))
			}
		}
		for _, n := range findAll(doc, sel("")) {
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("%s: <%s %s>: inline handlers do not run under the policy", rel, n.Data, a.Key)
				}
			}
		}
	}
	if pageList < 10 {
		t.Errorf("only %d pages checked", pageList)
	}
}

// rawText is the text of an element as written, for hashing.
func rawText(n *html.Node) string {
	if n.FirstChild == nil {
		return ""
	}
	return n.FirstChild.Data
}
