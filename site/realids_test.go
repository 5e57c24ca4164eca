package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/internal/pagename"
	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

// Sites of real suites: case ids of any text (docs/real-data.md, "Case
// ids" and "Page names"), suites without decisions, contains.

// realIDs are ids a real suite may have: τ²-bench's bracketed ones (the
// longest of its telecom tasks, 214 characters), ids equal ignoring case,
// NFC and NFD forms of one letter, markup, URL syntax, path syntax,
// ids that keep nothing for a slug, and a safe id for comparison.
var realIDs = []string{
	"[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_storage_permission|data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Easy]",
	"[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]",
	"ER-1", "er-1",
	"\u00e9", "e\u0301",
	"<script>alert(1)</script>",
	"x~y#z?q=1&r=%2e",
	"../../etc/passwd",
	"漢字",
	"...",
	"two  spaces",
	"safe-id",
}

// writeRealSuite writes a data folder of realIDs: no decisions, no
// citations, contains, and two snapshots with two trials each, in which
// every other case fails a trial.
func writeRealSuite(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	write("case.schema.json", `{"type": "object"}`)
	write("gate.json", `{"min_pass_rate": 0.5, "max_critical_failures": 0, "max_p95_latency_ms": null, "max_avg_cost_usd": null}`)
	var cases strings.Builder
	for i, id := range realIDs {
		fmt.Fprintf(&cases, `{"case_id": %s, "title": "case %d", "severity": "major", "input": {"n": %d}, "expected": {"tool_match": "contains", "tool_calls": [{"name": "toggle", "arguments": {"on": true}}, {"name": "pick", "arguments": {"ids": {"$unordered": [1, 2]}}}], "forbidden_tools": []}}`+"\n", q(id), i, i)
	}
	write("cases.jsonl", cases.String())
	for _, label := range []string{"run-1", "run-2"} {
		var out strings.Builder
		for trial := 1; trial <= 2; trial++ {
			for i, id := range realIDs {
				on := "true"
				if (i+trial)%2 == 0 && label == "run-2" {
					on = "false"
				}
				fmt.Fprintf(&out, `{"case_id": %s, "trial": %d, "tool_calls": [{"function": "look", "arguments": {}}, {"function": "pick", "arguments": {"ids": [2, 1]}}, {"function": "toggle", "arguments": {"on": %s}}], "latency_ms": %d, "cost_usd": null}`+"\n", q(id), trial, on, 100+i)
			}
		}
		write("outputs/"+label+".jsonl", out.String())
	}
	return dir
}

func buildReal(t *testing.T, groupAbove int) (string, *pages.Input) {
	t.Helper()
	data := writeRealSuite(t)
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(data, out, BuildOptions{GroupAbove: groupAbove}); err != nil {
		t.Fatal(err)
	}
	in, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return out, in
}

func TestRealIDsSite(t *testing.T) {
	for _, tt := range []struct {
		name       string
		groupAbove int
	}{{"a page per result", 0}, {"grouped results", 1}} {
		t.Run(tt.name, func(t *testing.T) {
			dir, in := buildReal(t, tt.groupAbove)
			pageIDs := checkLinks(t, dir)
			stems := pagename.Stems(pages.CaseIDs(in.Release.Suite.Cases))
			files := readTree(t, dir)
			if tt.groupAbove == 0 {
				for i, id := range realIDs {
					for _, page := range []string{"snapshots/run-1/" + stems[i] + ".html", "snapshots/run-2/" + stems[i] + ".html", "cases/" + stems[i] + ".html"} {
						if _, ok := files[page]; !ok {
							t.Errorf("%q has no page %s", id, page)
							continue
						}
						if h1 := textAsWritten(findAll(parsePage(t, dir, page), sel("h1"))[0]); !strings.Contains(h1, id) {
							t.Errorf("%s: heading %q does not show the id %q verbatim", page, h1, id)
						}
					}
				}
			} else {
				for i, id := range realIDs {
					if !pageIDs("cases/p0001.html")[stems[i]] {
						t.Errorf("cases/p0001.html has no anchor %q for %q", stems[i], id)
					}
				}
			}
			// No two files differ only in case: the site unpacks on macOS
			// and Windows.
			folded := map[string]string{}
			for f := range files {
				if prev, ok := folded[strings.ToLower(f)]; ok {
					t.Errorf("%s and %s are one file on a disk that ignores case", prev, f)
				}
				folded[strings.ToLower(f)] = f
			}
			checkScriptLinks(t, dir, files, pageIDs)
			// The decision is not judged: a dash, never an empty code.
			for f, b := range files {
				if strings.HasSuffix(f, ".html") && bytes.Contains(b, []byte("<code></code>")) {
					t.Errorf("%s shows an empty decision", f)
				}
			}
		})
	}
}

// checkScriptLinks follows the links that scripts make: data/cases.js,
// which the case tables and the compare page build links from, and the
// charts' data blocks. It computes them as assets/tables.js and
// assets/site.js do, from the page names the data gives.
func checkScriptLinks(t *testing.T, dir string, files map[string][]byte, pageIDs func(string) map[string]bool) {
	t.Helper()
	exists := func(from, ref string) {
		t.Helper()
		target, frag, err := resolve(from, ref)
		if err != nil {
			t.Errorf("%s: %q: %v", from, ref, err)
			return
		}
		if _, ok := files[target]; !ok {
			t.Errorf("%s: %q leads to %s, which the site does not hold", from, ref, target)
			return
		}
		if frag != "" && !pageIDs(target)[frag] {
			t.Errorf("%s: %q: %s has no element with id %q", from, ref, target, frag)
		}
	}
	var cases struct {
		IDs              []string `json:"ids"`
		Pages            []string `json:"pages"`
		ResultsPerPage   int      `json:"resultsPerPage"`
		HistoriesPerPage int      `json:"historiesPerPage"`
	}
	script := string(files[pages.CasesDataPath])
	body := script[strings.Index(script, "] = ")+4 : strings.LastIndex(script, ";")]
	if err := json.Unmarshal([]byte(body), &cases); err != nil {
		t.Fatalf("%s: %v", pages.CasesDataPath, err)
	}
	if len(cases.Pages) != len(cases.IDs) {
		t.Fatalf("%s gives %d page names for %d ids", pages.CasesDataPath, len(cases.Pages), len(cases.IDs))
	}
	for i := range cases.IDs {
		name := cases.Pages[i]
		result, history := "snapshots/run-2/"+name+".html", "cases/"+name+".html"
		if cases.ResultsPerPage > 0 {
			result = "snapshots/run-2/" + pages.GroupFile(i/cases.ResultsPerPage) + "#" + name
		}
		if cases.HistoriesPerPage > 0 {
			history = "cases/" + pages.GroupFile(i/cases.HistoriesPerPage) + "#" + name
		}
		exists("compare.html", result)
		exists("compare.html", history)
	}
	doc := parsePage(t, dir, "snapshots/run-2.html")
	blocks := findAll(doc, sel("script", hasAttr("type", "application/json")))
	charts := 0
	for _, b := range blocks {
		var cd pages.ChartData
		if err := json.Unmarshal([]byte(textOf(b)), &cd); err != nil || cd.Links == nil && cd.Keys == nil {
			continue
		}
		charts++
		for i, key := range cd.Keys {
			ref := cd.LinkPrefix + key + cd.LinkSuffix
			if cd.LinkPages > 0 {
				ref = cd.LinkPrefix + pages.GroupFile(i/cd.LinkPages) + "#" + key
			}
			exists("snapshots/run-2.html", ref)
		}
		for _, ref := range cd.Links {
			exists("snapshots/run-2.html", ref)
		}
	}
	if charts == 0 {
		t.Error("snapshots/run-2.html has no chart with links to check")
	}
}

// TestRealIDsShownVerbatim: every place that shows a case shows its id
// as written, escaped, however long; markup in an id stays text.
func TestRealIDsShownVerbatim(t *testing.T) {
	dir, in := buildReal(t, 0)
	stems := pagename.Stems(pages.CaseIDs(in.Release.Suite.Cases))
	long := realIDs[0]
	for _, page := range []string{"snapshots/run-2.html", "cases/" + stems[0] + ".html", "snapshots/run-2/" + stems[0] + ".html", "index.html"} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		if page != "index.html" && !bytes.Contains(b, []byte(html.EscapeString(long))) {
			t.Errorf("%s does not show the 214-character id whole", page)
		}
		if bytes.Contains(b, []byte("<script>alert")) {
			t.Errorf("%s holds an id as markup", page)
		}
	}
	// The snapshot's case table lists every id verbatim, linked to its
	// own drilldown.
	doc := parsePage(t, dir, "snapshots/run-2.html")
	rows := findAll(doc, within(sel("table", id("case-table")), sel("th", hasAttr("scope", "row"))))
	if len(rows) != len(realIDs) {
		t.Fatalf("the case table has %d rows, want %d", len(rows), len(realIDs))
	}
	for i, r := range rows {
		a := findAll(r, sel("a"))
		if len(a) == 0 || textAsWritten(a[0]) != realIDs[i] || path.Base(attr(a[0], "href")) != stems[i]+".html" {
			t.Errorf("row %d: %q → %q, want %q → %s.html", i, textOf(r), attr(a[0], "href"), realIDs[i], stems[i])
		}
	}
	// The drilldown of a case without a decision shows a dash and says
	// the decision is not judged.
	dd := parsePage(t, dir, "snapshots/run-2/"+stems[1]+".html")
	table := findAll(dd, sel("table", class("decision")))
	if len(table) == 0 || !strings.Contains(textOf(table[0]), "——not judged") {
		t.Errorf("decision table reads %q", textOf(table[0]))
	}
	hist := parsePage(t, dir, "cases/"+stems[1]+".html")
	if got := textOf(findAll(hist, sel("dl", class("metrics")))[0]); !strings.Contains(got, "Decision—") {
		t.Errorf("history page's expectations read %q", got)
	}
}

// textAsWritten is the text content of n as the document holds it, white
// space and all.
func textAsWritten(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
