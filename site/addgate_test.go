package site

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/ciout"
	"github.com/releasegate/releasegate/evaluator/decide/decidetest"
	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

// Adding a gate is one spec in the list a build is given: every page,
// the compare page's data and the CI outputs show and explain it, and
// nothing outside the test changes (docs/design.md, "Adding a gate").
func TestSiteShowsAnAddedGate(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	copyDir(t, airlineData, data)
	gateFile := filepath.Join(data, "gate.json")
	src, err := os.ReadFile(gateFile)
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), "{", `{"`+decidetest.FlakyCasesKey+`": 0,`, 1))
	if err := os.WriteFile(gateFile, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	rel, err := Build(data, out, BuildOptions{Gates: decidetest.WithFlakyCases()})
	if err != nil {
		t.Fatal(err)
	}
	var failed string // a snapshot the new gate fails
	for _, s := range rel.Snapshots {
		if g, ok := s.Result.Gate("flaky_cases"); !ok {
			t.Fatalf("%s lacks the new gate", s.Label())
		} else if !g.Passed {
			failed = s.Label()
		}
	}
	if failed == "" {
		t.Fatal("no snapshot fails the new gate: the test shows nothing")
	}

	// The overview lists its threshold and its trendless gate in the
	// verdict of the latest snapshot.
	overview := parsePage(t, out, "index.html")
	if !containsText(findAll(overview, within(sel("dl", class("thresholds")), sel("div"))), "Stability: flaky cases") {
		t.Error("overview: no threshold for the new gate")
	}
	if !containsText(findAll(overview, sel("p")), "REVIEW when latency or cost or stability is over its limit") {
		t.Error("overview: the decision rule does not name the new gate")
	}
	// The latest snapshot's verdict lists the gate, with its value.
	latest := rel.Snapshots[len(rel.Snapshots)-1]
	lg, _ := latest.Result.Gate("flaky_cases")
	if !containsText(findAll(overview, within(sel("ul", class("verdict-gates")), sel("li"))), "Stability (flaky cases) "+lg.ObservedText()) {
		t.Error("overview: the verdict does not list the new gate")
	}
	// Each card of the latest snapshots shows the gate's value under
	// its label, after the shipped gates.
	cards := findAll(overview, sel("li", class("card")))
	if len(cards) == 0 {
		t.Fatal("overview: no snapshot cards")
	}
	for k, card := range cards {
		s := rel.Snapshots[len(rel.Snapshots)-1-k]
		g, _ := s.Result.Gate("flaky_cases")
		var dts, dds []string
		for _, d := range findAll(card, within(sel("dl", class("metrics")), sel("div"))) {
			for _, n := range findAll(d, sel("dt")) {
				dts = append(dts, textOf(n))
			}
			for _, n := range findAll(d, sel("dd")) {
				dds = append(dds, textOf(n))
			}
		}
		want := []string{"Pass rate", "Critical failures", "p95 latency", "Average cost", "Flaky cases"}
		if !slices.Equal(dts, want) {
			t.Errorf("overview: the card of %s heads %q, want %q", s.Label(), dts, want)
			continue
		}
		if dds[len(dds)-1] != g.ObservedText() {
			t.Errorf("overview: the card of %s shows %q flaky cases, want %q", s.Label(), dds[len(dds)-1], g.ObservedText())
		}
	}
	// The table of every snapshot has the gate's column, a value per
	// snapshot, newest first.
	heads := findAll(overview, within(sel("table", class("history-table")), sel("th", hasAttr("scope", "col"))))
	if !containsText(heads, "Flaky cases") {
		t.Error("overview: the table of every snapshot has no column for the new gate")
	}
	cells := findAll(overview, within(sel("table", class("history-table")), sel("td", hasAttr("data-label", "Flaky cases"))))
	if len(cells) != len(rel.Snapshots) {
		t.Fatalf("overview: %d cells of the new gate for %d snapshots", len(cells), len(rel.Snapshots))
	}
	for k, c := range cells {
		s := rel.Snapshots[len(rel.Snapshots)-1-k]
		if g, _ := s.Result.Gate("flaky_cases"); textOf(c) != g.ObservedText() {
			t.Errorf("overview: %s's flaky cases read %q, want %q", s.Label(), textOf(c), g.ObservedText())
		}
	}
	// The snapshot page has its row, and explains its failure.
	page := parsePage(t, out, pages.SnapshotPath(failed))
	rows := findAll(page, within(sel("table", class("gates")), sel("tr")))
	if !containsText(rows, "Stability (flaky cases) flaky_cases") {
		t.Errorf("%s: no gate row for the new gate", failed)
	}
	why := findAll(page, sel("div", class("why-gate"), hasAttr("data-gate", "flaky_cases")))
	if len(why) != 1 || !strings.Contains(textOf(why[0]), "flaky cases, at most 0 allowed") {
		t.Errorf("%s: the new gate's failure is not explained", failed)
	}
	// The report page and RELEASE_REPORT.md hold its column and rule.
	report := textOf(parsePage(t, out, pages.ReportPagePath))
	if !strings.Contains(report, "Stability: at most 0 flaky case(s).") {
		t.Error("report page: no rule for the new gate")
	}
	md, err := os.ReadFile(filepath.Join(out, "RELEASE_REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| flaky cases | decision |") {
		t.Error("RELEASE_REPORT.md: no column for the new gate")
	}
	// The compare page's data lists the gate and how to word its change.
	matrix, err := os.ReadFile(filepath.Join(out, "data", "matrix.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(matrix), `"gate":"flaky_cases"`) || !strings.Contains(string(matrix), `{"unit":"count","higher_is_better":false}]`) {
		t.Errorf("data/matrix.js: the new gate or its change is missing:\n%.400s", matrix)
	}
	// The CI outputs follow the same list.
	if s := string(ciout.Summary(rel)); !strings.Contains(s, "| flaky cases |") || !strings.Contains(s, "stability") {
		t.Errorf("step summary lacks the new gate:\n%s", s)
	}
	if j := string(ciout.JUnit(rel)); !strings.Contains(j, "flaky_cases") {
		t.Errorf("JUnit lacks the new gate:\n%.2000s", j)
	}
}

// containsText reports whether some node's text contains s, spaces
// collapsed.
func containsText(nodes []*html.Node, s string) bool {
	for _, n := range nodes {
		if strings.Contains(strings.Join(strings.Fields(textOf(n)), " "), s) {
			return true
		}
	}
	return false
}
