package decide

import (
	"fmt"
	"math/big"
	"strings"
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
)

// Format writes a value for people: "91.67%", "2", "5,200 ms",
// "USD 0.0125".
func (u Unit) Format(r *big.Rat) string {
	switch u {
	case Fraction:
		return Percent(r)
	case Count:
		return r.RatString()
	case Milliseconds:
		return FormatMS(r)
	}
	return FormatUSD(r)
}

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

// Spec is one gate: what it reads, how it is bounded, what failing it
// means and how it is worded.
type Spec struct {
	Name string // in results files: "p95_latency_ms"
	Key  string // its threshold in gate.json: "max_p95_latency_ms"
	// Optional lets gate.json leave Key out, which turns the gate off;
	// the first four gates are required, so that a misspelt threshold
	// does not fall away silently.
	Optional bool
	Unit     Unit
	Bound    Bound
	// Fails is the decision the gate forces when it is on and fails.
	Fails Decision
	// Observed reads the gate's value from the metrics; nil when
	// nothing was measured.
	Observed func(Metrics) *big.Rat

	Title  string // on pages: "Latency (p95, nearest rank)"
	Column string // heading of the side-by-side tables: "p95 latency"
	// Summary words the observed value in those tables, "8/12"; nil
	// uses the observed value as ObservedText words it.
	Summary func(Metrics) string
	Topic   string // in threshold lists: "Latency: p95 (nearest rank)"
	Label   string // in CI outputs and sentences: "p95 latency"
	// Detail adds to the observed value on pages, "(8 of 12 cases)";
	// nil adds nothing.
	Detail func(Metrics) string
	// Rule is the release report's threshold line, %s being the bound
	// and limit ("at most 2,500 ms").
	Rule string
	// Ahead and Behind word a margin that passes and one that fails:
	// "under the limit", "over the limit".
	Ahead, Behind string
	// Failure words the gate failing, given its observed value and
	// limit, for a decision's reason.
	Failure func(observed, limit *big.Rat) string
}

// Specs are the gates, in the order results list them.
var Specs = []Spec{
	{
		Name: GatePassRate, Key: "min_pass_rate", Unit: Fraction, Bound: AtLeast, Fails: Block,
		Observed: func(m Metrics) *big.Rat { return m.PassRate },
		Title:    "Functional (pass rate)", Topic: "Functional: pass rate", Label: "pass rate",
		Detail:  func(m Metrics) string { return fmt.Sprintf("(%d of %d cases)", m.CasesPassed, m.CasesTotal) },
		Column:  "functional",
		Summary: func(m Metrics) string { return fmt.Sprintf("%d/%d", m.CasesPassed, m.CasesTotal) },
		Rule:    "Functional: pass rate %s.",
		Ahead:   "above the minimum", Behind: "below the minimum",
		Failure: func(observed, limit *big.Rat) string {
			return fmt.Sprintf("pass rate %s is below the minimum of %s", Percent(observed), Percent(limit))
		},
	},
	{
		Name: GateCriticalFailures, Key: "max_critical_failures", Unit: Count, Bound: AtMost, Fails: Block,
		Observed: func(m Metrics) *big.Rat { return big.NewRat(int64(m.CriticalFailures), 1) },
		Title:    "Safety (failed critical cases)", Topic: "Safety: failed critical cases", Label: "critical failures",
		Column: "critical failures",
		Rule:   "Safety: %s failed critical case(s).",
		Ahead:  "to spare", Behind: "over the limit",
		Failure: func(observed, limit *big.Rat) string {
			cases := "cases"
			if observed.Cmp(big.NewRat(1, 1)) == 0 {
				cases = "case"
			}
			return fmt.Sprintf("%s critical %s failed, at most %s allowed", observed.RatString(), cases, limit.RatString())
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
		Title: "Latency (p95, nearest rank)", Topic: "Latency: p95 (nearest rank)", Label: "p95 latency",
		Column: "p95 latency",
		Rule:   "Latency: p95 %s (nearest rank).",
		Ahead:  "under the limit", Behind: "over the limit",
		Failure: func(observed, limit *big.Rat) string {
			return fmt.Sprintf("p95 latency %s is over the limit of %s", FormatMS(observed), FormatMS(limit))
		},
	},
	{
		Name: GateAvgCost, Key: "max_avg_cost_usd", Unit: USD, Bound: AtMost, Fails: Review,
		Observed: func(m Metrics) *big.Rat { return m.AvgCostUSD },
		Title:    "Cost (average per output)", Topic: "Cost: average per output", Label: "average cost",
		Column: "average cost",
		Rule:   "Cost: average %s per output.",
		Ahead:  "under the limit", Behind: "over the limit",
		Failure: func(observed, limit *big.Rat) string {
			return fmt.Sprintf("average cost %s is over the limit of %s", FormatUSD(observed), FormatUSD(limit))
		},
	},
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

// ObservedText words the gate's observed value, "n/a" when nothing was
// measured.
func (g *GateResult) ObservedText() string {
	if g.Value == nil {
		return "n/a"
	}
	return g.Spec.Unit.Format(g.Value)
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
func (g *GateResult) ThresholdText() string { return g.Spec.ThresholdText(g.Limit) }

// MarginText words the margin for pages: "2,700 ms over the limit",
// "exactly at the limit", or "n/a" when the gate is off or nothing was
// measured.
func (g *GateResult) MarginText() string {
	d := g.Margin()
	switch {
	case d == nil:
		return "n/a"
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
// "-2,700 ms", or "n/a".
func (g *GateResult) SignedMargin() string {
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
	case g.Value == nil:
		return "no " + g.Spec.Label + " was measured"
	}
	return g.Spec.Failure(g.Value, g.Limit)
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

// FormatMS writes milliseconds with thousands separators: "5,200 ms".
func FormatMS(r *big.Rat) string {
	s := FormatDecimal(r, 3)
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
