package pages

import (
	"fmt"
	"strconv"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/stats"
)

// Evidence words how sure a snapshot's figures are, as docs/evidence.md
// ("Reading the pages") describes: first in words a product manager
// reads, then the numbers behind them, which the pages put one click
// deeper. Every figure is the evaluator's, read from the results; none is
// computed again here.
type Evidence struct {
	// PassRate: "12 of 12 cases passed; 95% sure the true pass rate is
	// above 75.8%".
	PassRate string
	// Interval: "95% interval 75.8–100%"; "" without cases.
	Interval string
	// Settle: what would settle an inconclusive pass-rate gate; "" when
	// the gate is not inconclusive.
	Settle string
	// Comparisons: the snapshot against the previous one and the
	// baseline.
	Comparisons []ComparisonWords
	// Numbers are the figures behind the words, one sentence each.
	Numbers []string
}

// ComparisonWords is one comparison of a snapshot with another, worded.
type ComparisonWords struct {
	Against NavLink
	Role    string // "the previous snapshot", "the baseline"
	// Finding: "1 fixed and 0 regressed, which could be chance", "no
	// case changed".
	Finding string
	// Chance: "could be chance", "unlikely to be chance", "no change".
	Chance      string
	Significant bool
}

// chanceWords says whether a comparison's difference could be chance, in
// words a reader without statistics follows.
func chanceWords(c *decide.Comparison) string {
	switch {
	case c.Regressions+c.Fixes == 0:
		return "no change"
	case c.Significant:
		return "unlikely to be chance"
	}
	return "could be chance"
}

// findingWords words what a comparison found, without its figures: "1
// fixed and 0 regressed, which could be chance".
func findingWords(c *decide.Comparison) string {
	switch chanceWords(c) {
	case "no change":
		return "no case changed"
	case "unlikely to be chance":
		return fmt.Sprintf("%d fixed and %d regressed, which is unlikely to be chance", c.Fixes, c.Regressions)
	}
	return fmt.Sprintf("%d fixed and %d regressed, which could be chance", c.Fixes, c.Regressions)
}

// snapshotEvidence words the evidence of snapshot s at the suite's
// confidence level; root leads from the page to the site root.
func snapshotEvidence(s *evaluator.Snapshot, level stats.Level, root string) *Evidence {
	r := s.Result
	e := &Evidence{PassRate: upperFirst(s.PassRateSentence(level))}
	if r.PassRateInterval != nil {
		iv := r.PassRateInterval
		e.Interval = level.Percent() + " interval " + intervalText(iv[0], iv[1])
		e.Numbers = append(e.Numbers, fmt.Sprintf("Pass rate %d of %d = %s; %s Wilson score interval %s (pass_rate_interval [%s, %s] in the results file).",
			r.CasesPassed, r.CasesTotal, percent(s.Metrics.PassRate), level.Percent(), intervalText(iv[0], iv[1]), fmtFloat(iv[0]), fmtFloat(iv[1])))
	}
	for i := range r.Gates {
		g := &r.Gates[i]
		if !g.Inconclusive || g.LowerBound == nil {
			continue
		}
		e.Settle = "Not proven yet: " + SettleWords(g, r.CasesTotal) + "."
		e.Numbers = append(e.Numbers, fmt.Sprintf("The %s gate needs the interval's lower bound to reach %s; it is %s (lower_bound in the results file).",
			g.Spec.Label, g.ThresholdText(), decide.SharePercent(*g.LowerBound)))
	}
	for _, c := range s.Comparisons() {
		w := ComparisonWords{Against: NavLink{Href: root + SnapshotPath(c.Label), Text: c.Label}, Role: c.Role,
			Finding: findingWords(c.Comparison), Chance: chanceWords(c.Comparison), Significant: c.Significant}
		e.Comparisons = append(e.Comparisons, w)
		e.Numbers = append(e.Numbers, mcnemarWords(c.Comparison, c.Role))
		if sig, noise, _ := c.ByEvidence(); sig+noise > 0 {
			e.Numbers = append(e.Numbers, fmt.Sprintf("Of the cases that changed against %s with trials on both sides, Fisher's exact test finds %d significant and %d within noise.", c.Label, sig, noise))
		}
	}
	return e
}

// mcnemarWords gives the exact McNemar test's figures for a comparison
// with the snapshot in role ("the previous snapshot").
func mcnemarWords(c *decide.Comparison, role string) string {
	verdict := "not significant"
	if c.Significant {
		verdict = "significant"
	}
	return fmt.Sprintf("Against %s (%s): %d regressed, %d fixed; exact McNemar test p = %s, %s (significant means p below %s, for %s confidence).",
		c.Label, role, c.Regressions, c.Fixes, fmtFloat(c.PValue), verdict, fmtFloat(c.Level.Alpha()), c.Level.Percent())
}

// SettleWords says how many cases would settle an inconclusive gate:
// "about 40 cases at the same pass rate (28 more) would settle it".
func SettleWords(g *decide.GateResult, cases int) string {
	if g.Settle == 0 {
		return g.SettleText()
	}
	return fmt.Sprintf("about %s cases at the same %s (%s more than now) would settle it", thousands(int(g.Settle)), g.Spec.Label, thousands(int(g.Settle)-cases))
}

// intervalText words an interval held as two rounded bounds: "75.8–100%".
func intervalText(lo, hi float64) string {
	l := decide.SharePercent(lo)
	return l[:len(l)-1] + "–" + decide.SharePercent(hi)
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// upperFirst capitalises a sentence's first letter.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
