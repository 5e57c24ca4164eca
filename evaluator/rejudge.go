package evaluator

import (
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Rejudge judges the snapshot old again against s, which must hold the
// same cases in the same order as the suite old was judged against (their
// contents may differ). Only the cases at the positions in redo are judged
// again; every other verdict is kept as it was, since it depends on
// nothing but its case, its output and the policy. A snapshot with trials
// is judged again whole, as a case's verdict gathers its trials'. The
// snapshot is then tallied and decided under s's thresholds. old must
// have been evaluated with Options.KeepOutputs, and without
// Compact. The result is what evaluating old's outputs file
// against s gives.
func Rejudge(s *suite.Suite, old *Snapshot, redo []int) *Snapshot {
	snap, _ := Rearrange(s, old, nil, redo)
	return snap
}

// Rearrange is Rejudge for a suite whose cases may have come, gone or
// moved since old was judged: was[i] is the position in old of the case
// at position i of s, or -1 for a case s adds, which is judged as having
// no output (old's outputs file held none for it, or old would not have
// been judged). A nil was means the same cases in the same order. ok is
// false when old holds an output of a case s no longer has: its outputs
// file is then bad input, which only reading it again reports.
func Rearrange(s *suite.Suite, old *Snapshot, was []int, redo []int) (snap *Snapshot, ok bool) {
	at := func(i int) int { return i }
	if was != nil {
		at = func(i int) int { return was[i] }
		kept := make([]bool, len(old.Result.Cases))
		for _, j := range was {
			if j >= 0 {
				kept[j] = true
			}
		}
		for j, k := range kept {
			if !k && answered(old, j) {
				return nil, false
			}
		}
	}
	gates := old.Gates
	if gates == nil {
		gates = decide.DefaultGates()
	}
	j := newJudging(gates, s, true)
	if len(old.TrialOutputs) > 0 {
		for _, outputs := range old.TrialOutputs {
			for i := range s.Cases {
				if k := at(i); k >= 0 && outputs[k] != nil {
					j.add(i, outputs[k], suite.LinePlace{})
				}
			}
		}
	} else {
		again := make([]bool, len(s.Cases))
		for _, i := range redo {
			again[i] = true
		}
		for i := range s.Cases {
			k := at(i)
			switch {
			case k < 0 || old.Outputs[k] == nil:
				// finish judges a missing output.
			case again[i]:
				j.add(i, old.Outputs[k], suite.LinePlace{})
			default:
				j.keepVerdict(i, old.Outputs[k], old.Result.Cases[k])
			}
		}
	}
	snap = j.finish(old.Label())
	snap.Result.Inputs.OutputsSHA256 = old.Result.Inputs.OutputsSHA256
	snap.Result.Meta = old.Result.Meta
	return snap, true
}

// answered reports whether old holds an output, of any trial, for the
// case at position j.
func answered(old *Snapshot, j int) bool {
	if old.Outputs[j] != nil {
		return true
	}
	for _, outputs := range old.TrialOutputs {
		if outputs[j] != nil {
			return true
		}
	}
	return false
}

// keepVerdict records the output for the case at position i with a
// verdict already made.
func (j *judging) keepVerdict(i int, out *suite.Output, v CaseResult) {
	j.seen[i] = true
	j.cases[i] = v
	j.tally.AddOutput(out.LatencyMS, out.CostUSD)
	if j.keep {
		j.outputs[i] = out
	}
}
