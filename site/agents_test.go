package site

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

// airlineData is the example folder that uses every extension of the
// docs/data-format.md, "Real agents".
const airlineData = "../examples/airline"

// TestAirlineSite builds examples/airline and reads its pages by selector
// for each docs/data-format.md, "Real agents" feature the site shows. The expected values come from the
// example's README, which works them out from the data format.
func TestAirlineSite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(airlineData, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	page := func(t *testing.T, rel string) *html.Node { return parsePage(t, out, rel) }

	t.Run("trial strips with k marks", func(t *testing.T) {
		for _, tt := range []struct {
			label string
			k     int
			// counts and flaky cases from the README's tables
			counts map[string]string
			flaky  []string
		}{
			{"retrained", 3, map[string]string{"NA-003": "2/3", "NA-004": "0/3", "NA-009": "1/3", "NA-010": "3/3"}, []string{"NA-003", "NA-005", "NA-009"}},
			{"candidate", 4, map[string]string{"NA-005": "3/4", "NA-007": "3/4", "NA-009": "2/4"}, []string{"NA-005", "NA-007", "NA-009"}},
		} {
			doc := page(t, "snapshots/"+tt.label+".html")
			rows := findAll(doc, within(sel("table", id("case-table")), sel("tr", func(n *html.Node) bool { return attr(n, "data-result") != "" })))
			if len(rows) != 10 {
				t.Fatalf("%s: %d case rows, want 10", tt.label, len(rows))
			}
			var flaky []string
			for _, row := range rows {
				caseID := textOf(findAll(row, sel("th"))[0])
				marks := findAll(row, within(sel("span", class("trial-strip")), sel("span", class("trial-mark"))))
				if len(marks) != tt.k {
					t.Errorf("%s %s: %d trial marks, want %d", tt.label, caseID, len(marks), tt.k)
				}
				strip := findAll(row, sel("span", class("trial-strip")))
				if len(strip) != 1 || attr(strip[0], "role") != "img" || !strings.Contains(attr(strip[0], "aria-label"), "trials passed") {
					t.Errorf("%s %s: the strip needs a text label", tt.label, caseID)
				}
				count := findAll(row, sel("span", class("trial-count")))
				if want, ok := tt.counts[caseID]; ok && (len(count) != 1 || textOf(count[0]) != want) {
					t.Errorf("%s %s: count %q, want %s", tt.label, caseID, textOf(count[0]), want)
				}
				badge := findAll(row, sel("span", class("badge-flaky")))
				if len(badge) == 1 {
					flaky = append(flaky, caseID)
				}
				if (len(badge) == 1) != (attr(row, "data-flaky") == "true") {
					t.Errorf("%s %s: flaky badge and data-flaky disagree", tt.label, caseID)
				}
			}
			slices.Sort(flaky) // the table lists failing cases first
			if !slices.Equal(flaky, tt.flaky) {
				t.Errorf("%s: flaky badges on %q, want %q", tt.label, flaky, tt.flaky)
			}
			if len(findAll(doc, sel("select", hasAttr("name", "flaky")))) != 1 {
				t.Errorf("%s: no flaky filter", tt.label)
			}
		}
		// Without trials there is no strip, no column and no filter.
		doc := page(t, "snapshots/baseline.html")
		if n := len(findAll(doc, sel("", class("trial-strip")))) + len(findAll(doc, sel("select", hasAttr("name", "flaky")))); n != 0 {
			t.Errorf("baseline has no trials but shows %d trial elements", n)
		}
	})

	t.Run("pass^k beside the trial pass rate", func(t *testing.T) {
		// retrained: 23 of 30 trials; 6 cases passed all 3 (NA-001, 002,
		// 006, 007, 008, 010).
		doc := page(t, "snapshots/retrained.html")
		summary := findAll(doc, sel("p", class("trial-summary")))
		if len(summary) != 1 {
			t.Fatalf("%d trial summaries, want 1", len(summary))
		}
		text := textOf(summary[0])
		for _, want := range []string{"trial pass rate 76.67% of 30 trials", "pass3", "60% of cases (6 of 10)", "3 flaky cases", "at least 50%"} {
			if !strings.Contains(text, want) {
				t.Errorf("trial summary %q lacks %q", text, want)
			}
		}
	})

	t.Run("not gated", func(t *testing.T) {
		for _, label := range []string{"baseline", "retrained", "candidate"} {
			doc := page(t, "snapshots/"+label+".html")
			var row *html.Node
			for _, tr := range findAll(doc, within(sel("table", class("gates")), sel("tr"))) {
				if strings.Contains(textOf(tr), "avg_cost_usd") {
					row = tr
				}
			}
			if row == nil {
				t.Fatalf("%s: no avg_cost_usd gate row", label)
			}
			if b := findAll(row, sel("span", class("badge-off"))); len(b) != 1 || !strings.Contains(textOf(b[0]), "not gated") {
				t.Errorf("%s: the cost gate %q is not shown as not gated", label, textOf(row))
			}
			if len(findAll(row, sel("span", class("badge-pass")))) != 0 {
				t.Errorf("%s: a gate that is off must not read pass", label)
			}
		}
	})

	t.Run("provenance", func(t *testing.T) {
		want := map[string][]string{
			"baseline":  {"northwind-assist-1.4", "a1c9e07", "2026-11-02 09:30 UTC"},
			"retrained": {"northwind-assist-1.5", "4d72b3f", "2026-11-16 14:05 UTC"},
			"candidate": {"northwind-assist-1.6", "9e0b55c", "2026-11-24 08:00 UTC"},
		}
		check := func(t *testing.T, where string, dl *html.Node, label string) {
			text := textOf(dl)
			for _, w := range append(want[label], "Description") {
				if !strings.Contains(text, w) {
					t.Errorf("%s: provenance of %s %q lacks %q", where, label, text, w)
				}
			}
			if times := findAll(dl, sel("time")); len(times) != 1 || !strings.HasPrefix(attr(times[0], "datetime"), "2026-11-") {
				t.Errorf("%s: the recorded time of %s is not a <time datetime>", where, label)
			}
		}
		for label := range want {
			dls := findAll(page(t, "snapshots/"+label+".html"), within(sel("div", class("page-head")), sel("dl", class("recording"))))
			if len(dls) != 1 {
				t.Fatalf("snapshot page %s: %d provenance lists, want 1", label, len(dls))
			}
			check(t, "snapshot page", dls[0], label)
		}
		cards := findAll(page(t, "index.html"), sel("li", class("card")))
		if len(cards) != 3 {
			t.Fatalf("%d cards", len(cards))
		}
		// Newest first by recorded_at, not by label.
		for i, label := range []string{"candidate", "retrained", "baseline"} {
			dls := findAll(cards[i], sel("dl", class("recording")))
			if !strings.Contains(textOf(cards[i]), label) || len(dls) != 1 {
				t.Fatalf("card %d should be %s with its provenance", i+1, label)
			}
			check(t, "overview card", dls[0], label)
		}
	})

	t.Run("one section per trial", func(t *testing.T) {
		doc := page(t, "snapshots/retrained/NA-003.html")
		sections := findAll(doc, sel("section", class("trial")))
		if len(sections) != 3 {
			t.Fatalf("%d trial sections, want 3", len(sections))
		}
		wantVerdicts := []string{"pass", "fail", "pass"}
		for i, s := range sections {
			h := findAll(s, sel("h2"))
			if len(h) != 1 || attr(h[0], "id") != fmt.Sprintf("trial-%d", i+1) || !strings.Contains(textOf(h[0]), wantVerdicts[i]) {
				t.Errorf("trial %d heading %q, want id trial-%d and %s", i+1, textOf(h[0]), i+1, wantVerdicts[i])
			}
		}
		links := findAll(doc, within(sel("ol", class("trial-strip")), sel("a", class("trial-mark"))))
		if len(links) != 3 || attr(links[1], "href") != "#trial-2" || !strings.Contains(textOf(links[1]), "trial 2: fail") {
			t.Errorf("the strip should link each trial's section; links %d", len(links))
		}
		if n := findAll(doc, sel("p", class("notice"))); len(n) == 0 || !strings.Contains(textOf(n[0]), "counts as a critical failure") {
			t.Error("a critical case that failed a trial should say it counts as a critical failure")
		}
		// Element ids stay unique with a section per trial.
		seen := map[string]bool{}
		for _, n := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && attr(n, "id") != "" }) {
			if seen[attr(n, "id")] {
				t.Errorf("id %q is used twice", attr(n, "id"))
			}
			seen[attr(n, "id")] = true
		}
		// A missing trial says so in its section.
		doc = page(t, "snapshots/candidate/NA-007.html")
		third := findAll(doc, sel("section", class("trial")))
		if len(third) != 4 || !strings.Contains(textOf(third[2]), "no output for NA-007 in this trial") {
			t.Error("candidate NA-007 trial 3 should say it has no output")
		}
	})

	t.Run("paired calls", func(t *testing.T) {
		// NA-006 in candidate, any_order: expected 2 ($any email/sms) pairs
		// with the sms call (3) and expected 3 (email) with call 1, the
		// one full pairing; expected 1 (issue_refund) with call 2.
		doc := page(t, "snapshots/candidate/NA-006.html")
		sections := findAll(doc, sel("section", class("trial")))
		if len(sections) != 4 {
			t.Fatalf("%d trial sections", len(sections))
		}
		pairs := findAll(sections[0], within(sel("ol", class("call-pairs")), sel("li", class("call-pair"))))
		if len(pairs) != 3 {
			t.Fatalf("%d call pairs, want 3", len(pairs))
		}
		for i, want := range []string{"Actual 2", "Actual 3", "Actual 1"} {
			actual := findAll(pairs[i], within(sel("div", class("call-actual")), sel("span", class("call-role"))))
			if len(actual) != 1 || textOf(actual[0]) != want {
				t.Errorf("expected call %d paired with %v, want %s", i+1, actual, want)
			}
		}
		// NA-009 in baseline, subsequence: two calls paired, the unreadable
		// argument string shown as it was sent, two other calls unpaired.
		doc = page(t, "snapshots/baseline/NA-009.html")
		raw := findAll(doc, sel("pre", class("raw-arguments")))
		if len(raw) != 1 || !strings.Contains(textOf(raw[0]), `{"booking_ref": "KD8M3Q", "flight": "NW2"`) {
			t.Error("the unreadable argument string is not shown")
		}
		unpaired := findAll(doc, within(sel("ul", class("call-unpaired")), sel("li")))
		var names []string
		for _, u := range unpaired {
			names = append(names, textOf(findAll(u, within(sel("div", class("call-actual")), sel("code")))[0]))
		}
		if !slices.Equal(names, []string{"lookup_booking", "get_seat_map"}) {
			t.Errorf("unpaired calls %q, want lookup_booking and get_seat_map", names)
		}
		if note := findAll(doc, sel("p", class("call-extra-note"))); len(note) != 1 || !strings.Contains(textOf(note[0]), "subsequence allows them") {
			t.Error("subsequence's extra calls should be marked as allowed")
		}
		// NA-009 in candidate trial 4 has the calls out of order: expected
		// 2 (rebook_flight) finds no partner after search_flights.
		doc = page(t, "snapshots/candidate/NA-009.html")
		fourth := findAll(doc, sel("section", class("trial")))[3]
		if len(findAll(fourth, sel("p", class("call-missing")))) == 0 {
			t.Error("an expected call with no partner should be marked")
		}
	})

	t.Run("matchers in words", func(t *testing.T) {
		var words []string
		for _, rel := range []string{"snapshots/baseline/NA-003.html", "snapshots/baseline/NA-005.html", "snapshots/baseline/NA-008.html", "snapshots/baseline/NA-009.html"} {
			for _, m := range findAll(page(t, rel), sel("span", class("matcher"))) {
				words = append(words, textOf(m))
			}
		}
		joined := strings.Join(words, " | ")
		for _, want := range []string{`any of "NW118", "NW172"`, `optional "economy"`, `optional text like "Wheelchair needed at gate"`,
			"exactly these members", `literally {"$regulation":"EC 261/2004 art. 7"}`, `any of text like "New York", "NYC", "JFK"`} {
			if !strings.Contains(joined, want) {
				t.Errorf("matcher words %q lack %q", joined, want)
			}
		}
	})

	t.Run("case history with trials", func(t *testing.T) {
		rows := findAll(page(t, "cases/NA-005.html"), within(sel("table", class("history")), sel("tbody")))
		trs := findAll(rows[0], sel("tr"))
		if len(trs) != 3 {
			t.Fatalf("%d history rows, want 3", len(trs))
		}
		for i, want := range []int{0, 3, 4} {
			if got := len(findAll(trs[i], sel("span", class("trial-mark")))); got != want {
				t.Errorf("row %d: %d trial marks, want %d", i+1, got, want)
			}
		}
		// candidate trial 2 answered inform; the other three escalated.
		if !strings.Contains(textOf(trs[2]), "escalate ×3, inform ×1") {
			t.Errorf("candidate's decisions across trials: %q", textOf(trs[2]))
		}
	})

	t.Run("what changed apart from flaky cases", func(t *testing.T) {
		changes := findAll(page(t, "index.html"), sel("article", class("change")))
		// The overview shows what changed in the latest snapshot only.
		if len(changes) != 1 {
			t.Fatalf("%d changes, want 1", len(changes))
		}
		for i, tt := range []struct {
			regressed, fixed string
			flaky            []string
		}{
			{"none", "NA-004", []string{"NA-003", "NA-005", "NA-007", "NA-009"}},
		} {
			dds := findAll(changes[i], within(sel("dl", class("change-list")), sel("dd")))
			if len(dds) != 3 || textOf(dds[0]) != tt.fixed || textOf(dds[1]) != tt.regressed || textOf(dds[2]) != "none" {
				t.Errorf("change %d: fixed/regressed/still failing %v", i+1, dds)
			}
			var flaky []string
			for _, a := range findAll(changes[i], within(sel("ul", class("flaky-list")), sel("a"))) {
				flaky = append(flaky, textOf(a))
			}
			if !slices.Equal(flaky, tt.flaky) {
				t.Errorf("change %d: flaky %q, want %q", i+1, flaky, tt.flaky)
			}
		}
	})
}

func TestLongChangeListsFold(t *testing.T) {
	var cases []pages.CaseLink
	for i := range 30 {
		cases = append(cases, pages.CaseLink{ID: fmt.Sprintf("C-%02d", i), Href: "#"})
	}
	tests := []struct {
		n, shown, more int
	}{
		{0, 0, 0}, {1, 1, 0}, {pages.CollapseAfter, pages.CollapseAfter, 0}, {pages.CollapseAfter + 1, pages.CollapseAfter, 1}, {30, pages.CollapseAfter, 30 - pages.CollapseAfter},
	}
	for _, tt := range tests {
		c := pages.Change{Regressed: cases[:tt.n]}
		l := c.RegressedList()
		if len(l.Shown) != tt.shown || len(l.More) != tt.more {
			t.Errorf("%d cases: %d shown and %d folded, want %d and %d", tt.n, len(l.Shown), len(l.More), tt.shown, tt.more)
		}
	}
}

// TestAgentTextIsText builds the airline example with markup in a
// meta.json and in an unreadable argument string: both must show as
// text, never as elements.
func TestAgentTextIsText(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	copyDir(t, airlineData, data)
	const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>`
	meta := `{"model": "m` + strings.ReplaceAll(evil, `"`, `\"`) + `", "description": "` + strings.ReplaceAll(evil, `"`, `\"`) + `"}`
	writeFile(t, filepath.Join(data, "outputs", "baseline.meta.json"), meta)
	outputs := readFile(t, filepath.Join(data, "outputs", "baseline.jsonl"))
	outputs = strings.Replace(outputs, `\"flight\": \"NW2\""`, `\"flight\": \"</code>`+strings.ReplaceAll(evil, `"`, `\\\"`)+`"`, 1)
	writeFile(t, filepath.Join(data, "outputs", "baseline.jsonl"), outputs)
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(data, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"index.html", "snapshots/baseline.html", "snapshots/baseline/NA-009.html"} {
		doc := parsePage(t, out, rel)
		if n := len(findAll(doc, sel("img"))) + len(findAll(doc, func(n *html.Node) bool {
			return n.Type == html.ElementNode && n.Data == "script" && strings.Contains(textOf(n), "alert(")
		})); n != 0 {
			t.Errorf("%s: %d elements made from data text", rel, n)
		}
		if !strings.Contains(textOf(doc), "<script>alert(1)</script>") {
			t.Errorf("%s: the text with markup is not shown as text", rel)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTrialStrip(t *testing.T) {
	fail := func(trial int, code judge.Code) judge.Failure {
		return judge.Failure{Code: code, Detail: "x", Trial: trial}
	}
	tests := []struct {
		name    string
		res     evaluator.CaseResult
		k       int
		classes string
		text    string
		flaky   bool
	}{
		{"no trials", evaluator.CaseResult{Passed: true}, 0, "", "", false},
		{"k = 1 passed", evaluator.CaseResult{Passed: true, Trials: 1, TrialsPassed: 1}, 1, "pass", "1/1", false},
		{"every trial failed", evaluator.CaseResult{Trials: 2, Failures: []judge.Failure{fail(1, judge.Decision), fail(2, judge.Decision), fail(2, judge.ToolCall)}}, 2, "fail fail", "0/2", false},
		{"missing trial", evaluator.CaseResult{Passed: true, Trials: 4, TrialsPassed: 3, Failures: []judge.Failure{fail(3, judge.MissingOutput)}}, 4, "pass pass missing pass", "3/4", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := pages.NewTrialStrip(&tt.res, tt.k, func(t int) string { return "d.html#" + pages.TrialID(t) })
			if tt.k == 0 {
				if s != nil {
					t.Fatal("a snapshot without trials has no strip")
				}
				return
			}
			var classes []string
			for _, m := range s.Marks {
				classes = append(classes, m.Class)
				if m.Href != fmt.Sprintf("d.html#trial-%d", m.Trial) {
					t.Errorf("mark %d links %s", m.Trial, m.Href)
				}
			}
			if strings.Join(classes, " ") != tt.classes || s.Text != tt.text || s.Flaky != tt.flaky || (s.FlakyBadge.Text == "flaky") != tt.flaky {
				t.Errorf("strip %q %s flaky %v, want %q %s flaky %v", classes, s.Text, s.Flaky, tt.classes, tt.text, tt.flaky)
			}
			if !strings.HasPrefix(s.Label, fmt.Sprintf("%d of %d trials passed", tt.res.TrialsPassed, tt.k)) {
				t.Errorf("label %q", s.Label)
			}
		})
	}
}
