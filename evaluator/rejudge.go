package evaluator

import "github.com/releasegate/releasegate/evaluator/suite"

// Rejudge judges the snapshot old again against s, which must hold the
// same cases in the same order as the suite old was judged against (their
// contents may differ). Only the cases at the positions in redo are judged
// again; every other verdict is kept as it was, since it depends on
// nothing but its case, its output and the policy. A snapshot with trials
// is judged again whole, as a case's verdict gathers its trials'. The
// snapshot is then tallied and decided under s's thresholds. old must
// have been evaluated with Options.KeepOutputs. The result is what
// evaluating old's outputs file against s gives.
func Rejudge(s *suite.Suite, old *Snapshot, redo []int) *Snapshot {
	j := newJudging(s, true)
	if len(old.TrialOutputs) > 0 {
		for _, outputs := range old.TrialOutputs {
			for i, o := range outputs {
				if o != nil {
					j.add(i, o)
				}
			}
		}
	} else {
		again := make([]bool, len(s.Cases))
		for _, i := range redo {
			again[i] = true
		}
		for i, o := range old.Outputs {
			switch {
			case o == nil:
				// finish judges a missing output.
			case again[i]:
				j.add(i, o)
			default:
				j.keepVerdict(i, o, old.Result.Cases[i])
			}
		}
	}
	snap := j.finish(old.Label())
	snap.Result.Inputs.OutputsSHA256 = old.Result.Inputs.OutputsSHA256
	snap.Result.Meta = old.Result.Meta
	return snap
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
