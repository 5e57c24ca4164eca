package pages

import (
	"html/template"
	"strings"

	"github.com/releasegate/releasegate/evaluator/judge"
)

// GlossaryPath is the page that explains the words of the site.
const GlossaryPath = "glossary.html"

// GlossaryTerm is one word of the site explained: in one line, which a
// label shows on hover and which heads its entry, and in a few
// sentences on glossary.html. See docs/site.md, "Words on the pages".
type GlossaryTerm struct {
	ID    string // the entry's anchor
	Term  string
	Short string // one line
	Long  string
}

// glossary is every term, in the order a reader meets them.
var glossary = []GlossaryTerm{
	{"snapshot", "Snapshot", "One version of the assistant, with its answers to every case.",
		"A snapshot is one version of the assistant (a model, a prompt, a configuration) together with its answers to every case of the suite. Each snapshot is judged on its own and gets one decision."},
	{"case", "Case", "One test question with the answer it must give.",
		"A case is one test: an input the assistant receives and what a correct answer must do (the decision, the tools it calls, the rules it cites). Its severity says how much a failure matters."},
	{"answer", "Answer (output)", "What the assistant did for one case in one snapshot.",
		"An answer, also called an output, is what the assistant returned for one case: its decision, its tool calls, its citations, how long it took and what it cost."},
	{"pass-rate", "Pass rate", "The share of cases whose answer is correct.",
		"The pass rate is the number of cases that pass divided by the number of cases. With few cases each one moves it a lot: with 12 cases, one case is 8.3 percentage points."},
	{"critical", "Critical", "A case whose failure blocks a release on its own.",
		"Each case is critical, major or minor. A failing critical case counts as a critical failure, and the safety gate allows at most as many as gate.json says (usually none)."},
	{"p95", "p95 latency", "The time within which 95 % of answers came back.",
		"p95 latency is the 95th percentile of the answers' response times, by nearest rank: sort the times, and take the one at position ceil(0.95 × n). With fewer than 20 answers that is the slowest answer, so a single slow answer decides it."},
	{"average-cost", "Average cost", "What one answer costs on average, in US dollars.",
		"The average cost is the total cost of a snapshot's answers divided by their number, shown as USD per answer."},
	{"gate", "Gate", "One rule a snapshot must meet to ship, with its limit.",
		"A gate is one check on the snapshot as a whole: the pass rate, the critical failures, the p95 latency and the average cost, each against a limit frozen in gate.json. A value equal to its limit passes."},
	{"decision", "PASS, REVIEW, BLOCK", "May ship; needs a person to look; must not ship.",
		"A snapshot is BLOCK when the pass rate or the critical failures gate fails, otherwise REVIEW when latency or cost is over its limit, otherwise PASS."},
	{"trial", "Trial", "One of several runs of the same case, to see if answers vary.",
		"When a snapshot runs each case several times, each run is a trial. The case passes when enough of its trials pass."},
	{"flaky", "Flaky", "A case that passes in some trials and fails in others.",
		"A flaky case gave different verdicts in different trials of the same snapshot: its result may change by luck, so a change in it between snapshots is not counted as a fix or a regression."},
	{"interval", "Interval", "The range the true pass rate likely lies in, given few cases.",
		"A pass rate measured on few cases is uncertain. The 95 % interval is the range that holds the true rate (the rate over every possible case) with 95 % confidence; it narrows as cases are added."},
	{"citation", "Citation", "A policy rule the answer names as its reason.",
		"A citation is a rule of the policy (such as ER-2026.10 §6.1) that an answer gives as the reason for its decision. A citation of a rule that was replaced is outdated."},
	{"hash", "SHA-256 hash", "A fingerprint of a file: it changes if one byte changes.",
		"Each snapshot lists the SHA-256 hashes of the files it was judged from, so anyone can check that the numbers come from exactly those files."},
}

// glossaryShort is each term's one line by its anchor.
var glossaryShort = func() map[string]string {
	m := make(map[string]string, len(glossary))
	for _, t := range glossary {
		m[t.ID] = t.Short
	}
	return m
}()

// Term is a plain label that explains itself: a link to its glossary
// entry whose title holds the one-line explanation, so a pointer shows
// it on hover and a tap opens the entry. Unknown ids are shown as they
// are, plain.
func (l *Layout) Term(id, label string) template.HTML {
	short, ok := glossaryShort[id]
	if !ok {
		return template.HTML(template.HTMLEscapeString(label))
	}
	return template.HTML(`<a class="term" href="` + l.Root + GlossaryPath + "#" + id + `" title="` +
		template.HTMLEscapeString(short) + `">` + template.HTMLEscapeString(label) + `</a>`)
}

// GlossaryPage is glossary.html: the words of the site, each in a line
// and a few sentences, and the failure codes in words.
type GlossaryPage struct {
	Layout
	Terms []GlossaryTerm
	Codes []FailureWords
}

// FailureWords is a failure code and the sentence pages show for it.
type FailureWords struct {
	Code     string
	Sentence string
}

// GlossaryPage builds glossary.html.
func (v *Model) GlossaryPage() (*GlossaryPage, error) {
	p := &GlossaryPage{Layout: v.Info.layout(GlossaryPath, "Glossary"), Terms: glossary}
	for _, c := range []judge.Code{judge.MissingOutput, judge.Decision, judge.ToolCall, judge.Arguments, judge.Citation, judge.ForbiddenTool} {
		p.Codes = append(p.Codes, FailureWords{Code: string(c), Sentence: failureSentence(c)})
	}
	return p, nil
}

// failureSentence says what a failure code means, as a reader would:
// "called a forbidden tool". A code without words is shown as it is.
func failureSentence(c judge.Code) string {
	switch c {
	case judge.MissingOutput:
		return "gave no answer"
	case judge.Decision:
		return "made the wrong decision"
	case judge.ToolCall:
		return "did not call the tools it should"
	case judge.Arguments:
		return "called a tool with wrong details"
	case judge.Citation:
		return "cited the wrong policy rule"
	case judge.ForbiddenTool:
		return "called a forbidden tool"
	}
	return strings.ReplaceAll(string(c), "_", " ")
}

// failureWords says what went wrong in a case, each failure once, in
// words: "made the wrong decision; called a forbidden tool". With trials
// the same check may fail in several of them.
func FailureText(fs []judge.Failure) string {
	var words []string
	var seen []judge.Code
	for _, f := range fs {
		if !containsCode(seen, f.Code) {
			seen = append(seen, f.Code)
			words = append(words, failureSentence(f.Code))
		}
	}
	return strings.Join(words, "; ")
}

func containsCode(cs []judge.Code, c judge.Code) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// ExplainedFailure is one failure as a case's page shows it: what went
// wrong in words, the detail, and the code the results files use.
type ExplainedFailure struct {
	Sentence string
	Code     string
	Detail   string
}

// Explained words each failure of the output.
func (o OutputView) Explained() []ExplainedFailure {
	out := make([]ExplainedFailure, len(o.Failures))
	for i, f := range o.Failures {
		out[i] = ExplainedFailure{Sentence: failureSentence(f.Code), Code: string(f.Code), Detail: f.Detail}
	}
	return out
}
