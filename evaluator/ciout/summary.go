package ciout

import (
	"bytes"
	"fmt"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/markdown"
)

// Summary writes the release as GitHub-flavoured Markdown for a job's step
// summary ($GITHUB_STEP_SUMMARY): each snapshot's decision and what it
// means, its gates with observed value, limit and margin, and its failing
// cases with their codes and details. With more than one snapshot an
// overview table comes first. The text ends with a blank line so that
// summaries appended one after another stay apart.
func Summary(rel *evaluator.Release) []byte {
	var b bytes.Buffer
	b.WriteString("## Release gate\n\n")
	fmt.Fprintf(&b, "Policy %s · %d cases · %d snapshot%s.\n\n", markdown.Cell(rel.Suite.PolicyVersion()), len(rel.Suite.Cases), len(rel.Snapshots), plural(len(rel.Snapshots)))
	if len(rel.Snapshots) > 1 {
		b.WriteString("| snapshot | functional | critical failures | p95 latency | average cost | decision |\n")
		b.WriteString("|---|---:|---:|---:|---:|---|\n")
		for _, s := range rel.Snapshots {
			fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %s | **%s** |\n", s.Label(), s.PassCount(), s.Result.CriticalFailures, s.P95Text(), s.AvgCostText(), s.Result.Decision)
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
	fmt.Fprintf(b, "### `%s`: %s\n\n", s.Label(), r.Decision)
	fmt.Fprintf(b, "**%s**: %s. %s cases passed.\n\n", r.Decision, decisionMeaning(r.Decision), s.PassCount())
	b.WriteString("| gate | observed | limit | margin | result |\n")
	b.WriteString("|---|---:|---:|---:|---|\n")
	for _, g := range gateViews(s) {
		result := "pass"
		if !g.passed {
			result = "**fail**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", g.label, g.observed, g.threshold, g.margin, result)
	}
	b.WriteString("\nThe margin is the room left before a gate fails; a negative margin is a failed gate.\n\n")
	failing := s.FailingCases()
	if len(failing) == 0 {
		fmt.Fprintf(b, "All %d cases pass.\n\n", r.CasesTotal)
		return
	}
	fmt.Fprintf(b, "Failing cases (%d):\n\n", len(failing))
	b.WriteString("| case | severity | code | detail |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, c := range failing {
		name := "**" + markdown.Cell(c.CaseID) + "**"
		if title := caseTitle(rel.Suite, c.CaseID); title != "" {
			name += " " + markdown.Cell(title)
		}
		for _, f := range c.Failures {
			fmt.Fprintf(b, "| %s | %s | `%s` | %s |\n", name, c.Severity, f.Code, markdown.Cell(f.Detail))
		}
	}
	b.WriteString("\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
