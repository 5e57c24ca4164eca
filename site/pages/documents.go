package pages

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/decide"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// PolicyPage is policy.html: POLICY.md with an anchor on every rule and
// the cases that cite it.
type PolicyPage struct {
	Layout
	Doc       markdownDoc
	Version   string
	Rules     []RuleRow
	Uncovered int
	// CoverageSummary says how many rules no case cites.
	CoverageSummary string
}

// RuleRow is one rule in the policy's coverage index.
type RuleRow struct {
	ID      string
	Title   string
	Href    string
	Cases   string // "3 cases", "none"
	Covered bool
}

// citations maps each current rule id to the cases whose expectations
// cite it, in suite order, linked from a page at the site root.
func (v *Model) citations() map[string][]CaseLink {
	by := map[string][]CaseLink{}
	for i, c := range v.In.Release.Suite.Cases {
		for _, id := range dedupe(c.Expected.Citations) {
			by[id] = append(by[id], CaseLink{ID: c.ID, Href: v.Paths.History(i)})
		}
	}
	return by
}

func (v *Model) PolicyPage() (*PolicyPage, error) {
	pol := v.In.Release.Suite.Policy
	citedBy := v.citations()
	doc, err := RenderPolicy(pol, citedBy, v.idLinker(PolicyPath))
	if err != nil {
		return nil, err
	}
	p := &PolicyPage{Layout: v.Info.layout(PolicyPath, "Policy "+pol.Version), Doc: doc, Version: pol.Version}
	for _, r := range pol.Rules {
		n := len(citedBy[r.ID])
		row := RuleRow{ID: r.ID, Title: r.Title, Href: "#" + suite.Anchor(r.ID), Covered: n > 0, Cases: "none"}
		if n > 0 {
			row.Cases = strconv.Itoa(n) + " " + plural(n, "case", "cases")
		} else {
			p.Uncovered++
		}
		p.Rules = append(p.Rules, row)
	}
	p.CoverageSummary = fmt.Sprintf("%d %s in %s; every rule is cited by at least one case's expectations.", len(p.Rules), plural(len(p.Rules), "rule", "rules"), pol.Version)
	if p.Uncovered > 0 {
		p.CoverageSummary = fmt.Sprintf("%d %s in %s; %d %s cited by no case's expectations, so no test would notice if the agent ignored %s.",
			len(p.Rules), plural(len(p.Rules), "rule", "rules"), pol.Version, p.Uncovered, plural(p.Uncovered, "is", "are"), plural(p.Uncovered, "it", "them"))
	}
	return p, nil
}

// idLinker links case and rule ids for Markdown shown on the page at path.
func (v *Model) idLinker(path string) IDLinker {
	cases := make(map[string]bool, len(v.In.Release.Suite.Cases))
	for _, c := range v.In.Release.Suite.Cases {
		cases[c.ID] = true
	}
	return IDLinker{Cases: cases, rules: v.In.Release.Suite.Policy, root: rootFor(path), history: func(id string) string {
		i, _ := v.In.Release.Suite.CaseIndex(id)
		return v.Paths.History(i)
	}}
}

// decisions maps each snapshot's label to its computed decision.
func (v *Model) decisions() map[string]decide.Decision {
	m := make(map[string]decide.Decision, len(v.In.Release.Snapshots))
	for _, s := range v.In.Release.Snapshots {
		m[s.Label()] = s.Result.Decision
	}
	return m
}

// HandoffPage is handoff.html: the computed decisions first, then
// HANDOFF.md as written, labelled as hand-written, with every sentence
// that contradicts a computed decision flagged.
type HandoffPage struct {
	Layout
	Verdict        Verdict
	Decisions      []SnapshotCard // the snapshots the note names, and the latest
	Contradictions []Contradiction
	Doc            markdownDoc
}

func (v *Model) HandoffPage() (*HandoffPage, error) {
	doc, found, err := RenderHandoff(v.In.Handoff, v.idLinker(HandoffPath), v.decisions())
	if err != nil {
		return nil, err
	}
	p := &HandoffPage{Layout: v.Info.layout(HandoffPath, "Handoff"), Doc: doc, Contradictions: found, Verdict: v.verdict()}
	named := map[string]bool{}
	for _, l := range mentionedLabels(v.In.Handoff, v.Info.Labels) {
		named[l] = true
	}
	rel := v.In.Release
	for i := len(rel.Snapshots) - 1; i >= 0; i-- {
		s := rel.Snapshots[i]
		if i == len(rel.Snapshots)-1 || named[s.Label()] {
			p.Decisions = append(p.Decisions, snapshotCard(s, GateRows(s), rel.Suite.Gate.Confidence, ""))
		}
	}
	return p, nil
}

// mentionedLabels lists the labels that src names, in labels' order.
func mentionedLabels(src []byte, labels []string) []string {
	var out []string
	for _, l := range labels {
		for rest := string(src); ; {
			i := strings.Index(rest, l)
			if i < 0 {
				break
			}
			if (i == 0 || !idByte(rest[i-1])) && labelEnds(rest, i+len(l)) {
				out = append(out, l)
				break
			}
			rest = rest[i+len(l):]
		}
	}
	return out
}

// ReportPage is report.html: RELEASE_REPORT.md rendered, with a link to
// the file itself.
type ReportPage struct {
	Layout
	Doc     markdownDoc
	RawHref string
}

func (v *Model) ReportPage() (*ReportPage, error) {
	doc, err := RenderMarkdown(v.In.Release.Report(), nil)
	if err != nil {
		return nil, err
	}
	return &ReportPage{Layout: v.Info.layout(ReportPagePath, "Release report"), Doc: doc, RawHref: ReportPath}, nil
}

// NotFoundPage is 404.html. A host serves it for a missing file at any
// depth, so it holds its own styles, and its links are made absolute by
// a small script that finds the site's top folder from the address.
type NotFoundPage struct {
	Title string
	CSS   template.CSS
	// Icon is the site icon inlined as a data URL, so that the browser
	// asks no other address for one.
	Icon template.URL
	Home string
	// Pages are the main pages, relative to the site's top folder.
	Pages []NavLink
	// Markers are paths that exist only in the top folder and in no
	// folder below it, for the script to recognise where the top is.
	Markers []string
	// Script finds the top folder; ScriptHash allows it, and no other
	// inline script, in the page's content security policy. Scripts of
	// the site's own origin stay allowed, as on every page: a live
	// server's reload script is one.
	Script     template.JS
	ScriptHash string
}

// FindHome is 404.html's script. A host such as GitHub Pages serves the
// page at the missing address, so relative links would resolve from
// there. The report's top folder is the part of the address before the
// first folder that only the top folder holds (snapshots/, cases/, …).
// Failing that, the script asks the folders of the address, deepest
// first, for the stylesheet that only the top folder has.
const FindHome = `(function () {
  var list = document.querySelector(".not-found-pages");
  var markers = list.getAttribute("data-markers").split(" ");
  var path = location.pathname;
  var links = list.querySelectorAll("a[data-page]");
  function use(top, found) {
    links.forEach(function (a) { a.href = top + a.getAttribute("data-page"); });
    if (found) list.setAttribute("data-top", top);
  }
  var best = -1;
  markers.forEach(function (m) {
    var i = path.indexOf("/" + m);
    if (i >= 0 && (best < 0 || i < best)) best = i;
  });
  if (best >= 0) { use(path.slice(0, best + 1), true); return; }
  var tops = [];
  for (var i = path.lastIndexOf("/"); i >= 0; i = path.lastIndexOf("/", i - 1)) {
    tops.push(path.slice(0, i + 1));
    if (i === 0) break;
  }
  use(tops[0], false);
  if (location.protocol === "file:" || !window.fetch) return;
  (function probe(k) {
    if (k >= tops.length) return;
    fetch(tops[k] + "` + StylePath + `", {method: "HEAD"}).then(function (r) {
      if (r.ok) use(tops[k], true); else probe(k + 1);
    }, function () { probe(k + 1); });
  })(0);
})();`

func (v *Model) NotFoundPage(css template.CSS, icon template.URL) *NotFoundPage {
	p := &NotFoundPage{Title: "Page not found", CSS: css, Icon: icon, Home: OverviewPath,
		Markers: []string{"snapshots/", "cases/", "results/", "assets/"}, Script: template.JS(FindHome)}
	sum := sha256.Sum256([]byte(FindHome))
	p.ScriptHash = "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	p.Pages = []NavLink{{Href: OverviewPath, Text: "Release overview"}}
	if v.Info.HasPolicy {
		p.Pages = append(p.Pages, NavLink{Href: PolicyPath, Text: "Policy"})
	}
	if v.Info.HasHandoff {
		p.Pages = append(p.Pages, NavLink{Href: HandoffPath, Text: "Handoff"})
	}
	p.Pages = append(p.Pages, NavLink{Href: ReportPagePath, Text: "Release report"}, NavLink{Href: GlossaryPath, Text: "Glossary"})
	labels := v.Info.Labels
	for i := len(labels) - 1; i >= max(0, len(labels)-navSnapshots); i-- {
		p.Pages = append(p.Pages, NavLink{Href: SnapshotPath(labels[i]), Text: "Snapshot " + labels[i]})
	}
	return p
}
