package decide

import (
	"fmt"

	"github.com/releasegate/releasegate/evaluator/stats"
)

// Change is how a case's verdict moved from one snapshot to another.
type Change string

// The two ways a verdict can move.
const (
	Regressed Change = "regressed" // passed before, fails now
	Fixed     Change = "fixed"     // failed before, passes now
)

// CaseVerdict is what a comparison reads of one case in one snapshot:
// whether it passed and, with trials, how many of its trials did.
type CaseVerdict struct {
	Passed               bool
	Trials, TrialsPassed int // both 0 without trials
}

// Evidence says how far one case's change can be trusted.
type Evidence int

// The kinds of evidence behind one case's change.
const (
	// OneRunEach: both sides were judged once, without trials; a flip of
	// one run could be chance, and no test can tell.
	OneRunEach Evidence = iota
	// OneSideOnce: one side ran in trials, the other once; no test can
	// tell either.
	OneSideOnce
	// WithinNoise: both sides ran in trials and Fisher's test finds the
	// difference could be chance.
	WithinNoise
	// SignificantChange: both sides ran in trials and the difference is
	// unlikely to be chance.
	SignificantChange
)

// Words says what the evidence means for a reader: "one run each: could
// be chance", "within noise", "significant".
func (e Evidence) Words() string {
	switch e {
	case WithinNoise:
		return "within noise"
	case SignificantChange:
		return "significant"
	case OneSideOnce:
		return "one run on one side: could be chance"
	}
	return "one run each: could be chance"
}

// CaseChange is one case whose verdict differs between two snapshots.
type CaseChange struct {
	CaseID string `json:"case_id"`
	Change Change `json:"change"`
	// PValue is Fisher's exact p on the case's trials, to 6 significant
	// digits; null when either side has no trials.
	PValue *float64 `json:"p_value"`

	// Index is the case's position in the suite; P the p-value as
	// computed, which significance is decided on.
	Index int     `json:"-"`
	P     float64 `json:"-"`
	// Evidence says whether the change is significant, within noise or
	// beyond any test.
	Evidence Evidence `json:"-"`
}

// ChangeOf is the change of the case at position index, with id, from
// before to after, whose verdicts differ; level sets α.
func ChangeOf(index int, id string, before, after CaseVerdict, level stats.Level) CaseChange {
	c := CaseChange{CaseID: id, Change: Fixed, Index: index}
	if before.Passed {
		c.Change = Regressed
	}
	if before.Trials > 0 || after.Trials > 0 {
		c.Evidence = OneSideOnce
	}
	if before.Trials > 0 && after.Trials > 0 {
		c.P = stats.Fisher(before.TrialsPassed, before.Trials, after.TrialsPassed, after.Trials)
		rounded := stats.RoundSignificant(c.P, 6)
		c.PValue = &rounded
		c.Evidence = WithinNoise
		if level.Significant(c.P) {
			c.Evidence = SignificantChange
		}
	}
	return c
}

// Comparison is one snapshot against an earlier one over the same cases
// (a paired comparison): the cases that regressed and those fixed, and
// the exact McNemar test of whether the difference could be chance. Its
// JSON is versus_previous and versus_baseline of a results file.
type Comparison struct {
	// Label is the snapshot compared with.
	Label       string `json:"label"`
	Regressions int    `json:"regressions"`
	Fixes       int    `json:"fixes"`
	// PValue is the exact McNemar p to 6 significant digits.
	PValue float64 `json:"p_value"`
	// Significant: p < α at the confidence level, decided on P.
	Significant bool `json:"significant"`
	// Cases are the cases whose verdict changed, in suite order.
	Cases []CaseChange `json:"cases"`

	// P is the p-value as computed; Level the confidence level.
	P     float64     `json:"-"`
	Level stats.Level `json:"-"`
}

// Compare tests the changes between a snapshot and the one labelled
// label: changes are those of every case whose verdict differs, in suite
// order (see ChangeOf).
func Compare(label string, changes []CaseChange, level stats.Level) *Comparison {
	c := &Comparison{Label: label, Cases: changes, Level: level}
	if c.Cases == nil {
		c.Cases = []CaseChange{}
	}
	for _, ch := range changes {
		if ch.Change == Regressed {
			c.Regressions++
		} else {
			c.Fixes++
		}
	}
	c.P = stats.McNemar(c.Regressions, c.Fixes)
	c.PValue = stats.RoundSignificant(c.P, 6)
	c.Significant = level.Significant(c.P)
	return c
}

// Regressed reports whether the snapshot fell behind the one compared
// with beyond chance: more regressions than fixes, and significant.
func (c *Comparison) Regressed() bool { return c.Regressions > c.Fixes && c.Significant }

// Verdict words whether the difference could be chance: "could be
// chance", "significant", or "no change".
func (c *Comparison) Verdict() string {
	switch {
	case c.Regressions+c.Fixes == 0:
		return "no change"
	case c.Significant:
		return "significant"
	}
	return "could be chance"
}

// Counts words the changes: "3 fixed, 0 regressed".
func (c *Comparison) Counts() string {
	return fmt.Sprintf("%d fixed, %d regressed", c.Fixes, c.Regressions)
}

// Sentence words the comparison for people, the p-value last:
// "against baseline-v1: 3 fixed, 0 regressed — could be chance
// (p = 0.25)".
func (c *Comparison) Sentence() string { return "against " + c.Label + ": " + c.Finding() }

// Finding words what the comparison found, without the snapshot compared
// with: "3 fixed, 0 regressed — could be chance (p = 0.25)".
func (c *Comparison) Finding() string {
	s := c.Counts() + " — " + c.Verdict()
	if c.Regressions+c.Fixes > 0 {
		s += " (" + FormatP(c.P) + ")"
	}
	return s
}

// ByEvidence counts the changed cases by their evidence: significant,
// within noise, and untested (one run on either side).
func (c *Comparison) ByEvidence() (significant, withinNoise, untested int) {
	for _, ch := range c.Cases {
		switch ch.Evidence {
		case SignificantChange:
			significant++
		case WithinNoise:
			withinNoise++
		default:
			untested++
		}
	}
	return
}

// PassRateSentence words the pass rate and its interval at level for
// people: "12 of 12 cases passed; 95% sure the true pass rate is above
// 75.8%", "… is between 64.6% and 98.5%", "no cases".
func (m Metrics) PassRateSentence(level stats.Level) string {
	iv, ok := m.PassRateInterval(level)
	if !ok {
		return "no cases"
	}
	s := fmt.Sprintf("%d of %d %s passed; %s sure the true pass rate is ", m.CasesPassed, m.CasesTotal, plural(m.CasesTotal, "case", "cases"), level.Percent())
	lo, hi := SharePercent(iv.Lo), SharePercent(iv.Hi)
	switch {
	case hi == "100%":
		return s + "above " + lo
	case lo == "0%":
		return s + "below " + hi
	}
	return s + "between " + lo + " and " + hi
}

// SettleText says what would settle an inconclusive gate: "about 35
// cases at the same pass rate would settle it", or that no number would.
func (g *GateResult) SettleText() string {
	if g.Settle == 0 {
		return "no number of cases at this " + g.Spec.Label + " would settle it"
	}
	return fmt.Sprintf("%d cases at the same %s would settle it", g.Settle, g.Spec.Label)
}
