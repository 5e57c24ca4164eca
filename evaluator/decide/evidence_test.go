package decide

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// evidenceGate is sampleGate with min_pass_rate at minimum and the
// evidence keys set.
func evidenceGate(minimum string, require bool, level stats.Level) suite.Gate {
	g := gateOf(minimum, "0", "2500", "0.025")
	g.RequireEvidence, g.Confidence = require, level
	return g
}

func TestRequireEvidence(t *testing.T) {
	ok := []outcome{{"100", "0.01"}}
	lo1212 := stats.Wilson(12, 12, stats.Level95.Z()).Lo
	atBound := new(big.Rat).SetFloat64(lo1212).FloatString(60)
	tests := []struct {
		name          string
		passed, total int
		critical      int
		outs          []outcome
		gate          suite.Gate
		want          Decision
		outcome       Outcome
		lowerBound    float64 // written, when inconclusive
		settle        int64
	}{
		{"12/12 is not proof of 90%", 12, 12, 0, ok, evidenceGate("0.9", true, stats.Level95), Review, Inconclusive, 0.757506, 35},
		{"without the key it passes", 12, 12, 0, ok, evidenceGate("0.9", false, stats.Level95), Pass, Held, 0, 0},
		{"at 80% confidence it is still short", 12, 12, 0, ok, evidenceGate("0.9", true, stats.Level80), Review, Inconclusive, 0.879612, 15},
		{"100/100 proves 90%", 100, 100, 0, ok, evidenceGate("0.9", true, stats.Level95), Pass, Held, 0, 0},
		{"a rate below the minimum fails as before", 11, 12, 0, ok, evidenceGate("0.95", true, stats.Level95), Block, Failed, 0, 0},
		{"a rate at the minimum never settles", 9, 10, 0, ok, evidenceGate("0.9", true, stats.Level95), Review, Inconclusive, 0.59585, 0},
		{"inconclusive and slow is still review", 12, 12, 0, []outcome{{"9999", "0.01"}}, evidenceGate("0.9", true, stats.Level95), Review, Inconclusive, 0.757506, 35},
		{"inconclusive and a critical failure blocks", 12, 13, 1, ok, evidenceGate("0.9", true, stats.Level95), Block, Inconclusive, 0.66686, 650},
		{"a minimum of zero always holds", 0, 5, 0, ok, evidenceGate("0", true, stats.Level95), Pass, Held, 0, 0},
		{"a bound exactly at the minimum holds", 12, 12, 0, ok, evidenceGate(atBound, true, stats.Level95), Pass, Held, 0, 0},
		{"a bound a hair below the minimum is inconclusive", 12, 12, 0, ok, evidenceGate(atBound+"1", true, stats.Level95), Review, Inconclusive, 0.757506, 13},
		{"the gate off decides nothing", 12, 12, 0, ok, evidenceGate("null", true, stats.Level95), Pass, Off, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, gates := decideFor(tt.passed, tt.total, tt.critical, tt.outs, tt.gate)
			g, _ := Find(gates, GatePassRate)
			if d != tt.want || g.Outcome() != tt.outcome {
				t.Fatalf("decision %s, outcome %v; want %s, %v", d, g.Outcome(), tt.want, tt.outcome)
			}
			if tt.outcome != Inconclusive {
				if g.Inconclusive || g.LowerBound != nil {
					t.Fatalf("a gate that is not inconclusive carries inconclusive=%v lower_bound=%v", g.Inconclusive, g.LowerBound)
				}
				return
			}
			if g.Passed || g.LowerBound == nil || *g.LowerBound != tt.lowerBound || g.Settle != tt.settle || g.Forces() != Review {
				t.Fatalf("passed %v, lower bound %v, settle %d, forces %s; want false, %v, %d, REVIEW", g.Passed, *g.LowerBound, g.Settle, g.Forces(), tt.lowerBound, tt.settle)
			}
			if !strings.Contains(g.FailureText(), "is not proven") || !strings.Contains(g.SettleText(), "settle it") {
				t.Errorf("words: %q; %q", g.FailureText(), g.SettleText())
			}
		})
	}
}

// TestInconclusiveNeverPasses: over random snapshots and thresholds, an
// inconclusive gate never leaves the decision at PASS, and without
// require_evidence the decision is the one the thresholds give alone.
func TestInconclusiveNeverPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		total := 1 + rng.IntN(200)
		passed := rng.IntN(total + 1)
		minimum := big.NewRat(int64(rng.IntN(101)), 100).FloatString(2)
		level := stats.Levels[rng.IntN(len(stats.Levels))]
		with, _ := decideFor(passed, total, 0, []outcome{{"1", "0.01"}}, evidenceGate(minimum, true, level))
		without, gates := decideFor(passed, total, 0, []outcome{{"1", "0.01"}}, evidenceGate(minimum, false, level))
		g, _ := Find(gates, GatePassRate)
		rate := big.NewRat(int64(passed), int64(total))
		lo := stats.Wilson(passed, total, level.Z()).Lo
		inconclusive := rate.Cmp(g.Limit) >= 0 && new(big.Rat).SetFloat64(lo).Cmp(g.Limit) < 0
		switch {
		case inconclusive && with != Review:
			t.Fatalf("%d/%d, minimum %s at %s: inconclusive decided %s", passed, total, minimum, level, with)
		case !inconclusive && with != without:
			t.Fatalf("%d/%d, minimum %s at %s: %s with require_evidence, %s without", passed, total, minimum, level, with, without)
		case (rate.Cmp(g.Limit) >= 0) != (without == Pass):
			t.Fatalf("%d/%d, minimum %s: %s without require_evidence", passed, total, minimum, without)
		}
	}
}

// comparison builds a comparison of b regressions and c fixes, each a
// case run once.
func comparison(label string, b, c int, level stats.Level) *Comparison {
	var changes []CaseChange
	for i := range b + c {
		before := CaseVerdict{Passed: i < b}
		changes = append(changes, ChangeOf(i, "c"+string(rune('a'+i%26)), before, CaseVerdict{Passed: !before.Passed}, level))
	}
	return Compare(label, changes, level)
}

func TestNoRegression(t *testing.T) {
	tests := []struct {
		name  string
		b, c  int
		level stats.Level
		want  Decision
		held  bool
		words string
	}{
		{"six regressions cannot be chance", 6, 0, stats.Level95, Block, false, "6 cases regressed against prod and 0 fixed, which is not chance (p = 0.031)"},
		{"five could be", 5, 0, stats.Level95, Pass, true, ""},
		{"five cannot at 90%", 5, 0, stats.Level90, Block, false, "5 cases regressed against prod and 0 fixed, which is not chance (p = 0.062)"},
		{"significant fixes pass", 0, 9, stats.Level95, Pass, true, ""},
		{"more regressions than fixes, but chance", 4, 3, stats.Level80, Pass, true, ""},
		{"no change", 0, 0, stats.Level95, Pass, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tl Tally
			for range 20 {
				tl.AddCase(suite.Minor, true)
			}
			tl.AddOutput(measured("1"), measured("0.01"))
			m := tl.Metrics()
			m.Baseline = comparison("prod", tt.b, tt.c, tt.level)
			g := sampleGate
			g.Confidence = tt.level
			d, gates := testGates.Decide(m, g)
			r, ok := Find(gates, GateNoRegression)
			if !ok || len(gates) != len(testGates) || gates[len(gates)-1].Gate != GateNoRegression {
				t.Fatalf("gates %v: no_regression is not the last", gates)
			}
			if d != tt.want || r.Passed != tt.held || r.Off() || r.FailureText() != tt.words {
				t.Fatalf("decision %s, passed %v, words %q; want %s, %v, %q", d, r.Passed, r.FailureText(), tt.want, tt.held, tt.words)
			}
			if r.Threshold.Label != "prod" || r.Threshold.Number != nil || *r.Observed != m.Baseline.PValue || r.ThresholdText() != "no significant regression against prod" {
				t.Errorf("entry: threshold %+v observed %v text %q", r.Threshold, *r.Observed, r.ThresholdText())
			}
		})
	}
	// Without a comparison (no baseline, or the baseline itself) the
	// gate is not listed at all.
	var tl Tally
	tl.AddCase(suite.Minor, true)
	if _, gates := testGates.Decide(tl.Metrics(), sampleGate); len(gates) != 4 {
		t.Errorf("%d gates without a baseline, want 4", len(gates))
	}
}

// TestSignificanceAtAlpha: p exactly at α is not significant; the double
// just below is.
func TestSignificanceAtAlpha(t *testing.T) {
	for _, level := range stats.Levels {
		a := level.Alpha()
		if level.Significant(a) || !level.Significant(math.Nextafter(a, 0)) {
			t.Errorf("%s: α %v significant %v, just below %v", level, a, level.Significant(a), level.Significant(math.Nextafter(a, 0)))
		}
	}
}

func TestComparisonWords(t *testing.T) {
	c := comparison("baseline-v1", 0, 3, stats.Level95)
	if c.PValue != 0.25 || c.Significant || c.Regressed() || len(c.Cases) != 3 {
		t.Fatalf("comparison %+v", c)
	}
	if got, want := c.Sentence(), "against baseline-v1: 3 fixed, 0 regressed — could be chance (p = 0.25)"; got != want {
		t.Errorf("sentence %q, want %q", got, want)
	}
	if got := Compare("v", nil, stats.Level95); got.Sentence() != "against v: 0 fixed, 0 regressed — no change" || got.Cases == nil || got.PValue != 1 {
		t.Errorf("no change: %q, %+v", got.Sentence(), got)
	}
	if got := comparison("v", 7, 0, stats.Level95).Sentence(); got != "against v: 0 fixed, 7 regressed — significant (p = 0.016)" {
		t.Errorf("significant: %q", got)
	}
	// A case's own evidence follows its trials.
	tests := []struct {
		before, after CaseVerdict
		want          Evidence
		p             *float64
	}{
		{CaseVerdict{Passed: true}, CaseVerdict{}, OneRunEach, nil},
		{CaseVerdict{Passed: true, Trials: 3, TrialsPassed: 3}, CaseVerdict{}, OneSideOnce, nil},
		{CaseVerdict{Passed: true, Trials: 3, TrialsPassed: 3}, CaseVerdict{Trials: 3, TrialsPassed: 2}, WithinNoise, ptrTo(1.0)},
		{CaseVerdict{Passed: true, Trials: 5, TrialsPassed: 5}, CaseVerdict{Trials: 5}, SignificantChange, ptrTo(0.00793651)},
	}
	for _, tt := range tests {
		ch := ChangeOf(0, "x", tt.before, tt.after, stats.Level95)
		if ch.Evidence != tt.want || (ch.PValue == nil) != (tt.p == nil) || tt.p != nil && *ch.PValue != *tt.p || ch.Change != Regressed {
			t.Errorf("%+v → %+v: %+v (p %v), want %v", tt.before, tt.after, ch, ch.PValue, tt.want)
		}
	}
}

func ptrTo(f float64) *float64 { return &f }

func TestPassRateSentence(t *testing.T) {
	tests := []struct {
		passed, total int
		want          string
	}{
		{12, 12, "12 of 12 cases passed; 95% sure the true pass rate is above 75.8%"},
		{8, 12, "8 of 12 cases passed; 95% sure the true pass rate is between 39.1% and 86.2%"},
		{0, 12, "0 of 12 cases passed; 95% sure the true pass rate is below 24.2%"},
		{1, 1, "1 of 1 case passed; 95% sure the true pass rate is above 20.7%"},
		{0, 0, "no cases"},
	}
	for _, tt := range tests {
		var tl Tally
		for i := range tt.total {
			tl.AddCase(suite.Minor, i < tt.passed)
		}
		if got := tl.Metrics().PassRateSentence(stats.Level95); got != tt.want {
			t.Errorf("%d/%d: %q, want %q", tt.passed, tt.total, got, tt.want)
		}
	}
	if got := IntervalText(stats.Interval{Lo: 0.757506, Hi: 1}); got != "75.8–100%" {
		t.Errorf("interval %q", got)
	}
}

// The specs that explain the new outcomes carry what explaining needs.
func TestEvidenceSpecs(t *testing.T) {
	for _, s := range testGates {
		if s.DriversText == "" {
			t.Errorf("%s: no words for the cases that drive it", s.Name)
		}
		if p := s.Proof; p != nil && (p.Interval == nil || p.Settle == nil || p.Unproven != Review || p.Inconclusive == nil) {
			t.Errorf("%s: incomplete proof %+v", s.Name, p)
		}
		if s.Kind == AgainstBaseline && (!s.Optional || s.Unit != PValue || s.Drivers != RegressedCases || s.Proof != nil) {
			t.Errorf("%s: a gate against the baseline must be optional, in p-values, driven by regressions", s.Name)
		}
	}
	if got := testGates.Thresholds(sampleGate); len(got) != 4 {
		t.Errorf("%d thresholds without a baseline, want 4", len(got))
	}
	g := sampleGate
	g.Baseline = "prod"
	th := testGates.Thresholds(g)
	if len(th) != 5 || th[4].Text() != "no significant regression against prod" || th[4].RuleText() != "Baseline: no more regressions than fixes against prod beyond chance." {
		t.Errorf("thresholds with a baseline: %d, %q, %q", len(th), th[len(th)-1].Text(), th[len(th)-1].RuleText())
	}
	if th[2].RuleText() != "Latency: p95 at most 2,500 ms (nearest rank)." {
		t.Errorf("rule %q", th[2].RuleText())
	}
}

// TestSharePercent: one decimal, and more only where one would round a
// share short of 1 up to "100%" or one above 0 down to "0%".
func TestSharePercent(t *testing.T) {
	for _, tt := range []struct {
		share float64
		want  string
	}{
		{0.757506, "75.8%"},
		{1, "100%"},
		{0, "0%"},
		{0.5, "50%"},
		{0.99963, "99.96%"}, // the lower bound of 10,000 of 10,000 at 95%
		{0.99999, "99.999%"},
		{0.00037, "0.04%"},
		{0.9996, "99.96%"},
		{0.99949, "99.9%"},
	} {
		if got := SharePercent(tt.share); got != tt.want {
			t.Errorf("SharePercent(%v) = %q, want %q", tt.share, got, tt.want)
		}
	}
}

// TestPassRateSentenceNeverAbove100: every pass of a large suite is
// worded with a bound below 100%.
func TestPassRateSentenceNeverAbove100(t *testing.T) {
	m := Metrics{CasesPassed: 10000, CasesTotal: 10000}
	got := m.PassRateSentence(stats.Level95)
	if strings.Contains(got, "above 100%") || !strings.Contains(got, "above 99.9") {
		t.Errorf("PassRateSentence = %q", got)
	}
}
