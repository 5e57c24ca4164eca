package pages

import (
	"html/template"
	"strconv"
	"strings"
)

// Layout is what every page's frame needs: the title, the way back to
// the site root, and the navigation. Page structs embed it.
type Layout struct {
	Title   string // the page's own title, without the site name
	Root    string // "" at the top, "../" one folder down
	Style   string // the stylesheet, relative to the page
	Script  string // the site script, relative to the page
	Tables  string // the case-table script, relative to the page
	Icon    string // the site icon, relative to the page
	Scripts []string
	Nav     []NavLink
	// Snapshots link every snapshot's page; the current one is marked.
	Snapshots []NavLink
	// AllSnapshots leads to the full list when Snapshots shows only some.
	AllSnapshots *NavLink
	// ReportHref is the rendered release report, for the footer.
	ReportHref string
	// Head is the links of the page's head, rendered with the "head"
	// template; Header is the navigation, rendered with "header".
	Head   template.HTML
	Header template.HTML
	// SiteFooter is the footer rendered with the "footer" template: the
	// same on every page, so it is rendered once per site.
	SiteFooter template.HTML
	// HeaderKey names what Header depends on, for reuse across pages.
	HeaderKey string
}

// HeadKey names what Head depends on, for reuse across pages: every
// link it holds.
func (l *Layout) HeadKey() string {
	return l.Icon + "\x00" + l.Style + "\x00" + l.Tables + "\x00" + l.Script + "\x00" + strings.Join(l.Scripts, "\x00")
}

// Frame gives the renderer every page's Layout.
func (l *Layout) Frame() *Layout { return l }

// Framed is a page with the common frame.
type Framed interface{ Frame() *Layout }

// NavLink is one link of a navigation list.
type NavLink struct {
	Href      string
	Text      string
	Current   bool // the link leads to this very page
	InSection bool // this page lies below the link's page
}

// SiteInfo is what the frame of every page depends on. It changes only
// when snapshots come or go, the policy's version changes or HANDOFF.md
// appears or disappears.
type SiteInfo struct {
	Labels        []string
	HasHandoff    bool
	HasPolicy     bool // false without POLICY.md: no policy page
	PolicyVersion string
	CaseCount     int
	Provenance    Provenance
}

// policyText names the policy in the footer: "Policy ER-2026.10", or
// "No policy" without POLICY.md.
func (s SiteInfo) policyText() string {
	if !s.HasPolicy {
		return "No policy"
	}
	return "Policy " + s.PolicyVersion
}

// navSnapshots is how many of the latest snapshots the header names. A
// page never links every snapshot: with a year of nightly snapshots that
// would make the site grow with the square of their number.
const navSnapshots = 4

// layout frames the page at path.
func (s SiteInfo) layout(path, title string) Layout {
	root := rootFor(path)
	link := func(target, text string) NavLink {
		return NavLink{Href: root + target, Text: text, Current: target == path}
	}
	nav := []NavLink{link(OverviewPath, "Overview"), link(MatrixPath, "Cases"), link(ComparePath, "Compare")}
	if s.HasPolicy {
		nav = append(nav, link(PolicyPath, "Policy"))
	}
	if s.HasHandoff {
		nav = append(nav, link(HandoffPath, "Handoff"))
	}
	nav = append(nav, link(ReportPagePath, "Report"), link(GlossaryPath, "Glossary"))
	// The latest snapshots, and the one this page belongs to.
	var snaps []NavLink
	first := max(0, len(s.Labels)-navSnapshots)
	for i, l := range s.Labels {
		inSection := strings.HasPrefix(path, "snapshots/"+l+"/")
		if i < first && !inSection && path != SnapshotPath(l) {
			continue
		}
		n := link(SnapshotPath(l), l)
		// A drilldown lies inside its snapshot.
		n.InSection = inSection
		snaps = append(snaps, n)
	}
	var all *NavLink
	if first > 0 {
		all = &NavLink{Href: root + OverviewPath + "#history", Text: "All " + strconv.Itoa(len(s.Labels)) + " snapshots"}
	}
	// The navigation depends only on the way back to the root and on
	// which links are marked (an older snapshot is listed only on its
	// own pages, so a marked link is named).
	key := []byte(root)
	for _, l := range append(nav, snaps...) {
		switch {
		case l.Current:
			key = append(append(key, 'c'), l.Href...)
		case l.InSection:
			key = append(append(key, 's'), l.Href...)
		default:
			key = append(key, '-')
		}
		key = append(key, 0)
	}
	return Layout{
		HeaderKey:    string(key),
		Title:        title,
		Root:         root,
		Style:        root + StylePath,
		Script:       root + ScriptPath,
		Tables:       root + TablesScript,
		Icon:         root + IconPath,
		Nav:          nav,
		Snapshots:    snaps,
		AllSnapshots: all,
		ReportHref:   root + ReportPagePath,
	}
}
