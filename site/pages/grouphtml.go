package pages

import (
	"bytes"
	"html/template"
	"strconv"
	"strings"
)

// The repeated parts of the grouped pages, written by hand. A 100,000-case
// release has thousands of grouped pages, each of a hundred results or
// rows, and executing a template over every row took most of a build's
// processor time; templates/results.html and templates/histories.html
// keep the page around these parts (see "Fast paths" in docs/design.md).
// The bytes are those the templates gave: the parts of
// templates/agent.html and templates/base.html that a result shows
// ("output", "call-pairs", "call-arguments", "trial-strip", "citations")
// are written as they are, and every value is escaped as html/template
// escapes it in the same place. TestGroupHTMLMatchesTemplates in
// site/internal/render holds the two to the same bytes.

// SpliceMark is what the template of a Spliced page writes (through its
// Splice method) where the page's repeated parts go. The renderer writes
// them there straight into the page's buffer: through the template they
// were copied twice more, and at 100,000 cases × 3 those copies were a
// third of what a build allocated. The mark holds NUL, which no escaped
// value does (html/template writes U+FFFD for it).
const SpliceMark = "\x00releasegate:spliced\x00"

// Spliced is a page whose parts are written apart from its template
// (see SpliceMark).
type Spliced interface {
	// WriteSpliced writes the parts, about SplicedSize bytes, to w.
	WriteSpliced(w *bytes.Buffer)
	SplicedSize() int
}

// Splice is where the template puts the page's parts.
func (p *ResultGroupPage) Splice() template.HTML { return SpliceMark }

// Splice is where the template puts the page's rows.
func (p *HistoryGroupPage) Splice() template.HTML { return SpliceMark }

// SplicedSize is about the length of the page's parts, a little more.
func (p *ResultGroupPage) SplicedSize() int { return p.partsSize() }

// SplicedSize is about the length of the page's rows, a little more.
func (p *HistoryGroupPage) SplicedSize() int { return p.rowsSize() }

// WriteSpliced writes the page's parts in suite order: each failing or
// flaky result's full drilldown, and the tables of the passing ones
// between.
func (p *ResultGroupPage) WriteSpliced(b *bytes.Buffer) {
	w := &htmlWriter{b}
	for i := range p.Parts {
		if d := p.Parts[i].Full; d != nil {
			w.result(d)
		} else {
			w.passing(p.Parts[i].Passing)
		}
	}
}

// WriteSpliced writes the page's table rows, a case each.
func (p *HistoryGroupPage) WriteSpliced(b *bytes.Buffer) {
	w := &htmlWriter{b}
	for i := range p.Rows {
		r := &p.Rows[i]
		w.raw("\n<tr id=\"")
		w.attr(r.Anchor)
		w.raw(`"><th scope="row"`)
		if r.LongID() {
			w.raw(` class="long-id"`)
		}
		w.raw(">")
		w.text(r.ID)
		w.raw("</th><td>")
		w.text(r.Title)
		w.raw("</td><td>")
		w.text(r.Severity)
		w.raw("</td>")
		for _, c := range r.Cells {
			w.raw(`<td class="`)
			w.attr(c.Class)
			w.raw(`"><a href="`)
			w.url(c.Href)
			w.raw(`">`)
			w.text(c.Text)
			w.raw("</a></td>")
		}
		w.raw("</tr>")
	}
}

// rowsSize is about the length of the page's rows, a little more, so
// that their buffer is made once.
func (p *HistoryGroupPage) rowsSize() int {
	n := 0
	for i := range p.Rows {
		r := &p.Rows[i]
		n += 70 + len(r.Anchor) + len(r.ID) + len(r.Title) + len(r.Severity)
		for _, c := range r.Cells {
			n += 40 + len(c.Href) + len(c.Class) + len(c.Text)
		}
	}
	return n
}

// partsSize is about the length of the page's parts, so that their
// buffer is made once: a little more than the values written, and the
// fixed markup around them.
func (p *ResultGroupPage) partsSize() int {
	n := 0
	for i := range p.Parts {
		d := p.Parts[i].Full
		if d == nil {
			n += 400
			for j := range p.Parts[i].Passing {
				r := &p.Parts[i].Passing[j]
				n += 110 + len(r.Anchor) + len(r.HistoryHref) + len(r.ID) + len(r.Title) + len(r.Severity) + len(r.Decision) + len(r.Latency) + len(r.Cost) + stripSize(r.Strip)
			}
			continue
		}
		n += 900 + 3*len(d.Anchor) + 2*len(d.ID) + len(d.Label) + len(d.CaseTitle) + len(d.HistoryHref) + len(d.Raw) + len(d.Input) + stripSize(d.Strip)
		n += len(d.Elsewhere) * 80
		if len(d.Trials) == 0 {
			n += outputSize(&d.OutputView)
		}
		for t := range d.Trials {
			n += 100 + outputSize(&d.Trials[t].OutputView)
		}
	}
	return n
}

// outputSize is about the length of one output's part.
func outputSize(o *OutputView) int {
	n := 1900 + 12*len(o.IDPrefix) + len(o.CaseID)
	for _, f := range o.Failures {
		n += 150 + len(f.Detail)
	}
	for _, p := range o.Calls.Pairs {
		n += 450 + len(p.Expected.Code) + len(p.Expected.Name) + len(p.Expected.Note)
		if p.Actual != nil {
			n += len(p.Actual.Code) + len(p.Actual.Raw) + len(p.Actual.Name) + len(p.Actual.Note)
		}
	}
	for _, c := range o.Calls.Unpaired {
		n += 400 + len(c.Code) + len(c.Raw) + len(c.Name) + len(c.Note)
	}
	for _, m := range o.Calls.Mismatches {
		n += 30 + len(m)
	}
	n += 80*len(o.Forbidden) + 200*(len(o.ExpectedCitations)+len(o.ActualCitations))
	return n
}

// stripSize is about the length of a trial strip.
func stripSize(s *TrialStrip) int {
	if s == nil {
		return 0
	}
	n := 100 + len(s.Text)
	if !s.Linked {
		return n + len(s.Label) + 50*len(s.Marks)
	}
	for _, m := range s.Marks {
		n += 120 + len(m.Href) + len(m.Title)
	}
	return n
}

// passing writes the table of a run of passing results.
func (w *htmlWriter) passing(rows []PassingRow) {
	w.raw("\n" + `<div class="table-wrap" role="region" aria-label="Passing cases" tabindex="0">` + "\n" +
		`<table class="passing">` + "\n" +
		`<thead><tr><th scope="col">Passing case (its history)</th><th scope="col">Title</th><th scope="col">Severity</th><th scope="col">Decision</th><th scope="col">Latency</th><th scope="col">Cost</th></tr></thead>` + "\n" +
		"<tbody>")
	for i := range rows {
		r := &rows[i]
		w.raw("\n<tr id=\"")
		w.attr(r.Anchor)
		w.raw(`"><th scope="row"`)
		if r.LongID() {
			w.raw(` class="long-id"`)
		}
		w.raw(`><a href="`)
		w.url(r.HistoryHref)
		w.raw(`">`)
		w.text(r.ID)
		w.raw("</a></th><td>")
		w.text(r.Title)
		w.raw("</td><td>")
		w.text(r.Severity)
		w.raw("</td><td>")
		w.text(r.Decision)
		if r.Strip != nil {
			w.raw(" ")
			w.trialStrip(r.Strip)
		}
		w.raw("</td><td>")
		w.text(r.Latency)
		w.raw("</td><td>")
		w.text(r.Cost)
		w.raw("</td></tr>")
	}
	w.raw("\n</tbody>\n</table>\n</div>")
}

// result writes the full drilldown of a failing or flaky result.
func (w *htmlWriter) result(d *DrilldownPage) {
	w.raw("\n" + `<section class="result" id="`)
	w.attr(d.Anchor)
	w.raw(`" aria-labelledby="`)
	w.attr(d.Anchor)
	w.raw("~heading\">\n<h2 id=\"")
	w.attr(d.Anchor)
	w.raw(`~heading">`)
	w.text(d.ID)
	w.raw(" in ")
	w.text(d.Label)
	w.raw(" ")
	w.raw(string(d.Verdict.HTML))
	w.raw("</h2>\n<p class=\"lead\">")
	w.text(d.CaseTitle)
	w.raw("</p>\n<p>Severity: <strong>")
	w.text(d.Severity)
	w.raw(`</strong> · <a href="`)
	w.url(d.HistoryHref)
	w.raw(`">History of `)
	w.text(d.ID)
	w.raw(" across snapshots</a>")
	if l := d.NextFailing; l != nil {
		w.raw(` · <a href="`)
		w.url(l.Href)
		w.raw(`" class="next-failing">Next failing: `)
		w.text(l.Text)
		w.raw(" →</a>")
	}
	w.raw("</p>")
	if len(d.Elsewhere) > 0 {
		w.raw("\n<p>The same case in: ")
		for i, l := range d.Elsewhere {
			if i > 0 {
				w.raw(", ")
			}
			w.raw(`<a href="`)
			w.url(l.Href)
			w.raw(`">`)
			w.text(l.Text)
			w.raw("</a>")
		}
		w.raw("</p>")
	}
	if len(d.Trials) > 0 {
		w.raw("\n<div class=\"trial-line\">")
		w.trialStrip(d.Strip)
		w.raw("</div>")
		if d.CriticalNote != "" {
			w.raw("\n<p class=\"notice\">")
			w.text(d.CriticalNote)
			w.raw("</p>")
		}
		for t := range d.Trials {
			s := &d.Trials[t]
			w.raw("\n" + `<section class="trial" aria-labelledby="`)
			w.attr(s.ID)
			w.raw("\">\n<h3 id=\"")
			w.attr(s.ID)
			w.raw(`">Trial `)
			w.int(s.Trial)
			w.raw(" ")
			w.raw(string(s.Verdict.HTML))
			w.raw("</h3>\n")
			w.output(&s.OutputView)
			w.raw("\n</section>")
		}
	} else {
		w.output(&d.OutputView)
	}
	if d.HasOutput {
		w.raw("\n<details class=\"raw-output\">\n<summary>The output as read: ")
		w.text(d.RawSource)
		w.raw("</summary>\n<pre class=\"json\"><code>")
		w.elementText(d.Raw)
		w.raw("</code></pre>\n</details>")
	}
	w.raw("\n<details class=\"case-input\">\n<summary>Case input</summary>\n<pre class=\"json\"><code>")
	w.elementText(d.Input)
	w.raw("</code></pre>\n</details>\n</section>")
}

// heading writes a section's heading as "output" does: one level down
// inside a trial or among other results, with the id prefix then.
func (w *htmlWriter) heading(o *OutputView, id, text string) {
	if o.Nested {
		w.raw(`<h3 id="`)
		w.attr(o.IDPrefix)
		w.raw(id)
		w.raw(`">`)
		w.raw(text)
		w.raw("</h3>")
		return
	}
	w.raw(`<h2 id="`)
	w.raw(id)
	w.raw(`">`)
	w.raw(text)
	w.raw("</h2>")
}

// sectionOpen writes the start of one of "output"'s sections.
func (w *htmlWriter) sectionOpen(o *OutputView, id string) {
	w.raw(`<section aria-labelledby="`)
	w.attr(o.IDPrefix)
	w.raw(id)
	w.raw("\">\n")
}

// output writes what one output did against its case: the "output"
// template of templates/agent.html.
func (w *htmlWriter) output(o *OutputView) {
	if len(o.Failures) > 0 {
		w.raw("\n" + `<section aria-labelledby="`)
		w.attr(o.IDPrefix)
		w.raw("failures\" class=\"failures\">\n")
		w.heading(o, "failures", "Failures")
		w.raw("\n<ul>")
		for _, f := range o.Explained() {
			w.raw("\n<li><strong>It ")
			w.text(f.Sentence)
			w.raw("</strong>: ")
			w.text(f.Detail)
			w.raw(` <span class="failure-code">(code <code>`)
			w.text(f.Code)
			w.raw("</code>)</span></li>")
		}
		w.raw("\n</ul>\n</section>")
	}
	if !o.HasOutput {
		w.raw("\n<p class=\"notice\">This snapshot holds no output for ")
		w.text(o.CaseID)
		if o.Nested {
			w.raw(" in this trial")
		}
		w.raw("; below is what the case expects.</p>")
	}

	w.raw("\n\n")
	w.sectionOpen(o, "decision")
	w.heading(o, "decision", "Decision")
	w.raw("\n" + `<div class="table-wrap" role="region" aria-labelledby="`)
	w.attr(o.IDPrefix)
	w.raw(`decision" tabindex="0">` + "\n" +
		`<table class="decision">` + "\n" +
		`<thead><tr><th scope="col">Expected</th><th scope="col">Actual</th><th scope="col">Result</th></tr></thead>` + "\n" +
		"<tbody><tr>")
	if o.DecisionJudged {
		w.raw("<td><code>")
		w.text(o.ExpectedDecision)
		w.raw("</code></td>")
	} else {
		w.raw("<td>—</td>")
	}
	if o.HasOutput {
		w.raw("<td>")
		if o.ActualDecision != "" {
			w.raw("<code>")
			w.text(o.ActualDecision)
			w.raw("</code>")
		} else {
			w.raw("—")
		}
		w.raw("</td><td>")
		if o.DecisionJudged {
			w.raw(string(o.DecisionVerdict.HTML))
		} else {
			w.raw("not judged")
		}
		w.raw("</td>")
	} else {
		w.raw("<td>no output</td><td>not judged</td>")
	}
	w.raw("</tr></tbody>\n</table>\n</div>\n</section>\n\n")

	w.sectionOpen(o, "tool-calls")
	w.heading(o, "tool-calls", "Tool calls")
	w.callPairs(o)
	w.raw("\n</section>\n\n")

	w.sectionOpen(o, "forbidden")
	w.heading(o, "forbidden", "Forbidden tools")
	if len(o.Forbidden) > 0 {
		w.raw("\n<ul class=\"forbidden\">")
		for _, f := range o.Forbidden {
			w.raw("\n<li><code>")
			w.text(f.Tool)
			w.raw("</code>: ")
			w.raw(string(f.Verdict.HTML))
			w.raw(" ")
			w.text(f.Text)
			w.raw("</li>")
		}
		w.raw("\n</ul>")
	} else {
		w.raw("\n<p>The case forbids no tool.</p>")
	}
	w.raw("\n</section>\n\n")

	w.sectionOpen(o, "citations")
	w.heading(o, "citations", "Citations")
	if !o.CitationsJudged {
		w.raw("\n<p>The data folder has no <code>POLICY.md</code>, so citations are not judged.</p>")
	}
	w.raw("\n<div class=\"side-by-side\">\n<div class=\"side\">\n")
	if o.Nested {
		w.raw("<h4>Expected</h4>")
	} else {
		w.raw("<h3>Expected</h3>")
	}
	w.raw("\n")
	w.citations(o.ExpectedCitations)
	w.raw("\n</div>\n<div class=\"side\">\n")
	if o.Nested {
		w.raw("<h4>Cited by the output</h4>")
	} else {
		w.raw("<h3>Cited by the output</h3>")
	}
	if o.HasOutput {
		w.raw("\n")
		w.citations(o.ActualCitations)
	} else {
		w.raw("\n<p>No output.</p>")
	}
	w.raw("\n</div>\n</div>\n</section>")

	if o.HasOutput {
		w.raw("\n")
		w.sectionOpen(o, "performance")
		w.heading(o, "performance", "Latency and cost")
		w.raw("\n<dl class=\"metrics\">\n<div><dt>Latency</dt><dd>")
		w.text(o.Latency)
		w.raw("</dd></div>\n<div><dt>Cost</dt><dd>")
		w.text(o.Cost)
		w.raw("</dd></div>\n</dl>\n</section>")
	}
}

// callPairs writes the expected calls beside the output's: the
// "call-pairs" template of templates/agent.html, where the output's
// HasOutput ($.HasOutput) and the pairs' own both appear.
func (w *htmlWriter) callPairs(o *OutputView) {
	c := &o.Calls
	w.raw("\n<p class=\"call-mode\">Expected: ")
	w.text(c.ModeText)
	w.raw(` <span class="failure-code">(match mode <code>`)
	w.text(c.Mode)
	w.raw("</code>)</span>.</p>")
	if len(c.Pairs) > 0 {
		w.raw("\n<ol class=\"call-pairs\">")
		for i := range c.Pairs {
			p := &c.Pairs[i]
			w.raw("\n<li class=\"call-pair side-by-side\">\n<div class=\"side call-expected\">\n<p class=\"call-name\"><span class=\"call-role\">Expected ")
			w.int(p.Expected.Index)
			w.raw("</span> <code>")
			w.text(p.Expected.Name)
			w.raw("</code> ")
			w.text(p.Expected.Note)
			w.raw("</p>\n<pre class=\"json\"><code>")
			w.raw(string(p.Expected.Code))
			w.raw("</code></pre>\n</div>\n<div class=\"side call-actual\">")
			if a := p.Actual; a != nil {
				w.actualCall(a)
			} else {
				w.raw("\n<p class=\"call-name call-missing\"><span class=\"call-role\">Actual</span> ")
				if o.HasOutput {
					w.raw("no call was paired with it")
				} else {
					w.raw("no output")
				}
				w.raw("</p>")
			}
			if o.HasOutput {
				w.raw("\n<p class=\"call-verdict\">")
				w.raw(string(p.Verdict.HTML))
				w.raw("</p>")
			}
			w.raw("\n</div>\n</li>")
		}
		w.raw("\n</ol>")
	} else {
		w.raw("\n<p>No tool call is expected.</p>")
	}
	if len(c.Unpaired) > 0 {
		w.raw("\n<div class=\"call-extra\">\n<p class=\"call-extra-note\"><strong>")
		w.text(c.UnpairedNote)
		w.raw("</strong></p>\n<ul class=\"call-unpaired\">")
		for i := range c.Unpaired {
			w.raw("\n" + `<li class="call-pair side-by-side">` + "\n" +
				`<div class="side call-expected"><p class="call-name call-missing"><span class="call-role">Expected</span> none</p></div>` + "\n" +
				`<div class="side call-actual">`)
			w.actualCall(&c.Unpaired[i])
			w.raw("\n</div>\n</li>")
		}
		w.raw("\n</ul>\n</div>")
	}
	if c.HasOutput && c.NoCalls && len(c.Pairs) > 0 {
		w.raw("\n<p class=\"notice\">The output made no tool call.</p>")
	}
	if len(c.Mismatches) > 0 {
		w.raw("\n<p class=\"mismatches-head\"><strong>Arguments that differ</strong></p>\n<ul class=\"mismatches\">")
		for _, m := range c.Mismatches {
			w.raw("\n<li><code>")
			w.text(m)
			w.raw("</code></li>")
		}
		w.raw("\n</ul>")
	}
}

// actualCall writes an output's call with its arguments ("call-arguments").
func (w *htmlWriter) actualCall(a *CallView) {
	w.raw("\n<p class=\"call-name\"><span class=\"call-role\">Actual ")
	w.int(a.Index)
	w.raw("</span> <code>")
	w.text(a.Name)
	w.raw("</code>")
	if a.Note != "" {
		w.raw(` <strong class="call-note">(`)
		w.text(a.Note)
		w.raw(")</strong>")
	}
	w.raw("</p>")
	if a.Unreadable {
		w.raw("\n<p>The arguments are a string that holds no JSON object:</p>\n<pre class=\"json raw-arguments\"><code>")
		w.text(a.Raw)
		w.raw("</code></pre>")
		return
	}
	w.raw("\n<pre class=\"json\"><code>")
	w.raw(string(a.Code))
	w.raw("</code></pre>")
}

// citations writes a list of cited identifiers ("citations" in
// templates/base.html).
func (w *htmlWriter) citations(rows []CitationRow) {
	if len(rows) == 0 {
		w.raw("\n<p>None.</p>")
		return
	}
	w.raw("\n<ul class=\"citations\">")
	for i := range rows {
		c := &rows[i]
		w.raw("\n<li class=\"citation citation-")
		w.attr(c.Class)
		w.raw(`">`)
		if c.Href != "" {
			w.raw(`<a href="`)
			w.url(c.Href)
			w.raw(`">`)
			w.text(c.ID)
			w.raw("</a>")
		} else {
			w.raw("<code>")
			w.text(c.ID)
			w.raw("</code>")
		}
		w.raw(` <span class="citation-state"><span aria-hidden="true">`)
		w.text(c.Icon)
		w.raw("</span> ")
		w.text(c.State)
		if l := c.Successor; l != nil {
			w.raw(` <a href="`)
			w.url(l.Href)
			w.raw(`">`)
			w.text(l.Text)
			w.raw("</a>")
		}
		w.raw("</span></li>")
	}
	w.raw("\n</ul>")
}

// trialStrip writes a case's trials as marks ("trial-strip" in
// templates/agent.html); nil writes nothing.
func (w *htmlWriter) trialStrip(s *TrialStrip) {
	if s == nil {
		return
	}
	if s.Linked {
		w.raw("\n<ol class=\"trial-strip\" aria-label=\"Trials\">")
		for i := range s.Marks {
			m := &s.Marks[i]
			w.raw("\n<li><a class=\"trial-mark trial-")
			w.attr(m.Class)
			w.raw(`" href="`)
			w.url(m.Href)
			w.raw(`"><span aria-hidden="true">`)
			w.text(m.Icon)
			w.raw(`</span><span class="visually-hidden">`)
			w.text(m.Title)
			w.raw("</span></a></li>")
		}
		w.raw("\n</ol>")
	} else {
		w.raw("\n<span class=\"trial-strip\" role=\"img\" aria-label=\"")
		w.attr(s.Label)
		w.raw(`">`)
		for i := range s.Marks {
			m := &s.Marks[i]
			w.raw(`<span class="trial-mark trial-`)
			w.attr(m.Class)
			w.raw(`">`)
			w.text(m.Icon)
			w.raw("</span>")
		}
		w.raw("</span>")
	}
	w.raw("\n<span class=\"trial-count\">")
	w.text(s.Text)
	w.raw("</span>")
	if s.Flaky {
		w.raw(" ")
		w.raw(string(s.FlakyBadge.HTML))
	}
}

// htmlWriter writes markup into a page's buffer, which the renderer has
// grown to about the size the parts need (SplicedSize).
type htmlWriter struct{ *bytes.Buffer }

// raw writes markup as it is.
func (w *htmlWriter) raw(s string) { w.WriteString(s) }

// int writes n in decimal, as a template prints an int.
func (w *htmlWriter) int(n int) {
	var b [20]byte
	w.Write(strconv.AppendInt(b[:0], int64(n), 10))
}

// text writes s as the text of an element, escaped as html/template
// escapes a string there (its htmlEscaper): NUL becomes U+FFFD, the five
// characters below and + become references, and everything else,
// invalid UTF-8 included, is written as it is. Going byte by byte gives
// the same as html/template's rune by rune: every byte it replaces is
// ASCII, and no byte of a multi-byte or invalid sequence is.
func (w *htmlWriter) text(s string) { w.escape(s, &textRefs) }

// textRefs and elementRefs are what text and elementText write for each
// byte they replace; "" keeps the byte.
var (
	textRefs    = refTable(map[byte]string{0: "\uFFFD", '"': "&#34;", '&': "&amp;", '\'': "&#39;", '+': "&#43;", '<': "&lt;", '>': "&gt;"})
	elementRefs = refTable(map[byte]string{'&': "&amp;", '<': "&lt;", '>': "&gt;"})
)

func refTable(refs map[byte]string) (t [256]string) {
	for c, ref := range refs {
		t[c] = ref
	}
	return t
}

// escape writes s with each byte that refs replaces replaced.
func (w *htmlWriter) escape(s string, refs *[256]string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if ref := refs[s[i]]; ref != "" {
			w.WriteString(s[last:i])
			w.WriteString(ref)
			last = i + 1
		}
	}
	w.WriteString(s[last:])
}

// attr writes s inside a quoted attribute value that is not a URL, as
// html/template does (its attrEscaper), which for a string is the same
// as text.
func (w *htmlWriter) attr(s string) { w.text(s) }

// url writes s as an href attribute's whole value, as html/template
// does: its urlFilter replaces a URL with a scheme other than http,
// https or mailto with "#ZgotmplZ"; its urlNormalizer percent-encodes
// every byte outside the characters URLs allow, but for a % that starts
// an escape; its attrEscaper then escapes & and +, the only characters
// left that a quoted attribute value may not hold as they are.
func (w *htmlWriter) url(s string) {
	if !safeURL(s) {
		w.WriteString("#ZgotmplZ")
		return
	}
	const hex = "0123456789abcdef"
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var ref string
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			continue
		}
		switch c {
		case '-', '.', '_', '~', '!', '#', '$', '*', ',', '/', ':', ';', '=', '?', '@', '[', ']':
			continue
		case '&':
			ref = "&amp;"
		case '+':
			ref = "&#43;"
		case '%':
			if i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
				continue
			}
		}
		w.WriteString(s[last:i])
		if ref != "" {
			w.WriteString(ref)
		} else {
			w.Write([]byte{'%', hex[c>>4], hex[c&15]})
		}
		last = i + 1
	}
	w.WriteString(s[last:])
}

// safeURL reports whether html/template lets s through as a URL: it has
// no scheme (nothing before a colon, or a slash there), or http, https or
// mailto in any case.
func safeURL(s string) bool {
	scheme, _, ok := strings.Cut(s, ":")
	if !ok || strings.Contains(scheme, "/") {
		return true
	}
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") || strings.EqualFold(scheme, "mailto")
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// elementText writes s as the text of an element escaping only &, < and
// >, as InputText and RawText do: a grouped page shows thousands of
// inputs and outputs, where quotes need no escaping.
func (w *htmlWriter) elementText(s string) { w.escape(s, &elementRefs) }
