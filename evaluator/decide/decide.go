// Package decide turns the judged cases of one snapshot into its metrics
// and its release decision under the frozen thresholds. It is pure.
//
// The gates are data: Gates lists each one with the gate.json key of its
// threshold, the metric it reads, the direction of its bound, the
// decision it forces when it fails, whether it can ask for proof, which
// cases drive it and how its values are worded. Decide loops over the
// list it is given (DefaultGates, unless a caller brings its own), and
// every report renders from the GateResults it returns, so a new gate is
// one more Spec.
//
// The evidence behind a decision lives here too: the pass rate's
// interval (Metrics.PassRateInterval) and the paired comparison of two
// snapshots (Comparison), from the statistics of package stats.
package decide

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Decision is the release decision for one snapshot.
type Decision string

// The three decisions, from best to worst.
const (
	Pass   Decision = "PASS"
	Review Decision = "REVIEW"
	Block  Decision = "BLOCK"
)

// rank orders decisions from best to worst.
func (d Decision) rank() int {
	switch d {
	case Review:
		return 1
	case Block:
		return 2
	}
	return 0
}

// The gate names, in the order results list them.
const (
	GatePassRate         = "pass_rate"
	GateCriticalFailures = "critical_failures"
	GateP95Latency       = "p95_latency_ms"
	GateAvgCost          = "avg_cost_usd"
	GateNoRegression     = "no_regression"
)

// Tally accumulates what the decision depends on, one case at a time.
// The zero value is ready to use.
type Tally struct {
	Total, Passed, CriticalFailures int
	// Trials and TrialsPassed count judged trials when the snapshot has
	// them; both stay 0 otherwise.
	Trials, TrialsPassed, Flaky int
	k                           int
	// latencies are the literals of the measured latencies, one after
	// another, each ending at its latencyEnds: a large snapshot's
	// latencies take a few bytes each rather than a Number and a string.
	latencies   []byte
	latencyEnds []uint32
	costSum     suite.DecimalSum
	costs       int
}

// AddCase counts one judged case.
func (t *Tally) AddCase(sev suite.Severity, passed bool) {
	t.Total++
	if passed {
		t.Passed++
	} else if sev == suite.Critical {
		t.CriticalFailures++
	}
}

// AddTrialCase counts one judged case of a snapshot with k trials, of
// which trialsPassed passed. A critical case with any failed trial counts
// as a critical failure, whether or not the case passed.
func (t *Tally) AddTrialCase(sev suite.Severity, passed bool, trialsPassed, k int) {
	t.Total++
	if passed {
		t.Passed++
	}
	if sev == suite.Critical && trialsPassed < k {
		t.CriticalFailures++
	}
	t.k = k
	t.Trials += k
	t.TrialsPassed += trialsPassed
	if trialsPassed > 0 && trialsPassed < k {
		t.Flaky++
	}
}

// Reserve makes room for n more outputs.
func (t *Tally) Reserve(n int) { t.latencyEnds = slices.Grow(t.latencyEnds, n) }

// AddOutput counts the latency and cost of one output present in the
// snapshot (one trial, with trials); nil is a value not measured.
func (t *Tally) AddOutput(latency, cost *suite.Number) {
	if latency != nil {
		t.latencies = append(t.latencies, latency.Literal()...)
		t.latencyEnds = append(t.latencyEnds, uint32(len(t.latencies)))
	}
	if cost != nil {
		t.costSum.Add(*cost)
		t.costs++
	}
}

// p95 is P95 of the latencies added, computed in a float64 a latency
// rather than a Number: the rank is found among the floats, and only
// the latencies that round to the float at that rank are compared
// exactly, as P95 does.
func (t *Tally) p95() (suite.Number, bool) {
	n := len(t.latencyEnds)
	if n == 0 {
		return suite.Number{}, false
	}
	literal := func(i int) string {
		start := uint32(0)
		if i > 0 {
			start = t.latencyEnds[i-1]
		}
		return string(t.latencies[start:t.latencyEnds[i]])
	}
	floats := make([]float64, n)
	for i := range n {
		floats[i] = suite.LiteralNumber(literal(i)).Float64()
	}
	rank := (95*n + 99) / 100 // ceil(95n/100) in integers
	slices.Sort(floats)
	at := floats[rank-1]
	below := slices.Index(floats, at) // latencies under the float at rank
	floats = nil
	var tied []suite.Number
	for i := range n {
		if v := suite.LiteralNumber(literal(i)); v.Float64() == at {
			tied = append(tied, v)
		}
	}
	slices.SortFunc(tied, suite.Number.Cmp)
	return tied[rank-1-below], true
}

// Metrics are a snapshot's observed values.
type Metrics struct {
	CasesTotal, CasesPassed, CriticalFailures int
	// PassRate is CasesPassed / CasesTotal, exact.
	PassRate *big.Rat
	// P95LatencyMS and AvgCostUSD are nil when nothing was measured.
	P95LatencyMS *suite.Number
	AvgCostUSD   *big.Rat
	// K is the number of trials per case, 0 without trials; then
	// TrialPassRate is nil.
	K, TrialsPassed, FlakyCases int
	// TrialPassRate is passed trials / (cases × K), exact.
	TrialPassRate *big.Rat
	// Baseline is the snapshot's comparison with the baseline gate.json
	// names: nil without a baseline, and for the baseline itself.
	Baseline *Comparison
}

// PassRateInterval is the Wilson interval of the pass rate at level;
// false when there are no cases.
func (m Metrics) PassRateInterval(level stats.Level) (stats.Interval, bool) {
	if m.CasesTotal < 1 {
		return stats.Interval{}, false
	}
	return stats.Wilson(m.CasesPassed, m.CasesTotal, level.Z()), true
}

// Metrics computes the observed values so far.
func (t *Tally) Metrics() Metrics {
	m := Metrics{CasesTotal: t.Total, CasesPassed: t.Passed, CriticalFailures: t.CriticalFailures, PassRate: new(big.Rat)}
	if t.Total > 0 {
		m.PassRate.SetFrac64(int64(t.Passed), int64(t.Total))
	}
	if p95, ok := t.p95(); ok {
		m.P95LatencyMS = &p95
	}
	if t.costs > 0 {
		m.AvgCostUSD = new(big.Rat).Quo(t.costSum.Rat(), new(big.Rat).SetInt64(int64(t.costs)))
	}
	if t.k > 0 {
		m.K, m.TrialsPassed, m.FlakyCases = t.k, t.TrialsPassed, t.Flaky
		m.TrialPassRate = new(big.Rat)
		if t.Trials > 0 {
			m.TrialPassRate.SetFrac64(int64(t.TrialsPassed), int64(t.Trials))
		}
	}
	return m
}

// P95 returns the nearest-rank 95th percentile: the value at one-indexed
// rank ceil(0.95 × n) of the ascending order. It is false for no values.
func P95(values []suite.Number) (suite.Number, bool) {
	n := len(values)
	if n == 0 {
		return suite.Number{}, false
	}
	// Sort by float64, exact only where two values round to the same float.
	type keyed struct {
		f float64
		n suite.Number
	}
	sorted := make([]keyed, n)
	for i, v := range values {
		sorted[i] = keyed{v.Float64(), v}
	}
	slices.SortFunc(sorted, func(a, b keyed) int {
		if a.f != b.f {
			return cmp.Compare(a.f, b.f)
		}
		return a.n.Cmp(b.n)
	})
	rank := (95*n + 99) / 100 // ceil(95n/100) in integers
	return sorted[rank-1].n, true
}

// GateThreshold is a gate's threshold as results files write it: a
// number, the label of the snapshot a gate against the baseline compares
// with, or null for a gate that is off.
type GateThreshold struct {
	Number *float64
	Label  string
}

// MarshalJSON writes the label as a string, else the number or null.
// HTML escaping is left to the encoder that calls it, as for any other
// member.
func (t GateThreshold) MarshalJSON() ([]byte, error) {
	if t.Label == "" {
		return json.Marshal(t.Number)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(t.Label)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// Outcome is how a gate came out.
type Outcome int

// The outcomes of a gate.
const (
	Held Outcome = iota
	// Inconclusive: the observed value clears the threshold but the
	// bound of its interval does not (require_evidence).
	Inconclusive
	Failed
	// Off: the threshold is null; the gate decides nothing.
	Off
)

// GateResult is one threshold checked against its observed value. A gate
// whose threshold is null in gate.json is off: Threshold is null, it
// passes, and it decides nothing; its observed value is still reported.
type GateResult struct {
	Gate      string        `json:"gate"`
	Threshold GateThreshold `json:"threshold"`
	Observed  *float64      `json:"observed"`
	Passed    bool          `json:"passed"`
	// Inconclusive and LowerBound appear only on an inconclusive gate:
	// LowerBound is the bound that fell short, rounded to 6 decimals as
	// the results file writes it.
	Inconclusive bool     `json:"inconclusive,omitempty"`
	LowerBound   *float64 `json:"lower_bound,omitempty"`

	// Spec is the gate's entry in the list it was decided by.
	Spec *Spec `json:"-"`
	// Limit and Value are the exact threshold and observed value; nil
	// when the gate is off or nothing was measured.
	Limit, Value *big.Rat `json:"-"`
	// Level is the confidence level of the interval and the test.
	Level stats.Level `json:"-"`
	// Interval is the observed value's interval, for a gate with a
	// Proof; nil when there are no cases.
	Interval *stats.Interval `json:"-"`
	// Settle is, for an inconclusive gate, the fewest cases that at the
	// same observed value would settle it; 0 when none would.
	Settle int64 `json:"-"`
	// Versus is the comparison a gate against the baseline decides on.
	Versus *Comparison `json:"-"`
}

// Off reports whether the gate is not gated: its threshold is null.
func (g *GateResult) Off() bool { return g.Limit == nil && g.Versus == nil }

// Outcome says how the gate came out.
func (g *GateResult) Outcome() Outcome {
	switch {
	case g.Off():
		return Off
	case g.Inconclusive:
		return Inconclusive
	case !g.Passed:
		return Failed
	}
	return Held
}

// Forces is the decision the gate forces: its spec's Fails when it
// failed, its Proof's Unproven when inconclusive, PASS otherwise.
func (g *GateResult) Forces() Decision {
	switch g.Outcome() {
	case Failed:
		return g.Spec.Fails
	case Inconclusive:
		return g.Spec.Proof.Unproven
	}
	return Pass
}

// Bound is the bound of the interval on the threshold's side, the one
// require_evidence checks: the lower bound for a minimum. 0 without an
// interval.
func (g *GateResult) Bound() float64 {
	switch {
	case g.Interval == nil:
		return 0
	case g.Spec.Bound == AtLeast:
		return g.Interval.Lo
	}
	return g.Interval.Hi
}

// Measured reports whether there was a value to check.
func (g *GateResult) Measured() bool { return g.Value != nil }

// Margin is the room left before the gate fails, exact: positive or zero
// passes, negative fails. It is nil when the gate is off, nothing was
// measured, or the gate compares with the baseline.
func (g *GateResult) Margin() *big.Rat {
	if g.Limit == nil || g.Value == nil {
		return nil
	}
	if g.Spec.Bound == AtLeast {
		return new(big.Rat).Sub(g.Value, g.Limit)
	}
	return new(big.Rat).Sub(g.Limit, g.Value)
}

// Decides reports whether this result forces a decision: the gate is on
// and failed, or is inconclusive.
func (g *GateResult) Decides() bool { return !g.Passed && !g.Off() }

// Decide applies the thresholds, gate by gate in the order of gs:
// each gate that is on and fails forces its spec's decision (BLOCK for
// the pass rate, critical failures and a regression against the
// baseline, REVIEW for p95 latency and average cost), and an
// inconclusive gate forces its proof's (REVIEW); the worst forced
// decision wins, and PASS when none is. A value equal to its limit
// passes; a gate that is on fails when there was nothing to measure.
//
// With require_evidence in g, a gate with a Proof that holds on its
// observed value holds only when the bound of its interval at g's
// confidence also reaches its threshold; otherwise it is inconclusive.
// The gate against the baseline is listed only when m.Baseline is set:
// it fails when there are more regressions than fixes and the paired
// test finds that unlikely to be chance.
func (gs Gates) Decide(m Metrics, g suite.Gate) (Decision, []GateResult) {
	decision := Pass
	gates := make([]GateResult, 0, len(gs))
	for i := range gs {
		spec := &gs[i]
		r, listed := spec.check(m, g)
		if !listed {
			continue
		}
		if f := r.Forces(); f.rank() > decision.rank() {
			decision = f
		}
		gates = append(gates, r)
	}
	return decision, gates
}

// check decides one gate; false when the gate is not listed.
func (s *Spec) check(m Metrics, g suite.Gate) (GateResult, bool) {
	r := GateResult{Gate: s.Name, Spec: s, Value: s.Observed(m), Passed: true, Level: g.Confidence}
	if s.Kind == AgainstBaseline {
		c := m.Baseline
		if c == nil {
			return r, false
		}
		r.Versus, r.Threshold.Label = c, c.Label
		p := c.PValue
		r.Observed = &p
		r.Passed = !c.Regressed()
		return r, true
	}
	r.Observed = float(r.Value)
	if s.Proof != nil {
		if iv, ok := s.Proof.Interval(m, g.Confidence); ok {
			r.Interval = &iv
		}
	}
	limit, on := g.Threshold(s.Key)
	if !on {
		return r, true
	}
	r.Limit = limit.Rat()
	r.Threshold.Number = float(r.Limit)
	r.Passed = r.Value != nil && r.Margin().Sign() >= 0
	if r.Passed && g.RequireEvidence && s.Proof != nil && r.Interval != nil && !r.boundClears() {
		r.Passed, r.Inconclusive = false, true
		lo := stats.RoundDecimals(r.Bound(), 6)
		r.LowerBound = &lo
		r.Settle, _ = s.Proof.Settle(m, g.Confidence, r.Limit)
	}
	return r, true
}

// boundClears reports whether the interval's bound reaches the
// threshold, compared exactly.
func (g *GateResult) boundClears() bool {
	c := new(big.Rat).SetFloat64(g.Bound()).Cmp(g.Limit)
	if g.Spec.Bound == AtLeast {
		return c >= 0
	}
	return c <= 0
}

// Find returns the result of the gate named name.
func Find(gates []GateResult, name string) (*GateResult, bool) {
	for i := range gates {
		if gates[i].Gate == name {
			return &gates[i], true
		}
	}
	return nil, false
}

// Threshold is one threshold of gate.json with its spec, for pages that
// list the thresholds a suite is held to.
type Threshold struct {
	Spec *Spec
	// Limit is nil when the gate is off; Label is the baseline for a
	// gate against it.
	Limit *big.Rat
	Label string
}

// Text words the threshold: "at most 2,500 ms", "not gated", or "no
// significant regression against candidate-v2".
func (t Threshold) Text() string {
	if t.Spec.Kind == AgainstBaseline {
		return baselineText(t.Label)
	}
	return t.Spec.ThresholdText(t.Limit)
}

// RuleText is the threshold as the release report lists it:
// "Latency: p95 at most 2,500 ms (nearest rank).", "Cost: not gated."
func (t Threshold) RuleText() string {
	switch {
	case t.Spec.Kind == AgainstBaseline:
		return fmt.Sprintf(t.Spec.Rule, t.Label)
	case t.Limit == nil:
		return t.Spec.Topic + ": " + NotGated + "."
	}
	return fmt.Sprintf(t.Spec.Rule, t.Text())
}

// Thresholds lists the threshold of every gate that applies under g, in
// the order of gs.
func (gs Gates) Thresholds(g suite.Gate) []Threshold {
	var out []Threshold
	for _, spec := range gs.Applicable(g) {
		t := Threshold{Spec: spec}
		if spec.Kind == AgainstBaseline {
			t.Label = g.Baseline
		} else if n, on := g.Threshold(spec.Key); on {
			t.Limit = n.Rat()
		}
		out = append(out, t)
	}
	return out
}

// DrivenBy returns the first spec of gs whose drivers are d: the gate a
// chart of those cases draws its limit from.
func (gs Gates) DrivenBy(d Drivers) (*Spec, bool) {
	for i := range gs {
		if gs[i].Drivers == d {
			return &gs[i], true
		}
	}
	return nil, false
}

// Limit returns the threshold of the gate against a limit named name,
// false when it is off, is not a number or there is no such gate in gs.
func (gs Gates) Limit(g suite.Gate, name string) (*big.Rat, bool) {
	spec, ok := gs.Named(name)
	if !ok || spec.Kind != AgainstLimit {
		return nil, false
	}
	return spec.Limit(g)
}

// Limit returns the spec's threshold under g, false when it is off or
// the gate is not against a limit.
func (s *Spec) Limit(g suite.Gate) (*big.Rat, bool) {
	if s.Kind != AgainstLimit {
		return nil, false
	}
	n, on := g.Threshold(s.Key)
	if !on {
		return nil, false
	}
	return n.Rat(), true
}

func float(r *big.Rat) *float64 {
	if r == nil {
		return nil
	}
	f, _ := r.Float64()
	return &f
}
