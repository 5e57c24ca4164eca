package ciout

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/markdown"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Summary writes the release as GitHub-flavoured Markdown for a job's step
// summary ($GITHUB_STEP_SUMMARY): each snapshot's decision and what it
// means, its gates with observed value, limit and margin, and its failing
// cases with their codes and details. With more than one snapshot an
// overview table comes first.
//
// A snapshot with repeated trials also shows k, the share of all trials
// that passed (trial_pass_rate) and its flaky cases (some but not all
// trials passed) with the trials that failed; each failure's detail names
// its trial. Without trials nothing of this appears. The text ends with a blank line so that
// summaries appended one after another stay apart.
func Summary(rel *evaluator.Release) []byte {
	var b bytes.Buffer
	b.WriteString("## Release gate\n\n")
	policy := "No policy"
	if rel.Suite.Policy != nil {
		policy = "Policy " + markdown.Cell(rel.Suite.PolicyVersion())
	}
	fmt.Fprintf(&b, "%s · %d cases · %d snapshot%s.\n\n", policy, rel.CaseCount(), len(rel.Snapshots), plural(len(rel.Snapshots)))
	if len(rel.Snapshots) > 1 {
		level := rel.Suite.Gate.Confidence
		trials := slices.ContainsFunc(rel.Snapshots, func(s *evaluator.Snapshot) bool { return s.Trials() > 0 })
		// A column for each gate against a limit, with the interval and
		// the trials beside a gate that has an interval; the comparison
		// with the baseline is written under each snapshot instead.
		var specs []*decide.Spec
		for _, spec := range rel.Specs().Applicable(rel.Suite.Gate) {
			if spec.Kind == decide.AgainstLimit {
				specs = append(specs, spec)
			}
		}
		b.WriteString("| snapshot |")
		align := ""
		for _, spec := range specs {
			b.WriteString(" " + spec.Column + " |")
			align += "---:|"
			if spec.Proof != nil {
				fmt.Fprintf(&b, " %s interval |", level.Percent())
				align += "---:|"
				if trials {
					b.WriteString(" trials passed |")
					align += "---:|"
				}
			}
		}
		fmt.Fprintf(&b, " decision |\n|---|%s---|\n", align)
		for _, s := range rel.Snapshots {
			fmt.Fprintf(&b, "| `%s` |", s.Label())
			for _, spec := range specs {
				b.WriteString(" " + s.Cell(spec) + " |")
				if spec.Proof != nil {
					b.WriteString(" " + s.IntervalCell(spec, level) + " |")
					if trials {
						fmt.Fprintf(&b, " %s |", trialsCell(s))
					}
				}
			}
			fmt.Fprintf(&b, " **%s** |\n", s.Result.Decision)
		}
		b.WriteString("\n")
	}
	for _, s := range rel.Snapshots {
		writeSnapshotSummary(&b, rel, s)
	}
	return b.Bytes()
}

func writeSnapshotSummary(b *bytes.Buffer, rel *evaluator.Release, s *evaluator.Snapshot) {
	r := s.Result
	g := rel.Suite.Gate
	fmt.Fprintf(b, "### `%s`: %s\n\n", s.Label(), r.Decision)
	fmt.Fprintf(b, "**%s**: %s. %s.\n\n", r.Decision, decisionMeaning(rel.Specs(), s, g), upperFirst(s.PassRateSentence(g.Confidence)))
	for _, c := range s.Comparisons() {
		writeComparison(b, c)
	}
	if m := s.Metrics; m.K > 0 {
		fmt.Fprintf(b, "%d trials per case: %s of all trials passed (trial_pass_rate); %d flaky case%s.\n\n", m.K, decide.Percent(m.TrialPassRate), m.FlakyCases, plural(m.FlakyCases))
	}
	b.WriteString("| gate | observed | limit | margin | result |\n")
	b.WriteString("|---|---:|---:|---:|---|\n")
	views := gateViews(s)
	for _, g := range views {
		result := "pass"
		switch g.outcome {
		case decide.Failed:
			result = "**fail**"
		case decide.Inconclusive:
			result = "**inconclusive**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", g.label, g.observed, g.threshold, g.margin, result)
	}
	b.WriteString("\nThe margin is the room left before a gate fails; a negative margin is a failed gate.\n\n")
	for _, g := range views {
		if g.unproven != "" {
			fmt.Fprintf(b, "Inconclusive: %s.\n\n", g.unproven)
		}
	}
	writeFlakyCases(b, rel, s)
	failing := r.CasesTotal - r.CasesPassed
	if failing == 0 {
		fmt.Fprintf(b, "All %d cases pass.\n\n", r.CasesTotal)
		return
	}
	fmt.Fprintf(b, "Failing cases (%d):\n\n", failing)
	b.WriteString("| case | severity | code | detail |\n")
	b.WriteString("|---|---|---|---|\n")
	s.EachCase(func(i int, c *evaluator.CaseResult) {
		if c.Passed {
			return
		}
		name := caseName(rel, i, c.CaseID)
		for _, f := range c.Failures {
			fmt.Fprintf(b, "| %s | %s | `%s` | %s |\n", name, c.Severity, f.Code, markdown.Cell(trialDetail(f)))
		}
	})
	b.WriteString("\n")
}

// writeFlakyCases lists the cases with 0 < passed trials < k, passing or
// not, with the trials that failed; nothing without flaky cases.
func writeFlakyCases(b *bytes.Buffer, rel *evaluator.Release, s *evaluator.Snapshot) {
	type flakyCase struct {
		i int
		c evaluator.CaseResult
	}
	var flaky []flakyCase
	s.EachCase(func(i int, c *evaluator.CaseResult) {
		if c.Flaky() {
			kept := *c
			kept.Failures = slices.Clone(c.Failures) // the result is reused
			flaky = append(flaky, flakyCase{i, kept})
		}
	})
	if len(flaky) == 0 {
		return
	}
	fmt.Fprintf(b, "Flaky cases (%d):\n\n", len(flaky))
	b.WriteString("| case | severity | trials passed | case result | failed trials |\n")
	b.WriteString("|---|---|---:|---|---|\n")
	for _, fc := range flaky {
		c := &fc.c
		result := "pass"
		switch {
		case !c.Passed:
			result = "**fail**"
		case c.Severity == suite.Critical:
			// Any failed trial of a critical case counts (docs/data-format.md, "Repeated trials").
			result = "pass; a critical failure"
		}
		var failed []int
		for _, f := range c.Failures {
			if !slices.Contains(failed, f.Trial) {
				failed = append(failed, f.Trial)
			}
		}
		names := make([]string, len(failed))
		for i, t := range failed {
			names[i] = strconv.Itoa(t)
		}
		fmt.Fprintf(b, "| %s | %s | %d/%d | %s | %s |\n", caseName(rel, fc.i, c.CaseID), c.Severity, c.TrialsPassed, c.Trials, result, strings.Join(names, ", "))
	}
	b.WriteString("\n")
}

// writeComparison writes one of a snapshot's comparisons in a sentence,
// with the changed cases and the tests behind the p-values folded away.
func writeComparison(b *bytes.Buffer, c evaluator.Comparison) {
	fmt.Fprintf(b, "%s\n\n", c.Heading())
	if len(c.Cases) == 0 {
		return
	}
	significant, noise, untested := c.ByEvidence()
	var kinds []string
	for _, k := range []struct {
		n    int
		what string
	}{{significant, "significant"}, {noise, "within noise"}, {untested, "from a single run"}} {
		if k.n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", k.n, k.what))
		}
	}
	fmt.Fprintf(b, "<details><summary>%d changed case%s (%s)</summary>\n\n", len(c.Cases), plural(len(c.Cases)), strings.Join(kinds, ", "))
	b.WriteString("| case | change | evidence |\n|---|---|---|\n")
	for _, ch := range c.Cases {
		fmt.Fprintf(b, "| %s | %s | %s |\n", markdown.Cell(ch.CaseID), ch.Change, evidenceNote(ch))
	}
	b.WriteString("\nThe snapshot's p-value is the exact McNemar test over the changed cases; a case judged several times on both sides has its own Fisher exact test.\n\n</details>\n\n")
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// trialsCell is a snapshot's trial pass rate and k, "83.33% of 3 × 12",
// or "no trials".
func trialsCell(s *evaluator.Snapshot) string {
	m := s.Metrics
	if m.K == 0 {
		return "no trials"
	}
	return fmt.Sprintf("%s of %d × %d", decide.Percent(m.TrialPassRate), m.K, m.CasesTotal)
}

// caseName is the id in bold and the title of the case at position i,
// escaped for a table cell.
func caseName(rel *evaluator.Release, i int, id string) string {
	name := "**" + markdown.Cell(id) + "**"
	if title := rel.CaseTitle(i); title != "" {
		name += " " + markdown.Cell(title)
	}
	return name
}

// trialDetail is a failure's detail, led by its trial when it has one.
func trialDetail(f judge.Failure) string {
	if f.Trial == 0 {
		return f.Detail
	}
	return fmt.Sprintf("trial %d: %s", f.Trial, f.Detail)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
