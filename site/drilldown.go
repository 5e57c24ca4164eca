package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// DrilldownPage is snapshots/<label>/<case>.html: one case in one
// snapshot, expected against actual.
type DrilldownPage struct {
	Layout
	Label        string
	SnapshotHref string
	HistoryHref  string
	ID           string
	Title        string
	Severity     string
	Verdict      Badge
	Failures     []judge.Failure
	HasOutput    bool

	ExpectedDecision string
	ActualDecision   string
	DecisionVerdict  Badge

	ExpectedCall *CallView // nil when the case expects no call
	ActualCalls  []CallView
	CallsNote    string
	Mismatches   []string

	Forbidden         []ForbiddenRow
	ExpectedCitations []CitationRow
	ActualCitations   []CitationRow

	Input     string
	Latency   string
	Cost      string
	Elsewhere []NavLink

	// Prev and Next are the neighbouring cases in suite order, NextFailing
	// the next failing case after this one (wrapping round); nil at the
	// ends, or when no other case fails.
	Prev, Next, NextFailing *NavLink
	// Raw is the output as read from its snapshot file, one line of JSON;
	// RawSource says where it came from.
	Raw       string
	RawSource string
}

// CallView is one tool call, its arguments printed line by line.
type CallView struct {
	Name  string
	Note  string // "forbidden for this case", "not the expected tool"
	Lines []JSONLine
	Code  template.HTML // Lines for a <pre> element
}

// ForbiddenRow is one tool the case forbids.
type ForbiddenRow struct {
	Tool    string
	Verdict Badge
	Text    string // "called", "not called"
}

// CitationRow is one cited identifier with its state against the policy.
type CitationRow struct {
	ID        string
	Href      string // the rule on policy.html; "" when it is no rule
	Class     string // "current", "outdated", "unknown", "missing", "unchecked"
	State     string // in words
	Icon      string // decoration beside State
	Successor *NavLink
}

// citationRow checks a cited identifier; policy is the relative href of
// policy.html. Without POLICY.md (p nil) nothing is checked and there is
// no policy page to link.
func citationRow(id string, p *suite.Policy, policy string) CitationRow {
	if p == nil {
		return CitationRow{ID: id, Class: "unchecked", State: "not checked: the data folder has no POLICY.md", Icon: "–"}
	}
	c := judge.CheckCitation(id, p)
	row := CitationRow{ID: id, Icon: "⚠"}
	switch c.State {
	case judge.Current:
		row.Href, row.Class, row.State, row.Icon = policy+"#"+c.Rule.Anchor(), "current", "current rule", "✓"
	case judge.Outdated:
		row.Class, row.State = "outdated", "outdated: not a rule of the current policy"
		if c.Rule.ID != "" {
			row.State = "outdated; the current rule is"
			row.Successor = &NavLink{Href: policy + "#" + c.Rule.Anchor(), Text: c.Rule.ID}
		}
	default:
		row.Class, row.State = "unknown", "unknown: not a rule of the current policy"
	}
	return row
}

func (v *view) drilldown(s *evaluator.Snapshot, i int) *DrilldownPage {
	c := v.in.Release.Suite.Cases[i]
	res := s.Result.Cases[i]
	out := s.Outputs[i]
	label := s.Label()
	path := drilldownPath(label, c.ID)
	root := rootFor(path)
	policy := root + policyPath
	p := &DrilldownPage{
		Layout:           v.info.layout(path, c.ID+" in "+label),
		Label:            label,
		SnapshotHref:     root + snapshotPath(label),
		HistoryHref:      root + historyPath(c.ID),
		ID:               c.ID,
		Title:            c.Title,
		Severity:         string(c.Severity),
		Verdict:          verdictBadge(res.Passed),
		Failures:         res.Failures,
		HasOutput:        out != nil,
		ExpectedDecision: string(c.Expected.Decision),
		Input:            prettyInput(c.Input),
	}
	p.Prev, p.Next, p.NextFailing = v.caseNeighbours(s, i, root)
	if out != nil {
		p.Raw = rawOutput(out)
		p.RawSource = fmt.Sprintf("line %d of outputs/%s.jsonl", out.Line, label)
	}
	// The previous and the next snapshot only: the history page lists
	// the rest, and a link to every other snapshot would make the site
	// grow with the square of their number.
	labels := v.info.Labels
	if k := slices.Index(labels, label); k >= 0 {
		if k > 0 {
			p.Elsewhere = append(p.Elsewhere, NavLink{Href: root + drilldownPath(labels[k-1], c.ID), Text: labels[k-1] + " (previous)"})
		}
		if k+1 < len(labels) {
			p.Elsewhere = append(p.Elsewhere, NavLink{Href: root + drilldownPath(labels[k+1], c.ID), Text: labels[k+1] + " (next)"})
		}
	}
	exp := &c.Expected
	if len(exp.ToolCalls) == 1 {
		p.ExpectedCall = &CallView{Name: exp.ToolCalls[0].Name, Lines: jsonLines("arguments", suite.ToTree(exp.ToolCalls[0].Arguments))}
	}
	var called []string
	var cited []string
	if out != nil {
		p.ActualDecision = string(out.Decision)
		p.DecisionVerdict = verdictBadge(out.Decision == exp.Decision)
		p.Latency, p.Cost = measuredMS(out.LatencyMS), measuredUSD(out.CostUSD)
		cited = out.Citations
		var mismatches []judge.Mismatch
		if call, ok := judge.MatchedCall(exp, out.ToolCalls); ok {
			mismatches = judge.CompareArguments(exp.ToolCalls[0].Arguments, call)
			markMismatches(p.ExpectedCall.Lines, mismatches, true)
			for _, m := range mismatches {
				p.Mismatches = append(p.Mismatches, m.String())
			}
		}
		for _, call := range out.ToolCalls {
			called = append(called, call.Name)
			cv := CallView{Name: call.Name, Lines: jsonLines("arguments", call.Arguments.Map())}
			markMismatches(cv.Lines, mismatches, false)
			switch {
			case exp.Forbids(call.Name):
				cv.Note = "forbidden for this case"
			case p.ExpectedCall == nil:
				cv.Note = "no tool call was expected"
			case call.Name != p.ExpectedCall.Name:
				cv.Note = "not the expected tool"
			}
			p.ActualCalls = append(p.ActualCalls, cv)
		}
		switch {
		case len(out.ToolCalls) == 0 && p.ExpectedCall != nil:
			p.CallsNote = "The output made no tool call."
		case len(out.ToolCalls) > 1:
			p.CallsNote = "The output made more than one tool call; exactly one is expected for an action."
		}
	}
	for _, t := range exp.ForbiddenTools {
		row := ForbiddenRow{Tool: t, Verdict: verdictBadge(true), Text: "not called"}
		if slices.Contains(called, t) {
			row.Verdict, row.Text = verdictBadge(false), "called"
		}
		p.Forbidden = append(p.Forbidden, row)
	}
	policyRules := v.in.Release.Suite.Policy
	for _, id := range dedupe(exp.Citations) {
		row := citationRow(id, policyRules, policy)
		if out != nil && !slices.Contains(cited, id) {
			row.Class, row.State, row.Icon = "missing", "missing from the output", "⚠"
		}
		p.ExpectedCitations = append(p.ExpectedCitations, row)
	}
	for _, id := range dedupe(cited) {
		row := citationRow(id, policyRules, policy)
		if row.Class == "current" && !slices.Contains(exp.Citations, id) {
			row.State = "current rule, not expected (allowed)"
		}
		p.ActualCitations = append(p.ActualCitations, row)
	}
	if p.ExpectedCall != nil {
		p.ExpectedCall.Code = jsonHTML(p.ExpectedCall.Lines)
	}
	for i := range p.ActualCalls {
		p.ActualCalls[i].Code = jsonHTML(p.ActualCalls[i].Lines)
	}
	return p
}

// dedupe keeps the first of repeated strings, in order.
func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// caseNeighbours links the cases before and after case i of s in suite
// order, and the next failing case after it.
func (v *view) caseNeighbours(s *evaluator.Snapshot, i int, root string) (prev, next, nextFailing *NavLink) {
	cases := v.in.Release.Suite.Cases
	link := func(j int) *NavLink {
		return &NavLink{Href: root + drilldownPath(s.Label(), cases[j].ID), Text: cases[j].ID}
	}
	if i > 0 {
		prev = link(i - 1)
	}
	if i+1 < len(cases) {
		next = link(i + 1)
	}
	if j := v.failingAfter(s)[i]; j >= 0 {
		nextFailing = link(j)
	}
	return prev, next, nextFailing
}

// failingAfter returns, for each case position of s, the position of the
// next failing case after it, wrapping round, or -1 when no other case
// fails. It is worked out once per snapshot in linear time.
func (v *view) failingAfter(s *evaluator.Snapshot) []int {
	if got, ok := v.nextFailing.Load(s.Label()); ok {
		return got.([]int)
	}
	res := s.Result.Cases
	n := len(res)
	out := make([]int, n)
	next := -1
	// Two passes from the end: the first finds the wrap-round target of
	// the last cases, the second fills every position.
	for pass := 0; pass < 2; pass++ {
		for j := n - 1; j >= 0; j-- {
			if pass == 1 {
				out[j] = next
				if next == j {
					out[j] = -1 // the only failing case has no other to go to
				}
			}
			if !res[j].Passed {
				next = j
			}
		}
	}
	got, _ := v.nextFailing.LoadOrStore(s.Label(), out)
	return got.([]int)
}

// rawOutput writes an output back as one line of JSON with the members
// the judge read, numbers as they were written.
func rawOutput(o *suite.Output) string {
	var b bytes.Buffer
	member := func(name string, value any) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteString(": ")
		switch v := value.(type) {
		case suite.Number:
			b.WriteString(v.String())
		default:
			j, err := json.Marshal(v)
			if err != nil {
				j = []byte("null")
			}
			b.Write(j)
		}
	}
	member("case_id", o.CaseID)
	member("decision", o.Decision)
	member("tool_calls", o.ToolCalls)
	member("citations", o.Citations)
	member("latency_ms", o.LatencyMS)
	member("cost_usd", o.CostUSD)
	return "{" + b.String() + "}"
}
