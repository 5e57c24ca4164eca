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

// gateOf builds thresholds in the order of testGates; "null" turns a gate
// off.
func gateOf(values ...string) suite.Gate {
	g := suite.Gate{Thresholds: map[string]*suite.Number{}}
	for i, v := range values {
		if v == "null" {
			g.Thresholds[testGates[i].Key] = nil
			continue
		}
		n := suite.MustNumber(v)
		g.Thresholds[testGates[i].Key] = &n
	}
	return g
}

var sampleGate = gateOf("0.90", "0", "2500", "0.025")

// measured is a latency or cost, nil for "null".
func measured(lit string) *suite.Number {
	if lit == "null" {
		return nil
	}
	n := suite.MustNumber(lit)
	return &n
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
		t.AddOutput(measured(o.latency), measured(o.cost))
	}
	return testGates.Decide(t.Metrics(), g)
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
		{"0.1 + 0.2 is exactly 0.3", 2, 2, 0, []outcome{{"1", "0.1"}, {"1", "0.2"}}, gateOf("1", "0", "1", "0.15"), Pass, nil},
		{"average cost over its limit reviews", 3, 3, 0, []outcome{{"1", "0.025"}, {"1", "0.025"}, {"1", "0.0250001"}}, sampleGate, Review, []string{GateAvgCost}},
		{"no outputs fail both performance gates", 0, 2, 0, nil, gateOf("0", "5", "1", "1"), Review, []string{GateP95Latency, GateAvgCost}},
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
	_, gates := testGates.Decide(m, sampleGate)
	p95, _ := Find(gates, GateP95Latency)
	cost, _ := Find(gates, GateAvgCost)
	if p95.Observed != nil || cost.Observed != nil {
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
			t.AddOutput(&lat, &costs[i%len(costs)])
		}
		t.Metrics()
	}
}

// docs/data-format.md, "Unmeasured latency and cost; gates that are off": "p95 and the average are taken over the measured values."
func TestStatisticsOverMeasuredValues(t *testing.T) {
	var tl Tally
	tl.AddCase(suite.Minor, true)
	for _, o := range []outcome{{"100", "null"}, {"null", "0.02"}, {"300", "0.04"}, {"null", "null"}} {
		tl.AddOutput(measured(o.latency), measured(o.cost))
	}
	m := tl.Metrics()
	if m.P95LatencyMS == nil || m.P95LatencyMS.String() != "300" {
		t.Errorf("p95 = %v, want 300 (over the two measured latencies)", m.P95LatencyMS)
	}
	if m.AvgCostUSD == nil || m.AvgCostUSD.RatString() != "3/100" {
		t.Errorf("average cost = %v, want 0.03 (over the two measured costs)", m.AvgCostUSD)
	}
}

// docs/data-format.md, "Repeated trials": "With nothing measured, the statistic is null and a gate that is
// on fails (as in docs/data-format.md (deciding a snapshot))."
func TestNothingMeasuredFailsAGateThatIsOn(t *testing.T) {
	var tl Tally
	tl.AddCase(suite.Minor, true)
	tl.AddOutput(nil, measured("0.01"))
	m := tl.Metrics()
	if m.P95LatencyMS != nil {
		t.Fatalf("p95 = %v with no latency measured", m.P95LatencyMS)
	}
	d, gates := testGates.Decide(m, sampleGate)
	g, _ := Find(gates, GateP95Latency)
	if d != Review || g.Passed || g.Observed != nil {
		t.Errorf("decision %s, p95 gate passed=%v observed=%v; want REVIEW, a failed gate, null", d, g.Passed, g.Observed)
	}
	if got := g.FailureText(); got != "no p95 latency was measured" {
		t.Errorf("failure text = %q", got)
	}
	// Off, the same gate decides nothing.
	d, gates = testGates.Decide(m, gateOf("0.9", "0", "null", "0.025"))
	g, _ = Find(gates, GateP95Latency)
	if d != Pass || !g.Passed || g.Threshold.Number != nil {
		t.Errorf("gate off: decision %s, passed=%v threshold=%v; want PASS, passed, null", d, g.Passed, g.Threshold)
	}
}

// docs/data-format.md, "Unmeasured latency and cost; gates that are off": "A threshold in gate.json may be null: that gate is off, is
// shown as "not gated", and never decides anything."
func TestGatesThatAreOff(t *testing.T) {
	tests := []struct {
		name   string
		gate   suite.Gate
		passed int
		outs   []outcome
		want   Decision
	}{
		{"pass rate off: 0 of 10 passes", gateOf("null", "null", "2500", "0.025"), 0, []outcome{{"1", "0.01"}}, Pass},
		{"critical failures off", gateOf("0", "null", "2500", "0.025"), 9, []outcome{{"1", "0.01"}}, Pass},
		{"latency off: any latency", gateOf("0.9", "0", "null", "0.025"), 10, []outcome{{"1e9", "0.01"}}, Pass},
		{"cost off: any cost", gateOf("0.9", "0", "2500", "null"), 10, []outcome{{"1", "1000"}}, Pass},
		{"everything off", gateOf("null", "null", "null", "null"), 0, nil, Pass},
		{"an off gate does not hide one that is on", gateOf("null", "0", "2500", "0.025"), 10, []outcome{{"2501", "0.01"}}, Review},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gates := decideFor(tt.passed, 10, 1, tt.outs, tt.gate)
			if got != tt.want {
				t.Fatalf("decision = %s, want %s", got, tt.want)
			}
			if len(gates) != 4 {
				t.Fatalf("%d gates, want all four listed", len(gates))
			}
			for _, g := range gates {
				if g.Off() && (!g.Passed || g.Threshold.Number != nil || g.ThresholdText() != "not gated" || g.Decides()) {
					t.Errorf("off gate %s: %+v, threshold text %q", g.Gate, g, g.ThresholdText())
				}
			}
		})
	}
}

// docs/data-format.md, "Repeated trials": "A critical case with any failed trial counts as a critical
// failure, whatever that rate."
func TestCriticalFlakyCaseCountsAsCriticalFailure(t *testing.T) {
	var tl Tally
	tl.AddTrialCase(suite.Critical, true, 4, 5) // passes at a rate of 0.8
	tl.AddTrialCase(suite.Major, true, 4, 5)
	tl.AddTrialCase(suite.Critical, true, 5, 5)
	m := tl.Metrics()
	if m.CriticalFailures != 1 || m.CasesPassed != 3 || m.FlakyCases != 2 || m.K != 5 {
		t.Fatalf("metrics = %+v; want 1 critical failure, 3 passed, 2 flaky, k 5", m)
	}
	if m.TrialPassRate.RatString() != "13/15" {
		t.Errorf("trial pass rate = %s, want 13/15", m.TrialPassRate.RatString())
	}
	if d, _ := testGates.Decide(m, sampleGate); d != Block {
		t.Errorf("decision = %s, want BLOCK", d)
	}
}

// The gates are data: every spec has a unique name and key, and its
// words; Decide reports them in spec order.
func TestSpecs(t *testing.T) {
	names, keys := map[string]bool{}, map[string]bool{}
	for _, s := range testGates {
		if names[s.Name] || keys[s.Key] || s.Title == "" || s.Column == "" || s.Label == "" || s.Topic == "" || s.Rule == "" || s.Failure == nil || s.Observed == nil {
			t.Errorf("spec %+v is incomplete or repeats a name or key", s)
		}
		names[s.Name], keys[s.Key] = true, true
		if s.Fails != Block && s.Fails != Review {
			t.Errorf("spec %s fails with %s", s.Name, s.Fails)
		}
	}
	_, gates := decideFor(10, 10, 0, []outcome{{"1", "0.01"}}, sampleGate)
	for i, g := range gates {
		if g.Gate != testGates[i].Name || g.Spec != &testGates[i] {
			t.Errorf("gate %d is %s, want %s", i, g.Gate, testGates[i].Name)
		}
	}
}

func TestGateWords(t *testing.T) {
	_, gates := decideFor(8, 12, 2, []outcome{{"5200", "0.0125"}}, sampleGate)
	want := []struct{ observed, threshold, margin, signed string }{
		{"66.67%", "at least 90%", "23.33 percentage points below the minimum", "-23.33 pp"},
		{"2", "at most 0", "2 over the limit", "-2"},
		{"5,200 ms", "at most 2,500 ms", "2,700 ms over the limit", "-2,700 ms"},
		{"USD 0.0125", "at most USD 0.025", "USD 0.0125 under the limit", "+USD 0.0125"},
	}
	for i, g := range gates {
		w := want[i]
		if g.ObservedText() != w.observed || g.ThresholdText() != w.threshold || g.MarginText() != w.margin || g.SignedMargin() != w.signed {
			t.Errorf("%s: %q %q %q %q; want %+v", g.Gate, g.ObservedText(), g.ThresholdText(), g.MarginText(), g.SignedMargin(), w)
		}
	}
}

// TestTallyP95 holds the tally's compact p95 to P95 over the same
// latencies, ties within a float64 included.
func TestTallyP95(t *testing.T) {
	for _, lits := range [][]string{
		{"5"},
		{"3", "1", "2"},
		{"100", "100.0", "1e2", "99.99999999999999999", "100.00000000000000001", "7"},
		{"0", "0.0", "-0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18"},
		{"9007199254740993", "9007199254740992", "9007199254740994", "1", "2"},
	} {
		var tally Tally
		var values []suite.Number
		for _, lit := range lits {
			v := suite.MustNumber(lit)
			tally.AddOutput(&v, nil)
			values = append(values, v)
		}
		want, _ := P95(values)
		got, ok := tally.p95()
		if !ok || got.Cmp(want) != 0 {
			t.Errorf("%v: tally p95 = %v, P95 = %v", lits, got, want)
		}
	}
	if _, ok := new(Tally).p95(); ok {
		t.Error("p95 of no latencies")
	}
}

// testGates are the gates the tests decide by, read only.
var testGates = DefaultGates()
