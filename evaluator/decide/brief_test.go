package decide_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/decide/decidetest"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestBriefText words each gate against a limit as the evaluate command's
// line on a snapshot does, an added gate included, which has no words of
// its own and is written with its label.
func TestBriefText(t *testing.T) {
	p95 := suite.MustNumber("1100")
	tests := []struct {
		name string
		m    decide.Metrics
		want []string
	}{
		{"measured", decide.Metrics{CasesTotal: 12, CasesPassed: 11, CriticalFailures: 2, PassRate: big.NewRat(11, 12), P95LatencyMS: &p95, AvgCostUSD: big.NewRat(11, 1000), FlakyCases: 3},
			[]string{"11/12 passed", "2 critical failures", "p95 1,100 ms", "average USD 0.011", "flaky cases 3"}},
		{"one critical failure, nothing measured", decide.Metrics{CasesTotal: 1, CriticalFailures: 1, PassRate: new(big.Rat)},
			[]string{"0/1 passed", "1 critical failure", "p95 n/a", "average n/a", "flaky cases 0"}},
	}
	g := suite.Gate{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, results := decidetest.WithFlakyCases().Decide(tt.m, g)
			var got []string
			for i := range results {
				if results[i].Spec.Kind == decide.AgainstLimit {
					got = append(got, results[i].BriefText(tt.m))
				}
			}
			if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
