// Package decidetest holds gates for tests: a gate that releasegate does
// not ship, added to the default list as a caller of its own would add
// one, so that tests can check that every report and page follows the
// list it is given (docs/design.md, "Adding a gate").
package decidetest

import (
	"math/big"

	"github.com/releasegate/releasegate/evaluator/decide"
)

// FlakyCasesKey is the gate.json key of the flaky-cases gate.
const FlakyCasesKey = "max_flaky_cases"

// FlakyCases is a gate on the number of flaky cases (cases whose trials
// neither all passed nor all failed), optional, forcing REVIEW.
func FlakyCases() decide.Spec {
	return decide.Spec{
		Name: "flaky_cases", Key: FlakyCasesKey, Optional: true, Unit: decide.Count, Bound: decide.AtMost, Fails: decide.Review,
		Observed: func(m decide.Metrics) *big.Rat { return big.NewRat(int64(m.FlakyCases), 1) },
		Drivers:  decide.FailingCases, DriversText: "the failing cases",
		Title: "Stability (flaky cases)", Topic: "Stability: flaky cases", Label: "flaky cases", Column: "flaky cases",
		Rule: "Stability: %s flaky case(s).", Ahead: "to spare", Behind: "over the limit",
		Failure: func(g *decide.GateResult) string {
			return g.Value.RatString() + " flaky cases, at most " + g.Limit.RatString() + " allowed"
		},
	}
}

// WithFlakyCases is the default gates and the flaky-cases gate after
// them.
func WithFlakyCases() decide.Gates {
	return append(decide.DefaultGates(), FlakyCases())
}
