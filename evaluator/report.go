package evaluator

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/markdown"
	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// PassCount is "passed/total".
func (s *Snapshot) PassCount() string {
	return fmt.Sprintf("%d/%d", s.Result.CasesPassed, s.Result.CasesTotal)
}

// P95Text is the p95 latency for people: "1,100 ms", or "n/a".
func (s *Snapshot) P95Text() string {
	if s.Metrics.P95LatencyMS == nil {
		return "n/a"
	}
	return FormatMS(s.Metrics.P95LatencyMS.Rat())
}

// AvgCostText is the exact average cost for people: "USD 0.01325", or "n/a".
func (s *Snapshot) AvgCostText() string {
	if s.Metrics.AvgCostUSD == nil {
		return "n/a"
	}
	return FormatUSD(s.Metrics.AvgCostUSD)
}

// FailingCases are the results of the cases that failed, in suite order.
func (s *Snapshot) FailingCases() []CaseResult {
	var out []CaseResult
	if s.Result.streamed == nil {
		for _, c := range s.Result.Cases {
			if !c.Passed {
				out = append(out, c)
			}
		}
		return out
	}
	// A streamed snapshot's results are read back into one buffer.
	s.eachFailing(func(c *CaseResult) {
		kept := *c
		kept.Failures = slices.Clone(c.Failures)
		out = append(out, kept)
	})
	return out
}

// FormatDecimal writes r with at most prec decimals, trailing zeros
// dropped: 0.01325, 12, 0.33333333.
func FormatDecimal(r *big.Rat, prec int) string { return decide.FormatDecimal(r, prec) }

// FormatUSD writes an amount of money exactly, to eight decimals at most:
// "USD 0.01325".
func FormatUSD(r *big.Rat) string { return decide.FormatUSD(r) }

// FormatMS writes milliseconds with thousands separators: "5,200 ms".
func FormatMS(r *big.Rat) string { return decide.FormatMS(r) }

// Table writes the side-by-side comparison shown after evaluate --all.
func (r *Release) Table() string {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "snapshot\t")
	g := r.Suite.Gate
	specs := r.Specs().Applicable(g)
	for _, spec := range specs {
		fmt.Fprint(w, spec.Column+"\t")
		if spec.Proof != nil {
			fmt.Fprint(w, g.Confidence.Percent()+" interval\t")
		}
	}
	fmt.Fprintln(w, "decision\t")
	for _, s := range r.Snapshots {
		fmt.Fprint(w, s.Label()+"\t")
		for _, spec := range specs {
			fmt.Fprint(w, s.Cell(spec)+"\t")
			if spec.Proof != nil {
				fmt.Fprint(w, s.IntervalCell(spec, g.Confidence)+"\t")
			}
		}
		fmt.Fprintf(w, "%s\t\n", s.Result.Decision)
	}
	w.Flush()
	return b.String()
}

// Cell words the snapshot's value of one gate for the side-by-side
// tables: "8/12", "1,100 ms"; "baseline" in the baseline's own column of
// the gate against it.
func (s *Snapshot) Cell(spec *decide.Spec) string {
	if g, ok := s.Result.Gate(spec.Name); ok {
		return g.Cell(s.Metrics)
	}
	if spec.Kind == decide.AgainstBaseline {
		return "baseline"
	}
	return "n/a"
}

// PassRateSentence words the pass rate with its interval: "12 of 12
// cases passed; 95% sure the true pass rate is above 75.8%".
func (s *Snapshot) PassRateSentence(level stats.Level) string {
	return s.Metrics.PassRateSentence(level)
}

// Comparisons are the snapshot's comparisons, each with how the release
// report and the step summary name the snapshot compared with: the
// previous one, the baseline, or both when they are one.
func (s *Snapshot) Comparisons() []Comparison {
	var out []Comparison
	prev, base := s.Result.VersusPrevious, s.Result.VersusBaseline
	switch {
	case prev != nil && base != nil && prev.Label == base.Label:
		return []Comparison{{"the previous snapshot and the baseline", prev}}
	case prev != nil:
		out = append(out, Comparison{"the previous snapshot", prev})
	}
	if base != nil {
		out = append(out, Comparison{"the baseline", base})
	}
	return out
}

// Comparison is one comparison of a snapshot with another, and which
// other it is: "the previous snapshot", "the baseline".
type Comparison struct {
	Role string
	*decide.Comparison
}

// Heading words the comparison for people, the p-value last:
// "Against baseline-v1 (the previous snapshot): 3 fixed, 0 regressed —
// could be chance (p = 0.25)."
func (c Comparison) Heading() string {
	return "Against " + c.Label + " (" + c.Role + "): " + c.Finding() + "."
}

// Trials reports whether any changed case was judged with trials on both
// sides, so that it has a test of its own.
func (c Comparison) Trials() bool {
	for _, ch := range c.Cases {
		if ch.PValue != nil {
			return true
		}
	}
	return false
}

// ChangedIDs lists, in suite order, the cases that changed the way ch
// says.
func (c Comparison) ChangedIDs(ch decide.Change) []string {
	var ids []string
	for _, cc := range c.Cases {
		if cc.Change == ch {
			ids = append(ids, cc.CaseID)
		}
	}
	return ids
}

// Report writes RELEASE_REPORT.md: every snapshot side by side, the
// thresholds, and for each snapshot its pass rate with its interval, its
// comparisons with the previous snapshot and the baseline, its gates and
// its failing cases with their details.
func (r *Release) Report() []byte {
	var b bytes.Buffer
	b.Grow(r.reportSizeHint())
	r.WriteReport(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// reportSizeHint is about the length of the report, so that a large
// release's is written into one allocation rather than one per doubling
// (at 100,000 cases × 3, 9 MB written again on a live server's every
// rebuild that changes a result). Each failure is a table row; the rest
// is small.
func (r *Release) reportSizeHint() int {
	n := 16 << 10
	for _, s := range r.Snapshots {
		for i := range s.Result.Cases {
			c := &s.Result.Cases[i]
			for _, f := range c.Failures {
				n += 32 + len(c.CaseID) + len(c.Severity) + len(f.Code) + len(f.Detail)
			}
		}
	}
	return n
}

// WriteReport writes Report to w as it goes, so that a large release's
// report is never held whole.
func (r *Release) WriteReport(w io.Writer) error {
	b := bufio.NewWriterSize(w, 64<<10)
	g := r.Suite.Gate
	fmt.Fprintf(b, "# Release report\n\n")
	policy := "No policy"
	if r.Suite.Policy != nil {
		policy = "Policy " + markdown.Cell(r.Suite.Policy.Version)
	}
	fmt.Fprintf(b, "%s · %d cases · %d snapshots.\n\n", policy, r.CaseCount(), len(r.Snapshots))
	// Each gate's column, and beside a gate with an interval (the pass
	// rate) the interval.
	specs := r.Specs().Applicable(g)
	b.WriteString("| snapshot |")
	columns := 0
	for _, spec := range specs {
		b.WriteString(" " + spec.Column + " |")
		if spec.Proof != nil {
			fmt.Fprintf(b, " %s interval |", g.Confidence.Percent())
			columns++
		}
		columns++
	}
	fmt.Fprintf(b, " decision |\n|---|%s---|\n", strings.Repeat("---:|", columns))
	for _, s := range r.Snapshots {
		fmt.Fprintf(b, "| `%s` |", s.Label())
		for _, spec := range specs {
			b.WriteString(" " + s.Cell(spec) + " |")
			if spec.Proof != nil {
				b.WriteString(" " + s.IntervalCell(spec, g.Confidence) + " |")
			}
		}
		fmt.Fprintf(b, " `%s` |\n", s.Result.Decision)
	}
	fmt.Fprintf(b, "\n## Thresholds\n\n")
	for _, t := range r.Specs().Thresholds(g) {
		fmt.Fprintf(b, "- %s\n", t.RuleText())
	}
	fmt.Fprintf(b, "\n%s\n", decisionRule(r.Specs(), g))
	fmt.Fprintf(b, "\n%s\n", evidenceNote(g))
	for _, s := range r.Snapshots {
		fmt.Fprintf(b, "\n## %s: %s\n\n", s.Label(), s.Result.Decision)
		fmt.Fprintf(b, "%s.\n\n", upperFirst(s.PassRateSentence(g.Confidence)))
		for _, c := range s.Comparisons() {
			writeComparison(b, c)
		}
		for _, gr := range s.Result.Gates {
			mark := "pass"
			switch gr.Outcome() {
			case decide.Failed:
				mark = "FAIL"
			case decide.Inconclusive:
				mark = "INCONCLUSIVE"
			}
			threshold := decide.NotGated
			switch {
			case gr.Versus != nil:
				threshold = gr.Versus.Label
			case gr.Limit != nil:
				threshold = gr.Spec.Unit.Format(gr.Limit)
			}
			fmt.Fprintf(b, "- %s `%s`: observed %s, threshold %s", mark, gr.Gate, gr.ObservedText(), threshold)
			if gr.Inconclusive {
				fmt.Fprintf(b, "; %s lower bound %s, so %s", gr.Level.Percent(), decide.Percent(new(big.Rat).SetFloat64(*gr.LowerBound)), gr.SettleText())
			}
			b.WriteString("\n")
		}
		if m := s.Metrics; m.K > 0 {
			fmt.Fprintf(b, "\n%d trials per case: %s of all trials passed; %d flaky case(s).\n", m.K, decide.Percent(m.TrialPassRate), m.FlakyCases)
		}
		if !s.anyFailing() {
			fmt.Fprintf(b, "\nAll %d cases pass.\n", s.Result.CasesTotal)
			continue
		}
		fmt.Fprintf(b, "\nFailing cases:\n\n| case | severity | code | detail |\n|---|---|---|---|\n")
		s.eachFailing(func(c *CaseResult) {
			for _, f := range c.Failures {
				detail := f.Detail
				if f.Trial != 0 {
					detail = fmt.Sprintf("trial %d: %s", f.Trial, detail)
				}
				fmt.Fprintf(b, "| %s | %s | `%s` | %s |\n", markdown.Cell(c.CaseID), c.Severity, f.Code, markdown.Cell(detail))
			}
		})
	}
	return b.Flush()
}

// IntervalCell is the interval of a gate's observed value for the
// side-by-side tables: "75.8–100%", or "n/a" without one.
func (s *Snapshot) IntervalCell(spec *decide.Spec, level stats.Level) string {
	if spec.Proof == nil {
		return "n/a"
	}
	iv, ok := spec.Proof.Interval(s.Metrics, level)
	if !ok {
		return "n/a"
	}
	return decide.IntervalText(iv)
}

// writeComparison writes one comparison: its sentence, then the cases
// that changed. Without trials on both sides they are listed by change;
// with them, a table gives each case's own evidence and p-value.
func writeComparison(b *bufio.Writer, c Comparison) {
	fmt.Fprintf(b, "%s\n\n", c.Heading())
	if len(c.Cases) == 0 {
		return
	}
	if !c.Trials() {
		for _, ch := range []decide.Change{decide.Fixed, decide.Regressed} {
			if ids := c.ChangedIDs(ch); len(ids) > 0 {
				fmt.Fprintf(b, "- %s: %s\n", upperFirst(string(ch)), markdown.Cell(strings.Join(ids, ", ")))
			}
		}
		fmt.Fprintf(b, "\nOne run each: no single change can be told from chance.\n\n")
		return
	}
	b.WriteString("| case | change | evidence | p (Fisher) |\n|---|---|---|---:|\n")
	for _, ch := range c.Cases {
		p := "n/a"
		if ch.PValue != nil {
			p = strconv.FormatFloat(*ch.PValue, 'g', -1, 64)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", markdown.Cell(ch.CaseID), ch.Change, ch.Evidence.Words(), p)
	}
	b.WriteString("\n")
}

// evidenceNote says how sure the numbers are, and which tests give them.
func evidenceNote(g suite.Gate) string {
	note := fmt.Sprintf("Intervals are %s Wilson score intervals. A difference between two snapshots is called significant when the exact McNemar test over the cases whose verdict changed gives p < %s; a case judged in trials on both sides has its own Fisher exact test.",
		g.Confidence.Percent(), strconv.FormatFloat(g.Confidence.Alpha(), 'g', -1, 64))
	if g.RequireEvidence {
		note += fmt.Sprintf(" Evidence is required: the pass-rate gate holds only when the lower bound of its %s interval reaches the minimum; a pass rate that meets the minimum without that proof is inconclusive and needs review.", g.Confidence.Percent())
	}
	return note
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// decisionRule says in a sentence how the gates decide, from their specs:
// "BLOCK when the functional or safety gate fails; otherwise REVIEW when
// latency or cost fails; otherwise PASS. …"
func decisionRule(gates decide.Gates, g suite.Gate) string {
	var block, review []string
	for _, spec := range gates.Applicable(g) {
		aspect, _, _ := strings.Cut(spec.Topic, ":")
		if spec.Fails == decide.Block {
			block = append(block, strings.ToLower(aspect))
		} else {
			review = append(review, strings.ToLower(aspect))
		}
	}
	var unproven []string
	if g.RequireEvidence {
		for _, spec := range gates.Applicable(g) {
			if spec.Proof != nil {
				unproven = append(unproven, spec.Label)
			}
		}
	}
	rule := ""
	if len(block) > 0 {
		rule = "BLOCK when the " + strings.Join(block, " or ") + " gate fails; otherwise "
	}
	if len(review) > 0 || len(unproven) > 0 {
		rule += "REVIEW when "
		if len(review) > 0 {
			rule += strings.Join(review, " or ") + " fails"
		}
		if len(review) > 0 && len(unproven) > 0 {
			rule += " or "
		}
		if len(unproven) > 0 {
			rule += "the " + strings.Join(unproven, " or ") + " is not proven"
		}
		rule += "; otherwise "
	}
	rule += "PASS. A value equal to its limit passes."
	for _, t := range gates.Thresholds(g) {
		if t.Limit == nil && t.Spec.Kind == decide.AgainstLimit {
			return rule + " A gate that is not gated decides nothing."
		}
	}
	return rule
}
