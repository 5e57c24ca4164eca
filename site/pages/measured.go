package pages

import (
	"fmt"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Coverage counts a snapshot's outputs (every trial's, with trials) and
// how many of them recorded a latency and a cost: an average over 1 of
// 50 outputs must say so (docs/evidence.md, "Reading the pages").
type Coverage struct {
	Outputs, Latencies, Costs int
	// Known: the snapshot kept its outputs, so the counts are real.
	Known bool
}

func coverageOf(s *evaluator.Snapshot) Coverage {
	c := Coverage{Known: s.Outputs != nil}
	count := func(outs []*suite.Output) {
		for _, o := range outs {
			if o == nil {
				continue
			}
			c.Outputs++
			if o.LatencyMS != nil {
				c.Latencies++
			}
			if o.CostUSD != nil {
				c.Costs++
			}
		}
	}
	if s.TrialOutputs != nil {
		for _, outs := range s.TrialOutputs {
			count(outs)
		}
	} else {
		count(s.Outputs)
	}
	return c
}

// MeasuredText words a p95 or an average with how many outputs it was
// measured over, when that is not all of them: "2,050 ms", "2,050 ms over
// 3 of 12 outputs", "n/a: no output recorded a latency", "n/a: no
// outputs". what is "latency" or "cost"; value is the figure, "" when
// nothing was measured.
func MeasuredText(value string, c Coverage, measured int, what string) string {
	outputs := c.Outputs
	switch {
	case !c.Known && value == "":
		return "n/a"
	case !c.Known:
		return value
	case outputs == 0:
		return "n/a: no outputs"
	case measured == 0 || value == "":
		return "n/a: no output recorded a " + what
	case measured < outputs:
		return fmt.Sprintf("%s over %d of %d outputs", value, measured, outputs)
	}
	return value
}

// p95Text and avgCostText word a snapshot's p95 latency and average cost
// with their coverage.
func p95Text(s *evaluator.Snapshot, c Coverage) string {
	value := ""
	if s.Metrics.P95LatencyMS != nil {
		value = s.P95Text()
	}
	return MeasuredText(value, c, c.Latencies, "latency")
}

func avgCostText(s *evaluator.Snapshot, c Coverage) string {
	value := ""
	if s.Metrics.AvgCostUSD != nil {
		value = perAnswer(s.AvgCostText())
	}
	return MeasuredText(value, c, c.Costs, "cost")
}

// gateCoverage words the observed value of a latency or cost gate with
// its coverage; other gates keep their own words.
func gateCoverage(g *decide.GateResult, observed string, c Coverage) string {
	switch g.Spec.Drivers {
	case decide.SlowestOutputs:
		if !g.Measured() {
			observed = ""
		}
		return MeasuredText(observed, c, c.Latencies, "latency")
	case decide.CostliestOutputs:
		if !g.Measured() {
			observed = ""
		}
		return MeasuredText(observed, c, c.Costs, "cost")
	}
	return observed
}

// HasNoOutput reports whether the snapshot has no output at all for case
// j: with trials, in none of its trials. Such a case fails, but says
// nothing about the agent.
func HasNoOutput(s *evaluator.Snapshot, j int) bool {
	if s.TrialOutputs == nil {
		return s.Outputs[j] == nil
	}
	for _, outs := range s.TrialOutputs {
		if outs[j] != nil {
			return false
		}
	}
	return true
}
