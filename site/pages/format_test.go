package pages

import (
	"math/big"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
)

func TestGateRows(t *testing.T) {
	gate := suite.Gate{Thresholds: map[string]*suite.Number{}}
	for i, lit := range []string{"0.90", "0", "2500", "0.025"} {
		n := suite.MustNumber(lit)
		gate.Thresholds[decide.DefaultGates()[i].Key] = &n
	}
	num := func(s string) *suite.Number { n := suite.MustNumber(s); return &n }
	tests := []struct {
		name     string
		m        decide.Metrics
		observed []string
		margins  []string
		passed   []bool
		decision decide.Decision
		reason   string
	}{
		{
			name:     "blocked",
			m:        decide.Metrics{CasesTotal: 12, CasesPassed: 8, CriticalFailures: 2, PassRate: big.NewRat(8, 12), P95LatencyMS: num("1100"), AvgCostUSD: big.NewRat(1325, 100000)},
			observed: []string{"66.67% (8 of 12 cases); 95% interval 39.1–86.2%", "2", "1,100 ms", "USD 0.01325"},
			margins:  []string{"23.33 percentage points below the minimum", "2 over the limit", "1,400 ms under the limit", "USD 0.01175 under the limit"},
			passed:   []bool{false, false, true, true},
			decision: decide.Block,
			reason:   "Blocked: pass rate 66.67% is below the minimum of 90%; and 2 critical cases failed, at most 0 allowed.",
		},
		{
			name:     "review on latency",
			m:        decide.Metrics{CasesTotal: 12, CasesPassed: 11, PassRate: big.NewRat(11, 12), P95LatencyMS: num("5200"), AvgCostUSD: big.NewRat(125, 10000)},
			observed: []string{"91.67% (11 of 12 cases); 95% interval 64.6–98.5%", "0", "5,200 ms", "USD 0.0125"},
			margins:  []string{"1.67 percentage points above the minimum", "none, as required", "2,700 ms over the limit", "USD 0.0125 under the limit"},
			passed:   []bool{true, true, false, true},
			decision: decide.Review,
			reason:   "Functionally sound, but p95 latency 5,200 ms is over the limit of 2,500 ms.",
		},
		{
			name:     "limits are inclusive",
			m:        decide.Metrics{CasesTotal: 10, CasesPassed: 9, PassRate: big.NewRat(9, 10), P95LatencyMS: num("2500"), AvgCostUSD: big.NewRat(25, 1000)},
			observed: []string{"90% (9 of 10 cases); 95% interval 59.6–98.2%", "0", "2,500 ms", "USD 0.025"},
			margins:  []string{"exactly at the limit", "none, as required", "exactly at the limit", "exactly at the limit"},
			passed:   []bool{true, true, true, true},
			decision: decide.Pass,
			reason:   "Every gate holds.",
		},
		{
			name:     "no outputs",
			m:        decide.Metrics{CasesTotal: 2, PassRate: new(big.Rat)},
			observed: []string{"0% (0 of 2 cases); 95% interval 0–65.8%", "0", "n/a (not measured)", "n/a (not measured)"},
			margins:  []string{"90 percentage points below the minimum", "none, as required", "n/a", "n/a"},
			passed:   []bool{false, true, false, false},
			decision: decide.Block,
			reason:   "Blocked: pass rate 0% is below the minimum of 90%; no p95 latency was measured; and no average cost was measured.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decision, gates := decide.DefaultGates().Decide(tt.m, gate)
			rows := GateRows(&evaluator.Snapshot{Result: evaluator.Result{Decision: decision, Gates: gates}, Metrics: tt.m})
			for i, r := range rows {
				if r.Observed != tt.observed[i] || r.Margin != tt.margins[i] || r.Passed != tt.passed[i] {
					t.Errorf("gate %s: observed %q margin %q passed %v; want %q %q %v", r.Gate, r.Observed, r.Margin, r.Passed, tt.observed[i], tt.margins[i], tt.passed[i])
				}
				if r.Verdict.Text != map[bool]string{true: "pass", false: "fail"}[r.Passed] {
					t.Errorf("gate %s: badge %q for passed=%v", r.Gate, r.Verdict.Text, r.Passed)
				}
			}
			// The words agree with the decision the evaluator makes.
			if decision != tt.decision {
				t.Fatalf("Decide = %s, want %s", decision, tt.decision)
			}
			for i, g := range gates {
				if g.Passed != rows[i].Passed {
					t.Errorf("gate %s: page says passed=%v, evaluator %v", g.Gate, rows[i].Passed, g.Passed)
				}
			}
			if got := decisionReason(decision, rows); got != tt.reason {
				t.Errorf("reason = %q\nwant     %q", got, tt.reason)
			}
		})
	}
}

func TestDecisionBadgesCarryText(t *testing.T) {
	for _, d := range []decide.Decision{decide.Pass, decide.Review, decide.Block} {
		b := decisionBadge(d)
		if b.Text != string(d) || b.Icon == "" || b.Class != strings.ToLower(string(d)) {
			t.Errorf("badge for %s = %+v", d, b)
		}
	}
}

func TestRootFor(t *testing.T) {
	tests := map[string]string{
		"index.html":                       "",
		"snapshots/candidate-v2.html":      "../",
		"snapshots/candidate-v2/ER-7.html": "../../",
		"cases/ER-7.html":                  "../",
	}
	for path, want := range tests {
		if got := rootFor(path); got != want {
			t.Errorf("rootFor(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestNiceCeil(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0.0275, 0.03}, {2750, 3000}, {1, 1}, {1.01, 1.2}, {9.5, 10}, {0, 0}, {0.00011, 0.00012},
	}
	for _, tt := range tests {
		if got := niceCeil(tt.in); got < tt.want*(1-1e-9) || got > tt.want*(1+1e-9) {
			t.Errorf("niceCeil(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestHistorySummary(t *testing.T) {
	row := func(label, class string) HistoryRow { return HistoryRow{Label: label, Verdict: Badge{Class: class}} }
	tests := []struct {
		passed, failed []string
		rows           []HistoryRow
		want           string
	}{
		{nil, nil, nil, "No snapshot has been judged."},
		{[]string{"a", "b"}, nil, []HistoryRow{row("a", "pass"), row("b", "pass")}, "Passes in every snapshot (2)."},
		{nil, []string{"a"}, []HistoryRow{row("a", "fail")}, "Fails in every snapshot (1)."},
		{[]string{"c"}, []string{"a", "b"}, []HistoryRow{row("a", "fail"), row("b", "fail"), row("c", "pass")}, "Fails in a, b; passes in c. The latest snapshot, c, passes."},
	}
	for _, tt := range tests {
		if got := historySummary(tt.passed, tt.failed, tt.rows); got != tt.want {
			t.Errorf("historySummary = %q, want %q", got, tt.want)
		}
	}
}
