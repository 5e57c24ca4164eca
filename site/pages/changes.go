package pages

import (
	"fmt"

	"github.com/releasegate/releasegate/evaluator"
)

// CollapseAfter is how many cases a list of "what changed" shows before
// it folds the rest away: a regression in a long suite can flip hundreds.
const CollapseAfter = 12

// CaseList is a list of cases with the tail folded away when it is long.
type CaseList struct {
	Shown []CaseLink
	More  []CaseLink
}

// foldCases splits cases for a CaseList.
func foldCases(cases []CaseLink) CaseList {
	if len(cases) <= CollapseAfter {
		return CaseList{Shown: cases}
	}
	return CaseList{Shown: cases[:CollapseAfter], More: cases[CollapseAfter:]}
}

// FlakyChange is a case that is flaky in at least one of two consecutive
// snapshots: whether its verdict changed says little, so it is listed
// apart from the flips.
type FlakyChange struct {
	CaseLink
	Was, Is string // "pass", "fail", "pass, 2/3 trials", "no trials"
	// Why says, for a verdict that flipped with trials on both sides,
	// what Fisher's test makes of it: "within noise (Fisher's exact test
	// p = 0.428571)"; "" otherwise.
	Why string
}

// FixedList, RegressedList, StillFailingList and NoOutputList fold long
// lists.
func (c Change) FixedList() CaseList        { return foldCases(c.Fixed) }
func (c Change) RegressedList() CaseList    { return foldCases(c.Regressed) }
func (c Change) StillFailingList() CaseList { return foldCases(c.StillFailing) }
func (c Change) NoOutputList() CaseList     { return foldCases(c.NoOutput) }

// FlakyShown and FlakyMore fold the flaky cases as CaseList does.
func (c Change) FlakyShown() []FlakyChange {
	return c.Flaky[:min(len(c.Flaky), CollapseAfter)]
}

// FlakyMore are the flaky cases past those FlakyShown lists.
func (c Change) FlakyMore() []FlakyChange {
	return c.Flaky[min(len(c.Flaky), CollapseAfter):]
}

// flakyEither reports whether case j is flaky in prev or cur.
func flakyEither(prev, cur *evaluator.Snapshot, j int) bool {
	return prev.Result.Cases[j].Flaky() || cur.Result.Cases[j].Flaky()
}

// verdictWithTrials words a case's verdict in a snapshot for the flaky
// list.
func verdictWithTrials(s *evaluator.Snapshot, j int) string {
	c := &s.Result.Cases[j]
	v := "fail"
	if c.Passed {
		v = "pass"
	}
	if s.Trials() == 0 {
		return v
	}
	return fmt.Sprintf("%s, %d/%d trials", v, c.TrialsPassed, s.Trials())
}
