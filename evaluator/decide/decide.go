// Package decide turns the judged cases of one snapshot into its metrics
// and its release decision under the frozen thresholds. It is pure.
//
// The gates are data: Specs lists each one with the gate.json key of its
// threshold, the metric it reads, the direction of its bound, the
// decision it forces when it fails and how its values are worded.
// Decide loops over Specs, and every report renders from the GateResults
// it returns, so a new gate is one more entry in Specs.
package decide

import (
	"cmp"
	"math/big"
	"slices"

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
)

// Tally accumulates what the decision depends on, one case at a time.
// The zero value is ready to use.
type Tally struct {
	Total, Passed, CriticalFailures int
	// Trials and TrialsPassed count judged trials when the snapshot has
	// them; both stay 0 otherwise.
	Trials, TrialsPassed, Flaky int
	k                           int
	latencies                   []suite.Number
	costSum                     suite.DecimalSum
	costs                       int
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
func (t *Tally) Reserve(n int) { t.latencies = slices.Grow(t.latencies, n) }

// AddOutput counts the latency and cost of one output present in the
// snapshot (one trial, with trials); nil is a value not measured.
func (t *Tally) AddOutput(latency, cost *suite.Number) {
	if latency != nil {
		t.latencies = append(t.latencies, *latency)
	}
	if cost != nil {
		t.costSum.Add(*cost)
		t.costs++
	}
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
}

// Metrics computes the observed values so far.
func (t *Tally) Metrics() Metrics {
	m := Metrics{CasesTotal: t.Total, CasesPassed: t.Passed, CriticalFailures: t.CriticalFailures, PassRate: new(big.Rat)}
	if t.Total > 0 {
		m.PassRate.SetFrac64(int64(t.Passed), int64(t.Total))
	}
	if p95, ok := P95(t.latencies); ok {
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

// GateResult is one threshold checked against its observed value. A gate
// whose threshold is null in gate.json is off: Threshold is nil, it
// passes, and it decides nothing; its observed value is still reported.
type GateResult struct {
	Gate      string   `json:"gate"`
	Threshold *float64 `json:"threshold"`
	Observed  *float64 `json:"observed"`
	Passed    bool     `json:"passed"`

	// Spec is the gate's entry in Specs.
	Spec *Spec `json:"-"`
	// Limit and Value are the exact threshold and observed value; nil
	// when the gate is off or nothing was measured.
	Limit, Value *big.Rat `json:"-"`
}

// Off reports whether the gate is not gated: its threshold is null.
func (g *GateResult) Off() bool { return g.Limit == nil }

// Measured reports whether there was a value to check.
func (g *GateResult) Measured() bool { return g.Value != nil }

// Margin is the room left before the gate fails, exact: positive or zero
// passes, negative fails. It is nil when the gate is off or nothing was
// measured.
func (g *GateResult) Margin() *big.Rat {
	if g.Limit == nil || g.Value == nil {
		return nil
	}
	if g.Spec.Bound == AtLeast {
		return new(big.Rat).Sub(g.Value, g.Limit)
	}
	return new(big.Rat).Sub(g.Limit, g.Value)
}

// Decides reports whether this result forces its spec's decision: the
// gate is on and failed.
func (g *GateResult) Decides() bool { return !g.Passed && !g.Off() }

// Decide applies the thresholds, gate by gate in the order of Specs:
// each gate that is on and fails forces its spec's decision (BLOCK for
// the pass rate and critical failures, REVIEW for p95 latency and
// average cost); the worst forced decision wins, and PASS when none is.
// A value equal to its limit passes; a gate that is on fails when there
// was nothing to measure.
func Decide(m Metrics, g suite.Gate) (Decision, []GateResult) {
	decision := Pass
	gates := make([]GateResult, len(Specs))
	for i := range Specs {
		spec := &Specs[i]
		r := GateResult{Gate: spec.Name, Spec: spec, Value: spec.Observed(m), Passed: true}
		r.Observed = float(r.Value)
		if limit, on := g.Threshold(spec.Key); on {
			r.Limit = limit.Rat()
			r.Threshold = float(r.Limit)
			r.Passed = r.Value != nil && r.Margin().Sign() >= 0
		}
		if r.Decides() && spec.Fails.rank() > decision.rank() {
			decision = spec.Fails
		}
		gates[i] = r
	}
	return decision, gates
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
	// Limit is nil when the gate is off.
	Limit *big.Rat
}

// Text words the threshold: "at most 2,500 ms", or "not gated".
func (t Threshold) Text() string { return t.Spec.ThresholdText(t.Limit) }

// Thresholds lists every gate's threshold in g, in the order of Specs.
func Thresholds(g suite.Gate) []Threshold {
	out := make([]Threshold, len(Specs))
	for i := range Specs {
		out[i] = Threshold{Spec: &Specs[i]}
		if n, on := g.Threshold(Specs[i].Key); on {
			out[i].Limit = n.Rat()
		}
	}
	return out
}

// SpecOf returns the spec of the gate named name.
func SpecOf(name string) (*Spec, bool) {
	for i := range Specs {
		if Specs[i].Name == name {
			return &Specs[i], true
		}
	}
	return nil, false
}

// Limit returns the threshold of the gate named name, false when it is
// off.
func Limit(g suite.Gate, name string) (*big.Rat, bool) {
	for i := range Specs {
		if Specs[i].Name == name {
			n, on := g.Threshold(Specs[i].Key)
			if !on {
				return nil, false
			}
			return n.Rat(), true
		}
	}
	return nil, false
}

func float(r *big.Rat) *float64 {
	if r == nil {
		return nil
	}
	f, _ := r.Float64()
	return &f
}
