package site

import (
	"fmt"
	"html/template"
	"strconv"

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
func (v *view) citations() map[string][]CaseLink {
	by := map[string][]CaseLink{}
	for _, c := range v.in.Release.Suite.Cases {
		for _, id := range dedupe(c.Expected.Citations) {
			by[id] = append(by[id], CaseLink{ID: c.ID, Href: historyPath(c.ID)})
		}
	}
	return by
}

func (v *view) policy() (*PolicyPage, error) {
	pol := v.in.Release.Suite.Policy
	citedBy := v.citations()
	doc, err := renderPolicy(pol, citedBy)
	if err != nil {
		return nil, err
	}
	p := &PolicyPage{Layout: v.info.layout(policyPath, "Policy "+pol.Version), Doc: doc, Version: pol.Version}
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

// HandoffPage is handoff.html: HANDOFF.md as written.
type HandoffPage struct {
	Layout
	Doc markdownDoc
}

func (v *view) handoff() (*HandoffPage, error) {
	doc, err := renderMarkdown(v.in.Handoff)
	if err != nil {
		return nil, err
	}
	return &HandoffPage{Layout: v.info.layout(handoffPath, "Handoff"), Doc: doc}, nil
}

// NotFoundPage is 404.html. A host serves it for a missing file at any
// depth, so it holds its own styles and links only to the site's top
// folder.
type NotFoundPage struct {
	Title string
	CSS   template.CSS
	// Icon is the site icon inlined as a data URL, so that the browser
	// asks no other address for one.
	Icon template.URL
	Home string
}
