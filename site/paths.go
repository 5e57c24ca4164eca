package site

import "strings"

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

func drilldownPath(label, caseID string) string {
	return "snapshots/" + label + "/" + caseID + ".html"
}

func historyPath(caseID string) string { return "cases/" + caseID + ".html" }

func resultsPath(label string) string { return "results/" + label + ".json" }

func snapshotDataPath(label string) string { return "data/snapshots/" + label + ".js" }

// rootFor returns the relative prefix that leads from the page at path back
// to the site root: "" for index.html, "../../" for a drilldown.
func rootFor(path string) string { return strings.Repeat("../", strings.Count(path, "/")) }
