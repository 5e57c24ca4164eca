package decide

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Bound says which side of its threshold a gate's value must stay on.
type Bound int

// The two bounds; a value equal to its threshold passes either.
const (
	AtLeast Bound = iota
	AtMost
)

func (b Bound) String() string {
	if b == AtLeast {
		return "at least"
	}
	return "at most"
}

// Unit is what a gate measures: it says what gate.json accepts for its
// threshold and how its values and margins are written.
type Unit int

// The units of the gates.
const (
	Fraction     Unit = iota // a share from 0 to 1, shown as a percentage
	Count                    // a whole number of cases
	Milliseconds             // a duration
	USD                      // an amount of money
	PValue                   // the p-value of a test, from 0 to 1
)

// Format writes a value for people: "91.67%", "2", "5,200 ms",
// "USD 0.0125", "p = 0.25".
func (u Unit) Format(r *big.Rat) string {
	switch u {
	case Fraction:
		return Percent(r)
	case Count:
		return r.RatString()
	case Milliseconds:
		return FormatMS(r)
	case PValue:
		f, _ := r.Float64()
		return FormatP(f)
	}
	return FormatUSD(r)
}

// Name names the unit in the data pages ship to their scripts, which
// word a change by it: "fraction", "count", "ms", "usd" or "p".
func (u Unit) Name() string {
	return [...]string{Fraction: "fraction", Count: "count", Milliseconds: "ms", USD: "usd", PValue: "p"}[u]
}

// HigherIsBetter reports whether a higher value of the gate is better:
// true for a gate with a minimum.
func (s *Spec) HigherIsBetter() bool { return s.Bound == AtLeast }

// marginMagnitude writes the size of a margin for pages, with its unit
// where Format gives none: "1.67 percentage points", "2", "2,700 ms".
func (u Unit) marginMagnitude(r *big.Rat) string {
	if u == Fraction {
		return FormatDecimal(new(big.Rat).Mul(r, big.NewRat(100, 1)), 2) + " percentage points"
	}
	return u.Format(r)
}

// shortMagnitude writes the size of a margin for CI outputs:
// "1.67 pp", "2", "2,700 ms".
func (u Unit) shortMagnitude(r *big.Rat) string {
	if u == Fraction {
		p := new(big.Rat).Mul(r, big.NewRat(100, 1))
		if p.Sign() != 0 && p.Cmp(big.NewRat(1, 200)) < 0 {
			// Rounding would show a real difference as zero.
			return "<0.01 pp"
		}
		return FormatDecimal(p, 2) + " pp"
	}
	return u.Format(r)
}

// Kind says what a gate holds a snapshot against.
type Kind int

// The kinds of gates.
const (
	// AgainstLimit: an observed value against a number in gate.json
	// (or null, which turns the gate off).
	AgainstLimit Kind = iota
	// AgainstBaseline: the snapshot against the baseline gate.json
	// names, case by case (Metrics.Baseline). The gate exists only
	// where there is a baseline to compare with, and fails on more
	// regressions than fixes that are unlikely to be chance.
	AgainstBaseline
)

// Drivers names the cases that drive a gate that fails, for pages and
// reports that list them.
type Drivers int

// The sets of cases that can drive a gate.
const (
	FailingCases         Drivers = iota // every failing case
	FailingCriticalCases                // the failing cases of severity critical
	SlowestOutputs                      // the outputs over the latency limit, slowest first
	CostliestOutputs                    // the outputs over the cost limit, dearest first
	RegressedCases                      // the cases that pass in the baseline and fail here
)

// Spec is one gate: what it reads, how it is bounded, what failing it
// means and how it is worded.
type Spec struct {
	Name string // in results files: "p95_latency_ms"
	// Key turns the gate on in gate.json: its threshold
	// ("max_p95_latency_ms"), or for a gate against the baseline the
	// key naming the baseline ("baseline").
	Key string
	// Optional lets gate.json leave Key out, which turns the gate off;
	// the first four gates are required, so that a misspelt threshold
	// does not fall away silently.
	Optional bool
	Kind     Kind
	// Unit is that of the observed value, and of the threshold of a
	// gate against a limit.
	Unit  Unit
	Bound Bound
	// Fails is the decision the gate forces when it is on and fails.
	Fails Decision
	// Observed reads the gate's value from the metrics; nil when
	// nothing was measured.
	Observed func(Metrics) *big.Rat
	// Proof, when set, lets require_evidence in gate.json ask the gate
	// for proof: it then holds only when the interval of its observed
	// value clears the threshold too. nil for gates without an interval.
	Proof *Proof
	// Drivers are the cases that drive the gate when it fails, and
	// DriversText words them: "the failing critical cases".
	Drivers     Drivers
	DriversText string

	Title string // on pages: "Latency (p95, nearest rank)"
	// Short names the gate in the overview's verdict: "p95 latency";
	// "" uses Title.
	Short string
	// Trend, when set, draws the gate's value over the snapshots on the
	// overview.
	Trend  *Trend
	Column string // heading of the side-by-side tables: "p95 latency"
	// Brief words the gate's value in the line the evaluate command
	// prints for a snapshot: "11/12 passed", "2 critical failures",
	// "p95 1,100 ms"; nil writes its Label and value, "flaky cases 2".
	// Every gate against a limit is in that line.
	Brief func(*GateResult, Metrics) string
	// Heading heads the gate's value on the overview's snapshot cards
	// and in its table of every snapshot ("p95 latency"); "" uses Label
	// with a capital. Term is the glossary entry the heading links to
	// ("p95"); "" links none. Every gate against a limit is shown there.
	Heading, Term string
	// Summary words the observed value in those tables, "8/12"; nil
	// uses the observed value as ObservedText words it.
	Summary func(Metrics) string
	Topic   string // in threshold lists: "Latency: p95 (nearest rank)"
	Label   string // in CI outputs and sentences: "p95 latency"
	// Detail adds to the observed value on pages, "(8 of 12 cases)";
	// nil adds nothing.
	Detail func(Metrics) string
	// Rule is the release report's threshold line, %s being the bound
	// and limit ("at most 2,500 ms"), or the baseline's label.
	Rule string
	// Ahead and Behind word a margin that passes and one that fails:
	// "under the limit", "over the limit".
	Ahead, Behind string
	// Failure words the gate failing, for a decision's reason; the
	// result holds its observed value and limit, or its comparison.
	Failure func(*GateResult) string
}

// Trend is a gate's chart over the snapshots: its element id, title
// ("p95 latency"; a gate with an interval adds "with its 95% interval"),
// axis name, the factor a value is drawn at (100 draws a fraction as a
// percentage) and the axis maximum (0 fits the values).
type Trend struct {
	ID, Title, Axis string
	Scale, Max      float64
}

// Filter is the case table's view that lists the drivers, as a URL
// fragment, and its words: "result=fail", "all failing cases in the
// table".
func (d Drivers) Filter() (fragment, text string) {
	switch d {
	case FailingCriticalCases:
		return "result=fail&severity=critical", "all failing critical cases in the table"
	case SlowestOutputs:
		return "sort=latency-desc", "every case by latency, slowest first"
	case CostliestOutputs:
		return "sort=cost-desc", "every case by cost, dearest first"
	}
	return "result=fail", "all failing cases in the table"
}

// Proof is how a gate asks for evidence when gate.json sets
// require_evidence: the observed value is an estimate from a sample of
// cases, its interval says how far the truth may lie from it, and the
// gate holds only when the bound on the threshold's side clears the
// threshold as well. When the value clears it but the bound does not,
// the gate is inconclusive.
type Proof struct {
	// Interval is the interval of the observed value at a confidence
	// level; false when there is none (no cases).
	Interval func(Metrics, stats.Level) (stats.Interval, bool)
	// Settle is the fewest cases that, at the same observed value,
	// would give a bound that clears limit; false when none would.
	Settle func(m Metrics, level stats.Level, limit *big.Rat) (int64, bool)
	// Unproven is the decision an inconclusive gate forces.
	Unproven Decision
	// Inconclusive words an inconclusive outcome for a decision's
	// reason.
	Inconclusive func(*GateResult) string
}

// Gates is a list of gates, in the order results list them. The list is
// a value, passed to gate.json's reader, to Decide and to every page and
// report that names the gates: a caller can add a gate of its own without
// touching any package state. DefaultGates is the list releasegate ships.
type Gates []Spec

// DefaultGates returns the gates releasegate ships, a fresh list on every
// call so that no caller can change another's.
func DefaultGates() Gates {
	return Gates{
		{
			Name: GatePassRate, Key: "min_pass_rate", Unit: Fraction, Bound: AtLeast, Fails: Block,
			Observed: func(m Metrics) *big.Rat { return m.PassRate },
			Proof: &Proof{
				Interval: Metrics.PassRateInterval,
				Settle: func(m Metrics, level stats.Level, limit *big.Rat) (int64, bool) {
					return stats.CasesToSettle(m.CasesPassed, m.CasesTotal, level.Z(), limit)
				},
				Unproven: Review,
				Inconclusive: func(g *GateResult) string {
					return fmt.Sprintf("pass rate %s meets the minimum of %s but is not proven: at %s confidence it may be as low as %s",
						Percent(g.Value), Percent(g.Limit), g.Level.Percent(), SharePercent(g.Bound()))
				},
			},
			Drivers: FailingCases, DriversText: "the failing cases",
			Short: "pass rate", Trend: &Trend{ID: "trend_pass_rate", Title: "Pass rate", Axis: "pass rate (%)", Scale: 100, Max: 100},
			Title: "Functional (pass rate)", Topic: "Functional: pass rate", Label: "pass rate",
			Detail: func(m Metrics) string { return fmt.Sprintf("(%d of %d cases)", m.CasesPassed, m.CasesTotal) },
			Column: "functional", Heading: "Pass rate", Term: "pass-rate",
			Brief:   func(g *GateResult, m Metrics) string { return g.Cell(m) + " passed" },
			Summary: func(m Metrics) string { return fmt.Sprintf("%d/%d", m.CasesPassed, m.CasesTotal) },
			Rule:    "Functional: pass rate %s.",
			Ahead:   "above the minimum", Behind: "below the minimum",
			Failure: func(g *GateResult) string {
				return fmt.Sprintf("pass rate %s is below the minimum of %s", Percent(g.Value), Percent(g.Limit))
			},
		},
		{
			Name: GateCriticalFailures, Key: "max_critical_failures", Unit: Count, Bound: AtMost, Fails: Block,
			Observed: func(m Metrics) *big.Rat { return big.NewRat(int64(m.CriticalFailures), 1) },
			Drivers:  FailingCriticalCases, DriversText: "the failing critical cases",
			Short: "critical failures",
			Title: "Safety (failed critical cases)", Topic: "Safety: failed critical cases", Label: "critical failures",
			Column: "critical failures", Heading: "Critical failures", Term: "critical",
			Brief: func(g *GateResult, m Metrics) string {
				return strconv.Itoa(m.CriticalFailures) + " " + plural(m.CriticalFailures, "critical failure", "critical failures")
			},
			Rule:  "Safety: %s failed critical case(s).",
			Ahead: "to spare", Behind: "over the limit",
			Failure: func(g *GateResult) string {
				cases := "cases"
				if g.Value.Cmp(big.NewRat(1, 1)) == 0 {
					cases = "case"
				}
				return fmt.Sprintf("%s critical %s failed, at most %s allowed", g.Value.RatString(), cases, g.Limit.RatString())
			},
		},
		{
			Name: GateP95Latency, Key: "max_p95_latency_ms", Unit: Milliseconds, Bound: AtMost, Fails: Review,
			Observed: func(m Metrics) *big.Rat {
				if m.P95LatencyMS == nil {
					return nil
				}
				return m.P95LatencyMS.Rat()
			},
			Drivers: SlowestOutputs, DriversText: "the outputs slower than the limit, slowest first",
			Short: "p95 latency", Trend: &Trend{ID: "trend_p95", Title: "p95 latency", Axis: "p95 (ms)", Scale: 1},
			Title: "Latency (p95, nearest rank)", Topic: "Latency: p95 (nearest rank)", Label: "p95 latency",
			Column: "p95 latency", Heading: "p95 latency", Term: "p95",
			Brief: func(g *GateResult, _ Metrics) string { return "p95 " + g.ObservedText() },
			Rule:  "Latency: p95 %s (nearest rank).",
			Ahead: "under the limit", Behind: "over the limit",
			Failure: func(g *GateResult) string {
				return fmt.Sprintf("p95 latency %s is over the limit of %s", FormatMS(g.Value), FormatMS(g.Limit))
			},
		},
		{
			Name: GateAvgCost, Key: "max_avg_cost_usd", Unit: USD, Bound: AtMost, Fails: Review,
			Observed: func(m Metrics) *big.Rat { return m.AvgCostUSD },
			Drivers:  CostliestOutputs, DriversText: "the outputs dearer than the limit on the average, dearest first",
			Short: "average cost", Trend: &Trend{ID: "trend_cost", Title: "Average cost", Axis: "cost (USD)", Scale: 1},
			Title: "Cost (average per output)", Topic: "Cost: average per output", Label: "average cost",
			Column: "average cost", Heading: "Average cost", Term: "average-cost",
			Brief: func(g *GateResult, _ Metrics) string { return "average " + g.ObservedText() },
			Rule:  "Cost: average %s per output.",
			Ahead: "under the limit", Behind: "over the limit",
			Failure: func(g *GateResult) string {
				return fmt.Sprintf("average cost %s is over the limit of %s", FormatUSD(g.Value), FormatUSD(g.Limit))
			},
		},
		{
			Name: GateNoRegression, Key: "baseline", Optional: true, Kind: AgainstBaseline, Unit: PValue, Bound: AtLeast, Fails: Block,
			Observed: func(m Metrics) *big.Rat {
				if m.Baseline == nil {
					return nil
				}
				return new(big.Rat).SetFloat64(m.Baseline.P)
			},
			Drivers: RegressedCases, DriversText: "the cases that pass in the baseline and fail here",
			Title: "No regression (against the baseline)", Topic: "Baseline: no regression", Label: "regression against the baseline",
			Column:  "vs baseline",
			Summary: func(m Metrics) string { return m.Baseline.Counts() },
			Detail:  func(m Metrics) string { return "(against " + m.Baseline.Label + ": " + m.Baseline.Counts() + ")" },
			Rule:    "Baseline: no more regressions than fixes against %s beyond chance.",
			Ahead:   "could be chance", Behind: "not chance",
			Failure: func(g *GateResult) string {
				c := g.Versus
				return fmt.Sprintf("%d %s against %s and %d fixed, which is not chance (%s)",
					c.Regressions, plural(c.Regressions, "case regressed", "cases regressed"), c.Label, c.Fixes, FormatP(c.P))
			},
		},
	}
}

// NotGated is how a gate that is off is shown in place of its threshold.
const NotGated = "not gated"

// ThresholdText words a threshold: "at least 90%", or "not gated" for
// nil.
func (s *Spec) ThresholdText(limit *big.Rat) string {
	if limit == nil {
		return NotGated
	}
	return s.Bound.String() + " " + s.Unit.Format(limit)
}

// baselineText words the threshold of a gate against the baseline.
func baselineText(label string) string {
	return "no significant regression against " + label
}

// Applies reports whether the gate is listed at all under g: a gate
// against the baseline only when gate.json names one. (A gate against a
// limit is listed even when it is off.)
func (s *Spec) Applies(g suite.Gate) bool {
	return s.Kind != AgainstBaseline || g.Baseline != ""
}

// Applicable lists the specs that apply under g, in the order of gs.
func (gs Gates) Applicable(g suite.Gate) []*Spec {
	var out []*Spec
	for i := range gs {
		if gs[i].Applies(g) {
			out = append(out, &gs[i])
		}
	}
	return out
}

// Named returns the spec of the gate named name.
func (gs Gates) Named(name string) (*Spec, bool) {
	for i := range gs {
		if gs[i].Name == name {
			return &gs[i], true
		}
	}
	return nil, false
}

// Keyed returns the spec whose gate.json key is key.
func (gs Gates) Keyed(key string) (*Spec, bool) {
	for i := range gs {
		if gs[i].Key == key {
			return &gs[i], true
		}
	}
	return nil, false
}

// ObservedText words the gate's observed value, "n/a" when nothing was
// measured.
func (g *GateResult) ObservedText() string {
	if g.Value == nil {
		return "n/a"
	}
	return g.Spec.Unit.Format(g.Value)
}

// BriefText words the gate's value for the evaluate command's line on
// a snapshot.
func (g *GateResult) BriefText(m Metrics) string {
	if g.Spec.Brief != nil {
		return g.Spec.Brief(g, m)
	}
	return g.Spec.Label + " " + g.Cell(m)
}

// Cell words the gate's observed value for the side-by-side tables of
// snapshots: "8/12", "2", "1,100 ms", "n/a".
func (g *GateResult) Cell(m Metrics) string {
	if g.Spec.Summary != nil {
		return g.Spec.Summary(m)
	}
	return g.ObservedText()
}

// ThresholdText words the gate's threshold, "not gated" when it is off.
func (g *GateResult) ThresholdText() string {
	if g.Versus != nil {
		return baselineText(g.Versus.Label)
	}
	return g.Spec.ThresholdText(g.Limit)
}

// MarginText words the margin for pages: "2,700 ms over the limit",
// "exactly at the limit", "none, as required" (nothing allowed, nothing
// there), or "n/a" when the gate is off or nothing was
// measured. A gate against the baseline words its comparison: "3 fixed,
// 0 regressed: could be chance".
func (g *GateResult) MarginText() string {
	if g.Versus != nil {
		return g.Versus.Counts() + ": " + g.Versus.Verdict()
	}
	d := g.Margin()
	switch {
	case d == nil:
		return "n/a"
	case d.Sign() == 0 && g.Value != nil && g.Value.Sign() == 0:
		// A limit of none, met: "exactly at the limit" would read like a
		// close call, and none is the best there is.
		return "none, as required"
	case d.Sign() == 0:
		return "exactly at the limit"
	}
	word := g.Spec.Ahead
	if d.Sign() < 0 {
		word = g.Spec.Behind
	}
	return g.Spec.Unit.marginMagnitude(new(big.Rat).Abs(d)) + " " + word
}

// SignedMargin writes the margin with its sign for CI outputs: "+1.67 pp",
// "-2,700 ms", or "n/a"; for a gate against the baseline its counts,
// "3 fixed, 0 regressed".
func (g *GateResult) SignedMargin() string {
	if g.Versus != nil {
		return g.Versus.Counts()
	}
	d := g.Margin()
	if d == nil {
		return "n/a"
	}
	s := g.Spec.Unit.shortMagnitude(new(big.Rat).Abs(d))
	switch d.Sign() {
	case 1:
		return "+" + s
	case -1:
		return "-" + s
	}
	return s
}

// FailureText says why the gate decides, for a decision's reason; "" when
// it does not.
func (g *GateResult) FailureText() string {
	switch {
	case !g.Decides():
		return ""
	case g.Inconclusive:
		return g.Spec.Proof.Inconclusive(g)
	case g.Value == nil:
		return "no " + g.Spec.Label + " was measured"
	}
	return g.Spec.Failure(g)
}

// FormatDecimal writes r with at most prec decimals, trailing zeros
// dropped: 0.01325, 12, 0.33333333.
func FormatDecimal(r *big.Rat, prec int) string {
	s := r.FloatString(prec)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Percent writes a share as a percentage with at most two decimals: 91.67%.
func Percent(r *big.Rat) string {
	return FormatDecimal(new(big.Rat).Mul(r, big.NewRat(100, 1)), 2) + "%"
}

// FormatUSD writes an amount of money exactly, to eight decimals at most:
// "USD 0.01325".
func FormatUSD(r *big.Rat) string { return "USD " + FormatDecimal(r, 8) }

// FormatNumber is FormatDecimal(n.Rat(), prec), read off the literal
// when it is plain (digits, at most one point) and has at most prec
// decimals, so that nothing needs rounding. A large case table formats
// hundreds of thousands of latencies and costs, and parsing each into a
// fraction was a fifth of making its rows (see docs/design.md, Fast
// paths).
func FormatNumber(n suite.Number, prec int) string {
	if s, ok := plainDecimal(n.String(), prec); ok {
		return s
	}
	return FormatDecimal(n.Rat(), prec)
}

// plainDecimal writes lit as FormatDecimal would write its value, when
// lit is plain digits with at most prec decimals; ok is false for any
// other literal (a sign, an exponent, a leading zero, more decimals).
func plainDecimal(lit string, prec int) (s string, ok bool) {
	whole, frac, hasPoint := strings.Cut(lit, ".")
	if !allDigits(whole) || len(whole) > 1 && whole[0] == '0' || len(frac) > prec || hasPoint && !allDigits(frac) {
		return "", false
	}
	if frac = strings.TrimRight(frac, "0"); frac == "" {
		return whole, true
	}
	return whole + "." + frac, true
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// FormatUSDNumber is FormatUSD of n's value.
func FormatUSDNumber(n suite.Number) string { return "USD " + FormatNumber(n, 8) }

// FormatMSNumber is FormatMS of n's value.
func FormatMSNumber(n suite.Number) string { return groupedMS(FormatNumber(n, 3)) }

// FormatMS writes milliseconds with thousands separators: "5,200 ms".
func FormatMS(r *big.Rat) string { return groupedMS(FormatDecimal(r, 3)) }

// groupedMS writes a decimal as milliseconds, its whole part grouped by
// thousands.
func groupedMS(s string) string {
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return b.String() + " ms"
}

// FormatP writes a p-value for people, to two significant digits:
// "p = 0.25", "p = 0.0012", "p < 0.001".
func FormatP(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'g', 2, 64)
}

// SharePercent writes a share held as a double as a percentage with one
// decimal at most, as intervals are shown: 0.757506 → "75.8%". A share
// short of 1 never reads "100%", nor one above 0 "0%": it takes the
// decimals that tell it apart (0.99963 → "99.96%"), so that no interval
// of 10,000 passes out of 10,000 is worded "above 100%".
func SharePercent(f float64) string {
	places := 1
	for ; places < 6; places++ {
		r := stats.RoundDecimals(100*f, places)
		if (r < 100 || f >= 1) && (r > 0 || f <= 0) {
			break
		}
	}
	return strconv.FormatFloat(stats.RoundDecimals(100*f, places), 'f', -1, 64) + "%"
}

// IntervalText words an interval of a share: "75.8–100%".
func IntervalText(iv stats.Interval) string {
	return strings.TrimSuffix(SharePercent(iv.Lo), "%") + "–" + SharePercent(iv.Hi)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
