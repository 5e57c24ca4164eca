package suite

import "github.com/releasegate/releasegate/evaluator/stats"

// Gate holds the frozen release thresholds of gate.json.
type Gate struct {
	// Thresholds holds each threshold by its gate.json key. A nil value
	// is a threshold set to null: its gate is off.
	Thresholds map[string]*Number
	// MinTrialPassRate is the share of a case's trials that must pass
	// for the case to pass; 1 unless gate.json sets min_trial_pass_rate.
	MinTrialPassRate Number
	// Confidence is the level of every interval and test; the zero value
	// is the default, 95 %.
	Confidence stats.Level
	// RequireEvidence makes the pass-rate gate hold only when the lower
	// bound of the pass rate's interval reaches its threshold.
	RequireEvidence bool
	// Baseline is the label of the snapshot no other one may fall
	// behind beyond chance; "" for none. BaselineLine is the line of
	// gate.json that names it, for the error when no snapshot has that
	// label.
	Baseline     string
	BaselineLine int
}

// Threshold returns the threshold of gate.json key, false when it is
// null or not given.
func (g Gate) Threshold(key string) (Number, bool) {
	n := g.Thresholds[key]
	if n == nil {
		return Number{}, false
	}
	return *n, true
}

// TrialPassRate is MinTrialPassRate, 1 for a zero Gate.
func (g Gate) TrialPassRate() Number {
	if g.MinTrialPassRate.lit == "" {
		return Number{lit: "1"}
	}
	return g.MinTrialPassRate
}
