//go:build e2e

package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// viewport is a window size a page is opened at. The size is set before
// the page loads and never changed afterwards, as a reader's window is.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

var viewports = []viewport{
	{"1280x900", 1280, 900, false},
	{"1024x768", 1024, 768, false},
	{"390x844", 390, 844, true},
}

// laptopAndPhone are the widths of the checks of what the pages do rather
// than how they fit: a laptop's, and a phone's, where tables become cards.
var laptopAndPhone = []viewport{viewports[0], viewports[2]}

// openAt opens rel of s in a new tab sized to vp, in the colour scheme
// given ("" for the default).
func openAt(t *testing.T, s served, vp viewport, scheme, rel string) *tab {
	t.Helper()
	tb := openTab(t, shared.needBrowser(t), s.inScope).withTimeout(t, pageTimeout)
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if vp.mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(tb.ctx, chromedp.EmulateViewport(vp.width, vp.height, opts...)); err != nil {
		t.Fatal(err)
	}
	if scheme != "" {
		if err := colorScheme(scheme)(tb); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.open(s.url(rel)); err != nil {
		t.Fatal(err)
	}
	return tb
}

// resultsFile is the part of a results file these tests derive their
// expectations from.
type resultsFile struct {
	Label    string `json:"label"`
	Decision string `json:"decision"`
	Trials   int    `json:"trials"`
	Meta     struct {
		RecordedAt string `json:"recorded_at"`
	} `json:"meta"`
	Cases []struct {
		ID           string `json:"case_id"`
		Severity     string `json:"severity"`
		Passed       bool   `json:"passed"`
		Trials       int    `json:"trials"`
		TrialsPassed int    `json:"trials_passed"`
		Failures     []struct {
			Code   string `json:"code"`
			Detail string `json:"detail"`
			Trial  int    `json:"trial"`
		} `json:"failures"`
	} `json:"cases"`
}

func readResults(t *testing.T, dir, label string) resultsFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results", label+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r resultsFile
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// failing lists the ids of the failing cases that keep accepts, in suite
// order.
func (r resultsFile) failing(keep func(severity string, details string) bool) []string {
	var ids []string
	for _, c := range r.Cases {
		var details []string
		for _, f := range c.Failures {
			details = append(details, f.Code+" "+f.Detail)
		}
		if !c.Passed && keep(c.Severity, strings.Join(details, "\n")) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// waitFor polls a JavaScript expression until it is true.
func waitFor(t *testing.T, tb *tab, js string, what string) {
	t.Helper()
	// Generous: a page reloaded on Back from disk, with the machine
	// busy with other suites, can take seconds.
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok, err := eval[bool](tb, js)
		if err != nil && !(navigating(err) && time.Now().Before(deadline)) {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// goBackJS goes back in history once the evaluation that asks for it has
// returned: called directly, the navigation can end the page before the
// answer comes, and the call fails with "Inspected target navigated".
const goBackJS = `setTimeout(() => history.back(), 0)`

// navigating reports whether err says the page went away while it was
// being asked something: it is navigating, and asking again will do.
func navigating(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "navigated or closed") || strings.Contains(msg, "context was destroyed") || strings.Contains(msg, "Cannot find context")
}

func visibleRows(t *testing.T, tb *tab) []string {
	t.Helper()
	ids, err := eval[[]string](tb, visibleRowsJS)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// bothWays runs check on the sample site from a server under a sub-path
// and from file://.
func bothWays(t *testing.T, check func(t *testing.T, s served)) {
	dir := shared.sampleSite(t)
	t.Run("http", func(t *testing.T) { check(t, serveHTTP(t, dir)) })
	t.Run("file", func(t *testing.T) { check(t, serveFiles(dir, true)) })
}

// TestViewsFitTheWindow opens the snapshot, drilldown, compare and cases
// pages at each width without resizing after load: no page may be wider
// than the window. It also saves a window-sized screenshot of each, in
// both colour schemes when all screenshots are wanted.
func TestViewsFitTheWindow(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	pages := []string{"snapshots/baseline-v1.html", "snapshots/candidate-v2/ER-007.html", "compare.html", "cases.html"}
	// The colour scheme changes no width: dark is shot only for people.
	schemes := []string{"light"}
	if allScreenshots() {
		schemes = append(schemes, "dark")
	}
	for _, vp := range viewports {
		for _, rel := range pages {
			t.Run(vp.name+"/"+rel, func(t *testing.T) {
				for _, scheme := range schemes {
					tb := openAt(t, s, vp, scheme, rel)
					got, err := eval[struct{ Scroll, Inner float64 }](tb, `({Scroll: document.documentElement.scrollWidth, Inner: window.innerWidth})`)
					if err != nil {
						t.Fatal(err)
					}
					if got.Scroll > got.Inner {
						wide, _ := eval[[]string](tb, `Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest(".table-wrap")).slice(0, 5).map(e => e.tagName + "." + e.className)`)
						t.Errorf("%s: the page is %.0f px wide in a %.0f px window; too wide: %v", scheme, got.Scroll, got.Inner, wide)
					}
					shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
					if err != nil {
						t.Fatal(err)
					}
					name := strings.NewReplacer("/", "_", ".html", "").Replace(rel) + "-" + vp.name + "-" + scheme + ".png"
					if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
						t.Fatal(err)
					}
					for _, p := range tb.log.snapshot().problems() {
						t.Error(p)
					}
					tb.close()
				}
			})
		}
	}
}

// TestFilterStateInTheURL opens a snapshot page with a filter in its
// address: the table shows that view, and after following a case and
// going Back, and after a reload, it shows it still.
func TestFilterStateInTheURL(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	bothWays(t, func(t *testing.T, s served) {
		res := readResults(t, s.dir, "baseline-v1")
		want := res.failing(func(sev, _ string) bool { return sev == "critical" })
		if len(want) == 0 {
			t.Fatal("the sample's baseline has no failing critical case to filter for")
		}
		for _, vp := range laptopAndPhone {
			t.Run(vp.name, func(t *testing.T) {
				tb := openAt(t, s, vp, "", "snapshots/baseline-v1.html#result=fail&severity=critical")
				check := func(when string) {
					t.Helper()
					waitFor(t, tb, `document.querySelector("form.table-filter select[name=severity]").value === "critical"`, "the severity control "+when)
					if got := visibleRows(t, tb); !slices.Equal(got, want) {
						t.Errorf("%s: rows %v, want the failing critical cases %v", when, got, want)
					}
					controls, err := eval[[]string](tb, `["result", "severity"].map(n => document.querySelector("form.table-filter select[name=" + n + "]").value)`)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(controls, []string{"fail", "critical"}) {
						t.Errorf("%s: controls read %v", when, controls)
					}
				}
				check("on load")
				// Follow the first case and come Back.
				if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`#case-table tbody tr th a`)), chromedp.WaitVisible(chromedp.CSS(`nav.case-steps`))); err != nil {
					t.Fatal(err)
				}
				// history.back: the page may come back from the back-forward
				// cache, which fires no load event to wait for.
				if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](goBackJS)); err != nil {
					t.Fatal(err)
				}
				waitFor(t, tb, `location.pathname.endsWith("/baseline-v1.html") && document.readyState === "complete" && !!document.querySelector("form.table-filter:not([hidden])")`, "the snapshot page after Back")
				check("after Back")
				// A live reload reloads the page at its address.
				if err := chromedp.Do(tb.ctx, chromedp.Reload()); err != nil {
					t.Fatal(err)
				}
				check("after a reload")
				// Changing a control changes the address.
				if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("form.table-filter select[name=severity]"); s.value = ""; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)); err != nil {
					t.Fatal(err)
				}
				hash, err := eval[string](tb, `location.hash`)
				if err != nil {
					t.Fatal(err)
				}
				if hash != "#result=fail" {
					t.Errorf("after clearing the severity the address ends %q, want #result=fail", hash)
				}
				copied, err := eval[string](tb, `new Promise(done => { document.querySelector("form.table-filter button.copy-link").click(); setTimeout(() => done(document.querySelector("form.table-filter output").value), 300); })`)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(copied, "Link copied") && !strings.Contains(copied, "#result=fail") {
					t.Errorf("the copy-link button reports %q", copied)
				}
				for _, p := range tb.log.snapshot().problems() {
					t.Error(p)
				}
			})
		}
	})
}

// TestSearchFindsFailureDetails searches the text of a failure detail,
// which no column shows: the failing cases whose details hold it remain.
func TestSearchFindsFailureDetails(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))
	const term = "issue_payment"
	res := readResults(t, s.dir, "baseline-v1")
	want := res.failing(func(_, details string) bool { return strings.Contains(details, term) })
	if len(want) == 0 {
		t.Fatalf("no failure detail of baseline-v1 mentions %s", term)
	}
	tb := openAt(t, s, viewports[0], "", "snapshots/baseline-v1.html")
	if err := chromedp.Do(tb.ctx, chromedp.SendKeys(chromedp.CSS(`form.table-filter input[name="q"]`), term)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tb, fmt.Sprintf(`document.querySelectorAll("#case-table tbody tr").length === %d`, len(want)), "the search to apply")
	if got := visibleRows(t, tb); !slices.Equal(got, want) {
		t.Errorf("searching %s leaves %v, want %v", term, got, want)
	}
	if hash, _ := eval[string](tb, `location.hash`); hash != "#q="+term {
		t.Errorf("the address ends %q, want #q=%s", hash, term)
	}
}

// comparedSets reads the compare page's case sets.
const comparedSetsJS = `(() => { const out = {};
	document.querySelectorAll("#compare-result .case-set").forEach(s => {
		out[s.dataset.set] = Array.from(s.querySelectorAll("li a")).map(a => a.textContent.trim());
	});
	return out; })()`

// TestCompareAnyTwoSnapshots opens the compare page for two pairs and
// checks the fixed, regressed and still-failing cases against the
// results files, and that each listed case links to its drilldown.
func TestCompareAnyTwoSnapshots(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	bothWays(t, func(t *testing.T, s served) {
		for _, pair := range [][2]string{{"baseline-v1", "candidate-v3"}, {"candidate-v2", "candidate-v3"}, {"candidate-v3", "baseline-v1"}} {
			t.Run(pair[0]+"-"+pair[1], func(t *testing.T) {
				a, b := readResults(t, s.dir, pair[0]), readResults(t, s.dir, pair[1])
				// Flips that could be chance are listed apart (compareSets).
				want := compareSets(a, b)
				tb := openAt(t, s, viewports[0], "", "compare.html#from="+pair[0]+"&to="+pair[1])
				got, err := eval[map[string][]string](tb, comparedSetsJS)
				if err != nil {
					t.Fatal(err)
				}
				for set, ids := range want {
					if !slices.Equal(got[set], ids) {
						t.Errorf("%s: %v, want %v", set, got[set], ids)
					}
				}
				hrefs, err := eval[[]string](tb, `Array.from(document.querySelectorAll("#compare-result .case-set li a")).map(a => a.href)`)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hrefs {
					if rel, ok := s.rel(h); !ok || !strings.HasPrefix(rel, "snapshots/"+pair[1]+"/") {
						t.Errorf("a listed case links to %s, not to its drilldown in %s", h, pair[1])
					}
				}
				decisions, err := eval[string](tb, `document.querySelector("#compare-result tr[data-gate=decision]").textContent`)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(decisions, designedDecisions[pair[0]]) || !strings.Contains(decisions, designedDecisions[pair[1]]) {
					t.Errorf("the decision row reads %q", decisions)
				}
				for _, p := range tb.log.snapshot().problems() {
					t.Error(p)
				}
			})
		}
	})
}

// TestMatrixCellsLeadToDrilldowns checks every cell of the cases matrix:
// it links to the drilldown of its row's case in its column's snapshot and
// shows that result; following one lands on that drilldown.
func TestMatrixCellsLeadToDrilldowns(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	bothWays(t, func(t *testing.T, s served) {
		tb := openAt(t, s, viewports[2], "", "cases.html")
		type cellInfo struct{ Case, Label, Href, Text string }
		cells, err := eval[[]cellInfo](tb, `(() => {
			const labels = Array.from(document.querySelectorAll("#matrix-table thead th")).slice(2).map(th => th.textContent.trim());
			const out = [];
			document.querySelectorAll("#matrix-table tbody tr").forEach(tr => {
				const id = tr.querySelector("th").textContent.trim();
				tr.querySelectorAll("td.matrix-cell").forEach((td, i) => out.push({Case: id, Label: labels[i], Href: td.querySelector("a").href, Text: td.textContent.trim()}));
			});
			return out; })()`)
		if err != nil {
			t.Fatal(err)
		}
		results := map[string]resultsFile{}
		total := 0
		for _, l := range []string{"baseline-v1", "candidate-v2", "candidate-v3"} {
			results[l] = readResults(t, s.dir, l)
			total += len(results[l].Cases)
		}
		if len(cells) != total {
			t.Fatalf("%d cells, want %d", len(cells), total)
		}
		for _, c := range cells {
			rel, ok := s.rel(c.Href)
			if want := "snapshots/" + c.Label + "/" + c.Case + ".html"; !ok || rel != want {
				t.Errorf("cell %s × %s links to %s, want %s", c.Case, c.Label, c.Href, want)
			}
			passed := false
			for _, r := range results[c.Label].Cases {
				if r.ID == c.Case {
					passed = r.Passed
				}
			}
			if strings.HasSuffix(c.Text, "pass") != passed {
				t.Errorf("cell %s × %s reads %q; the results say passed=%v", c.Case, c.Label, c.Text, passed)
			}
		}
		if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`#matrix-table tbody tr:nth-child(4) td.matrix-cell a`)), chromedp.WaitVisible(chromedp.CSS(`nav.case-steps`))); err != nil {
			t.Fatal(err)
		}
		h1, err := eval[string](tb, `document.querySelector("h1").textContent`)
		if err != nil {
			t.Fatal(err)
		}
		if want := cells[3*3].Case + " in " + cells[3*3].Label; !strings.HasPrefix(strings.TrimSpace(h1), want) {
			t.Errorf("the fourth row's first cell opened %q, want %q", h1, want)
		}
		for _, p := range tb.log.snapshot().problems() {
			t.Error(p)
		}
	})
}

// TestLargeSnapshotTable opens the snapshot page of a generated
// 10,000-case suite: its first rows must be there and their controls live
// within a second of navigation, and filtering must cover every case.
func TestLargeSnapshotTable(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	if testing.Short() {
		t.Skip("builds a 10,000-case site")
	}
	const n = 10000
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, data, n); err != nil {
		t.Fatal(err)
	}
	dir, err := buildSite(data, filepath.Join(t.TempDir(), "site"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"snapshots/baseline-v1.html", "data/cases.js", "data/snapshots/baseline-v1.js", "data/matrix.js"} {
		if info, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Logf("%s: %d bytes", f, info.Size())
		}
	}
	res := readResults(t, dir, "baseline-v1")
	failing := len(res.failing(func(string, string) bool { return true }))
	last := res.Cases[len(res.Cases)-1].ID

	// The machine may be shared and busy: the sample's 12-case snapshot
	// page, opened the same way, tells how long any page takes here. On
	// a machine that opens it within a third of a second the bound is one
	// second; on a slower one, three times the sample's time.
	sample := serveHTTP(t, shared.sampleSite(t))
	small, _ := timeTable(t, sample, "snapshots/baseline-v1.html")
	limit := max(1000, 3*small.Interactive)
	t.Logf("the 12-case snapshot page: rows live %.0f ms, a typed filter changed them %.0f ms after navigation; the bound is %.0f ms", small.Live, small.Interactive, limit)

	for _, way := range []struct {
		name string
		s    served
	}{{"http", serveHTTP(t, dir)}, {"file", serveFiles(dir, true)}} {
		t.Run(way.name, func(t *testing.T) {
			// Other work on the machine only adds time: of up to three
			// openings, the fastest tells what the page costs.
			var times tableTimes
			var tb *tab
			for try := 1; try <= 3; try++ {
				if tb != nil {
					tb.close()
				}
				times, tb = timeTable(t, way.s, "snapshots/baseline-v1.html")
				t.Logf("10,000 cases, opening %d: first paint %.0f ms, first rows live %.0f ms, a typed filter changed them %.0f ms, every case filterable %.0f ms after navigation",
					try, times.FirstPaint, times.Live, times.Interactive, times.Ready)
				if times.Interactive <= limit {
					break
				}
			}
			if !times.Changed {
				t.Error("typing a case id into the filter as soon as the rows were live did not narrow the rows to that case")
			}
			if times.Live <= 0 || times.Interactive > limit {
				t.Errorf("the first rows answered a typed filter %.0f ms after navigation, want within %.0f", times.Interactive, limit)
			}
			// A real click on a sort heading reorders the rows.
			before := visibleRows(t, tb)
			if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`#case-table thead th[data-key=case] button`)), chromedp.Click(chromedp.CSS(`#case-table thead th[data-key=case] button`))); err != nil {
				t.Fatal(err)
			}
			if after := visibleRows(t, tb); len(after) == 0 || slices.Equal(after, before) || after[0] != last {
				t.Errorf("sorting by case id, descending: first rows %.80v, want %s first", after, last)
			}
			if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("form.table-filter select[name=sort]"); s.value = ""; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)); err != nil {
				t.Fatal(err)
			}
			count := func() string {
				c, err := eval[string](tb, `document.querySelector("form.table-filter output").value`)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			if c := count(); !strings.HasPrefix(c, fmt.Sprintf("%d of %d cases shown", n, n)) {
				t.Errorf("unfiltered count reads %q", c)
			}
			if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("form.table-filter select[name=result]"); s.value = "fail"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)); err != nil {
				t.Fatal(err)
			}
			if c := count(); !strings.HasPrefix(c, fmt.Sprintf("%d of %d cases shown", failing, n)) {
				t.Errorf("failing filter count reads %q, the results have %d failing", c, failing)
			}
			if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector("form.table-filter select[name=result]"); s.value = ""; s.dispatchEvent(new Event("change", {bubbles: true})); })()`),
				chromedp.SendKeys(chromedp.CSS(`form.table-filter input[name="q"]`), last)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, tb, `document.querySelectorAll("#case-table tbody tr").length === 1`, "the search for the last case")
			if got := visibleRows(t, tb); !slices.Equal(got, []string{last}) {
				t.Errorf("searching %s shows %v", last, got)
			}
			for _, p := range tb.log.snapshot().problems() {
				t.Error(p)
			}
		})
	}
}

// tableTimes are when a snapshot page's table became usable, in
// milliseconds after navigation.
type tableTimes struct {
	FirstPaint float64 // the first contentful paint
	Live       float64 // the table script made the first rows' controls
	// Interactive is when typing a filter first changed the rows, and
	// Changed whether it did.
	Interactive float64
	Changed     bool
	Ready       float64 // every case is loaded and filterable
}

// timeTable opens a snapshot page and records when its table became live
// and when every case was loaded.
func timeTable(t *testing.T, s served, rel string) (tableTimes, *tab) {
	t.Helper()
	tb := openTab(t, shared.needBrowser(t), s.inScope).withTimeout(t, 2*pageTimeout)
	// live: the table script has made the sort buttons over rows that are
	// laid out. interactive: the first task after that, when a reader's
	// click or key could be handled, types the second row's id into the
	// filter as a reader would and sees the rows change; it then clears
	// the filter again.
	const probe = `(() => { self.__times = {};
		const ids = t => Array.from(t.tBodies[0].rows, r => r.cells[0].textContent.trim());
		const seen = () => {
			const t = document.getElementById("case-table");
			if (!t) return;
			const rows = t.tBodies[0] ? t.tBodies[0].rows : [];
			if (!self.__times.live && t.querySelector("thead button") && rows.length > 1 && rows[0].getBoundingClientRect().height > 0) {
				self.__times.live = performance.now();
				setTimeout(() => {
					const q = document.querySelector("form.table-filter input[name=q]");
					const before = ids(t), want = before[1];
					q.value = want;
					q.dispatchEvent(new Event("input", {bubbles: true}));
					const after = ids(t);
					self.__times.interactive = performance.now();
					self.__times.changed = after.length >= 1 && after.every(id => id === want) && after.length < before.length;
					q.value = "";
					q.dispatchEvent(new Event("input", {bubbles: true}));
				}, 0);
			}
			if (!self.__times.ready && t.hasAttribute("data-ready")) self.__times.ready = performance.now();
		};
		new MutationObserver(seen).observe(document, {subtree: true, childList: true, attributes: true});
	})()`
	if _, err := chromedp.Call(tb.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: probe}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.open(s.url(rel)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tb, `!!(self.__times && self.__times.ready && self.__times.interactive)`, "every case to load")
	times, err := eval[tableTimes](tb, `({Live: self.__times.live, Interactive: self.__times.interactive, Changed: !!self.__times.changed, Ready: self.__times.ready,
		FirstPaint: (performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime || 0})`)
	if err != nil {
		t.Fatal(err)
	}
	return times, tb
}

// TestSortStateInTheURL follows the address the "why" section gives the
// latency gate: the table is ordered slowest first and the order list
// says so.
func TestSortStateInTheURL(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	s := serveHTTP(t, shared.sampleSite(t))
	tb := openAt(t, s, viewports[2], "", "snapshots/candidate-v2.html")
	href, err := eval[string](tb, `(document.querySelector(".why-gate[data-gate=p95_latency_ms] .why-all a") || {}).href || ""`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(href, "#sort=latency-desc") {
		t.Fatalf("the latency gate's link is %q", href)
	}
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`.why-gate[data-gate=p95_latency_ms] .why-all a`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tb, `document.querySelector("form.table-filter select[name=sort]").value === "latency-desc"`, "the order list")
	got, err := eval[[]float64](tb, `Array.from(document.querySelectorAll("#case-table tbody tr")).map(r => parseFloat(r.querySelector("td[data-label=Latency]").dataset.value))`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !slices.IsSortedFunc(got, func(a, b float64) int { return cmp.Compare(b, a) }) {
		t.Errorf("latencies in table order %v, want slowest first", got)
	}
	sorted, err := eval[string](tb, `document.querySelector("#case-table th[aria-sort]") ? document.querySelector("#case-table th[aria-sort]").dataset.key + " " + document.querySelector("#case-table th[aria-sort]").getAttribute("aria-sort") : ""`)
	if err != nil {
		t.Fatal(err)
	}
	if sorted != "latency descending" {
		t.Errorf("the sorted column heading says %q", sorted)
	}
}
