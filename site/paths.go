package site

import (
	"strconv"
	"strings"
)

// The site's URL scheme. Every path is relative to the site root and every
// link a page holds is rootFor(page) + target, so the same files work at a
// domain root, under a project sub-path and from file://.
const (
	overviewPath = "index.html"
	policyPath   = "policy.html"
	handoffPath  = "handoff.html"
	notFoundPath = "404.html"
	reportPath   = "RELEASE_REPORT.md"
	noJekyllPath = ".nojekyll"
	assetsDir    = "assets"
	echartsDir   = "assets/vendor/echarts/"
	stylePath    = "assets/site.css"
	scriptPath   = "assets/site.js"
	iconPath     = "assets/favicon.svg"
	tablesScript = "assets/tables.js"
	comparePath  = "compare.html"
	matrixPath   = "cases.html"
	// The data the compare page, the cases matrix and large case tables
	// load as scripts: a page opened from disk may not fetch files.
	casesDataPath  = "data/cases.js"
	matrixDataPath = "data/matrix.js"
	// reportPagePath is RELEASE_REPORT.md rendered as a page.
	reportPagePath = "report.html"
)

// Labels and case ids are safe file names by contract (suite.SafeID), so
// they are used in paths as they are.

func snapshotPath(label string) string { return "snapshots/" + label + ".html" }

// drilldownPath is the page of one result when every result has a page
// of its own; pages link results through resultPaths, never directly.
func drilldownPath(label, caseID string) string {
	return "snapshots/" + label + "/" + caseID + ".html"
}

// historyPath is the page of one case's history when every case has a
// page of its own; pages link histories through resultPaths.
func historyPath(caseID string) string { return "cases/" + caseID + ".html" }

func resultsPath(label string) string { return "results/" + label + ".json" }

func snapshotDataPath(label string) string { return "data/snapshots/" + label + ".js" }

// rootFor returns the relative prefix that leads from the page at path back
// to the site root: "" for index.html, "../../" for a drilldown.
func rootFor(path string) string { return strings.Repeat("../", strings.Count(path, "/")) }

// DefaultGroupAbove is the number of results (cases × snapshots) up to
// which every result and every case history has a page of its own. A
// larger release groups them, so that a 100,000-case suite stays within
// what GitHub Pages publishes (1 GB) and a bundle holds (50,000 files).
const DefaultGroupAbove = 50000

// resultsPerPage is how many consecutive cases of one snapshot share a
// grouped result page.
const resultsPerPage = 100

// historyCellsPerPage bounds the cells (cases × snapshots) of a grouped
// history page, so that a year of nightly snapshots keeps it small: with
// 3 snapshots a page holds 100 cases, with 365 it holds 5.
const historyCellsPerPage = 2000

// resultPaths is where the result of each (case, snapshot) and each
// case's history live. Every link to one goes through it, so no page
// depends on whether results have pages of their own or share them.
type resultPaths struct {
	// perPage is how many cases share a result page; 0: one page each.
	perPage int
	// historyPerPage is how many cases share a history page.
	historyPerPage int
}

// newResultPaths picks the scheme for a release of cases × snapshots:
// a page per result up to groupAbove results (DefaultGroupAbove when 0).
func newResultPaths(cases, snapshots, groupAbove int) resultPaths {
	if groupAbove <= 0 {
		groupAbove = DefaultGroupAbove
	}
	if cases*snapshots <= groupAbove {
		return resultPaths{}
	}
	return resultPaths{perPage: resultsPerPage, historyPerPage: min(resultsPerPage, max(1, historyCellsPerPage/max(1, snapshots)))}
}

// grouped says whether results share pages.
func (p resultPaths) grouped() bool { return p.perPage > 0 }

// resultPage is the file holding the result of case i (id) in the
// snapshot label.
func (p resultPaths) resultPage(label string, i int, id string) string {
	if !p.grouped() {
		return drilldownPath(label, id)
	}
	return resultGroupPath(label, i/p.perPage)
}

// result is the link target of one result, with its anchor when it
// shares a page: snapshots/<label>/p0001.html#<id>.
func (p resultPaths) result(label string, i int, id string) string {
	if !p.grouped() {
		return drilldownPath(label, id)
	}
	return resultGroupPath(label, i/p.perPage) + "#" + id
}

// historyPage is the file holding the history of case i (id).
func (p resultPaths) historyPage(i int, id string) string {
	if !p.grouped() {
		return historyPath(id)
	}
	return historyGroupPath(i / p.historyPerPage)
}

// history is the link target of case i's history.
func (p resultPaths) history(i int, id string) string {
	if !p.grouped() {
		return historyPath(id)
	}
	return historyGroupPath(i/p.historyPerPage) + "#" + id
}

// resultGroups is the number of grouped result pages per snapshot.
func (p resultPaths) resultGroups(cases int) int { return groups(cases, p.perPage) }

// historyGroups is the number of grouped history pages.
func (p resultPaths) historyGroups(cases int) int { return groups(cases, p.historyPerPage) }

func groups(n, per int) int {
	if per <= 0 {
		return 0
	}
	return (n + per - 1) / per
}

// resultGroupPath is the g-th (from 0) grouped result page of a snapshot.
// "p" and four digits cannot clash with a case's own page: the two
// schemes never share a site.
func resultGroupPath(label string, g int) string {
	return "snapshots/" + label + "/" + groupFile(g)
}

// historyGroupPath is the g-th (from 0) grouped history page.
func historyGroupPath(g int) string { return "cases/" + groupFile(g) }

// groupFile names the g-th (from 0) grouped page of a folder: p0001.html.
// Links to results are made hundreds of thousands of times in a large
// build, so this avoids fmt.
func groupFile(g int) string {
	n := strconv.Itoa(g + 1)
	if len(n) < 4 {
		n = "0000"[len(n):] + n
	}
	return "p" + n + ".html"
}

// idPrefix keeps the element ids of one result unique on a page that
// shows several: "<id>~" on a grouped page, "" on a result's own page.
// The tilde cannot occur in a case id, so no prefixed id is a case's
// anchor; unlike a colon, it does not make "#<id>~trial-1" look like a
// URL scheme to html/template.
func (p resultPaths) idPrefix(id string) string {
	if !p.grouped() {
		return ""
	}
	return id + "~"
}

// trialLinks returns the link, from a page whose way to the root is
// root, to each trial's section of a result.
func (p resultPaths) trialLinks(root, label string, i int, id string) func(t int) string {
	page := root + p.resultPage(label, i, id) + "#" + p.idPrefix(id)
	return func(t int) string { return page + trialID(t) }
}
