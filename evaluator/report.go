package evaluator

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"
	"text/tabwriter"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/markdown"
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
	for _, c := range s.Result.Cases {
		if !c.Passed {
			out = append(out, c)
		}
	}
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
	for _, spec := range decide.Specs {
		fmt.Fprint(w, spec.Column+"\t")
	}
	fmt.Fprintln(w, "decision\t")
	for _, s := range r.Snapshots {
		fmt.Fprint(w, s.Label()+"\t")
		for i := range s.Result.Gates {
			fmt.Fprint(w, s.Result.Gates[i].Cell(s.Metrics)+"\t")
		}
		fmt.Fprintf(w, "%s\t\n", s.Result.Decision)
	}
	w.Flush()
	return b.String()
}

// Report writes RELEASE_REPORT.md: every snapshot side by side, the
// thresholds, and each snapshot's failing cases with their details.
func (r *Release) Report() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Release report\n\n")
	policy := "No policy"
	if r.Suite.Policy != nil {
		policy = "Policy " + markdown.Cell(r.Suite.Policy.Version)
	}
	fmt.Fprintf(&b, "%s · %d cases · %d snapshots.\n\n", policy, len(r.Suite.Cases), len(r.Snapshots))
	b.WriteString("| snapshot |")
	for _, spec := range decide.Specs {
		b.WriteString(" " + spec.Column + " |")
	}
	b.WriteString(" decision |\n|---|" + strings.Repeat("---:|", len(decide.Specs)) + "---|\n")
	for _, s := range r.Snapshots {
		fmt.Fprintf(&b, "| `%s` |", s.Label())
		for i := range s.Result.Gates {
			b.WriteString(" " + s.Result.Gates[i].Cell(s.Metrics) + " |")
		}
		fmt.Fprintf(&b, " `%s` |\n", s.Result.Decision)
	}
	fmt.Fprintf(&b, "\n## Thresholds\n\n")
	for _, t := range decide.Thresholds(r.Suite.Gate) {
		if t.Limit == nil {
			fmt.Fprintf(&b, "- %s: %s.\n", t.Spec.Topic, decide.NotGated)
			continue
		}
		fmt.Fprintf(&b, "- "+t.Spec.Rule+"\n", t.Spec.Bound.String()+" "+t.Spec.Unit.Format(t.Limit))
	}
	fmt.Fprintf(&b, "\n%s\n", decisionRule(r.Suite.Gate))
	for _, s := range r.Snapshots {
		fmt.Fprintf(&b, "\n## %s: %s\n\n", s.Label(), s.Result.Decision)
		for _, gr := range s.Result.Gates {
			mark := "pass"
			if !gr.Passed {
				mark = "FAIL"
			}
			threshold := decide.NotGated
			if gr.Limit != nil {
				threshold = gr.Spec.Unit.Format(gr.Limit)
			}
			fmt.Fprintf(&b, "- %s `%s`: observed %s, threshold %s\n", mark, gr.Gate, gr.ObservedText(), threshold)
		}
		if m := s.Metrics; m.K > 0 {
			fmt.Fprintf(&b, "\n%d trials per case: %s of all trials passed; %d flaky case(s).\n", m.K, decide.Percent(m.TrialPassRate), m.FlakyCases)
		}
		failing := s.FailingCases()
		if len(failing) == 0 {
			fmt.Fprintf(&b, "\nAll %d cases pass.\n", s.Result.CasesTotal)
			continue
		}
		fmt.Fprintf(&b, "\nFailing cases:\n\n| case | severity | code | detail |\n|---|---|---|---|\n")
		for _, c := range failing {
			for _, f := range c.Failures {
				detail := f.Detail
				if f.Trial != 0 {
					detail = fmt.Sprintf("trial %d: %s", f.Trial, detail)
				}
				fmt.Fprintf(&b, "| %s | %s | `%s` | %s |\n", markdown.Cell(c.CaseID), c.Severity, f.Code, markdown.Cell(detail))
			}
		}
	}
	return b.Bytes()
}

// decisionRule says in a sentence how the gates decide, from their specs:
// "BLOCK when the functional or safety gate fails; otherwise REVIEW when
// latency or cost fails; otherwise PASS. …"
func decisionRule(g suite.Gate) string {
	var block, review []string
	for _, spec := range decide.Specs {
		aspect, _, _ := strings.Cut(spec.Topic, ":")
		if spec.Fails == decide.Block {
			block = append(block, strings.ToLower(aspect))
		} else {
			review = append(review, strings.ToLower(aspect))
		}
	}
	rule := ""
	if len(block) > 0 {
		rule = "BLOCK when the " + strings.Join(block, " or ") + " gate fails; otherwise "
	}
	if len(review) > 0 {
		rule += "REVIEW when " + strings.Join(review, " or ") + " fails; otherwise "
	}
	rule += "PASS. A value equal to its limit passes."
	for _, t := range decide.Thresholds(g) {
		if t.Limit == nil {
			return rule + " A gate that is not gated decides nothing."
		}
	}
	return rule
}
