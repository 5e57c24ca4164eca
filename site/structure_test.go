package site

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
	"golang.org/x/net/html"
)

// These tests read pages the way a reader does: by what the elements say,
// found by selector, not by exact bytes.

func TestOutdatedCitationShownWithSuccessor(t *testing.T) {
	doc := parsePage(t, builtSample(t), "snapshots/candidate-v2/ER-007.html")
	outdated := findAll(doc, sel("li", class("citation-outdated")))
	if len(outdated) != 1 {
		t.Fatalf("%d outdated citations, want 1", len(outdated))
	}
	text := textOf(outdated[0])
	for _, want := range []string{"ER-2026.08 §6.1", "outdated", "ER-2026.10 §6.1"} {
		if !strings.Contains(text, want) {
			t.Errorf("outdated citation %q does not mention %q", text, want)
		}
	}
	links := findAll(outdated[0], sel("a"))
	if len(links) != 1 || attr(links[0], "href") != "../../policy.html#rule-er-2026-10-6-1" {
		t.Errorf("the successor should link to ../../policy.html#rule-er-2026-10-6-1, links: %d", len(links))
	}
	missing := findAll(doc, sel("li", class("citation-missing")))
	if len(missing) != 1 || !strings.Contains(textOf(missing[0]), "ER-2026.10 §6.1") {
		t.Errorf("the expected ER-2026.10 §6.1 should be marked missing from the output")
	}
	verdict := findAll(doc, within(sel("h1"), sel("span", class("badge"))))
	if len(verdict) != 1 || !strings.Contains(textOf(verdict[0]), "fail") {
		t.Errorf("the heading should carry a fail badge")
	}
}

func TestSnapshotPagesShowTheirDecision(t *testing.T) {
	tests := []struct {
		label, decision string
		critical        []string // failing critical cases, by id
		failing         int
	}{
		{"baseline-v1", "BLOCK", []string{"ER-004", "ER-005"}, 4},
		{"candidate-v2", "REVIEW", nil, 1},
		{"candidate-v3", "PASS", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			doc := parsePage(t, builtSample(t), "snapshots/"+tt.label+".html")
			badge := findAll(doc, within(sel("h1"), sel("span", class("badge"))))
			if len(badge) != 1 || !strings.Contains(textOf(badge[0]), tt.decision) {
				t.Fatalf("heading badge is not %s", tt.decision)
			}
			var critical []string
			failing := 0
			for _, row := range findAll(doc, within(sel("table", id("case-table")), sel("tr", hasAttr("data-result", "fail")))) {
				failing++
				if attr(row, "data-severity") == "critical" {
					critical = append(critical, textOf(findAll(row, sel("th"))[0]))
				}
			}
			if failing != tt.failing {
				t.Errorf("%d failing rows, want %d", failing, tt.failing)
			}
			if strings.Join(critical, ",") != strings.Join(tt.critical, ",") {
				t.Errorf("critical failures %v, want %v", critical, tt.critical)
			}
			gates := findAll(doc, within(sel("table", class("gates")), sel("tr")))
			if len(gates) != 5 { // header and four gates
				t.Errorf("%d gate rows, want 4", len(gates)-1)
			}
			if n := len(findAll(doc, sel("a", hasAttr("href", "../results/"+tt.label+".json")))); n != 1 {
				t.Errorf("%d links to the results JSON, want 1", n)
			}
		})
	}
}

func TestOverviewShowsSnapshotsSideBySide(t *testing.T) {
	doc := parsePage(t, builtSample(t), "index.html")
	rows := findAll(doc, within(sel("table", class("compare")), sel("tr")))
	// Newest first.
	want := [][]string{
		{"candidate-v3", "12/12", "0", "2,050 ms", "USD 0.011", "PASS"},
		{"candidate-v2", "11/12", "0", "5,200 ms", "USD 0.0125", "REVIEW"},
		{"baseline-v1", "8/12", "2", "1,100 ms", "USD 0.01325", "BLOCK"},
	}
	if len(rows) != len(want)+1 {
		t.Fatalf("%d rows, want %d", len(rows)-1, len(want))
	}
	for i, w := range want {
		text := textOf(rows[i+1])
		for _, cell := range w {
			if !strings.Contains(text, cell) {
				t.Errorf("row %q lacks %q", text, cell)
			}
		}
	}
	// The trend: one chart per measure, each with a fixed id.
	for _, chart := range []string{"trend_pass_rate", "trend_p95", "trend_cost"} {
		if len(findAll(doc, sel("div", id(chart)))) != 1 {
			t.Errorf("chart %s missing", chart)
		}
	}
	// Only the latest change, so the page grows by one row per snapshot.
	changes := findAll(doc, sel("article", class("change")))
	if len(changes) != 1 {
		t.Fatalf("%d change blocks, want 1", len(changes))
	}
	var parts []string
	for _, div := range findAll(changes[0], within(sel("dl"), sel("div"))) {
		parts = append(parts, cellsOf(div)...)
	}
	// ER-007's one fix, one run each, could be chance (McNemar p = 1):
	// it is folded apart, not listed as fixed.
	if got, want := strings.Join(parts, " | "), "✓ Fixed | none | ✕ Regressed | none | … Still failing | none"; got != want {
		t.Errorf("candidate-v2 → candidate-v3:\n got %s\nwant %s", got, want)
	}
	chance := findAll(changes[0], sel("details", class("chance-changes")))
	if len(chance) != 1 || !strings.Contains(textOf(chance[0]), "ER-007: fail → pass; one run each: could be chance") {
		t.Errorf("the flip that could be chance is not folded apart")
	}
	if !strings.Contains(textOf(changes[0]), "1 fixed and 0 regressed, which could be chance.") {
		t.Errorf("the change does not say it could be chance: %s", textOf(changes[0]))
	}
}

// TestOverviewVerdictFirst checks the opening of the overview for each
// kind of decision: the decisive snapshot is the latest one, named with
// its decision, what that means, the gates in numbers, the failing
// critical cases linked and the rules no case covers.
func TestOverviewVerdictFirst(t *testing.T) {
	tests := []struct {
		name    string
		latest  string // the snapshot kept last
		meaning string
		gates   int
		failed  string // the gates that fail
		crit    []string
	}{
		{"pass", "candidate-v3", "may ship under policy ER-2026.10", 4, "", nil},
		{"review", "candidate-v2", "needs review: p95 latency 5,200 ms is over the limit of 2,500 ms", 4, "p95 latency", nil},
		{"block", "baseline-v1", "blocked: pass rate 66.67% is below the minimum of 90%; and 2 critical cases failed, at most 0 allowed", 4, "pass rate critical failures", []string{"ER-004", "ER-005"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := copySample(t)
			for _, l := range []string{"baseline-v1", "candidate-v2", "candidate-v3"} {
				if l != tt.latest {
					if err := os.Remove(filepath.Join(data, "outputs", l+".jsonl")); err != nil {
						t.Fatal(err)
					}
				}
			}
			out := filepath.Join(t.TempDir(), "site")
			if _, err := Build(data, out, BuildOptions{}); err != nil {
				t.Fatal(err)
			}
			doc := parsePage(t, out, "index.html")
			head := findAll(doc, within(sel("div", class("page-head")), sel("section", id("verdict"))))
			if len(head) != 1 {
				t.Fatalf("%d verdict sections in the page head, want 1", len(head))
			}
			sentence := findAll(head[0], sel("p", class("verdict-sentence")))
			if len(sentence) != 1 {
				t.Fatalf("%d verdict sentences, want 1", len(sentence))
			}
			got := textOf(sentence[0])
			for _, w := range []string{tt.latest, "the only snapshot", tt.meaning} {
				if !strings.Contains(got, w) {
					t.Errorf("verdict %q lacks %q", got, w)
				}
			}
			if b := findAll(sentence[0], sel("span", class("badge"))); len(b) != 1 || !strings.Contains(textOf(b[0]), strings.ToUpper(map[string]string{"pass": "PASS", "review": "REVIEW", "block": "BLOCK"}[tt.name])) {
				t.Errorf("verdict badge missing or wrong in %q", got)
			}
			items := findAll(head[0], within(sel("ul", class("verdict-gates")), sel("li")))
			if len(items) != tt.gates {
				t.Errorf("%d gates in the verdict, want %d", len(items), tt.gates)
			}
			var failed []string
			for _, li := range findAll(head[0], sel("li", class("gate-failed"))) {
				for _, name := range []string{"pass rate", "critical failures", "p95 latency", "average cost"} {
					if strings.Contains(textOf(li), name) {
						failed = append(failed, name)
					}
				}
			}
			if strings.Join(failed, " ") != tt.failed {
				t.Errorf("failed gates %q, want %q", strings.Join(failed, " "), tt.failed)
			}
			var crit []string
			for _, a := range findAll(head[0], within(sel("p", class("verdict-critical")), sel("a"))) {
				if strings.HasPrefix(attr(a, "href"), "snapshots/") {
					crit = append(crit, textOf(a))
					if want := "snapshots/" + tt.latest + "/" + textOf(a) + ".html"; attr(a, "href") != want {
						t.Errorf("critical case links to %q, want %q", attr(a, "href"), want)
					}
				}
			}
			if strings.Join(crit, ",") != strings.Join(tt.crit, ",") {
				t.Errorf("critical cases named %v, want %v", crit, tt.crit)
			}
		})
	}
}

// cellsOf lists the text of each child element of n.
func cellsOf(n *html.Node) []string {
	var out []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			out = append(out, textOf(c))
		}
	}
	return out
}

func TestDrilldownHighlightsArgumentMismatch(t *testing.T) {
	// baseline-v1 escalates ER-011 with the wrong reason code.
	doc := parsePage(t, builtSample(t), "snapshots/baseline-v1/ER-011.html")
	marked := findAll(doc, sel("span", class("diff")))
	if len(marked) == 0 {
		t.Fatal("no argument line is marked")
	}
	var texts []string
	for _, m := range marked {
		texts = append(texts, textOf(m))
	}
	joined := strings.Join(texts, " | ")
	if !strings.Contains(joined, "MISSING_INDEPENDENT_APPROVAL") || !strings.Contains(joined, "SELF_APPROVAL") {
		t.Errorf("marked lines %q should show both reason codes", joined)
	}
	if len(findAll(doc, within(sel("ul", class("mismatches")), sel("li")))) == 0 {
		t.Error("the differing arguments are not listed in words")
	}
}

func TestDrilldownShowsForbiddenToolCalled(t *testing.T) {
	// baseline-v1 pays ER-004 a second time.
	doc := parsePage(t, builtSample(t), "snapshots/baseline-v1/ER-004.html")
	var called []string
	for _, li := range findAll(doc, within(sel("ul", class("forbidden")), sel("li"))) {
		if strings.HasSuffix(textOf(li), " called") && !strings.Contains(textOf(li), "not called") {
			called = append(called, textOf(li))
		}
	}
	if len(called) != 1 || !strings.Contains(called[0], "issue_payment") {
		t.Errorf("forbidden tools called: %q, want issue_payment", called)
	}
}

func TestPolicyAnchorsAndCoverage(t *testing.T) {
	doc := parsePage(t, builtSample(t), "policy.html")
	rules := sampleInput(t).Release.Suite.Policy.Rules
	headings := findAll(doc, sel("", class("rule")))
	if len(headings) != len(rules) {
		t.Fatalf("%d rule headings, want %d", len(headings), len(rules))
	}
	for i, h := range headings {
		if attr(h, "id") != rules[i].Anchor() {
			t.Errorf("heading %q has id %q, want %q", textOf(h), attr(h, "id"), rules[i].Anchor())
		}
	}
	// ER-2026.10 §6.1 is cited by ER-007 only; §1.1 by nobody.
	cov := findAll(doc, sel("p", class("coverage")))
	if len(cov) != len(rules) {
		t.Fatalf("%d coverage notes, want one per rule", len(cov))
	}
	byRule := map[string]string{}
	for i, r := range rules {
		byRule[r.ID] = textOf(cov[i])
	}
	if got := byRule["ER-2026.10 §6.1"]; got != "Cited by 1 case: ER-007." {
		t.Errorf("§6.1 coverage = %q", got)
	}
	if got := byRule["ER-2026.10 §1.1"]; !strings.Contains(got, "Not covered") {
		t.Errorf("§1.1 coverage = %q, want it marked as not covered", got)
	}
	at := slices.IndexFunc(rules, func(r suite.Rule) bool { return r.ID == "ER-2026.10 §6.1" })
	links := findAll(cov[at], sel("a"))
	if len(links) != 1 || attr(links[0], "href") != "cases/ER-007.html" {
		t.Errorf("§6.1 coverage should link cases/ER-007.html")
	}
}

func TestHistoryPageFollowsTheCase(t *testing.T) {
	doc := parsePage(t, builtSample(t), "cases/ER-007.html")
	rows := findAll(doc, within(sel("table", class("history")), sel("tr")))
	if len(rows) != 4 {
		t.Fatalf("%d history rows, want 3", len(rows)-1)
	}
	want := [][]string{
		{"baseline-v1", "✕ fail", "reject", "cited the wrong policy rule"},
		{"candidate-v2", "✕ fail", "reject", "cited the wrong policy rule"},
		{"candidate-v3", "✓ pass", "reject", ""},
	}
	for i, w := range want {
		got := cellsOf(rows[i+1])[:4]
		if !slices.Equal(got, w) {
			t.Errorf("row %d = %q, want %q", i+1, got, w)
		}
	}
}

func TestPagesAreFramed(t *testing.T) {
	dir := builtSample(t)
	for _, page := range []string{"index.html", "policy.html", "handoff.html", "cases/ER-001.html", "snapshots/candidate-v3.html", "snapshots/candidate-v3/ER-001.html"} {
		doc := parsePage(t, dir, page)
		if h := findAll(doc, sel("html", hasAttr("lang", "en"))); len(h) != 1 {
			t.Errorf("%s: no <html lang=en>", page)
		}
		if n := len(findAll(doc, sel("main"))); n != 1 {
			t.Errorf("%s: %d <main> landmarks", page, n)
		}
		if n := len(findAll(doc, sel("h1"))); n != 1 {
			t.Errorf("%s: %d <h1> headings, want 1", page, n)
		}
		if n := len(findAll(doc, sel("title"))); n != 1 || textOf(findAll(doc, sel("title"))[0]) == "" {
			t.Errorf("%s: no title", page)
		}
		for _, th := range findAll(doc, within(sel("thead"), sel("th"))) {
			if attr(th, "scope") != "col" && !strings.Contains(page, "policy") && !strings.Contains(page, "handoff") {
				t.Errorf("%s: column heading %q has no scope", page, textOf(th))
			}
		}
	}
}
