package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

// The payloads a hostile suite author would try: markup that ends a
// script, markup that starts one, and go-echarts' function marker.
var payloads = []string{
	`</script><script>alert(1)</script>`,
	`__f__alert(1)__f__`,
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
}

func TestChartText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ER-001", "ER-001"},
		{`</script><script>alert(1)</script>`, `＜/script＞＜script＞alert(1)＜/script＞`},
		{`__f__alert(1)__f__`, `alert(1)`},
		{`____f__f__x`, `x`}, // removing one marker must not leave another
		{`a & b`, `a ＆ b`},
		{`a__f_b`, `a__f_b`},
	}
	for _, tt := range tests {
		if got := pages.ChartText(tt.in); got != tt.want {
			t.Errorf("chartText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzChartText(f *testing.F) {
	for _, p := range payloads {
		f.Add(p)
	}
	f.Add("____f__f____")
	f.Fuzz(func(t *testing.T, s string) {
		got := pages.ChartText(s)
		if strings.ContainsAny(got, "<>&") || strings.Contains(got, "__f__") {
			t.Errorf("chartText(%q) = %q still holds markup or a function marker", s, got)
		}
	})
}

func TestChartsCarryPayloadsAsText(t *testing.T) {
	c, err := pages.RenderBar(pages.BarSpec{
		ID:         "hostile",
		Categories: payloads,
		Values:     []float64{1, 2, 3, 4},
		AxisName:   payloads[0],
		Lines:      []pages.RefLine{{Label: payloads[1], Value: 2, Color: pages.LimitColour}},
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader("<!DOCTYPE html><html><body>" + string(c.Element) + string(c.Script) + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	scripts := findAll(doc, sel("script"))
	if len(scripts) != 1 {
		t.Fatalf("the chart makes %d script elements, want 1", len(scripts))
	}
	if typ := attr(scripts[0], "type"); typ != "application/json" {
		t.Fatalf("the chart's script has type %q, want a JSON data block", typ)
	}
	body := ""
	if scripts[0].FirstChild != nil {
		body = scripts[0].FirstChild.Data
	}
	// Valid JSON that decodes back to the payloads means every payload
	// stayed inside a string, and the parser ended the block where the
	// renderer did.
	var data struct {
		Options struct {
			XAxis []struct {
				Data []string `json:"data"`
			} `json:"xAxis"`
		} `json:"options"`
	}
	if err := json.Unmarshal([]byte(body), &data); err != nil {
		t.Fatalf("chart data is not plain JSON: %v\n%s", err, body)
	}
	if len(data.Options.XAxis) != 1 || !slices.Contains(data.Options.XAxis[0].Data, "＜/script＞＜script＞alert(1)＜/script＞") ||
		!slices.Contains(data.Options.XAxis[0].Data, "alert(1)") {
		t.Errorf("payloads not kept as harmless strings: %s", body)
	}
	if strings.Contains(body, "<") {
		t.Errorf("the data block holds a raw <: %s", body)
	}
	if len(findAll(doc, sel("img"))) != 0 {
		t.Error("a payload became an element")
	}
}

func TestChartIDs(t *testing.T) {
	for _, bad := range []string{"", "p95-chart", "1chart", "a b", "x;alert(1)"} {
		if _, err := pages.RenderBar(pages.BarSpec{ID: bad}); err == nil {
			t.Errorf("chart id %q accepted", bad)
		}
	}
	if _, err := pages.RenderBar(pages.BarSpec{ID: "case_latency_2"}); err != nil {
		t.Errorf("chart id case_latency_2 refused: %v", err)
	}
}

// TestHostileSuite builds a site whose free text carries payloads in
// titles, inputs, arguments, tool names, citations and the Markdown
// documents, then checks that no page runs or plants anything: every
// script is a vendored file or a chart of the expected shape, no element
// has an event handler, and no link is live JavaScript.
func TestHostileSuite(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	copyDir(t, sampleData, data)
	poison(t, data)
	out := filepath.Join(tmp, "public")
	if _, err := Build(data, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	titleSeen := map[string]bool{}
	for path := range files {
		if !strings.HasSuffix(path, ".html") {
			continue
		}
		doc := parsePage(t, out, path)
		for _, n := range findAll(doc, sel("")) {
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("%s: <%s %s=%q>", path, n.Data, a.Key, a.Val)
				}
				if (a.Key == "href" || a.Key == "src") && strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					t.Errorf("%s: live javascript: link %q", path, a.Val)
				}
			}
			switch n.Data {
			case "img", "iframe", "object", "embed":
				t.Errorf("%s: a payload planted <%s>", path, n.Data)
			case "script":
				checkPageScript(t, path, n)
			}
		}
		text := textOf(doc)
		for _, p := range payloads[:2] {
			if strings.Contains(text, p) {
				titleSeen[p] = true
			}
		}
	}
	for _, p := range payloads[:2] {
		if !titleSeen[p] {
			t.Errorf("the title %q is shown nowhere as text", p)
		}
	}
}

// checkPageScript allows the site's own script files and JSON data
// blocks: the pages' Content-Security-Policy runs nothing else.
func checkPageScript(t *testing.T, path string, n *html.Node) {
	t.Helper()
	if src := attr(n, "src"); src != "" {
		if !strings.HasSuffix(src, "assets/site.js") && !strings.HasSuffix(src, "assets/tables.js") &&
			!strings.HasSuffix(src, "assets/vendor/echarts/echarts.min.js") && !dataScriptSrc.MatchString(src) {
			t.Errorf("%s: script %q", path, src)
		}
		return
	}
	body := ""
	if n.FirstChild != nil {
		body = n.FirstChild.Data
	}
	if path == pages.NotFoundPath {
		// 404.html's one script is fixed text: the data cannot reach it.
		if body != pages.FindHome {
			t.Errorf("%s: the script is not the one that finds the top folder: %q", path, body)
		}
		return
	}
	if attr(n, "type") != "application/json" {
		t.Errorf("%s: an inline script that is not a JSON data block: %q", path, body)
		return
	}
	if !json.Valid([]byte(body)) {
		t.Errorf("%s: chart data is not plain JSON: %s", path, body)
	}
}

// poison plants payloads in the free text of a copied data folder.
func poison(t *testing.T, data string) {
	t.Helper()
	edit := func(file string, change func(i int, v map[string]any)) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			dec := json.NewDecoder(strings.NewReader(line))
			dec.UseNumber()
			var v map[string]any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			change(i, v)
			enc, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(enc))
		}
		if err := os.WriteFile(file, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(filepath.Join(data, "cases.jsonl"), func(i int, c map[string]any) {
		c["title"] = payloads[i%len(payloads)]
		c["input"].(map[string]any)[payloads[3]] = payloads[0]
		exp := c["expected"].(map[string]any)
		if calls, _ := exp["tool_calls"].([]any); len(calls) == 1 {
			calls[0].(map[string]any)["arguments"].(map[string]any)["memo"] = payloads[(i+1)%len(payloads)]
		}
		exp["forbidden_tools"] = append(exp["forbidden_tools"].([]any), payloads[2])
	})
	entries, err := filepath.Glob(filepath.Join(data, "outputs", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range entries {
		edit(f, func(i int, o map[string]any) {
			o["citations"] = append(o["citations"].([]any), payloads[i%len(payloads)])
			if calls, _ := o["tool_calls"].([]any); len(calls) == 1 {
				call := calls[0].(map[string]any)
				call["arguments"].(map[string]any)["memo"] = payloads[(i+2)%len(payloads)]
				if i%3 == 0 {
					call["name"] = payloads[i%len(payloads)]
				}
			}
		})
	}
	for _, name := range []string{"POLICY.md", "HANDOFF.md"} {
		p := filepath.Join(data, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, "\n\n## Notes "+payloads[2]+"\n\n"+strings.Join(payloads, " ")+
			"\n\n<script>alert(1)</script>\n\n[click](javascript:alert(1)) ![x](https://example.invalid/x.png)\n"...)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
