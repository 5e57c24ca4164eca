package decide

import (
	"strconv"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

func numbers(values ...int) []suite.Number {
	out := make([]suite.Number, len(values))
	for i, v := range values {
		out[i] = suite.MustNumber(strconv.Itoa(v))
	}
	return out
}

// oneTo returns n, n-1, …, 1: descending, so P95 has to sort.
func oneTo(n int) []suite.Number {
	var vs []int
	for i := n; i >= 1; i-- {
		vs = append(vs, i)
	}
	return numbers(vs...)
}

func TestP95NearestRank(t *testing.T) {
	tests := []struct {
		n    int
		want string // rank ceil(0.95 n) of 1..n is the value itself
	}{
		{1, "1"}, {12, "12"}, {20, "19"}, {21, "20"}, {100, "95"},
	}
	for _, tt := range tests {
		got, ok := P95(oneTo(tt.n))
		if !ok || got.String() != tt.want {
			t.Errorf("P95(1..%d) = %v, %v; want %s", tt.n, got, ok, tt.want)
		}
	}
	if _, ok := P95(nil); ok {
		t.Error("P95 of no values reports a value")
	}
}

func TestP95ComparesExactly(t *testing.T) {
	// These two differ beyond float64 precision; the larger must win.
	vs := []suite.Number{suite.MustNumber("2500.0000000000000001"), suite.MustNumber("2500")}
	got, _ := P95(vs)
	if got.String() != "2500.0000000000000001" {
		t.Fatalf("P95 = %s", got)
	}
}

var sampleGate = suite.Gate{
	MinPassRate:         suite.MustNumber("0.90"),
	MaxCriticalFailures: 0,
	MaxP95LatencyMS:     suite.MustNumber("2500"),
	MaxAvgCostUSD:       suite.MustNumber("0.025"),
}

type outcome struct {
	latency, cost string
}

func decideFor(passed, total, critical int, outs []outcome, g suite.Gate) (Decision, []GateResult) {
	var t Tally
	for i := range total {
		sev := suite.Minor
		if i < critical {
			sev = suite.Critical
		}
		t.AddCase(sev, i >= total-passed)
	}
	for _, o := range outs {
		t.AddOutput(suite.MustNumber(o.latency), suite.MustNumber(o.cost))
	}
	return Decide(t.Metrics(), g)
}

func TestDecide(t *testing.T) {
	ok := []outcome{{"100", "0.01"}}
	tests := []struct {
		name                    string
		passed, total, critical int
		outs                    []outcome
		gate                    suite.Gate
		want                    Decision
		failing                 []string
	}{
		{"all pass", 10, 10, 0, ok, sampleGate, Pass, nil},
		{"pass rate equal to the minimum passes", 9, 10, 0, ok, sampleGate, Pass, nil},
		{"pass rate just below blocks", 8, 10, 0, ok, sampleGate, Block, []string{GatePassRate}},
		{"a critical failure blocks", 10, 11, 1, ok, sampleGate, Block, []string{GateCriticalFailures}},
		{"p95 equal to its limit passes", 10, 10, 0, []outcome{{"2500", "0.01"}}, sampleGate, Pass, nil},
		{"p95 over its limit reviews", 10, 10, 0, []outcome{{"2500.5", "0.01"}}, sampleGate, Review, []string{GateP95Latency}},
		{"three costs of 0.025 average exactly 0.025 and pass", 3, 3, 0, []outcome{{"1", "0.025"}, {"1", "0.025"}, {"1", "0.025"}}, sampleGate, Pass, nil},
		{"0.1 + 0.2 is exactly 0.3", 2, 2, 0, []outcome{{"1", "0.1"}, {"1", "0.2"}}, suite.Gate{MinPassRate: suite.MustNumber("1"), MaxP95LatencyMS: suite.MustNumber("1"), MaxAvgCostUSD: suite.MustNumber("0.15")}, Pass, nil},
		{"average cost over its limit reviews", 3, 3, 0, []outcome{{"1", "0.025"}, {"1", "0.025"}, {"1", "0.0250001"}}, sampleGate, Review, []string{GateAvgCost}},
		{"no outputs fail both performance gates", 0, 2, 0, nil, suite.Gate{MinPassRate: suite.MustNumber("0"), MaxCriticalFailures: 5, MaxP95LatencyMS: suite.MustNumber("1"), MaxAvgCostUSD: suite.MustNumber("1")}, Review, []string{GateP95Latency, GateAvgCost}},
		{"block outranks review", 0, 10, 0, []outcome{{"9999", "1"}}, sampleGate, Block, []string{GatePassRate, GateP95Latency, GateAvgCost}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gates := decideFor(tt.passed, tt.total, tt.critical, tt.outs, tt.gate)
			if got != tt.want {
				t.Errorf("decision = %s, want %s", got, tt.want)
			}
			var failing []string
			for _, g := range gates {
				if !g.Passed {
					failing = append(failing, g.Gate)
				}
			}
			if len(failing) != len(tt.failing) {
				t.Fatalf("failing gates = %v, want %v", failing, tt.failing)
			}
			for i := range failing {
				if failing[i] != tt.failing[i] {
					t.Fatalf("failing gates = %v, want %v", failing, tt.failing)
				}
			}
		})
	}
}

func TestNoOutputsObservedNull(t *testing.T) {
	var tl Tally
	tl.AddCase(suite.Minor, false)
	m := tl.Metrics()
	if m.P95LatencyMS != nil || m.AvgCostUSD != nil {
		t.Fatalf("metrics with no outputs = %+v", m)
	}
	_, gates := Decide(m, sampleGate)
	if gates[2].Observed != nil || gates[3].Observed != nil {
		t.Fatal("performance gates observed a value without outputs")
	}
}

func BenchmarkP95(b *testing.B) {
	vs := oneTo(100_000)
	for b.Loop() {
		P95(vs)
	}
}

func BenchmarkTally(b *testing.B) {
	costs := []suite.Number{suite.MustNumber("0.011"), suite.MustNumber("0.0125"), suite.MustNumber("0.009"), suite.MustNumber("1e-3")}
	lat := suite.MustNumber("840")
	for b.Loop() {
		var t Tally
		for i := range 1000 {
			t.AddOutput(lat, costs[i%len(costs)])
		}
		t.Metrics()
	}
}
