package pages

import (
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/internal/pagename"
)

// The site's URL scheme. Every path is relative to the site root and every
// link a page holds is rootFor(page) + target, so the same files work at a
// domain root, under a project sub-path and from file://.
const (
	OverviewPath = "index.html"
	PolicyPath   = "policy.html"
	HandoffPath  = "handoff.html"
	NotFoundPath = "404.html"
	ReportPath   = "RELEASE_REPORT.md"
	NoJekyllPath = ".nojekyll"
	AssetsDir    = "assets"
	EchartsDir   = "assets/vendor/echarts/"
	StylePath    = "assets/site.css"
	ScriptPath   = "assets/site.js"
	IconPath     = "assets/favicon.svg"
	TablesScript = "assets/tables.js"
	ComparePath  = "compare.html"
	MatrixPath   = "cases.html"
	// The data the compare page, the cases matrix and large case tables
	// load as scripts: a page opened from disk may not fetch files.
	CasesDataPath  = "data/cases.js"
	MatrixDataPath = "data/matrix.js"
	// ReportPagePath is RELEASE_REPORT.md rendered as a page.
	ReportPagePath = "report.html"
)

// Labels are safe file names (suite.SafeID), so they are used in paths as
// they are. A case id may be any text: its page and its anchor on a
// grouped page are named by its stem (pagename.Stems), which is the id
// itself when that is a safe file name.

// SnapshotPath is the page of the snapshot labelled label.
func SnapshotPath(label string) string { return "snapshots/" + label + ".html" }

// DrilldownPath is the page of one result when every result has a page
// of its own; pages link results through ResultPaths, never directly.
func DrilldownPath(label, stem string) string {
	return "snapshots/" + label + "/" + stem + ".html"
}

// HistoryPath is the page of one case's history when every case has a
// page of its own; pages link histories through ResultPaths.
func HistoryPath(stem string) string { return "cases/" + stem + ".html" }

// ResultsPath is the results file of the snapshot labelled label.
func ResultsPath(label string) string { return "results/" + label + ".json" }

// SnapshotDataPath is the case-table data script of the snapshot
// labelled label.
func SnapshotDataPath(label string) string { return "data/snapshots/" + label + ".js" }

// rootFor returns the relative prefix that leads from the page at path back
// to the site root: "" for index.html, "../../" for a drilldown.
func rootFor(path string) string { return strings.Repeat("../", strings.Count(path, "/")) }

// DefaultGroupAbove is the number of results (cases × snapshots) up to
// which every result and every case history has a page of its own. A
// larger release groups them, so that a 100,000-case suite stays within
// what GitHub Pages publishes (1 GB) and a bundle holds (50,000 files).
const DefaultGroupAbove = 50000

// ResultsPerPage is how many consecutive cases of one snapshot share a
// grouped result page.
const ResultsPerPage = 100

// historyCellsPerPage bounds the cells (cases × snapshots) of a grouped
// history page, so that a year of nightly snapshots keeps it small: with
// 3 snapshots a page holds 100 cases, with 365 it holds 5.
const historyCellsPerPage = 2000

// ResultPaths is where the result of each (case, snapshot) and each
// case's history live. Every link to one goes through it, so no page
// depends on whether results have pages of their own or share them.
type ResultPaths struct {
	// PerPage is how many cases share a result page; 0: one page each.
	PerPage int
	// HistoryPerPage is how many cases share a history page.
	HistoryPerPage int
	// Stems name each case's pages and anchors, in suite order.
	Stems []string
}

// NewResultPaths picks the scheme for a release of the cases with the
// given ids × snapshots: a page per result up to groupAbove results
// (DefaultGroupAbove when 0).
func NewResultPaths(ids []string, snapshots, groupAbove int) ResultPaths {
	if groupAbove <= 0 {
		groupAbove = DefaultGroupAbove
	}
	p := ResultPaths{Stems: pagename.Stems(ids)}
	if len(ids)*snapshots > groupAbove {
		p.PerPage, p.HistoryPerPage = ResultsPerPage, min(ResultsPerPage, max(1, historyCellsPerPage/max(1, snapshots)))
	}
	return p
}

// Stem is the name of case i's pages, without ".html", and its anchor on
// a page that shows several cases.
func (p ResultPaths) Stem(i int) string { return p.Stems[i] }

// SameScheme reports whether every result and history of the cases both
// know sits at the same address in p and q.
func (p ResultPaths) SameScheme(q ResultPaths, ids, otherIDs []string) bool {
	if p.PerPage != q.PerPage || p.HistoryPerPage != q.HistoryPerPage {
		return false
	}
	was := make(map[string]string, len(otherIDs))
	for j, id := range otherIDs {
		was[id] = q.Stems[j]
	}
	for i, id := range ids {
		if stem, ok := was[id]; ok && stem != p.Stems[i] {
			return false
		}
	}
	return true
}

// Grouped says whether results share pages.
func (p ResultPaths) Grouped() bool { return p.PerPage > 0 }

// ResultPage is the file holding the result of case i in the snapshot
// label.
func (p ResultPaths) ResultPage(label string, i int) string {
	if !p.Grouped() {
		return DrilldownPath(label, p.Stems[i])
	}
	return ResultGroupPath(label, i/p.PerPage)
}

// Result is the link target of one result, with its anchor when it
// shares a page: snapshots/<label>/p0001.html#<stem>.
func (p ResultPaths) Result(label string, i int) string {
	return p.resultFrom("", label, i)
}

// resultFrom is root + Result(label, i), made in one allocation: the
// case table links every case of every snapshot.
func (p ResultPaths) resultFrom(root, label string, i int) string {
	if !p.Grouped() {
		return root + DrilldownPath(label, p.Stems[i])
	}
	return groupedLink(i/p.PerPage, p.Stems[i], root, "snapshots/", label, "/")
}

// groupedLink is the link to stem's anchor on the g-th grouped page of
// the folder the parts of folder name, made in one allocation: a large
// site's pages link every case.
func groupedLink(g int, stem string, folder ...string) string {
	n := len("p0000.html#") + len(stem) + 4
	for _, f := range folder {
		n += len(f)
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range folder {
		b.WriteString(f)
	}
	var file [24]byte
	b.Write(appendGroupFile(file[:0], g))
	b.WriteByte('#')
	b.WriteString(stem)
	return b.String()
}

// historyPage is the file holding the history of case i.
func (p ResultPaths) historyPage(i int) string {
	if !p.Grouped() {
		return HistoryPath(p.Stems[i])
	}
	return HistoryGroupPath(i / p.HistoryPerPage)
}

// History is the link target of case i's history.
func (p ResultPaths) History(i int) string {
	if !p.Grouped() {
		return HistoryPath(p.Stems[i])
	}
	return groupedLink(i/p.HistoryPerPage, p.Stems[i], "cases/")
}

// ResultGroups is the number of grouped result pages per snapshot.
func (p ResultPaths) ResultGroups(cases int) int { return groups(cases, p.PerPage) }

// HistoryGroups is the number of grouped history pages.
func (p ResultPaths) HistoryGroups(cases int) int { return groups(cases, p.HistoryPerPage) }

func groups(n, per int) int {
	if per <= 0 {
		return 0
	}
	return (n + per - 1) / per
}

// ResultGroupPath is the g-th (from 0) grouped result page of a snapshot.
// "p" and four digits cannot clash with a case's own page: the two
// schemes never share a site.
func ResultGroupPath(label string, g int) string {
	return "snapshots/" + label + "/" + GroupFile(g)
}

// HistoryGroupPath is the g-th (from 0) grouped history page.
func HistoryGroupPath(g int) string { return "cases/" + GroupFile(g) }

// GroupFile names the g-th (from 0) grouped page of a folder: p0001.html.
// Links to results are made hundreds of thousands of times in a large
// build, so this avoids fmt and makes one allocation.
func GroupFile(g int) string {
	var file [24]byte
	return string(appendGroupFile(file[:0], g))
}

// appendGroupFile appends GroupFile(g) to b.
func appendGroupFile(b []byte, g int) []byte {
	b = append(b, 'p')
	n := g + 1
	for pad := 1000; pad > 1 && n < pad; pad /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, ".html"...)
}

// idPrefix keeps the element ids of case i's result unique on a page
// that shows several: "<stem>~" on a grouped page, "" on a result's own
// page. The tilde cannot occur in a stem, so no prefixed id is a case's
// anchor; unlike a colon, it does not make "#<stem>~trial-1" look like a
// URL scheme to html/template.
func (p ResultPaths) idPrefix(i int) string {
	if !p.Grouped() {
		return ""
	}
	return p.Stems[i] + "~"
}

// trialLinks returns the link, from a page whose way to the root is
// root, to each trial's section of a result.
func (p ResultPaths) trialLinks(root, label string, i int) func(t int) string {
	page := root + p.ResultPage(label, i) + "#" + p.idPrefix(i)
	return func(t int) string { return page + TrialID(t) }
}
