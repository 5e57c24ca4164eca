//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// designedDecisions are the sample's outcomes, fixed by design (README.md).
var designedDecisions = map[string]string{
	"baseline-v1":  "BLOCK",
	"candidate-v2": "REVIEW",
	"candidate-v3": "PASS",
}

// badgeTextJS reads a badge as a reader hears it: its text without the
// decorative icon.
const badgeTextJS = `const badgeText = b => {
	if (!b) return "";
	const c = b.cloneNode(true);
	c.querySelectorAll("[aria-hidden=true]").forEach(e => e.remove());
	return c.textContent.trim();
};`

// overviewBadgesJS maps each snapshot label to the badge beside it, once
// from the decision cards and once from the side-by-side table.
const overviewBadgesJS = `(() => { ` + badgeTextJS + `
	const cards = {}, table = {};
	document.querySelectorAll(".card").forEach(c => {
		const a = c.querySelector("h3 a");
		if (a) cards[a.textContent.trim()] = badgeText(c.querySelector(".badge"));
	});
	document.querySelectorAll("table.compare tbody tr").forEach(r => {
		const a = r.querySelector("th a");
		if (a) table[a.textContent.trim()] = badgeText(r.querySelector("td .badge"));
	});
	return {cards, table};
})()`

const headingBadgeJS = `(() => { ` + badgeTextJS + ` return badgeText(document.querySelector("h1 .badge")); })()`

// TestDecisionBadges checks that the overview and each snapshot page show
// the decision designed for the sample: BLOCK, REVIEW, PASS.
func TestDecisionBadges(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))

	t.Run("index.html", func(t *testing.T) {
		tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
		if _, err := tb.open(s.url("index.html")); err != nil {
			t.Fatal(err)
		}
		got, err := eval[struct{ Cards, Table map[string]string }](tb, overviewBadgesJS)
		if err != nil {
			t.Fatal(err)
		}
		for label, want := range designedDecisions {
			if got.Cards[label] != want {
				t.Errorf("decision card of %s reads %q, want %q", label, got.Cards[label], want)
			}
			if got.Table[label] != want {
				t.Errorf("side-by-side row of %s reads %q, want %q", label, got.Table[label], want)
			}
		}
	})
	for label, want := range designedDecisions {
		rel := "snapshots/" + label + ".html"
		t.Run(rel, func(t *testing.T) {
			tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
			if _, err := tb.open(s.url(rel)); err != nil {
				t.Fatal(err)
			}
			got, err := eval[string](tb, headingBadgeJS)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("heading badge reads %q, want %q", got, want)
			}
		})
	}
}

// visibleRowsJS lists the case ids of the case table's rows a reader can
// see.
const visibleRowsJS = `Array.from(document.querySelectorAll("#case-table tbody tr"))
	.filter(r => r.getClientRects().length > 0)
	.map(r => r.querySelector("th").textContent.trim())`

// TestSnapshotTableFilter types into the case filter of baseline-v1, which
// fails ER-004, ER-005, ER-007 and ER-011 of twelve, and counts the rows
// left visible.
func TestSnapshotTableFilter(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))
	tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
	if _, err := tb.open(s.url("snapshots/baseline-v1.html")); err != nil {
		t.Fatal(err)
	}
	hidden, err := eval[bool](tb, `document.querySelector("form.table-filter").hidden`)
	if err != nil {
		t.Fatal(err)
	}
	if hidden {
		t.Fatal("the filter form is still hidden: the site script did not start it")
	}
	rows := func() []string {
		t.Helper()
		ids, err := eval[[]string](tb, visibleRowsJS)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	// waitRows polls, since a filter may run after a short debounce.
	waitRows := func(want int) []string {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for {
			ids := rows()
			if len(ids) == want || time.Now().After(deadline) {
				return ids
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	setSelect := func(name, value string) {
		t.Helper()
		js := fmt.Sprintf(`(() => { const s = document.querySelector('form.table-filter select[name=%q]');
			s.value = %q; s.dispatchEvent(new Event("input", {bubbles: true})); s.dispatchEvent(new Event("change", {bubbles: true})); })()`, name, value)
		if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
			t.Fatal(err)
		}
	}
	search := chromedp.CSS(`form.table-filter input[name="q"]`)

	if got := rows(); len(got) != 12 {
		t.Fatalf("before filtering %d rows are visible, want 12: %v", len(got), got)
	}
	if err := chromedp.Do(tb.ctx, chromedp.SendKeys(search, "ER-007")); err != nil {
		t.Fatal(err)
	}
	if got := waitRows(1); len(got) != 1 || got[0] != "ER-007" {
		t.Errorf("searching ER-007 leaves %v visible, want [ER-007]", got)
	}
	// Erase the query as a reader does, key by key.
	if err := chromedp.Do(tb.ctx, chromedp.SendKeys(search, strings.Repeat(kb.Backspace, len("ER-007")))); err != nil {
		t.Fatal(err)
	}
	if got := waitRows(12); len(got) != 12 {
		t.Errorf("after erasing the search %d rows are visible, want 12", len(got))
	}
	setSelect("result", "fail")
	want := "ER-004 ER-005 ER-007 ER-011"
	if got := strings.Join(waitRows(4), " "); got != want {
		t.Errorf("result=failing leaves %q visible, want %q", got, want)
	}
	setSelect("severity", "critical")
	if got := waitRows(2); len(got) != 2 {
		t.Errorf("failing critical cases: %v visible, want the two critical failures", got)
	}
	setSelect("result", "")
	setSelect("severity", "")
	if got := waitRows(12); len(got) != 12 {
		t.Errorf("after clearing the filter %d rows are visible, want 12", len(got))
	}
	for _, p := range tb.log.snapshot().problems() {
		t.Error(p)
	}
}
