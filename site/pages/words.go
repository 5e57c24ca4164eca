package pages

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// fewAnswers is the most answers whose p95 the pages explain: up to
// there the nearest-rank p95 is one of the five slowest answers, so one
// to five answers decide it. See docs/site.md, "Words on the pages".
const fewAnswers = 100

// p95Rank is which answer, counted from the slowest, the nearest-rank
// p95 of n answers is: the one at rank ceil(0.95 × n) from the fastest.
func p95Rank(n int) int {
	return n - (95*n+99)/100 + 1
}

// p95Note says what the p95 of n answers rests on when they are few:
// "p95 of 12 answers is the slowest one: a single slow answer decides
// it." It is "" for none or for many answers.
func p95Note(n int) string {
	if n <= 0 || n >= fewAnswers {
		return ""
	}
	k := p95Rank(n)
	if k == 1 {
		return fmt.Sprintf("p95 of %d %s is the slowest one: a single slow answer decides it.", n, plural(n, "answer", "answers"))
	}
	return fmt.Sprintf("p95 of %d answers is the %s slowest: %d slow answers decide it.", n, ordinal(k), k)
}

// ordinal words a small rank: "second", "third"; "6th" above fifth.
func ordinal(k int) string {
	if w := []string{"", "first", "second", "third", "fourth", "fifth"}; k < len(w) {
		return w[k]
	}
	return fmt.Sprintf("%dth", k)
}

// measured counts a snapshot's answers that carry a latency and those
// that carry a cost: every trial's, with trials.
func measured(s *evaluator.Snapshot) (latencies, costs int) {
	count := func(outs []*suite.Output) {
		for _, o := range outs {
			if o == nil {
				continue
			}
			if o.LatencyMS != nil {
				latencies++
			}
			if o.CostUSD != nil {
				costs++
			}
		}
	}
	if s.Trials() > 0 {
		for _, outs := range s.TrialOutputs {
			count(outs)
		}
		return latencies, costs
	}
	count(s.Outputs)
	return latencies, costs
}

// passRateNote says how much one case moves the pass rate when the
// cases are few: "With 12 cases, one case more or less moves it by 8.3 points." It is "" for
// none or for 100 cases and more.
func passRateNote(cases int) string {
	if cases <= 0 || cases >= 100 {
		return ""
	}
	return fmt.Sprintf("With %d cases, one case more or less moves it by %s points.", cases, strconv.FormatFloat(100/float64(cases), 'f', 1, 64))
}

// perAnswer says what an average cost is of: "USD 0.011 per answer";
// "n/a" stays as it is.
func perAnswer(cost string) string {
	if !strings.HasPrefix(cost, "USD ") {
		return cost
	}
	return cost + " per answer"
}

// count writes a count with thousands separated: "3,000".
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
