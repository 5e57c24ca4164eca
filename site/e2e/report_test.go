//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/releasegate/releasegate/evaluator/stats"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/internal/bundle"
)

// The report's key checks on data other than the sample: the generated
// suite of 3,000 cases with 44-character labels, and the airline example
// with trials served under a sub-path, opened from disk and unpacked from
// a bundle. Every expectation comes from the site's results files.

// releaseOrder reads every results file of a built site in the order of
// the docs/data-format.md, "Provenance and order": by recorded_at when every snapshot has one (ties
// by label), else by label with digit runs compared as numbers. The last
// one is the decisive snapshot.
func releaseOrder(t *testing.T, dir string) []resultsFile {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "results", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no results files in %s (%v)", dir, err)
	}
	var out []resultsFile
	timed := true
	for _, f := range files {
		r := readResults(t, dir, strings.TrimSuffix(filepath.Base(f), ".json"))
		timed = timed && r.Meta.RecordedAt != ""
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b resultsFile) int {
		if timed {
			ta, errA := time.Parse(time.RFC3339, a.Meta.RecordedAt)
			tb, errB := time.Parse(time.RFC3339, b.Meta.RecordedAt)
			if errA != nil || errB != nil {
				t.Fatalf("recorded_at %q, %q", a.Meta.RecordedAt, b.Meta.RecordedAt)
			}
			if c := ta.Compare(tb); c != 0 {
				return c
			}
			return cmp.Compare(a.Label, b.Label)
		}
		return naturalCompare(a.Label, b.Label)
	})
	return out
}

// naturalCompare orders labels with digit runs compared as numbers.
func naturalCompare(a, b string) int {
	digits := func(s string) string {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return s[:i]
	}
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da != "" && db != "" {
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func TestNaturalCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"v2", "v10", -1},
		{"v10", "v2", 1},
		{"a-baseline", "b-candidate", -1},
		{"nightly-9", "nightly-09", 0},
		{"run", "run-1", -1},
	}
	for _, tt := range tests {
		if got := naturalCompare(tt.a, tt.b); got != tt.want {
			t.Errorf("naturalCompare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// listLimit is how many cases the compare page lists under one heading
// (LIST_LIMIT in assets/tables.js).
const listLimit = 500

// compareSets works out what the compare page must list for the pair
// from → to (docs/evidence.md, "Reading the pages"): a case with no
// output in to (and one in from) is listed as "no output"; with trials in
// either, a case flaky in either snapshot is listed apart as flaky; a
// flip that could be chance (Fisher's test within noise when both sides
// have trials, else the whole comparison not significant by McNemar) is
// listed under "chance", and only the rest as fixed or regressed. The
// tests are evaluator/stats', at the sample's 95 % confidence.
func compareSets(from, to resultsFile) map[string][]string {
	want := map[string][]string{"fixed": {}, "regressed": {}, "still-failing": {}}
	trials := from.Trials > 0 || to.Trials > 0
	if trials {
		want["flaky"] = []string{}
	}
	flaky := func(k, passed int) bool { return k > 0 && passed > 0 && passed < k }
	// No output at all: with trials, in none of them.
	noOutput := func(r resultsFile, i int) bool {
		missing := 0
		for _, f := range r.Cases[i].Failures {
			if f.Code == "missing_output" {
				missing++
			}
		}
		return missing > 0 && missing >= r.Trials
	}
	regressions, fixes := 0, 0
	for i, a := range from.Cases {
		if b := to.Cases[i]; a.Passed != b.Passed {
			if a.Passed {
				regressions++
			} else {
				fixes++
			}
		}
	}
	significant := stats.McNemar(regressions, fixes) < 0.05
	for i, a := range from.Cases {
		b := to.Cases[i]
		set := ""
		switch {
		case noOutput(to, i) && !noOutput(from, i):
			set = "no-output"
		case trials && (flaky(a.Trials, a.TrialsPassed) || flaky(b.Trials, b.TrialsPassed)):
			set = "flaky"
		case a.Passed != b.Passed:
			real := significant
			if a.Trials > 0 && b.Trials > 0 {
				real = stats.Fisher(a.TrialsPassed, a.Trials, b.TrialsPassed, b.Trials) < 0.05
			}
			switch {
			case !real:
				set = "chance"
			case b.Passed:
				set = "fixed"
			default:
				set = "regressed"
			}
		case !a.Passed && !b.Passed:
			set = "still-failing"
		}
		if set != "" {
			want[set] = append(want[set], a.ID)
		}
	}
	return want
}

// compareSetsJS reads every case set of the compare page: the ids listed
// and the count in its heading.
const compareSetsJS = `(() => { const out = {};
	document.querySelectorAll("#compare-result .case-set").forEach(s => {
		const m = /\((\d+)\)\s*$/.exec(s.querySelector("h2").textContent);
		out[s.dataset.set] = {ids: Array.from(s.querySelectorAll("li a"), a => a.textContent.trim()), count: m ? +m[1] : -1,
			hrefs: Array.from(s.querySelectorAll("li a"), a => a.href)};
	});
	return out; })()`

type shownSet struct {
	IDs   []string `json:"ids"`
	Count int      `json:"count"`
	Hrefs []string `json:"hrefs"`
}

// checkCompare opens compare.html for from → to and checks every case set
// against the results, and that each listed case links to its drilldown
// in to.
func checkCompare(t *testing.T, s served, vp viewport, from, to resultsFile) {
	t.Helper()
	want := compareSets(from, to)
	tb := openAt(t, s, vp, "", "compare.html#from="+from.Label+"&to="+to.Label)
	waitFor(t, tb, `document.querySelectorAll("#compare-result .case-set").length > 0`, "the comparison")
	got, err := eval[map[string]shownSet](tb, compareSetsJS)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%s → %s: sets %v, want %d sets", from.Label, to.Label, slices.Sorted(maps.Keys(got)), len(want))
	}
	for set, ids := range want {
		g := got[set]
		if g.Count != len(ids) {
			t.Errorf("%s → %s: %s heading counts %d, want %d", from.Label, to.Label, set, g.Count, len(ids))
		}
		if shown := ids[:min(len(ids), listLimit)]; !slices.Equal(g.IDs, shown) {
			t.Errorf("%s → %s: %s lists %d cases %.200v, want %d %.200v", from.Label, to.Label, set, len(g.IDs), g.IDs, len(shown), shown)
		}
		for _, h := range g.Hrefs {
			if rel, ok := s.rel(h); !ok || !strings.HasPrefix(rel, "snapshots/"+to.Label+"/") {
				t.Errorf("%s: a listed case links to %s, not to its drilldown in %s", set, h, to.Label)
				break
			}
		}
	}
	for _, p := range tb.log.snapshot().problems() {
		t.Error(p)
	}
}

// checkVerdict opens the overview: its first screen names the decisive
// snapshot and its decision.
func checkVerdict(t *testing.T, s served, vp viewport, decisive resultsFile) {
	t.Helper()
	tb := openAt(t, s, vp, "", "index.html")
	got, err := eval[verdictProbe](tb, verdictProbeJS)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Found {
		t.Fatal("no verdict sentence")
	}
	for _, want := range []string{decisive.Label, decisive.Decision} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("verdict %q lacks %q", got.Text, want)
		}
	}
	if got.Top < 0 || got.Bottom > float64(vp.height) {
		t.Errorf("the verdict lies at %.0f–%.0f px, outside the first screen of %d px", got.Top, got.Bottom, vp.height)
	}
	for _, p := range tb.log.snapshot().problems() {
		t.Error(p)
	}
}

// tablePage is the case table's first page size (PAGE_SIZE in
// assets/tables.js).
const tablePage = 100

// checkFilteredURL opens a snapshot page at an address that filters its
// table to the failing cases of one severity: the table shows them, and
// shows them again after following a case and going Back.
func checkFilteredURL(t *testing.T, s served, vp viewport, snap resultsFile) {
	t.Helper()
	severity := ""
	for _, c := range snap.Cases {
		if !c.Passed {
			severity = c.Severity
			break
		}
	}
	if severity == "" {
		t.Fatalf("%s has no failing case to filter for", snap.Label)
	}
	want := snap.failing(func(sev, _ string) bool { return sev == severity })
	count := fmt.Sprintf("%d of %d cases shown", len(want), len(snap.Cases))
	tb := openAt(t, s, vp, "", "snapshots/"+snap.Label+".html#result=fail&severity="+severity)
	check := func(when string) {
		t.Helper()
		waitFor(t, tb, `document.getElementById("case-table").hasAttribute("data-ready") && document.querySelector("form.table-filter select[name=severity]").value === "`+severity+`"`, "the filtered table "+when)
		if got, shown := visibleRows(t, tb), want[:min(len(want), tablePage)]; !slices.Equal(got, shown) {
			t.Errorf("%s: rows %.300v, want the %d failing %s cases %.300v", when, got, len(shown), severity, shown)
		}
		got, err := eval[string](tb, `document.querySelector("form.table-filter output").value`)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got, count) {
			t.Errorf("%s: the count reads %q, want %q", when, got, count)
		}
	}
	check("on load")
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(`#case-table tbody tr th a`)), chromedp.WaitVisible(chromedp.CSS(`nav.case-steps`))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](goBackJS)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tb, `location.pathname.endsWith("/`+snap.Label+`.html") && document.readyState === "complete" && !!document.querySelector("form.table-filter:not([hidden])")`, "the snapshot page after Back")
	check("after Back")
	for _, p := range tb.log.snapshot().problems() {
		t.Error(p)
	}
}

// checkWidths opens each page at vp: none may be wider than the window.
func checkWidths(t *testing.T, s served, vp viewport, pages []string) {
	t.Helper()
	for _, rel := range pages {
		tb := openAt(t, s, vp, "", rel)
		got, err := eval[widthProbe](tb, widthProbeJS)
		if err != nil {
			t.Fatal(err)
		}
		if got.Width != vp.width {
			t.Errorf("%s: the window is %d px wide, want %d", rel, got.Width, vp.width)
		}
		if got.ScrollWidth > vp.width {
			t.Errorf("%s: the page is %d px wide in a %d px window", rel, got.ScrollWidth, vp.width)
		}
		for _, w := range got.Wide {
			t.Errorf("%s reaches past the window: %s", rel, w)
		}
		for _, p := range tb.log.snapshot().problems() {
			t.Errorf("%s: %s", rel, p)
		}
		tb.close()
	}
}

// checkNotFound opens the 404 page (served by the host for a missing
// address at depth, or the file itself from disk) and follows its link
// home to the overview.
func checkNotFound(t *testing.T, s served, missing string) {
	t.Helper()
	tb := openTab(t, shared.needBrowser(t), s.inScope).withTimeout(t, pageTimeout)
	status, err := tb.open(s.url(missing))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(s.base, "http") && status != 404 {
		t.Fatalf("%s: status %d, want the host's 404", missing, status)
	}
	links, err := eval[map[string]string](tb, `new Promise(done => {
		const list = document.querySelector(".not-found-pages");
		const read = () => { const m = {}; list.querySelectorAll("a").forEach(a => m[a.textContent] = a.href); done(m); };
		const start = Date.now();
		const wait = () => list.hasAttribute("data-top") || Date.now() - start > 10000 ? read() : setTimeout(wait, 50);
		wait();
	})`)
	if err != nil {
		t.Fatal(err)
	}
	if links["Release overview"] != s.url("index.html") {
		t.Fatalf("%s: the home link leads to %q, want %q", missing, links["Release overview"], s.url("index.html"))
	}
	if _, err := tb.open(links["Release overview"]); err != nil {
		t.Fatal(err)
	}
	if found, err := eval[bool](tb, `!!document.querySelector("#verdict .verdict-sentence")`); err != nil || !found {
		t.Errorf("home from %s shows no verdict (%v)", missing, err)
	}
	for _, p := range tb.log.snapshot().problems() {
		if !strings.Contains(p, "404") {
			t.Error(p)
		}
	}
}

// TestGeneratedSuiteViews runs the report's key checks on the generated
// suite of 3,000 cases with 44-character labels, at a laptop's and a
// phone's width set before load: the verdict, a filtered address and Back, a compare
// pair, and no page wider than the window.
func TestGeneratedSuiteViews(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	if testing.Short() {
		t.Skip("builds a 3,000-case site")
	}
	dir, err := generatedSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, dir)
	order := releaseOrder(t, dir)
	if len(order) != 3 || order[2].Label != generatedLabels["candidate-v3"] {
		t.Fatalf("the generated snapshots in order: %v", labelsOf(order))
	}
	first, last := order[0], order[len(order)-1]
	pages := []string{"index.html", "snapshots/" + first.Label + ".html", "snapshots/" + first.Label + "/" + first.Cases[3].ID + ".html", "compare.html", "cases.html"}
	// A laptop's and a phone's width: the sample's pages are checked at
	// every width elsewhere.
	for _, vp := range laptopAndPhone {
		t.Run(vp.name, func(t *testing.T) {
			t.Run("verdict", func(t *testing.T) { checkVerdict(t, s, vp, last) })
			t.Run("filtered", func(t *testing.T) { checkFilteredURL(t, s, vp, first) })
			t.Run("compare", func(t *testing.T) {
				checkCompare(t, s, vp, order[1], last)
				checkCompare(t, s, vp, last, first)
			})
			t.Run("width", func(t *testing.T) { checkWidths(t, s, vp, pages) })
		})
	}
}

func labelsOf(rs []resultsFile) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Label
	}
	return out
}

// TestExampleKeyChecksEverywhere runs the key checks on the airline
// example (trials, provenance, several call formats) as each kind of
// reader opens it: from a host under /repo/, from file:// and from an
// unpacked bundle.
func TestExampleKeyChecksEverywhere(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	dir := airlineDir(t)
	tmp := t.TempDir()
	created, err := bundle.Create(bundle.Options{Data: airlineData, Dir: tmp})
	if err != nil {
		t.Fatalf("create the bundle: %v", err)
	}
	unpacked, err := bundle.Extract(created.Path, filepath.Join(tmp, "unpacked"), bundle.Limits{})
	if err != nil {
		t.Fatalf("extract %s: %v", created.Path, err)
	}
	// A laptop's and a phone's width from the host; from disk, where what
	// differs is how addresses resolve and not the layout, the laptop's.
	ways := []struct {
		name      string
		s         served
		missing   string
		viewports []viewport
	}{
		{"repo-subpath", serveAt(t, dir, "/repo/"), "snapshots/candidate/NA-999/deeper.html", laptopAndPhone},
		{"file", serveFiles(dir, true), "404.html", viewports[:1]},
		{"bundle", serveFiles(unpacked.Dir, true), "404.html", viewports[:1]},
	}
	for _, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			order := releaseOrder(t, way.s.dir)
			if got := labelsOf(order); !slices.Equal(got, []string{"baseline", "retrained", "candidate"}) {
				t.Fatalf("the airline snapshots in order: %v", got)
			}
			first, last := order[0], order[len(order)-1]
			for _, vp := range way.viewports {
				t.Run(vp.name, func(t *testing.T) {
					checkVerdict(t, way.s, vp, last)
					checkFilteredURL(t, way.s, vp, order[1])
					checkCompare(t, way.s, vp, first, last)
					checkCompare(t, way.s, vp, order[1], last)
				})
			}
			t.Run("404", func(t *testing.T) { checkNotFound(t, way.s, way.missing) })
		})
	}
}

// TestCompareListsFlakyCases picks pairs of the airline example, whose
// snapshots have no trials, three and four: the compare page lists as
// flaky exactly the cases flaky in either snapshot, keeps them out of
// fixed, regressed and still failing, and words their trials.
func TestCompareListsFlakyCases(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	s := serveHTTP(t, airlineDir(t))
	byLabel := map[string]resultsFile{}
	for _, r := range releaseOrder(t, s.dir) {
		byLabel[r.Label] = r
	}
	tests := []struct {
		from, to string
		flaky    []string // examples/airline/README.md
	}{
		{"baseline", "candidate", []string{"NA-005", "NA-007", "NA-009"}},
		{"retrained", "candidate", []string{"NA-003", "NA-005", "NA-007", "NA-009"}},
		{"baseline", "retrained", []string{"NA-003", "NA-005", "NA-009"}},
	}
	for _, tt := range tests {
		t.Run(tt.from+"-"+tt.to, func(t *testing.T) {
			from, to := byLabel[tt.from], byLabel[tt.to]
			if got := compareSets(from, to)["flaky"]; !slices.Equal(got, tt.flaky) {
				t.Fatalf("the results make %v flaky, the example's README %v", got, tt.flaky)
			}
			checkCompare(t, s, viewports[0], from, to)
			tb := openAt(t, s, viewports[2], "", "compare.html#from="+tt.from+"&to="+tt.to)
			got, err := eval[struct {
				Notes   []string `json:"notes"`
				Summary string   `json:"summary"`
			}](tb, `({notes: Array.from(document.querySelectorAll('#compare-result .case-set[data-set=flaky] li'), li => li.textContent.replace(/\s+/g, " ").trim()),
				summary: document.querySelector("#compare-result .compare-summary").textContent})`)
			if err != nil {
				t.Fatal(err)
			}
			index := map[string]int{}
			for i, c := range from.Cases {
				index[c.ID] = i
			}
			words := func(r resultsFile, id string) string {
				c := r.Cases[index[id]]
				v := "fail"
				if c.Passed {
					v = "pass"
				}
				if r.Trials > 0 {
					v += fmt.Sprintf(", %d/%d trials", c.TrialsPassed, r.Trials)
				}
				return v
			}
			for i, id := range tt.flaky {
				want := "(" + words(from, id) + " → " + words(to, id)
				// A flip with trials on both sides says what Fisher's test
				// makes of it.
				if a, b := from.Cases[index[id]], to.Cases[index[id]]; a.Passed != b.Passed && from.Trials > 0 && to.Trials > 0 {
					p := stats.Fisher(a.TrialsPassed, from.Trials, b.TrialsPassed, to.Trials)
					want += "; " + map[bool]string{true: "significant", false: "within noise"}[p < 0.05] + fmt.Sprintf(", Fisher's exact test p = %v", stats.RoundSignificant(p, 6))
				}
				want += ")"
				if i >= len(got.Notes) || !strings.HasPrefix(got.Notes[i], id+" ") || !strings.HasSuffix(got.Notes[i], want) {
					t.Errorf("flaky entry %d reads %q, want %s … %s", i, at(got.Notes, i), id, want)
				}
			}
			if want := fmt.Sprintf("%d flaky in either snapshot", len(tt.flaky)); !strings.Contains(got.Summary, want) {
				t.Errorf("the summary %q does not say %q", got.Summary, want)
			}
			for _, p := range tb.log.snapshot().problems() {
				t.Error(p)
			}
		})
	}
	// The sample has no trials: its compare page has no flaky heading.
	sample := serveHTTP(t, shared.sampleSite(t))
	tb := openAt(t, sample, viewports[0], "", "compare.html#from=baseline-v1&to=candidate-v3")
	if n, err := eval[int](tb, `document.querySelectorAll("#compare-result .case-set[data-set=flaky]").length`); err != nil || n != 0 {
		t.Errorf("the sample's comparison has %d flaky lists (%v), want none", n, err)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// writeFlakyTrials writes a generated suite of n cases with three trials
// per snapshot and makes some cases flaky in candidate-v3: every ninth
// case from the fifth loses trial 2 (no output), and every other copy of
// the sample's ER-007 gets candidate-v2's trial 3, which cites an
// outdated rule.
func writeFlakyTrials(dir string, n int) error {
	if err := gensuite.WriteTrials(sampleData, dir, n, 3); err != nil {
		return err
	}
	type key struct {
		id    string
		trial int
	}
	read := func(label string) ([][]byte, []key, error) {
		b, err := os.ReadFile(filepath.Join(dir, "outputs", label+".jsonl"))
		if err != nil {
			return nil, nil, err
		}
		var lines [][]byte
		var keys []key
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var k struct {
				ID    string `json:"case_id"`
				Trial int    `json:"trial"`
			}
			if err := json.Unmarshal(sc.Bytes(), &k); err != nil {
				return nil, nil, err
			}
			lines = append(lines, slices.Clone(sc.Bytes()))
			keys = append(keys, key{k.ID, k.Trial})
		}
		return lines, keys, sc.Err()
	}
	v2Lines, v2Keys, err := read("candidate-v2")
	if err != nil {
		return err
	}
	v2 := map[key][]byte{}
	for i, k := range v2Keys {
		v2[k] = v2Lines[i]
	}
	lines, keys, err := read("candidate-v3")
	if err != nil {
		return err
	}
	position := map[string]int{}
	for i := range n {
		position[gensuite.ID(i)] = i
	}
	var out bytes.Buffer
	for j, k := range keys {
		i := position[k.id]
		line := lines[j]
		switch {
		case i%9 == 4 && k.trial == 2:
			continue
		case i%12 == 6 && (i/12)%2 == 0 && k.trial == 3:
			line = v2[k]
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(dir, "outputs", "candidate-v3.jsonl"), out.Bytes(), 0o644)
}

// flakyTrialSites builds the suite of writeFlakyTrials once per run at
// 48 cases, a table the page holds, and at 240, one it loads from data
// files; the folders by size.
var flakyTrialSites = sync.OnceValues(func() (map[int]string, error) {
	dirs := map[int]string{}
	for _, n := range []int{48, 240} {
		data := filepath.Join(shared.tmp, fmt.Sprint("flaky-data-", n))
		if err := writeFlakyTrials(data, n); err != nil {
			return nil, err
		}
		dir, err := buildSite(data, filepath.Join(shared.tmp, fmt.Sprint("flaky-site-", n)))
		if err != nil {
			return nil, err
		}
		dirs[n] = dir
	}
	return dirs, nil
})

// rowLookJS describes the one row the case table shows as a reader
// meets it: its text as laid out, and every element in it with its
// classes, its name for assistive technology and its box relative to the
// row.
const rowLookJS = `(() => {
	const rows = document.querySelectorAll("#case-table tbody tr");
	if (rows.length !== 1) return {count: rows.length};
	const tr = rows[0], base = tr.getBoundingClientRect();
	const parts = [];
	const walk = (node, depth) => {
		for (const c of node.childNodes) {
			if (c.nodeType === 3) {
				const text = c.textContent.replace(/\s+/g, " ").trim();
				if (text) parts.push(depth + " text " + text);
				continue;
			}
			if (c.nodeType !== 1) continue;
			const r = c.getBoundingClientRect();
			const attrs = ["class", "role", "aria-label", "aria-hidden", "data-label", "href"].map(a => c.hasAttribute(a) ? a + "=" + c.getAttribute(a) : "").filter(Boolean).join(" ");
			parts.push(depth + " " + c.tagName.toLowerCase() + " " + attrs + " @" + Math.round(r.left - base.left) + "," + Math.round(r.top - base.top) + " " + Math.round(r.width) + "x" + Math.round(r.height));
			walk(c, depth + 1);
		}
	};
	walk(tr, 0);
	return {count: 1, text: tr.innerText, flaky: tr.getAttribute("data-flaky") || "", parts: parts};
})()`

type rowLook struct {
	Count int      `json:"count"`
	Text  string   `json:"text"`
	Flaky string   `json:"flaky"`
	Parts []string `json:"parts"`
}

// TestLoadedRowsKeepTrialStrips builds the same flaky suite at 48 cases,
// whose table the page holds, and at 240, whose table loads its rows from
// data files: the row of a case looks the same in both, trial strip and
// flaky badge included, at a laptop's and a phone's width; and the
// loaded table's flaky filter finds every flaky case.
func TestLoadedRowsKeepTrialStrips(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	dirs, err := flakyTrialSites()
	if err != nil {
		t.Fatal(err)
	}
	sites := map[int]served{}
	for n, dir := range dirs {
		sites[n] = serveHTTP(t, dir)
	}
	v3 := readResults(t, sites[240].dir, "candidate-v3")
	var flaky []string
	for _, c := range v3.Cases {
		if c.TrialsPassed > 0 && c.TrialsPassed < c.Trials {
			flaky = append(flaky, c.ID)
		}
	}
	// A case that lost a trial, one with a failed trial, one that passed
	// every trial without a measured latency, and one that failed all.
	cases := []struct{ label, id, why string }{
		{"candidate-v3", gensuite.ID(4), "a trial without output"},
		{"candidate-v3", gensuite.ID(6), "a failed trial"},
		{"candidate-v3", gensuite.ID(0), "every trial passed, nothing measured"},
		{"baseline-v1", gensuite.ID(3), "every trial failed"},
	}
	for _, c := range cases[:2] {
		if !slices.Contains(flaky, c.id) {
			t.Fatalf("%s is not flaky in %s; flaky: %v", c.id, c.label, flaky)
		}
	}
	for _, vp := range laptopAndPhone {
		for _, c := range cases {
			t.Run(vp.name+"/"+c.id+"-"+c.label, func(t *testing.T) {
				var looks [2]rowLook
				for i, n := range []int{48, 240} {
					tb := openAt(t, sites[n], vp, "", "snapshots/"+c.label+".html#q="+c.id)
					waitFor(t, tb, `document.getElementById("case-table").hasAttribute("data-ready")`, "the table")
					loaded, err := eval[bool](tb, `document.getElementById("case-table").hasAttribute("data-rows")`)
					if err != nil {
						t.Fatal(err)
					}
					if loaded != (n > 100) {
						t.Fatalf("%d cases: the table loads its rows from data files: %v", n, loaded)
					}
					looks[i], err = eval[rowLook](tb, rowLookJS)
					if err != nil {
						t.Fatal(err)
					}
					if looks[i].Count != 1 {
						t.Fatalf("%d cases: %d rows for %s", n, looks[i].Count, c.id)
					}
					for _, p := range tb.log.snapshot().problems() {
						t.Error(p)
					}
					tb.close()
				}
				small, large := looks[0], looks[1]
				if small.Text != large.Text {
					t.Errorf("%s (%s): the row reads\n%q in the page's own table,\n%q in the loaded one", c.id, c.why, small.Text, large.Text)
				}
				if small.Flaky != large.Flaky {
					t.Errorf("%s: data-flaky %q in the page's table, %q in the loaded one", c.id, small.Flaky, large.Flaky)
				}
				if !slices.Equal(small.Parts, large.Parts) {
					t.Errorf("%s (%s): the rows differ:\npage's own:\n  %s\nloaded:\n  %s", c.id, c.why, strings.Join(small.Parts, "\n  "), strings.Join(large.Parts, "\n  "))
				}
				if !strings.Contains(strings.Join(small.Parts, "\n"), "trial-strip") {
					t.Errorf("%s: no trial strip in the row: %v", c.id, small.Parts)
				}
			})
		}
	}
	t.Run("flaky filter", func(t *testing.T) {
		tb := openAt(t, sites[240], viewports[0], "", "snapshots/candidate-v3.html#flaky=true&sort=case-asc")
		waitFor(t, tb, `document.getElementById("case-table").hasAttribute("data-ready")`, "the table")
		got := visibleRows(t, tb)
		if !slices.Equal(got, flaky[:min(len(flaky), tablePage)]) {
			t.Errorf("the flaky filter shows %v, want %v", got, flaky)
		}
		count, err := eval[string](tb, `document.querySelector("form.table-filter output").value`)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%d of %d cases shown", len(flaky), len(v3.Cases)); !strings.HasPrefix(count, want) {
			t.Errorf("the count reads %q, want %q", count, want)
		}
	})
}

// TestReportViewsAccessible runs axe-core, in both colour schemes, on
// what the page scripts draw and the sample does not show: a comparison
// with flaky cases, a case table loaded from data files with trial
// strips, and the cases matrix and comparison with 44-character labels.
func TestReportViewsAccessible(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	shared.needFile(t, "axe-core (npm axe-core)", axeScript)
	flaky, err := flakyTrialSites()
	if err != nil {
		t.Fatal(err)
	}
	generated, err := generatedSite()
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		name  string
		s     served
		rel   string
		ready string
	}{
		{"airline compare", serveHTTP(t, airlineDir(t)), "compare.html#from=retrained&to=candidate", `!!document.querySelector("#compare-result .case-set[data-set=flaky] li")`},
		{"loaded trial table", serveHTTP(t, flaky[240]), "snapshots/candidate-v3.html#flaky=true", `document.getElementById("case-table").hasAttribute("data-ready")`},
		{"generated cases", serveHTTP(t, generated), "cases.html", `document.querySelectorAll("#matrix-table tbody tr").length > 0`},
		{"airline cases", serveHTTP(t, airlineDir(t)), "cases.html", `document.querySelectorAll("#matrix-table tbody tr").length > 0`},
		{"generated compare", serveHTTP(t, generated), "compare.html", `!!document.querySelector("#compare-result .case-set")`},
	}
	for _, p := range pages {
		for _, vp := range laptopAndPhone {
			t.Run(p.name+"/"+vp.name, func(t *testing.T) {
				tb := openAt(t, p.s, vp, "", p.rel)
				tb = tb.withTimeout(t, 3*pageTimeout)
				waitFor(t, tb, p.ready, "the page script")
				got, err := axeProbe(tb)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range append(got.Light, got.Dark...) {
					if v.blocking() {
						t.Errorf("%s", v)
					}
				}
			})
		}
	}
}

// TestManyBarsChart opens a snapshot chart of the generated suite, which
// draws its bars in batches: the bars over the limit are still apart in
// their colour, and the tooltip of a bar names its case and its value,
// not the empty slot of the other batch.
func TestManyBarsChart(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	generated, err := generatedSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, generated)
	tb := openAt(t, s, viewports[0], "", "snapshots/"+generatedLabels["candidate-v2"]+".html")
	tb = tb.withTimeout(t, 3*pageTimeout)
	if _, err := eval[[]chartFit](tb, chartFitJS); err != nil {
		t.Fatal(err)
	}
	type tip struct {
		Case, Value, Tooltip string
	}
	got, err := eval[struct {
		Series int   `json:"series"`
		Over   int   `json:"over"`
		Tips   []tip `json:"tips"`
	}](tb, `new Promise(done => {
		const box = document.getElementById("case_latency");
		const chart = echarts.getInstanceByDom(box);
		const option = chart.getOption();
		const cats = option.xAxis[0].data;
		const marked = option.series[1] ? option.series[1].data : [];
		const over = marked.findIndex(v => v !== "-");
		const plain = option.series[0].data.findIndex(v => v !== "-");
		const tips = [];
		const show = (i, then) => {
			chart.dispatchAction({type: "showTip", seriesIndex: option.series[0].data[i] !== "-" ? 0 : 1, dataIndex: i});
			setTimeout(() => {
				const text = Array.from(box.querySelectorAll("div")).filter(d => d.style.position === "absolute" && d.textContent.trim() !== "").map(d => d.textContent).join(" | ");
				const v = option.series[0].data[i] !== "-" ? option.series[0].data[i] : marked[i];
				tips.push({Case: cats[i], Value: String(v), Tooltip: text});
				then();
			}, 300);
		};
		show(plain, () => show(over, () => done({series: option.series.length, over: marked.filter(v => v !== "-").length, tips})));
	})`)
	if err != nil {
		t.Fatal(err)
	}
	if got.Series != 2 || got.Over == 0 {
		t.Errorf("%d series with %d bars over the limit, want the plain and the over-limit batch", got.Series, got.Over)
	}
	for _, tp := range got.Tips {
		if !strings.Contains(tp.Tooltip, tp.Case) || !strings.Contains(strings.ReplaceAll(tp.Tooltip, ",", ""), tp.Value) || strings.Count(tp.Tooltip, "latency (ms)") != 1 {
			t.Errorf("the tooltip of %s (%s) reads %q", tp.Case, tp.Value, tp.Tooltip)
		}
	}
	for _, p := range tb.log.snapshot().problems() {
		t.Error(p)
	}
}

// TestMatrixMarksFlakyCells opens the cases matrix of the airline
// example: a cell is marked flaky, with its trials, exactly where the
// results make the case flaky in that snapshot, and "flaky in some
// snapshot" shows exactly the cases flaky somewhere.
func TestMatrixMarksFlakyCells(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	s := serveHTTP(t, airlineDir(t))
	order := releaseOrder(t, s.dir)
	tb := openAt(t, s, viewports[0], "", "cases.html")
	type cellInfo struct{ Case, Label, Text, Class string }
	cells, err := eval[[]cellInfo](tb, `(() => {
		const labels = Array.from(document.querySelectorAll("#matrix-table thead th")).slice(2).map(th => th.textContent.trim());
		const out = [];
		document.querySelectorAll("#matrix-table tbody tr").forEach(tr => {
			const id = tr.querySelector("th").textContent.trim();
			tr.querySelectorAll("td.matrix-cell").forEach((td, i) => out.push({Case: id, Label: labels[i], Text: td.querySelector(".visually-hidden").textContent, Class: td.className}));
		});
		return out; })()`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // case and label → the cell's words
	var flakySomewhere []string
	for _, r := range order {
		for _, c := range r.Cases {
			w := "fail"
			if c.Passed {
				w = "pass"
			}
			if c.Trials > 0 && c.TrialsPassed > 0 && c.TrialsPassed < c.Trials {
				w += fmt.Sprintf(", flaky: %d/%d trials", c.TrialsPassed, c.Trials)
				if !slices.Contains(flakySomewhere, c.ID) {
					flakySomewhere = append(flakySomewhere, c.ID)
				}
			}
			want[c.ID+" "+r.Label] = w
		}
	}
	if len(cells) != len(want) {
		t.Fatalf("%d cells, want %d", len(cells), len(want))
	}
	for _, c := range cells {
		w := want[c.Case+" "+c.Label]
		if c.Text != w && !(strings.HasPrefix(w, "fail") && strings.HasPrefix(c.Text, "fail: no output")) {
			t.Errorf("cell %s × %s reads %q, want %q", c.Case, c.Label, c.Text, w)
		}
		if strings.Contains(w, "flaky") != strings.Contains(c.Class, "cell-flaky") {
			t.Errorf("cell %s × %s has class %q; flaky: %v", c.Case, c.Label, c.Class, strings.Contains(w, "flaky"))
		}
	}
	slices.Sort(flakySomewhere)
	tb.close()
	tb = openAt(t, s, viewports[0], "", "cases.html#show=flaky")
	ids, err := eval[[]string](tb, `Array.from(document.querySelectorAll("#matrix-table tbody tr th"), th => th.textContent.trim())`)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, flakySomewhere) {
		t.Errorf("flaky in some snapshot: %v, want %v", ids, flakySomewhere)
	}
	for _, p := range tb.log.snapshot().problems() {
		t.Error(p)
	}
}

// rowDumpJS describes, for the case table's first page of rows, each
// row the page's own HTML holds (parsed from the file, no script run) and
// the row the table script shows for the same case once it has loaded
// every row from the data files: every element with all its attributes
// and every text, in document order.
const rowDumpJS = `(async () => {
	const dump = tr => {
		const parts = [];
		const walk = (node, depth) => {
			for (const c of node.childNodes) {
				if (c.nodeType === 3) {
					const text = c.textContent.replace(/\s+/g, " ").trim();
					if (text) parts.push(depth + " text " + text);
					continue;
				}
				if (c.nodeType !== 1) continue;
				const attrs = Array.from(c.attributes).map(a => a.name + "=" + JSON.stringify(a.value)).sort().join(" ");
				parts.push(depth + " " + c.tagName.toLowerCase() + " " + attrs);
				walk(c, depth + 1);
			}
		};
		const own = Array.from(tr.attributes).map(a => a.name + "=" + JSON.stringify(a.value)).sort().join(" ");
		parts.unshift("tr " + own);
		walk(tr, 0);
		return parts.join("\n");
	};
	const page = new DOMParser().parseFromString(await (await fetch(location.href)).text(), "text/html");
	const written = Array.from(page.querySelectorAll("#case-table tbody tr"));
	const shown = Array.from(document.querySelectorAll("#case-table tbody tr"));
	return {
		written: written.map(dump),
		shown: shown.map(dump),
		ids: written.map(tr => tr.querySelector("th").textContent.trim()),
		shownIDs: shown.map(tr => tr.querySelector("th").textContent.trim()),
	};
})()`

type rowDumps struct {
	Written  []string `json:"written"`
	Shown    []string `json:"shown"`
	IDs      []string `json:"ids"`
	ShownIDs []string `json:"shownIDs"`
}

// TestLoadedRowsMatchTheTemplate opens the snapshot pages of tables too
// large for their page, with and without trials: once the script has
// drawn the first page of rows from the data files, each row has the
// same elements, attributes, classes and text as the row the page's
// template wrote for the same case. Between them the rows cover passing
// and failing cases, latencies and costs over their limits, cases
// without output or measure, and trial strips.
func TestLoadedRowsMatchTheTemplate(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	plain := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, plain, 240); err != nil {
		t.Fatal(err)
	}
	// A case without output, one whose output measured nothing and one
	// dearer than the limit on the average cost.
	if err := editOutputs(filepath.Join(plain, "outputs", "candidate-v2.jsonl"), func(o map[string]any) bool {
		switch o["case_id"] {
		case gensuite.ID(1):
			return false
		case gensuite.ID(2):
			o["latency_ms"], o["cost_usd"] = nil, nil
		case gensuite.ID(3):
			o["cost_usd"] = 0.5
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	plainSite, err := buildSite(plain, filepath.Join(t.TempDir(), "site"))
	if err != nil {
		t.Fatal(err)
	}
	flaky, err := flakyTrialSites()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range []struct{ name, dir, label string }{
		{"without trials", plainSite, "candidate-v2"},
		{"without trials, baseline", plainSite, "baseline-v1"},
		{"with trials", flaky[240], "candidate-v3"},
		{"with trials, baseline", flaky[240], "baseline-v1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := openAt(t, serveHTTP(t, c.dir), viewports[0], "", "snapshots/"+c.label+".html")
			defer tb.close()
			waitFor(t, tb, `document.getElementById("case-table").hasAttribute("data-ready")`, "the table")
			loaded, err := eval[bool](tb, `document.getElementById("case-table").hasAttribute("data-rows")`)
			if err != nil {
				t.Fatal(err)
			}
			if !loaded {
				t.Fatal("the table does not load its rows from data files")
			}
			d, err := eval[rowDumps](tb, rowDumpJS)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Written) == 0 || !slices.Equal(d.IDs, d.ShownIDs) {
				t.Fatalf("the page writes rows %.200v, the script shows %.200v", d.IDs, d.ShownIDs)
			}
			for i := range d.Written {
				if d.Written[i] != d.Shown[i] {
					t.Errorf("%s: the template writes\n%s\nthe script draws\n%s", d.IDs[i], d.Written[i], d.Shown[i])
				}
				for what, mark := range map[string]string{
					"passing": `data-result="pass"`, "failing": `data-result="fail"`,
					"latency over its limit": `class="num over" data-label="Latency"`, "cost over its limit": `class="num over" data-label="Cost"`,
					"no output": "text no output", "nothing measured": "text not measured", "trials": `trial-strip`, "details to search": "data-search=",
				} {
					if strings.Contains(d.Written[i], mark) {
						seen[what] = true
					}
				}
			}
			for _, p := range tb.log.snapshot().problems() {
				t.Error(p)
			}
		})
	}
	for _, what := range []string{"passing", "failing", "latency over its limit", "cost over its limit", "no output", "nothing measured", "trials", "details to search"} {
		if !seen[what] {
			t.Errorf("no compared row shows %s", what)
		}
	}
}

// editOutputs rewrites an outputs file line by line: edit may change a
// line's object, and drops the line when it returns false.
func editOutputs(path string, edit func(o map[string]any) bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for line := range bytes.Lines(b) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var o map[string]any
		if err := json.Unmarshal(line, &o); err != nil {
			return err
		}
		if !edit(o) {
			continue
		}
		j, err := json.Marshal(o)
		if err != nil {
			return err
		}
		out.Write(j)
		out.WriteByte('\n')
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}
