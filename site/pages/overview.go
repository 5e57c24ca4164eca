package pages

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// OverviewPage is index.html: the verdict on the decisive snapshot first,
// then the trend over every snapshot, the latest snapshots in full and the
// rest as one table. Its size grows with the snapshots, one table row
// each, and its first screen stays the same however many there are.
type OverviewPage struct {
	Layout
	Verdict     Verdict
	Trend       []TrendChart
	Recent      []SnapshotCard // the latest snapshots, newest first
	History     []SnapshotCard // every snapshot, newest first
	HistoryOpen bool           // few enough to show the table unfolded
	// Measures head the gates' columns of the table of every snapshot,
	// in the order of each card's Measures.
	Measures   []MeasureHeading
	Thresholds []Threshold
	// BlockGates and ReviewGates name the gates that force BLOCK and
	// REVIEW in the thresholds' lead: "the functional or the safety
	// gate", "latency or cost".
	BlockGates, ReviewGates string
	Change                  *Change // the decisive snapshot against the one before it
	Files                   []NavLink
}

// recentCards is how many of the latest snapshots the overview shows in
// full; the history table lists them all.
const recentCards = 3

// openHistory is the most snapshots whose table the overview shows
// unfolded.
const openHistory = 12

// Verdict is the overview's opening: what the decisive snapshot's
// decision is and means, its gates in numbers, the critical cases that
// fail in it and the rules no case covers.
type Verdict struct {
	Snapshot SnapshotCard
	// Position: "the latest of 3 snapshots", "the only snapshot".
	Position string
	// Meaning: "may ship under policy ER-2026.10", "needs review: …".
	Meaning string
	Gates   []VerdictGate
	// Critical names the failing critical cases, linked to their
	// drilldowns; MoreCritical counts those left unnamed.
	Critical     []CaseLink
	MoreCritical int
	// Uncovered names rules that no case cites; MoreUncovered counts
	// those left unnamed, and UncoveredHref leads to the whole list.
	Uncovered     []CaseLink
	MoreUncovered int
	UncoveredHref string
	RuleCount     int
	None          bool // no snapshot at all
}

// VerdictGate is one gate in the verdict: "pass rate 91.67% (at least 90%)".
type VerdictGate struct {
	Name    string
	Value   string
	Limit   string
	Passed  bool
	Verdict Badge
}

// verdictNames bound how many cases and rules the verdict names; the
// rest are counted and linked.
const verdictNames = 8

// SnapshotCard sums up one snapshot.
type SnapshotCard struct {
	Label       string
	Href        string
	ResultsHref string
	Badge       Badge
	Reason      string
	// Measures are the snapshot's values of its gates against a limit,
	// in the order of its results.
	Measures []CardMeasure
	Failing  int
	// Recording is the snapshot's meta.json, nil without one.
	Recording *Recording
	// Trials sums up the snapshot's trials, nil without trials.
	Trials *TrialSummary
	Inputs []HashRow
	// Evidence words how sure the pass rate is and whether the changes
	// against the previous snapshot and the baseline could be chance.
	Evidence *Evidence
}

// MeasureHeading heads one gate's value on the overview: "p95
// latency", linked to the glossary entry Term ("" for none).
type MeasureHeading struct {
	Heading, Term string
}

// CardMeasure is one gate's value on a snapshot card: "11/12 (91.67%)"
// with its interval, "2", "1,100 ms", "USD 0.011 per answer".
type CardMeasure struct {
	MeasureHeading
	Value string
	// Interval: "95% interval 75.8–100%" for a gate with an interval,
	// "" without one or without cases.
	Interval string
}

// cardSpec reports whether the overview shows a gate's value on its
// cards: each gate against a limit does; one against the baseline is a
// comparison, which the evidence lines word.
func cardSpec(s *decide.Spec) bool { return s.Kind == decide.AgainstLimit }

// measureHeading is how the overview heads a gate's value.
func measureHeading(s *decide.Spec) MeasureHeading {
	h := s.Heading
	if h == "" {
		h = upperFirst(s.Label)
	}
	return MeasureHeading{Heading: h, Term: s.Term}
}

// cardMeasures words the gates of s against a limit for its card: the
// value as the results word it, after the gate's summary when it has one
// ("11/12 (91.67%)"); a latency or a cost with how many outputs it was
// measured over, a cost per answer; a gate with an interval carries it.
func cardMeasures(s *evaluator.Snapshot, cov Coverage) []CardMeasure {
	var out []CardMeasure
	for i := range s.Result.Gates {
		g := &s.Result.Gates[i]
		if !cardSpec(g.Spec) {
			continue
		}
		m := CardMeasure{MeasureHeading: measureHeading(g.Spec), Value: g.ObservedText()}
		if g.Spec.Summary != nil {
			m.Value = g.Spec.Summary(s.Metrics) + " (" + m.Value + ")"
		}
		if g.Spec.Drivers == decide.CostliestOutputs && g.Measured() {
			m.Value = perAnswer(m.Value)
		}
		m.Value = gateCoverage(g, m.Value, cov)
		if iv := g.Interval; iv != nil {
			m.Interval = g.Level.Percent() + " interval " + intervalText(stats.RoundDecimals(iv.Lo, 6), stats.RoundDecimals(iv.Hi, 6))
		}
		out = append(out, m)
	}
	return out
}

// Threshold is one frozen limit of gate.json, worded.
type Threshold struct {
	Name  string
	Limit string
}

// TrendChart is one measure over every snapshot.
type TrendChart struct {
	Title string
	Note  string
	Chart Chart
}

// Change is what changed between two consecutive snapshots.
type Change struct {
	From, To     NavLink
	Fixed        []CaseLink
	Regressed    []CaseLink
	StillFailing []CaseLink
	// NoOutput are the cases with an output before and none now.
	NoOutput []CaseLink
	// Chance are the flips that could be chance, kept out of Fixed and
	// Regressed.
	Chance []ChanceChange
	// Flaky are the cases flaky in either snapshot, kept out of the
	// lists above.
	Flaky   []FlakyChange
	Summary string
	// Finding words the comparison ("1 fixed and 0 regressed, which could
	// be chance") and Numbers gives its test; both "" when the results
	// do not compare the two.
	Finding, Numbers string
}

// ChanceChange is a case whose verdict flipped in a way that could be
// chance, and why.
type ChanceChange struct {
	CaseLink
	Was, Is string // "pass", "fail, 1/4 trials"
	Why     string // "one run each: could be chance", "within noise (…)"
}

func snapshotCard(s *evaluator.Snapshot, gates []GateRow, level stats.Level, root string) SnapshotCard {
	r := s.Result
	e := snapshotEvidence(s, level, root)
	cov := coverageOf(s)
	return SnapshotCard{
		Evidence:    e,
		Label:       r.Label,
		Href:        root + SnapshotPath(r.Label),
		ResultsHref: root + ResultsPath(r.Label),
		Badge:       decisionBadge(r.Decision),
		Reason:      decisionReason(r.Decision, gates),
		Measures:    cardMeasures(s, cov),
		Failing:     r.CasesTotal - r.CasesPassed,
		Recording:   recording(r.Meta),
		Trials:      trialSummary(s),
		Inputs:      inputHashes(r.Inputs),
	}
}

// OverviewPage builds index.html: the verdict first, then every snapshot.
func (v *Model) OverviewPage() (*OverviewPage, error) {
	rel := v.In.Release
	g := rel.Suite.Gate
	p := &OverviewPage{Layout: v.Info.layout(OverviewPath, "Release overview")}
	cards := make([]SnapshotCard, len(rel.Snapshots))
	for i, s := range rel.Snapshots {
		cards[i] = snapshotCard(s, GateRows(s), g.Confidence, "")
	}
	for i := len(cards) - 1; i >= 0; i-- {
		p.History = append(p.History, cards[i])
	}
	p.Recent = p.History[:min(recentCards, len(p.History))]
	p.HistoryOpen = len(p.History) <= openHistory
	p.Verdict = v.verdict()
	for _, sp := range rel.Specs().Applicable(g) {
		if cardSpec(sp) {
			p.Measures = append(p.Measures, measureHeading(sp))
		}
	}
	p.Files = []NavLink{{Href: ReportPagePath, Text: "Release report"}, {Href: ReportPath, Text: ReportPath + " (Markdown)"}}
	var block, review []string
	for _, t := range rel.Specs().Thresholds(g) {
		p.Thresholds = append(p.Thresholds, Threshold{t.Spec.Topic, t.Text()})
		if t.Spec.Kind != decide.AgainstLimit {
			continue
		}
		aspect, _, _ := strings.Cut(t.Spec.Topic, ":")
		if t.Spec.Fails == decide.Block {
			block = append(block, "the "+strings.ToLower(aspect))
		} else {
			review = append(review, strings.ToLower(aspect))
		}
	}
	p.BlockGates, p.ReviewGates = strings.Join(block, " or ")+" gate", strings.Join(review, " or ")
	if t, ok := trialThreshold(rel); ok {
		p.Thresholds = append(p.Thresholds, t)
	}
	var err error
	if p.Trend, err = v.trend(); err != nil {
		return nil, err
	}
	var charts []Chart
	for _, t := range p.Trend {
		charts = append(charts, t.Chart)
	}
	p.Scripts = chartAssets(charts...)
	if n := len(rel.Snapshots); n > 1 {
		c := change(rel, v.Paths, rel.Snapshots[n-2], rel.Snapshots[n-1])
		p.Change = &c
	}
	return p, nil
}

// verdict words the decisive snapshot: the latest in snapshot order.
func (v *Model) verdict() Verdict {
	rel := v.In.Release
	n := len(rel.Snapshots)
	if n == 0 {
		return Verdict{None: true, Meaning: "no snapshot has been judged"}
	}
	s := rel.Snapshots[n-1]
	gates := GateRows(s)
	vd := Verdict{Snapshot: snapshotCard(s, gates, rel.Suite.Gate.Confidence, ""), Position: "the only snapshot"}
	if n > 1 {
		vd.Position = "the latest of " + strconv.Itoa(n) + " snapshots"
	}
	var failures []string
	for _, gr := range gates {
		if gr.failure != "" {
			failures = append(failures, gr.failure)
		}
	}
	switch s.Result.Decision {
	case decide.Pass:
		vd.Meaning = "may ship (there is no policy)"
		if rel.Suite.Policy != nil {
			vd.Meaning = "may ship under policy " + rel.Suite.Policy.Version
		}
	case decide.Review:
		vd.Meaning = "needs review: " + joinClauses(failures)
	default:
		vd.Meaning = "blocked: " + joinClauses(failures)
	}
	for _, gr := range gates {
		vd.Gates = append(vd.Gates, verdictGate(gr))
	}
	for i, c := range rel.Suite.Cases {
		// A critical case with any failed trial counts as a critical
		// failure, though it may pass on its trials: it is named too.
		if c.Severity != suite.Critical || len(s.Result.Cases[i].Failures) == 0 {
			continue
		}
		if len(vd.Critical) < verdictNames {
			vd.Critical = append(vd.Critical, CaseLink{ID: c.ID, Href: v.Paths.Result(s.Label(), i)})
		} else {
			vd.MoreCritical++
		}
	}
	if rel.Suite.Policy == nil {
		return vd
	}
	cited := v.citations()
	vd.RuleCount = len(rel.Suite.Policy.Rules)
	vd.UncoveredHref = PolicyPath + "#coverage"
	for _, r := range rel.Suite.Policy.Rules {
		if len(cited[r.ID]) > 0 {
			continue
		}
		if len(vd.Uncovered) < verdictNames {
			vd.Uncovered = append(vd.Uncovered, CaseLink{ID: r.ID, Href: PolicyPath + "#" + r.Anchor()})
		} else {
			vd.MoreUncovered++
		}
	}
	return vd
}

// verdictGate shortens a gate row for the verdict's list.
func verdictGate(g GateRow) VerdictGate {
	name := g.spec.Short
	if name == "" {
		name = g.Name
	}
	return VerdictGate{Name: name, Value: g.Observed, Limit: g.Threshold, Passed: g.Passed, Verdict: verdictBadge(g.Passed)}
}

// trendHeight is the height of a trend chart's box: low enough for three
// side by side above the fold of a laptop, tall enough that the plot,
// not its labels, takes most of it.
const trendHeight = "230px"

// trend draws pass rate, p95 latency and average cost over every
// snapshot, each against its limit (none when the gate is off), each
// point shaped by its decision.
func (v *Model) trend() ([]TrendChart, error) {
	rel := v.In.Release
	g := rel.Suite.Gate
	n := len(rel.Snapshots)
	decisions := make([]decide.Decision, n)
	for i, s := range rel.Snapshots {
		decisions[i] = s.Result.Decision
	}
	type measure struct {
		spec                  *decide.Spec
		gate, title, id, axis string
		scale                 float64 // a fraction is drawn as a percentage
		max                   float64
		interval              bool // whiskers from the gate's interval
	}
	var measures []measure
	for _, sp := range rel.Specs().Applicable(g) {
		if t := sp.Trend; t != nil {
			title := t.Title
			if sp.Proof != nil {
				title += " with its " + g.Confidence.Percent() + " interval"
			}
			measures = append(measures, measure{sp, sp.Name, title, t.ID, t.Axis, t.Scale, t.Max, sp.Proof != nil})
		}
	}
	var out []TrendChart
	for _, m := range measures {
		spec := trendSpec{ID: m.id, Labels: v.Info.Labels, Decisions: decisions, AxisName: m.axis, Height: trendHeight, Max: m.max,
			Values: make([]*float64, n)}
		for i, s := range rel.Snapshots {
			if gr, ok := s.Result.Gate(m.gate); ok && gr.Value != nil {
				f, _ := gr.Value.Float64()
				f *= m.scale
				spec.Values[i] = &f
			}
		}
		if m.interval {
			// The whiskers are the gate's intervals, rounded as the results
			// files write them.
			spec.IntervalName = g.Confidence.Percent() + " interval"
			spec.Intervals = make([]*[2]float64, n)
			for i, s := range rel.Snapshots {
				if gr, ok := s.Result.Gate(m.gate); ok && gr.Interval != nil {
					spec.Intervals[i] = &[2]float64{stats.RoundDecimals(gr.Interval.Lo, 6) * m.scale, stats.RoundDecimals(gr.Interval.Hi, 6) * m.scale}
				}
			}
		}
		note := "Not gated: no limit is set."
		if limit, on := rel.Specs().Limit(g, m.gate); on {
			sp, _ := rel.Specs().Named(m.gate)
			f, _ := limit.Float64()
			text := sp.Unit.Format(limit)
			word := "limit"
			if sp.Bound == decide.AtLeast {
				word = "min"
			}
			spec.Limit = &RefLine{Label: word + " " + text, Value: f * m.scale, Color: LimitColour}
			note = "The dashed line is the " + map[bool]string{true: "minimum", false: "limit"}[word == "min"] + " of " + text + "."
			if spec.Intervals != nil {
				note = "Each whisker spans the " + spec.IntervalName + "; the dashed line is the minimum of " + text + "."
			}
		}
		// A share of the cases with an interval moves by whole cases; a
		// latency's p95 may be decided by few answers.
		if m.interval && m.spec.Unit == decide.Fraction && n > 0 {
			note += " " + passRateNote(rel.Snapshots[n-1].Result.CasesTotal)
		}
		if m.spec.Drivers == decide.SlowestOutputs && n > 0 {
			// The latest snapshot's count: the suite's cases, so the same
			// in every snapshot but for missing answers.
			latencies, _ := measured(rel.Snapshots[n-1])
			if few := p95Note(latencies); few != "" {
				note += " " + few
			}
		}
		c, err := renderTrend(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, TrendChart{Title: m.title, Note: note, Chart: c})
	}
	return out, nil
}

// limitLines is the dashed line of a gate's threshold on a chart, none
// when the gate is off.
func limitLines(spec *decide.Spec, g suite.Gate, prefix string) []RefLine {
	if spec == nil {
		return nil
	}
	limit, on := spec.Limit(g)
	if !on {
		return nil
	}
	v, _ := limit.Float64()
	return []RefLine{{Label: prefix + spec.Unit.Format(limit), Value: v, Color: LimitColour}}
}

// change compares a snapshot with the one before it, case by case, on
// the evaluator's comparison of the two (versus_previous). A case with
// no output now is its own kind of change, never "regressed": it says
// nothing about the agent. Cases flaky in either snapshot are listed
// apart: their verdict may differ by luck, not by a change. So are flips
// that could be chance: with trials on both sides, Fisher's test within
// noise; without, every flip when the comparison as a whole could be
// chance.
func change(rel *evaluator.Release, paths ResultPaths, prev, cur *evaluator.Snapshot) Change {
	c := Change{
		From: NavLink{Href: SnapshotPath(prev.Label()), Text: prev.Label()},
		To:   NavLink{Href: SnapshotPath(cur.Label()), Text: cur.Label()},
	}
	cmp := cur.Result.VersusPrevious
	if cmp == nil || cmp.Label != prev.Label() {
		cmp = nil
	}
	evidence := map[int]decide.CaseChange{}
	if cmp != nil {
		for _, ch := range cmp.Cases {
			evidence[ch.Index] = ch
		}
		c.Finding = findingWords(cmp)
		c.Numbers = mcnemarWords(cmp, "the previous snapshot")
	}
	for j, cs := range rel.Suite.Cases {
		link := CaseLink{ID: cs.ID, Href: paths.History(j)}
		was, is := prev.Result.Cases[j].Passed, cur.Result.Cases[j].Passed
		switch {
		case HasNoOutput(cur, j) && !HasNoOutput(prev, j):
			c.NoOutput = append(c.NoOutput, link)
		case flakyEither(prev, cur, j):
			f := FlakyChange{CaseLink: link, Was: verdictWithTrials(prev, j), Is: verdictWithTrials(cur, j)}
			if ch, ok := evidence[j]; ok && ch.PValue != nil {
				f.Why = caseEvidenceWords(ch)
			}
			c.Flaky = append(c.Flaky, f)
		case was != is && !flipIsReal(cmp, evidence, j):
			why := "could be chance"
			if ch, ok := evidence[j]; ok {
				why = caseEvidenceWords(ch)
			}
			c.Chance = append(c.Chance, ChanceChange{CaseLink: link, Was: verdictWithTrials(prev, j), Is: verdictWithTrials(cur, j), Why: why})
		case !was && is:
			c.Fixed = append(c.Fixed, link)
		case was && !is:
			c.Regressed = append(c.Regressed, link)
		case !was && !is:
			c.StillFailing = append(c.StillFailing, link)
		}
	}
	c.Summary = fmt.Sprintf("%d fixed, %d regressed, %d still failing", len(c.Fixed), len(c.Regressed), len(c.StillFailing))
	var apart []string
	if len(c.Chance) > 0 {
		apart = append(apart, fmt.Sprintf("%d that could be chance", len(c.Chance)))
	}
	if len(c.NoOutput) > 0 {
		apart = append(apart, fmt.Sprintf("%d with no output", len(c.NoOutput)))
	}
	if len(c.Flaky) > 0 {
		apart = append(apart, fmt.Sprintf("%d flaky", len(c.Flaky)))
	}
	if len(apart) > 0 {
		c.Summary += "; not counted as changes: " + strings.Join(apart, ", ")
	}
	return c
}

// caseEvidenceWords words one case's change: "one run each: could be
// chance", "within noise (Fisher's exact test p = 0.428571)".
func caseEvidenceWords(ch decide.CaseChange) string {
	why := ch.Evidence.Words()
	if ch.PValue != nil {
		why += fmt.Sprintf(" (Fisher's exact test p = %s)", fmtFloat(*ch.PValue))
	}
	return why
}

// flipIsReal reports whether case j's flip should be read as a change:
// with trials on both sides, when Fisher's test finds it significant;
// otherwise when the comparison as a whole is unlikely to be chance.
func flipIsReal(cmp *decide.Comparison, evidence map[int]decide.CaseChange, j int) bool {
	if cmp == nil {
		return true
	}
	if ch, ok := evidence[j]; ok && ch.PValue != nil {
		return ch.Evidence == decide.SignificantChange
	}
	return cmp.Significant
}
