package render

import (
	"bytes"
	"fmt"
	"html/template"
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/site/pages"
)

// The grouped pages' parts are written by hand (site/pages/grouphtml.go).
// The reference for their bytes is the template text that wrote them
// before, kept in testdata/results.html and testdata/histories.html and
// parsed with the live templates/base.html and templates/agent.html, whose
// parts the writer copies: a change to either shows here until the writer
// follows it.

// referenceTemplates parses the grouped pages' templates as they were
// before their parts were written by hand.
func referenceTemplates(t testing.TB) (results, histories *template.Template) {
	t.Helper()
	parse := func(name string) *template.Template {
		set, err := template.New(name).Funcs(templateFuncs()).ParseFS(releasegate.Web(), "templates/base.html", agentTemplate)
		if err != nil {
			t.Fatal(err)
		}
		if set, err = set.ParseFiles(filepath.Join("testdata", name+".html")); err != nil {
			t.Fatal(err)
		}
		return set
	}
	return parse("results"), parse("histories")
}

// groupRenderers renders grouped pages with the reference templates and
// with the site's own, which take the parts from the writer.
type groupRenderers struct {
	r                    *Renderer
	results, histories   *template.Template
	reference, candidate bytes.Buffer
}

func newGroupRenderers(t testing.TB) *groupRenderers {
	t.Helper()
	r, err := NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	g := &groupRenderers{r: r}
	g.results, g.histories = referenceTemplates(t)
	return g
}

// same renders page both ways and says where they first differ.
func (g *groupRenderers) same(name string, page any) error {
	g.reference.Reset()
	g.candidate.Reset()
	ref := g.results
	if name == "histories" {
		ref = g.histories
	}
	if err := ref.ExecuteTemplate(&g.reference, "base", page); err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	if err := g.r.Execute(&g.candidate, name, page); err != nil {
		return err
	}
	a, b := g.reference.Bytes(), g.candidate.Bytes()
	if bytes.Equal(a, b) {
		return nil
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Errorf("differs at byte %d of %d (written %d):\nreference …%q\nwritten   …%q", i, len(a), len(b), a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

// TestGroupHTMLMatchesTemplates renders every grouped result and history
// page of the sample, of every example and of generated suites (one with
// trials, matchers and the four wire formats) with the reference templates
// and as the site does, and requires the same bytes.
func TestGroupHTMLMatchesTemplates(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	dirs, err := filepath.Glob(filepath.Join(root, "examples", "*", "gate.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, gate := range dirs {
		dirs[i] = filepath.Dir(gate)
	}
	sample := filepath.Join(root, "data")
	generated := filepath.Join(t.TempDir(), "generated")
	if err := gensuite.Write(sample, generated, 300); err != nil {
		t.Fatal(err)
	}
	trials := filepath.Join(t.TempDir(), "trials")
	if err := gensuite.WriteTrials(sample, trials, 150, 3); err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, sample, generated, trials)
	g := newGroupRenderers(t)
	// What the pages showed, so that a suite that no longer shows some
	// part cannot leave it untested.
	seen := map[string]int{}
	for _, dir := range dirs {
		rel, err := evaluator.EvaluateDir(dir, evaluator.Options{KeepOutputs: true, KeepInputs: true})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		v, err := NewView(&pages.Input{Release: rel, GroupAbove: 1})
		if err != nil {
			t.Fatal(err)
		}
		n := len(rel.Suite.Cases)
		for _, s := range rel.Snapshots {
			for k := range v.Paths.ResultGroups(n) {
				p, err := v.ResultGroupPage(s, k)
				if err != nil {
					t.Fatal(err)
				}
				tally(seen, p)
				if err := g.same("results", p); err != nil {
					t.Fatalf("%s: %s page %d: %v", dir, s.Label(), k+1, err)
				}
			}
		}
		for k := range v.Paths.HistoryGroups(n) {
			seen["history rows"] += len(v.HistoryGroupPage(k).Rows)
			if err := g.same("histories", v.HistoryGroupPage(k)); err != nil {
				t.Fatalf("%s: history page %d: %v", dir, k+1, err)
			}
		}
	}
	t.Logf("shown: %v", seen)
	for _, part := range []string{"drilldowns", "trials", "passing rows", "rows with trials", "history rows", "no output",
		"unreadable arguments", "unpaired calls", "mismatches", "next failing", "critical notes", "citations", "failures"} {
		if seen[part] == 0 {
			t.Errorf("no page showed %s", part)
		}
	}
}

// tally counts the parts of p that the writer writes on its own.
func tally(seen map[string]int, p *pages.ResultGroupPage) {
	output := func(o *pages.OutputView) {
		if !o.HasOutput {
			seen["no output"]++
		}
		if len(o.Failures) > 0 {
			seen["failures"]++
		}
		if len(o.ExpectedCitations)+len(o.ActualCitations) > 0 {
			seen["citations"]++
		}
		if len(o.Calls.Unpaired) > 0 {
			seen["unpaired calls"]++
		}
		if len(o.Calls.Mismatches) > 0 {
			seen["mismatches"]++
		}
		for _, p := range o.Calls.Pairs {
			if p.Actual != nil && p.Actual.Unreadable {
				seen["unreadable arguments"]++
			}
		}
	}
	for _, part := range p.Parts {
		for _, r := range part.Passing {
			seen["passing rows"]++
			if r.Strip != nil {
				seen["rows with trials"]++
			}
		}
		d := part.Full
		if d == nil {
			continue
		}
		seen["drilldowns"]++
		if d.NextFailing != nil {
			seen["next failing"]++
		}
		if d.CriticalNote != "" {
			seen["critical notes"]++
		}
		output(&d.OutputView)
		for i := range d.Trials {
			seen["trials"]++
			output(&d.Trials[i].OutputView)
		}
	}
}

// FuzzGroupHTML fills a grouped result page and a grouped history page
// with hostile text (markup, quotes, entities, URLs with schemes, percent
// signs, NUL, invalid UTF-8) in every place the writer puts a value, the
// branches chosen by the bits of shape, and requires the bytes the
// reference templates give.
func FuzzGroupHTML(f *testing.F) {
	seeds := []struct{ id, title, text, href string }{
		{"ER-0001", "Refund a duplicate charge", "escalate", "../../cases/p0001.html#ER-0001"},
		{`<script>alert("x")</script>`, `'single' & "double"`, "a+b=c", "javascript:alert(1)"},
		{"JaVaScRiPt:x", "\x00nul\x00", "\xff\xfe\xc3", "JavaScript:void(0)"},
		{"é ✓ ✕ ~ →", "&amp; &lt; &#34;", "%zz %41 %4", "http://example.com/a b?c=d&e=f+g#h"},
		{"a/b:c", "mailto:x@y", "data:text/html,<b>", "mailto:someone@example.com?subject=a&b"},
		{"", "", "", ""},
		{"id~trial-1", "tab\tnew\nline\r", "`backtick` = <>", "../a:b/c"},
		{"HTTPS:", "x", "y", "HTTPS://EXAMPLE.COM/%E2%9C%93/%"},
		{"\u2028\u2029", "\ufffd", "\xed\xa0\x80", "#stem~trial-2"},
		{"[a]@!$*,;", "'", `"`, "/?[]@!$&'()*+,;=%25"},
		{"%", "%4", "%41", "a%4"},
		{"x", "y", "z", "b%41"},
	}
	for i, s := range seeds {
		f.Add(s.id, s.title, s.text, s.href, uint64(i)*0x9e3779b97f4a7c15)
		f.Add(s.id, s.title, s.text, s.href, ^uint64(0))
		f.Add(s.id, s.title, s.text, s.href, uint64(0))
	}
	g := newGroupRenderers(f)
	f.Fuzz(func(t *testing.T, id, title, text, href string, shape uint64) {
		bit := func(n uint) bool { return shape>>(n%64)&1 == 1 }
		results := hostileResultPage(id, title, text, href, bit)
		if err := g.same("results", results); err != nil {
			t.Fatal(err)
		}
		if err := g.same("histories", hostileHistoryPage(id, title, text, href, bit)); err != nil {
			t.Fatal(err)
		}
	})
}

// hostileResultPage puts the four strings everywhere a grouped result
// page shows a value.
func hostileResultPage(id, title, text, href string, bit func(uint) bool) *pages.ResultGroupPage {
	badge := func(n uint) pages.Badge {
		if bit(n) {
			return pages.Badge{HTML: `<span class="badge badge-pass">✓ pass</span>`}
		}
		return pages.Badge{HTML: template.HTML(text)} // trusted markup goes in as it is
	}
	link := func(n uint) *pages.NavLink {
		if !bit(n) {
			return nil
		}
		return &pages.NavLink{Href: href, Text: text}
	}
	strip := func(n uint, linked bool) *pages.TrialStrip {
		if !bit(n) {
			return nil
		}
		s := &pages.TrialStrip{Text: title, Label: text, Linked: linked, Flaky: bit(n + 1), FlakyBadge: badge(n + 2)}
		for k := range 1 + int(n%3) {
			s.Marks = append(s.Marks, pages.TrialMark{Trial: k + 1, Href: href, Icon: id, Class: text, Title: title})
		}
		return s
	}
	call := func(n uint) pages.CallView {
		return pages.CallView{Index: int(n) - 3, Name: id, Note: text, Code: template.HTML(title), Unreadable: bit(n), Raw: text}
	}
	citations := func(n uint) []pages.CitationRow {
		if !bit(n) {
			return nil
		}
		rows := []pages.CitationRow{{ID: id, Class: text, State: title, Icon: text, Successor: link(n + 1)}}
		if bit(n + 2) {
			rows = append(rows, pages.CitationRow{ID: title, Href: href, Class: id, State: text, Icon: "✓"})
		}
		return rows
	}
	output := func(n uint) pages.OutputView {
		o := pages.OutputView{IDPrefix: id, Nested: bit(n), CaseID: id, HasOutput: bit(n + 1), DecisionJudged: bit(n + 2),
			ExpectedDecision: title, DecisionVerdict: badge(n + 3), CitationsJudged: bit(n + 4), Latency: text, Cost: title}
		if bit(n + 5) {
			o.ActualDecision = text
		}
		if bit(n + 6) {
			o.Failures = []judge.Failure{{Code: judge.Code(text), Detail: title}, {Code: judge.Decision, Detail: text}}
		}
		o.Calls = pages.CallPairs{Mode: text, ModeText: title, UnpairedNote: text, HasOutput: bit(n + 7), NoCalls: bit(n + 8)}
		if bit(n + 9) {
			actual := call(n + 10)
			o.Calls.Pairs = []pages.CallPair{{Expected: call(n + 11), Actual: &actual, Verdict: badge(n + 12)}, {Expected: call(n + 13), Verdict: badge(n + 14)}}
		}
		if bit(n + 15) {
			o.Calls.Unpaired = []pages.CallView{call(n + 16), call(n + 17)}
		}
		if bit(n + 18) {
			o.Calls.Mismatches = []string{text, title}
		}
		if bit(n + 19) {
			o.Forbidden = []pages.ForbiddenRow{{Tool: id, Verdict: badge(n + 20), Text: text}, {Tool: title, Text: id}}
		}
		o.ExpectedCitations, o.ActualCitations = citations(n+21), citations(n+24)
		return o
	}
	d := &pages.DrilldownPage{Label: title, HistoryHref: href, ID: id, Anchor: id, CaseTitle: title, Severity: text, Verdict: badge(30),
		OutputView: output(31), NextFailing: link(58), Raw: text, RawSource: title, Input: text + title, Strip: strip(59, true)}
	if bit(61) {
		d.Elsewhere = []pages.NavLink{{Href: href, Text: text}, {Href: title, Text: id}}
	}
	if bit(62) {
		d.CriticalNote = text
	}
	if bit(63) || d.Strip != nil {
		d.Trials = []pages.TrialSection{{Trial: 1, ID: id, Verdict: badge(1), OutputView: output(2)}, {Trial: 2, ID: title, Verdict: badge(3), OutputView: output(33)}}
		if d.Strip == nil {
			d.Strip = &pages.TrialStrip{Linked: true}
		}
	}
	passing := []pages.PassingRow{
		{ID: id, Anchor: title, Title: text, Severity: id, Decision: title, Latency: text, Cost: id, HistoryHref: href, Strip: strip(40, false)},
		{ID: "a-very-long-identifier-of-a-case-0001", Anchor: id, Title: title, Severity: text, Decision: id, Latency: title, Cost: text, HistoryHref: title, Strip: strip(43, bit(44))},
	}
	p := &pages.ResultGroupPage{Label: title, SnapshotHref: href, Range: text, Counts: id}
	p.Parts = []pages.ResultPart{{Passing: passing}, {Full: d}}
	if bit(45) {
		p.Parts = append(p.Parts, pages.ResultPart{Passing: passing[:1]})
	}
	return p
}

// hostileHistoryPage puts the four strings everywhere a grouped history
// page's rows show a value.
func hostileHistoryPage(id, title, text, href string, bit func(uint) bool) *pages.HistoryGroupPage {
	p := &pages.HistoryGroupPage{Range: text, Snapshots: []pages.NavLink{{Href: href, Text: title}}}
	cells := []pages.HistoryCell{{Href: href, Class: text, Text: title}, {Href: id, Class: title, Text: text}}
	p.Rows = []pages.HistoryGroupRow{
		{ID: id, Anchor: title, Title: text, Severity: href, Cells: cells},
		{ID: title + title + title, Anchor: id, Title: id, Severity: text, Cells: cells[:1]},
	}
	if bit(5) {
		p.Rows = append(p.Rows, pages.HistoryGroupRow{ID: text})
	}
	return p
}
