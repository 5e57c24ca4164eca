package pages

import (
	"fmt"
	"strconv"

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
//
// It is made once per model: the overview, the handoff and the policy
// page each show it, and at 100,000 cases it is 100,000 links. Callers
// must not change it.
func (v *Model) citations() map[string][]CaseLink {
	v.citedBy.once.Do(func() {
		by := map[string][]CaseLink{}
		for i, c := range v.In.Release.Suite.Cases {
			for _, id := range dedupe(c.Expected.Citations) {
				by[id] = append(by[id], CaseLink{ID: c.ID, Href: v.Paths.History(i)})
			}
		}
		v.citedBy.cases = by
	})
	return v.citedBy.cases
}

// PolicyPage builds policy.html.
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
