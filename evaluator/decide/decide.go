// Package decide turns the judged cases of one snapshot into its metrics
// and its release decision under the frozen thresholds. It is pure.
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
	latencies                       []suite.Number
	costSum                         suite.DecimalSum
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

// Reserve makes room for n more outputs.
func (t *Tally) Reserve(n int) { t.latencies = slices.Grow(t.latencies, n) }

// AddOutput counts the latency and cost of one output present in the
// snapshot.
func (t *Tally) AddOutput(latency, cost suite.Number) {
	t.latencies = append(t.latencies, latency)
	t.costSum.Add(cost)
}

// Metrics are a snapshot's observed values.
type Metrics struct {
	CasesTotal, CasesPassed, CriticalFailures int
	// PassRate is CasesPassed / CasesTotal, exact.
	PassRate *big.Rat
	// P95LatencyMS and AvgCostUSD are nil when no output was present.
	P95LatencyMS *suite.Number
	AvgCostUSD   *big.Rat
}

// Metrics computes the observed values so far.
func (t *Tally) Metrics() Metrics {
	m := Metrics{CasesTotal: t.Total, CasesPassed: t.Passed, CriticalFailures: t.CriticalFailures, PassRate: new(big.Rat)}
	if t.Total > 0 {
		m.PassRate.SetFrac64(int64(t.Passed), int64(t.Total))
	}
	if p95, ok := P95(t.latencies); ok {
		m.P95LatencyMS = &p95
		m.AvgCostUSD = new(big.Rat).Quo(t.costSum.Rat(), new(big.Rat).SetInt64(int64(len(t.latencies))))
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

// GateResult is one threshold checked against its observed value.
type GateResult struct {
	Gate      string   `json:"gate"`
	Threshold float64  `json:"threshold"`
	Observed  *float64 `json:"observed"`
	Passed    bool     `json:"passed"`
}

// Decide applies the thresholds: BLOCK when the pass rate is below its
// minimum or critical failures exceed their maximum; else REVIEW when p95
// latency or average cost exceeds its maximum (or there were no outputs to
// measure); else PASS. A value equal to its limit passes.
func Decide(m Metrics, g suite.Gate) (Decision, []GateResult) {
	f := func(r *big.Rat) *float64 { v, _ := r.Float64(); return &v }
	critical := float64(m.CriticalFailures)
	gates := []GateResult{
		{Gate: GatePassRate, Threshold: g.MinPassRate.Float64(), Observed: f(m.PassRate),
			Passed: m.PassRate.Cmp(g.MinPassRate.Rat()) >= 0},
		{Gate: GateCriticalFailures, Threshold: float64(g.MaxCriticalFailures), Observed: &critical,
			Passed: m.CriticalFailures <= g.MaxCriticalFailures},
		{Gate: GateP95Latency, Threshold: g.MaxP95LatencyMS.Float64()},
		{Gate: GateAvgCost, Threshold: g.MaxAvgCostUSD.Float64()},
	}
	if m.P95LatencyMS != nil {
		p95 := m.P95LatencyMS.Float64()
		gates[2].Observed, gates[2].Passed = &p95, m.P95LatencyMS.Cmp(g.MaxP95LatencyMS) <= 0
		gates[3].Observed, gates[3].Passed = f(m.AvgCostUSD), m.AvgCostUSD.Cmp(g.MaxAvgCostUSD.Rat()) <= 0
	}
	switch {
	case !gates[0].Passed || !gates[1].Passed:
		return Block, gates
	case !gates[2].Passed || !gates[3].Passed:
		return Review, gates
	}
	return Pass, gates
}
