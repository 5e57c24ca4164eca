package evaluator

import (
	"math/big"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// The JUnit report gives each case the latency its outputs recorded, as
// its time. A snapshot evaluated whole finds it in its kept outputs
// (Options.KeepOutputs); a streamed one keeps each case's as text
// (StreamOptions.Latencies), adding them up only when asked.

// latencySum adds up the recorded latencies of one case's outputs.
type latencySum struct {
	ms       big.Rat
	recorded bool
}

func (l *latencySum) add(o *suite.Output) {
	if o != nil && o.LatencyMS != nil {
		l.ms.Add(&l.ms, o.LatencyMS.Rat())
		l.recorded = true
	}
}

// addLiterals adds latencies kept as their literals, separated by
// spaces; they were read from outputs, so they parse.
func (l *latencySum) addLiterals(literals string) {
	for _, lit := range strings.Fields(literals) {
		if n, err := suite.ParseNumber(lit); err == nil {
			l.ms.Add(&l.ms, n.Rat())
			l.recorded = true
		}
	}
}

// appendLatency appends the latency literal of o, when it recorded one,
// to literals, a space before it unless it is the first.
func appendLatency(literals []byte, o *suite.Output) []byte {
	if o == nil || o.LatencyMS == nil {
		return literals
	}
	if len(literals) > 0 {
		literals = append(literals, ' ')
	}
	return append(literals, o.LatencyMS.String()...)
}

// CaseSeconds is the recorded latency of the case at position i in
// seconds ("0.84"), summed over its trials when the snapshot has them;
// false when the latencies were not kept or nothing of the case was
// recorded.
func (s *Snapshot) CaseSeconds(i int) (string, bool) {
	var sum latencySum
	if v := s.Result.streamed; v != nil {
		if v.latencies == nil {
			return "", false
		}
		sum.addLiterals(v.latencies.at(nil, i))
	} else {
		for _, outs := range s.keptOutputs() {
			if i < len(outs) {
				sum.add(outs[i])
			}
		}
	}
	if !sum.recorded {
		return "", false
	}
	return seconds(&sum.ms), true
}

// TotalSeconds is the sum of every recorded latency of the snapshot, in
// seconds; false when the latencies were not kept.
func (s *Snapshot) TotalSeconds() (string, bool) {
	var sum latencySum
	if v := s.Result.streamed; v != nil {
		if v.latencies == nil {
			return "", false
		}
		for i := range v.latencies.ends {
			sum.addLiterals(v.latencies.at(nil, i))
		}
		return seconds(&sum.ms), true
	}
	if s.Outputs == nil {
		return "", false
	}
	for _, outs := range s.keptOutputs() {
		for _, o := range outs {
			sum.add(o)
		}
	}
	return seconds(&sum.ms), true
}

// keptOutputs are the kept outputs by trial: every trial's with trials,
// else the only ones.
func (s *Snapshot) keptOutputs() [][]*suite.Output {
	if s.TrialOutputs != nil {
		return s.TrialOutputs
	}
	return [][]*suite.Output{s.Outputs}
}

// seconds writes milliseconds as seconds: 840 → 0.84.
func seconds(ms *big.Rat) string {
	return FormatDecimal(new(big.Rat).Quo(ms, big.NewRat(1000, 1)), 6)
}
