package pages

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// TrialStrip shows a case's trials as a row of pass and fail marks with
// the count of passed trials: ✓ ✕ ✓ 2/3.
type TrialStrip struct {
	Marks  []TrialMark
	Passed int
	K      int
	Text   string // "2/3"
	Flaky  bool
	// FlakyBadge is set when the case is flaky.
	FlakyBadge Badge
	// Label reads the strip out for assistive technology.
	Label string
	// Linked: each mark links to its trial's section (on a drilldown).
	Linked bool
}

// TrialMark is one trial of a case.
type TrialMark struct {
	Trial   int
	Passed  bool
	Missing bool   // the snapshot has no line for this trial
	Codes   string // the trial's failure codes, "" when it passed
	Href    string // the trial's section on the drilldown
	Icon    string
	Class   string // "pass", "fail", "missing"
	Title   string // "trial 2: fail (arguments)"
}

// The flaky badge: some but not all of a case's trials passed.
var flakyBadge = newBadge("flaky", "flaky", "~")

// trialFailures returns the failures of trial t (1-based) among a case's.
func trialFailures(fs []judge.Failure, t int) []judge.Failure {
	var out []judge.Failure
	for _, f := range fs {
		if f.Trial == t {
			out = append(out, f)
		}
	}
	return out
}

// NewTrialStrip builds the strip of case result c with k trials; href(t)
// is the link of each mark, to trial t's section of the result.
func NewTrialStrip(c *evaluator.CaseResult, k int, href func(t int) string) *TrialStrip {
	if k == 0 {
		return nil
	}
	s := &TrialStrip{Passed: c.TrialsPassed, K: k, Flaky: c.Flaky(), Text: fmt.Sprintf("%d/%d", c.TrialsPassed, k)}
	words := make([]string, k)
	for t := 1; t <= k; t++ {
		fs := trialFailures(c.Failures, t)
		m := TrialMark{Trial: t, Passed: len(fs) == 0, Href: href(t), Icon: "✓", Class: "pass"}
		m.Title = fmt.Sprintf("trial %d: pass", t)
		if !m.Passed {
			m.Icon, m.Class, m.Codes = "✕", "fail", FailureCodes(fs)
			m.Title = fmt.Sprintf("trial %d: fail (%s)", t, m.Codes)
			if len(fs) == 1 && fs[0].Code == judge.MissingOutput {
				m.Missing, m.Icon, m.Class = true, "–", "missing"
				m.Title = fmt.Sprintf("trial %d: no output", t)
			}
		}
		words[t-1] = m.Title
		s.Marks = append(s.Marks, m)
	}
	if s.Flaky {
		s.FlakyBadge = flakyBadge
	}
	s.Label = fmt.Sprintf("%d of %d trials passed: %s", c.TrialsPassed, k, strings.Join(words, "; "))
	return s
}

// TrialID is the element id of trial t's section on a drilldown.
func TrialID(t int) string { return fmt.Sprintf("trial-%d", t) }

// TrialSection is one trial of a case on its drilldown.
type TrialSection struct {
	Trial   int
	ID      string // the section's element id, "trial-2"
	Verdict Badge
	OutputView
}

// trialSections builds a drilldown's section per trial of case i.
func (v *Model) trialSections(s *evaluator.Snapshot, i int, root string) ([]TrialSection, error) {
	k := s.Trials()
	if k == 0 || s.TrialOutputs == nil {
		return nil, nil
	}
	c := v.In.Release.Suite.Cases[i]
	res := &s.Result.Cases[i]
	out := make([]TrialSection, k)
	for t := 1; t <= k; t++ {
		var o *suite.Output
		if t-1 < len(s.TrialOutputs) {
			var err error
			if o, err = s.Whole(s.TrialOutputs[t-1][i]); err != nil {
				return nil, err
			}
		}
		fs := trialFailures(res.Failures, t)
		ov := v.outputView(c, o, fs, root)
		ov.IDPrefix, ov.Nested = TrialID(t)+"-", true
		out[t-1] = TrialSection{Trial: t, ID: TrialID(t), Verdict: verdictBadge(len(fs) == 0), OutputView: ov}
	}
	return out, nil
}

// TrialSummary words a snapshot's trials: k, the share of trials that
// passed and pass^k, the share of cases that passed every trial.
type TrialSummary struct {
	K         int
	TrialRate string // "76.67% of 30 trials"
	PassK     string // "60% of cases (6 of 10)"
	Flaky     int
	FlakyText string // "3 flaky cases"
	// MinRate is min_trial_pass_rate, the share of its trials a case
	// must pass; set on the snapshot page.
	MinRate string
}

// trialSummary is nil for a snapshot without trials.
func trialSummary(s *evaluator.Snapshot) *TrialSummary {
	k := s.Trials()
	if k == 0 {
		return nil
	}
	cases := s.Result.Cases
	all, trials, flaky := 0, 0, 0
	for i := range cases {
		if cases[i].TrialsPassed == k {
			all++
		}
		trials += cases[i].TrialsPassed
		if cases[i].Flaky() {
			flaky++
		}
	}
	total := len(cases) * k
	sum := &TrialSummary{K: k, Flaky: flaky, FlakyText: fmt.Sprintf("%d flaky %s", flaky, plural(flaky, "case", "cases"))}
	sum.TrialRate = fmt.Sprintf("%s of %d trials", percent(ratio(trials, total)), total)
	sum.PassK = fmt.Sprintf("%s of cases (%d of %d)", percent(ratio(all, len(cases))), all, len(cases))
	return sum
}

func ratio(a, b int) *big.Rat {
	if b == 0 {
		return new(big.Rat)
	}
	return big.NewRat(int64(a), int64(b))
}

// trialMeasures are case i's latency and cost over its trials, for the
// snapshot page: the slowest measured latency, and the average of the
// measured costs; nil where no trial was measured.
func trialMeasures(s *evaluator.Snapshot, i int) (latency, cost *big.Rat) {
	sum, n := new(big.Rat), 0
	for _, trial := range s.TrialOutputs {
		o := trial[i]
		if o == nil {
			continue
		}
		if o.LatencyMS != nil && (latency == nil || o.LatencyMS.Rat().Cmp(latency) > 0) {
			latency = o.LatencyMS.Rat()
		}
		if o.CostUSD != nil {
			sum.Add(sum, o.CostUSD.Rat())
			n++
		}
	}
	if n > 0 {
		cost = sum.Quo(sum, big.NewRat(int64(n), 1))
	}
	return latency, cost
}

// measureText words a case's measure for the case table: the text, the
// value the table sorts by and the chart's bar.
func measureText(r *big.Rat, format func(*big.Rat) string) (text, sortValue string, bar float64) {
	if r == nil {
		return "not measured", "", 0
	}
	bar, _ = r.Float64()
	return format(r), r.FloatString(6), bar
}

// trialThreshold words min_trial_pass_rate for the overview's
// thresholds, when some snapshot has trials.
func trialThreshold(rel *evaluator.Release) (Threshold, bool) {
	for _, s := range rel.Snapshots {
		if s.Trials() > 0 {
			rate := rel.Suite.Gate.TrialPassRate().Rat()
			return Threshold{Name: "Trials: a case passes with", Limit: "at least " + percent(rate) + " of its trials passed"}, true
		}
	}
	return Threshold{}, false
}

// trialDecisions words the decisions case i's trials made, each with the
// number of trials that made it when they differ: "escalate ×3, inform ×1".
func trialDecisions(s *evaluator.Snapshot, i int) string {
	var order []string
	count := map[string]int{}
	for _, trial := range s.TrialOutputs {
		d := "no output"
		if o := trial[i]; o != nil {
			d = outputDecision(o)
		}
		if count[d] == 0 {
			order = append(order, d)
		}
		count[d]++
	}
	if len(order) == 1 {
		return order[0]
	}
	parts := make([]string, len(order))
	for j, d := range order {
		parts[j] = fmt.Sprintf("%s ×%d", d, count[d])
	}
	return strings.Join(parts, ", ")
}
