package pages

import (
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/jsonappend"
)

// DrilldownPage is snapshots/<label>/<case>.html: one case in one
// snapshot, expected against actual.
type DrilldownPage struct {
	Layout
	Label        string
	SnapshotHref string
	HistoryHref  string
	ID           string
	// Anchor is the result's id on a page that shows several results
	// (see ResultPaths.stem).
	Anchor string
	// CaseTitle is the case's title; the page's own title, in its Layout,
	// names the case and the snapshot.
	CaseTitle string
	Severity  string
	Verdict   Badge

	// OutputView is the snapshot's only output for the case, or, with
	// trials, trial 1's; Trials then holds every trial.
	OutputView
	Trials []TrialSection
	// Strip shows the trials at the top, each mark linking to its
	// section; nil without trials.
	Strip *TrialStrip
	// CriticalNote says that a critical case failed a trial, which makes
	// it a critical failure of the snapshot whether or not it passes.
	CriticalNote string

	Input     string
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

// OutputView is what one output (one trial) did against the case.
type OutputView struct {
	// IDPrefix keeps element ids unique when a page shows several
	// outputs: "" alone, "trial-2-" in trial 2's section.
	IDPrefix string
	// Nested puts the output's headings one level down, inside a
	// trial's section.
	Nested    bool
	CaseID    string
	Failures  []judge.Failure
	HasOutput bool

	// DecisionJudged is false for a case that expects no decision: the
	// page then shows a dash for it, and "not judged".
	DecisionJudged   bool
	ExpectedDecision string
	ActualDecision   string // "" when the output gives none
	DecisionVerdict  Badge

	Calls CallPairs

	Forbidden         []ForbiddenRow
	ExpectedCitations []CitationRow
	ActualCitations   []CitationRow
	// CitationsJudged is false when the data folder has no POLICY.md.
	CitationsJudged bool

	Latency string
	Cost    string
}

// CallView is one tool call, its arguments printed line by line.
type CallView struct {
	Index int // 1-based position among the expected or the output's calls
	Name  string
	Note  string // "forbidden for this case"
	Lines []JSONLine
	Code  template.HTML // Lines for a <pre> element
	// Unreadable: the agent sent an argument string that holds no JSON
	// object; Raw is that string.
	Unreadable bool
	Raw        string
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

// DrilldownPage is the page of one result of its own.
func (v *Model) DrilldownPage(s *evaluator.Snapshot, i int) (*DrilldownPage, error) {
	c := v.In.Release.Suite.Cases[i]
	path := DrilldownPath(s.Label(), v.Paths.Stem(i))
	p, err := v.resultDetail(s, i, path)
	if err != nil {
		return nil, err
	}
	p.Layout = v.Info.layout(path, c.ID+" in "+s.Label())
	return p, nil
}

// resultDetail is the full drilldown of case i in s as the page at path
// shows it, on a page of its own or among the results of a group. Its
// case's input and its output are read again when they were kept as
// the places of their lines (evaluator.Options.Compact), which fails if
// a file has changed since.
func (v *Model) resultDetail(s *evaluator.Snapshot, i int, path string) (*DrilldownPage, error) {
	c := v.In.Release.Suite.Cases[i]
	res := s.Result.Cases[i]
	label := s.Label()
	root := rootFor(path)
	prefix := v.Paths.idPrefix(i)
	p := &DrilldownPage{
		Label:        label,
		SnapshotHref: root + SnapshotPath(label),
		HistoryHref:  root + v.Paths.History(i),
		ID:           c.ID,
		Anchor:       v.Paths.Stem(i),
		CaseTitle:    c.Title,
		Severity:     string(c.Severity),
		Verdict:      verdictBadge(res.Passed),
	}
	input, err := v.In.Release.Suite.Input(c)
	if err != nil {
		return nil, err
	}
	p.Input = prettyInput(input)
	p.Prev, p.Next, p.NextFailing = v.caseNeighbours(s, i, root)
	out, err := s.Whole(s.Outputs[i])
	if err != nil {
		return nil, err
	}
	if out != nil {
		p.Raw = rawOutput(out)
		p.RawSource = fmt.Sprintf("line %d of outputs/%s.jsonl", out.Line, label)
	}
	// The previous and the next snapshot only: the history page lists
	// the rest, and a link to every other snapshot would make the site
	// grow with the square of their number.
	labels := v.Info.Labels
	if k := slices.Index(labels, label); k >= 0 {
		if k > 0 {
			p.Elsewhere = append(p.Elsewhere, NavLink{Href: root + v.Paths.Result(labels[k-1], i), Text: labels[k-1] + " (previous)"})
		}
		if k+1 < len(labels) {
			p.Elsewhere = append(p.Elsewhere, NavLink{Href: root + v.Paths.Result(labels[k+1], i), Text: labels[k+1] + " (next)"})
		}
	}
	p.OutputView = v.outputView(c, out, res.Failures, root)
	if prefix != "" {
		// Among other results: headings one level down, ids of its own.
		p.OutputView.IDPrefix, p.OutputView.Nested = prefix, true
	}
	if p.Trials, err = v.trialSections(s, i, root); err != nil {
		return nil, err
	}
	if p.Trials != nil {
		for t := range p.Trials {
			p.Trials[t].ID = prefix + p.Trials[t].ID
			p.Trials[t].IDPrefix = prefix + p.Trials[t].IDPrefix
		}
		p.Strip = NewTrialStrip(&res, s.Trials(), func(t int) string { return "#" + prefix + TrialID(t) })
		p.Strip.Linked = true
		if c.Severity == suite.Critical && res.TrialsPassed < res.Trials {
			p.CriticalNote = fmt.Sprintf("This critical case failed %d of its %d trials, so it counts as a critical failure of %s", res.Trials-res.TrialsPassed, res.Trials, label)
			if res.Passed {
				p.CriticalNote += ", although it passes"
			}
			p.CriticalNote += "."
		}
	}
	return p, nil
}

// outputView judges out against c for the page; failures are the ones
// the results file gives this output.
func (v *Model) outputView(c *suite.Case, out *suite.Output, failures []judge.Failure, root string) OutputView {
	exp := &c.Expected
	policyRules := v.In.Release.Suite.Policy
	o := OutputView{CaseID: c.ID, Failures: readableFailures(failures), HasOutput: out != nil, ExpectedDecision: string(exp.Decision),
		DecisionJudged: exp.JudgesDecision(), Calls: callPairs(exp, out), CitationsJudged: policyRules != nil}
	var called, cited []string
	if out != nil {
		o.ActualDecision = string(out.Decision)
		o.DecisionVerdict = verdictBadge(out.Decision == exp.Decision)
		o.Latency, o.Cost = measuredMS(out.LatencyMS), measuredUSD(out.CostUSD)
		cited = out.Citations
		for _, call := range out.ToolCalls {
			called = append(called, call.Name)
		}
	}
	for _, t := range exp.ForbiddenTools {
		row := ForbiddenRow{Tool: t, Verdict: verdictBadge(true), Text: "not called"}
		if slices.Contains(called, t) {
			row.Verdict, row.Text = verdictBadge(false), "called"
		}
		o.Forbidden = append(o.Forbidden, row)
	}
	policy := root + PolicyPath
	for _, id := range dedupe(exp.Citations) {
		row := citationRow(id, policyRules, policy)
		if out != nil && !slices.Contains(cited, id) {
			row.Class, row.State, row.Icon = "missing", "missing from the output", "⚠"
		}
		o.ExpectedCitations = append(o.ExpectedCitations, row)
	}
	for _, id := range dedupe(cited) {
		row := citationRow(id, policyRules, policy)
		if row.Class == "current" && !slices.Contains(exp.Citations, id) {
			row.State = "current rule, not expected (allowed)"
		}
		o.ActualCitations = append(o.ActualCitations, row)
	}
	return o
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

// CaseSteps is what the "case-steps" part of a drilldown shows: the
// links to the cases before and after it and to the next failing one.
type CaseSteps struct {
	Label                   string
	Prev, Next, NextFailing *NavLink
}

// CaseSteps is the steps part of case i's drilldown in s.
func (v *Model) CaseSteps(s *evaluator.Snapshot, i int) CaseSteps {
	st := CaseSteps{Label: s.Label()}
	st.Prev, st.Next, st.NextFailing = v.caseNeighbours(s, i, rootFor(DrilldownPath(s.Label(), v.Paths.Stem(i))))
	return st
}

// caseNeighbours links the cases before and after case i of s in suite
// order, and the next failing case after it.
func (v *Model) caseNeighbours(s *evaluator.Snapshot, i int, root string) (prev, next, nextFailing *NavLink) {
	cases := v.In.Release.Suite.Cases
	link := func(j int) *NavLink {
		return &NavLink{Href: root + v.Paths.Result(s.Label(), j), Text: cases[j].ID}
	}
	if i > 0 {
		prev = link(i - 1)
	}
	if i+1 < len(cases) {
		next = link(i + 1)
	}
	if j := v.FailingAfter(s)[i]; j >= 0 {
		nextFailing = link(j)
	}
	return prev, next, nextFailing
}

// FailingAfter returns, for each case position of s, the position of the
// next failing case after it, wrapping round, or -1 when no other case
// fails. It is worked out once per snapshot in linear time.
func (v *Model) FailingAfter(s *evaluator.Snapshot) []int {
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
// the judge read. Its values are written as json.Marshal writes them (a
// grouped page shows the outputs of tens of thousands of failing
// results, and json.Marshal's reflection over their argument trees was
// most of the cost); a value of a type appendCallsJSON does not know is
// handed to json.Marshal. TestRawOutputAsMarshalled and FuzzRawOutput
// hold it to json.Marshal's bytes (docs/design.md, "Fast paths").
func rawOutput(o *suite.Output) string {
	b := make([]byte, 0, 512)
	b = append(b, `{"case_id": `...)
	b = jsonappend.String(b, o.CaseID, true)
	if o.Decision != "" {
		b = append(b, `, "decision": `...)
		b = jsonappend.String(b, string(o.Decision), true)
	}
	b = append(b, `, "tool_calls": `...)
	start := len(b)
	b, ok := appendCallsJSON(b, o.ToolCalls)
	if !ok {
		b = appendMarshalled(b[:start], o.ToolCalls)
	}
	b = append(b, `, "citations": `...)
	b = jsonappend.Strings(b, o.Citations, true)
	b = append(b, `, "latency_ms": `...)
	b = appendMeasuredJSON(b, o.LatencyMS)
	b = append(b, `, "cost_usd": `...)
	b = appendMeasuredJSON(b, o.CostUSD)
	return string(append(b, '}'))
}

// appendMarshalled appends json.Marshal(v), or null when v cannot be
// marshalled.
func appendMarshalled(b []byte, v any) []byte {
	j, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// appendMeasuredJSON appends n as json.Marshal writes a *suite.Number: its
// float64 (always finite: a Number holds only values a float64 can), or
// null when n is nil.
func appendMeasuredJSON(b []byte, n *suite.Number) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return jsonappend.Float(b, n.Float64())
}

// appendCallsJSON appends calls as json.Marshal writes them, and reports
// false for a value of a type it does not know.
func appendCallsJSON(b []byte, calls []suite.ToolCall) ([]byte, bool) {
	if calls == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, c := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonappend.String(b, c.Name, true)
		b = append(b, `,"arguments":`...)
		var ok bool
		if b, ok = appendValueJSON(b, c.Arguments); !ok {
			return b, false
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}

// appendValueJSON appends a value of an argument tree as json.Marshal
// writes it inside a suite.Object (whose MarshalJSON writes the map of
// its members): members by name, the last of a repeated name, and HTML
// escaped.
func appendValueJSON(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return jsonappend.String(b, v, true), true
	case bool:
		return strconv.AppendBool(b, v), true
	case suite.Number:
		return jsonappend.Float(b, v.Float64()), true
	case []any: // never null: the tree makes each list anew
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendValueJSON(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case suite.Object:
		order := make([]int, len(v))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(i, j int) int { return strings.Compare(v[i].Name, v[j].Name) })
		b = append(b, '{')
		wrote := false
		for k, i := range order {
			if k+1 < len(order) && v[order[k+1]].Name == v[i].Name {
				continue // a later member of the same name wins
			}
			if wrote {
				b = append(b, ',')
			}
			wrote = true
			b = jsonappend.String(b, v[i].Name, true)
			b = append(b, ':')
			var ok bool
			if b, ok = appendValueJSON(b, v[i].Value); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}
