package site

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/internal/goldentest"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
)

func TestResultPaths(t *testing.T) {
	tests := []struct {
		name                      string
		cases, snaps, above       int
		result, history           string // of case 250, "C"
		resultPages, historyPages int
	}{
		{"small keeps a page per result", 12, 3, 0, "snapshots/L/C.html", "cases/C.html", 0, 0},
		{"at the default limit", 10000, 5, 0, "snapshots/L/C.html", "cases/C.html", 0, 0},
		{"above the default limit", 100000, 3, 0, "snapshots/L/p0003.html#C", "cases/p0003.html#C", 1000, 1000},
		{"a lowered limit", 300, 3, 100, "snapshots/L/p0003.html#C", "cases/p0003.html#C", 3, 3},
		{"many snapshots shorten history pages", 1000, 365, 0, "snapshots/L/p0003.html#C", "cases/p0051.html#C", 10, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := make([]string, max(tt.cases, 251)) // case 250 is asked for
			for i := range ids {
				ids[i] = "case-" + strconv.Itoa(i)
			}
			ids[250] = "C"
			p := pages.NewResultPaths(ids, tt.snaps, tt.above)
			if got := p.Result("L", 250); got != tt.result {
				t.Errorf("result = %q, want %q", got, tt.result)
			}
			if got := p.History(250); got != tt.history {
				t.Errorf("history = %q, want %q", got, tt.history)
			}
			if got := p.ResultGroups(tt.cases); got != tt.resultPages {
				t.Errorf("result pages = %d, want %d", got, tt.resultPages)
			}
			if got := p.HistoryGroups(tt.cases); got != tt.historyPages {
				t.Errorf("history pages = %d, want %d", got, tt.historyPages)
			}
			if page, anchor, _ := strings.Cut(p.Result("L", 250), "#"); page != p.ResultPage("L", 250) || (anchor != "") != p.Grouped() {
				t.Errorf("result %q does not sit on resultPage %q", p.Result("L", 250), p.ResultPage("L", 250))
			}
		})
	}
}

// buildGrouped builds a generated suite of n cases with results grouped
// above the given number of results.
func buildGrouped(t testing.TB, n, above int) (out string, in *pages.Input) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, data, n); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "public")
	if _, err := Build(data, out, BuildOptions{GroupAbove: above}); err != nil {
		t.Fatal(err)
	}
	in, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return out, in
}

// TestGroupedResultsWithinTwoClicks builds 300 cases × 3 snapshots with
// results grouped above 100. Every link of every page must lead to a
// file of the site and every fragment to an element; every (case,
// snapshot) result must be on a page reached within two clicks of the
// overview and one click of its snapshot page, under its case's anchor,
// and so must every case's history.
func TestGroupedResultsWithinTwoClicks(t *testing.T) {
	out, in := buildGrouped(t, 300, 100)
	files := readTree(t, out)
	rel := in.Release

	// No page per result or per case is left.
	perResult := regexp.MustCompile(`^(snapshots/[^/]+|cases)/[^/]+\.html$`)
	grouped := regexp.MustCompile(`^(snapshots/[^/]+|cases)/p[0-9]{4}\.html$`)
	groupedPages := 0
	for f := range files {
		if perResult.MatchString(f) {
			if !grouped.MatchString(f) {
				t.Errorf("%s: a page of its own in a grouped site", f)
			}
			groupedPages++
		}
	}
	if want := 3*3 + 3; groupedPages != want {
		t.Errorf("%d grouped pages, want %d (3 per snapshot, 3 of histories)", groupedPages, want)
	}

	ids, links := checkSiteLinks(t, out, files)

	// within returns the pages reached from start in at most clicks.
	within := func(start string, clicks int) map[string]bool {
		seen := map[string]bool{start: true}
		frontier := []string{start}
		for range clicks {
			var next []string
			for _, p := range frontier {
				for _, l := range links[p] {
					if strings.HasSuffix(l.page, ".html") && !seen[l.page] {
						seen[l.page] = true
						next = append(next, l.page)
					}
				}
			}
			frontier = next
		}
		return seen
	}
	fromOverview := within(pages.OverviewPath, 2)
	// And every page is reached from the overview at all.
	everything := within(pages.OverviewPath, len(files))
	for f := range ids {
		if !everything[f] {
			t.Errorf("%s is not reached from %s", f, pages.OverviewPath)
		}
	}
	for _, s := range rel.Snapshots {
		fromSnapshot := within(pages.SnapshotPath(s.Label()), 1)
		for i, c := range rel.Suite.Cases {
			page := pages.ResultGroupPath(s.Label(), i/pages.ResultsPerPage)
			if !ids[page][c.ID] {
				t.Fatalf("%s has no anchor %s", page, c.ID)
			}
			if !fromOverview[page] {
				t.Errorf("%s in %s: %s is not within two clicks of the overview", c.ID, s.Label(), page)
			}
			if !fromSnapshot[page] {
				t.Errorf("%s in %s: %s is not one click from the snapshot page", c.ID, s.Label(), page)
			}
		}
	}
	for i, c := range rel.Suite.Cases {
		page := pages.HistoryGroupPath(i / pages.ResultsPerPage)
		if !ids[page][c.ID] {
			t.Errorf("%s has no anchor %s", page, c.ID)
		}
	}
	// Every history cell leads to the result's anchor, and every
	// result links back to the case's history.
	for _, l := range links[pages.HistoryGroupPath(0)] {
		if strings.HasPrefix(l.page, "snapshots/") && strings.Contains(l.page, "/p") && l.frag == "" {
			t.Errorf("%s links to %s without the case's anchor", pages.HistoryGroupPath(0), l.page)
		}
	}
}

// siteTarget is where one link leads: a file of the site and a fragment.
type siteTarget struct{ page, frag string }

// checkSiteLinks reads every page of the built site in out: every id
// must be unique on its page, every href and src must lead to a file of
// the site and every fragment to an element. It returns each page's ids
// and links.
func checkSiteLinks(t *testing.T, out string, files map[string][]byte) (ids map[string]map[string]bool, links map[string][]siteTarget) {
	t.Helper()
	ids = map[string]map[string]bool{}
	links = map[string][]siteTarget{}
	for f := range files {
		if !strings.HasSuffix(f, ".html") || f == pages.NotFoundPath {
			continue
		}
		ids[f] = map[string]bool{}
		for _, n := range findAll(parsePage(t, out, f), sel("")) {
			if v := attr(n, "id"); v != "" {
				if ids[f][v] {
					t.Errorf("%s: id %q is not unique", f, v)
				}
				ids[f][v] = true
			}
			for _, key := range []string{"href", "src"} {
				ref, ok := attrOK(n, key)
				if !ok {
					continue
				}
				page, frag, err := resolve(f, ref)
				if err != nil {
					t.Errorf("%s: %s=%q: %v", f, key, ref, err)
					continue
				}
				if _, ok := files[page]; !ok {
					t.Errorf("%s: %s=%q leads to %s, which the site does not hold", f, key, ref, page)
					continue
				}
				links[f] = append(links[f], siteTarget{page, frag})
			}
		}
	}
	for f, ts := range links {
		for _, l := range ts {
			if l.frag != "" && !strings.Contains(l.frag, "=") && strings.HasSuffix(l.page, ".html") && !ids[l.page][l.frag] {
				t.Errorf("%s: link to %s#%s: no such element", f, l.page, l.frag)
			}
		}
	}
	return ids, links
}

// TestGroupedTrialsLinksResolve groups the results of a suite with
// trials: each trial of a failing or flaky result gets a section of its
// own on the grouped page, and every trial mark links to one.
func TestGroupedTrialsLinksResolve(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.WriteTrials(sampleData, data, 60, 3); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(data, out, BuildOptions{GroupAbove: 50}); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	if _, ok := files[pages.ResultGroupPath("baseline-v1", 0)]; !ok {
		t.Fatal("the suite with trials was not grouped")
	}
	_, links := checkSiteLinks(t, out, files)
	trialLinks := 0
	for _, ls := range links {
		for _, l := range ls {
			if strings.Contains(l.frag, "~trial-") {
				trialLinks++
			}
		}
	}
	if trialLinks == 0 {
		t.Error("no link leads to a trial's section on a grouped page")
	}
}

// TestGroupedResultsKeepFailingDrilldowns checks what a grouped page
// shows: the full drilldown of each failing result, a compact row for
// each passing one.
func TestGroupedResultsKeepFailingDrilldowns(t *testing.T) {
	out, in := buildGrouped(t, 120, 100)
	s := in.Release.Snapshots[0]
	doc := parsePage(t, out, pages.ResultGroupPath(s.Label(), 0))
	for i, c := range in.Release.Suite.Cases[:pages.ResultsPerPage] {
		res := s.Result.Cases[i]
		full := findAll(doc, sel("section", class("result"), id(c.ID)))
		row := findAll(doc, sel("tr", id(c.ID)))
		switch {
		case !res.Passed && (len(full) != 1 || len(row) != 0):
			t.Errorf("%s fails: %d full drilldowns and %d rows, want 1 and 0", c.ID, len(full), len(row))
		case res.Passed && (len(full) != 0 || len(row) != 1):
			t.Errorf("%s passes: %d full drilldowns and %d rows, want 0 and 1", c.ID, len(full), len(row))
		case !res.Passed:
			for _, f := range res.Failures {
				if !strings.Contains(textOf(full[0]), f.Detail) {
					t.Errorf("%s: the drilldown lacks the failure %q", c.ID, f.Detail)
				}
			}
		}
	}
	// The last page holds the rest.
	doc = parsePage(t, out, pages.ResultGroupPath(s.Label(), 1))
	if got := len(findAll(doc, sel("", id(in.Release.Suite.Cases[119].ID)))); got != 1 {
		t.Errorf("the second page holds %s %d times", in.Release.Suite.Cases[119].ID, got)
	}
}

// TestGoldenGroupedPages renders the sample with results grouped, so a
// grouped result page and a grouped history page have goldens.
//
//	go test ./site -run TestGoldenGroupedPages -update
func TestGoldenGroupedPages(t *testing.T) {
	in := sampleInput(t)
	in.GroupAbove = 10
	got := map[string][]byte{}
	if err := Render(in, func(p string, b []byte) error { got[p] = b; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"snapshots/candidate-v2/p0001.html", "cases/p0001.html"} {
		b, ok := got[page]
		if !ok {
			t.Fatalf("%s was not rendered", page)
		}
		goldentest.Check(t, filepath.Join("testdata", "golden", "grouped__"+strings.ReplaceAll(page, "/", "__")), b)
	}
	if _, ok := got["snapshots/candidate-v2/ER-007.html"]; ok {
		t.Error("a grouped site still has a page per result")
	}
}

// TestGroupedPartsRenderGroupedPages checks what a live server renders
// after an edit of a grouped site: the grouped pages that hold the edited
// cases, the same bytes as a full render, and never a page per result.
func TestGroupedPartsRenderGroupedPages(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, data, 250); err != nil {
		t.Fatal(err)
	}
	in, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	in.GroupAbove = 100
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]byte{}
	if err := r.RenderAll(in, func(p string, b []byte) error { all[p] = b; return nil }); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, got map[string][]byte, want ...string) {
		t.Helper()
		for p, b := range got {
			if _, ok := all[p]; !ok {
				t.Errorf("rendered %s, which the full site does not hold", p)
			} else if !bytes.Equal(b, all[p]) {
				t.Errorf("%s differs from the full render", p)
			}
		}
		for _, p := range want {
			if _, ok := got[p]; !ok {
				t.Errorf("%s was not rendered", p)
			}
		}
	}
	t.Run("parts", func(t *testing.T) {
		got := map[string][]byte{}
		parts := render.Parts{Drilldowns: map[string][]string{"baseline-v1": {"GEN-000151"}}, Histories: []string{"GEN-000151"}}
		if err := r.RenderParts(in, parts, func(p string, b []byte) error { got[p] = b; return nil }); err != nil {
			t.Fatal(err)
		}
		check(t, got, "snapshots/baseline-v1/p0002.html", "cases/p0002.html")
	})
}

func TestGroupFile(t *testing.T) {
	for g, want := range map[int]string{0: "p0001.html", 8: "p0009.html", 99: "p0100.html", 9998: "p9999.html", 9999: "p10000.html"} {
		if got := pages.GroupFile(g); got != want {
			t.Errorf("groupFile(%d) = %q, want %q", g, got, want)
		}
	}
}

// TestSameFrameSeesGrouping: an edit that moves a release across the
// grouping limit changes every page's links, so no part of the site may
// be rendered alone.
func TestSameFrameSeesGrouping(t *testing.T) {
	a, b := sampleInput(t), sampleInput(t)
	if !render.SameFrame(a, b) {
		t.Fatal("two loads of the sample differ in their frame")
	}
	b.GroupAbove = 10
	if render.SameFrame(a, b) {
		t.Error("a grouped and an ungrouped site share their frame")
	}
}
