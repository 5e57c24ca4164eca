//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// wordsState is what a reader meets of the site's words on one page.
type wordsState struct {
	// Glossary is the header's link to the glossary, "" without one.
	Glossary string `json:"glossary"`
	// Terms are the explained words: their text, title and link.
	Terms []struct {
		Text  string `json:"text"`
		Title string `json:"title"`
		Href  string `json:"href"`
	} `json:"terms"`
	// CutNav are the snapshot bar's labels cut short or out of view.
	CutNav []string `json:"cutNav"`
	// WideTables are tables wider than their column with no word that
	// they scroll.
	WideTables []string `json:"wideTables"`
	// OpenHashes counts the fingerprints a snapshot's card shows without
	// a reader opening its details.
	OpenHashes int `json:"openHashes"`
	// Codes are failure codes shown in the case table.
	Codes []string `json:"codes"`
}

const wordsJS = `(() => {
	const vw = document.documentElement.clientWidth;
	const g = Array.from(document.querySelectorAll(".site-nav a")).find(a => a.textContent.trim() === "Glossary");
	const cut = Array.from(document.querySelectorAll(".snapshot-nav a")).filter(a => {
		const r = a.getBoundingClientRect();
		return a.scrollWidth > a.clientWidth + 1 || r.right > vw + 0.5 || r.left < -0.5;
	}).map(a => a.textContent);
	const wide = Array.from(document.querySelectorAll(".table-wrap")).filter(w => {
		if (w.getBoundingClientRect().height === 0) return false;
		if (w.scrollWidth <= w.clientWidth + 1) return false;
		const note = w.previousElementSibling;
		return !(note && note.classList.contains("scroll-note") && note.getBoundingClientRect().height > 0);
	}).map(w => w.getAttribute("aria-label") || w.getAttribute("aria-labelledby") || "table");
	const hashes = Array.from(document.querySelectorAll(".card code.hash")).filter(c => c.checkVisibility()).length;
	const codes = Array.from(document.querySelectorAll("table.cases td[data-label]")).map(td => td.textContent.trim())
		.filter(t => /^[a-z]+(_[a-z]+)*(, [a-z]+(_[a-z]+)*)*$/.test(t) && /_|^citation$|^decision$|^arguments$/.test(t));
	return {glossary: g ? g.href : "", terms: Array.from(document.querySelectorAll("a.term"), a => ({text: a.textContent, title: a.title, href: a.href})),
		cutNav: cut, wideTables: wide, openHashes: hashes, codes};
})()`

// TestWordsABuyerReads opens the pages a buyer reads at a laptop's and a
// phone's width: the header links the glossary, every explained word
// has its one line and leads to an entry that exists, the snapshot bar
// shows every label whole, a table wider than the screen says it
// scrolls, fingerprints stay folded and the case table says what went
// wrong in words.
func TestWordsABuyerReads(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	generated, err := generatedSite()
	if err != nil {
		t.Fatal(err)
	}
	sample, large := serveHTTP(t, shared.sampleSite(t)), serveHTTP(t, generated)
	pages := []struct {
		site  served
		rel   string
		terms int // the least number of explained words
	}{
		{sample, "index.html", 9},
		{sample, "snapshots/candidate-v2.html", 2},
		{sample, "snapshots/candidate-v2/ER-007.html", 1},
		{sample, "cases/ER-007.html", 1},
		{sample, "compare.html", 1},
		{sample, "cases.html", 1},
		// 44-character labels in the snapshot bar.
		{large, "index.html", 9},
	}
	anchors := glossaryAnchors(t, sample)
	for _, pg := range pages {
		for _, vp := range glanceViewports {
			t.Run(vp.name+"/"+pg.rel, func(t *testing.T) {
				tb := openTab(t, browser, pg.site.inScope).withTimeout(t, 3*pageTimeout)
				if err := sized(vp.width, vp.height, vp.mobile)(tb); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.open(pg.site.url(pg.rel)); err != nil {
					t.Fatal(err)
				}
				got, err := eval[wordsState](tb, wordsJS)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasSuffix(got.Glossary, "/glossary.html") {
					t.Errorf("the header links the glossary at %q", got.Glossary)
				}
				if len(got.Terms) < pg.terms {
					t.Errorf("%d explained words, want at least %d", len(got.Terms), pg.terms)
				}
				for _, term := range got.Terms {
					_, anchor, _ := strings.Cut(term.Href, "#")
					if term.Title == "" || !anchors[anchor] {
						t.Errorf("the word %q: title %q, link %q (no such glossary entry)", term.Text, term.Title, term.Href)
					}
				}
				if len(got.CutNav) > 0 {
					t.Errorf("the snapshot bar cuts %q", got.CutNav)
				}
				if len(got.WideTables) > 0 {
					t.Errorf("tables wider than the screen with no word that they scroll: %q", got.WideTables)
				}
				if got.OpenHashes > 0 {
					t.Errorf("%d fingerprints shown unfolded", got.OpenHashes)
				}
				if len(got.Codes) > 0 {
					t.Errorf("the case table shows codes, not words: %q", got.Codes)
				}
				for _, p := range tb.log.snapshot().problems() {
					t.Error(p)
				}
			})
		}
	}
}

// glossaryAnchors opens the glossary and lists its entries' anchors.
func glossaryAnchors(t *testing.T, s served) map[string]bool {
	t.Helper()
	tb := openTab(t, shared.needBrowser(t), s.inScope).withTimeout(t, pageTimeout)
	if _, err := tb.open(s.url("glossary.html")); err != nil {
		t.Fatal(err)
	}
	ids, err := eval[[]string](tb, `Array.from(document.querySelectorAll(".glossary [id]"), e => e.id)`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"snapshot", "p95", "pass-rate", "critical", "trial", "flaky", "gate", "interval"}
	anchors := map[string]bool{}
	for _, id := range ids {
		anchors[id] = true
	}
	for _, w := range want {
		if !anchors[w] {
			t.Errorf("the glossary has no entry %q", w)
		}
	}
	for _, p := range tb.log.snapshot().problems() {
		t.Error(p)
	}
	return anchors
}
