package evaluator

import (
	"strings"

	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// A streamed snapshot keeps its cases' verdicts in a compact form rather
// than as []CaseResult: a passing case costs nothing beyond the id and
// severity its suite already keeps, and a failing one its position and
// the text of its failures (docs/design.md, "Scale: streaming
// evaluation"). Results files, the report and comparisons read them back
// case by case.

// caseTable holds the id and severity of every case of a suite, in suite
// order.
type caseTable struct {
	ids        strings.Builder // every id, one after another
	ends       []uint32        // where each id ends in ids
	severities []uint8         // index in severityOrder
}

var severityOrder = [...]suite.Severity{suite.Critical, suite.Major, suite.Minor}

func (t *caseTable) add(c *suite.Case) {
	t.ids.WriteString(c.ID)
	t.ends = append(t.ends, uint32(t.ids.Len()))
	sev := 0
	for i, s := range severityOrder {
		if s == c.Severity {
			sev = i
		}
	}
	t.severities = append(t.severities, uint8(sev))
}

func (t *caseTable) len() int { return len(t.ends) }

// id is case i's id; it shares the table's memory.
func (t *caseTable) id(all string, i int) string {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return all[start:t.ends[i]]
}

// verdicts are one snapshot's case verdicts, without trials.
type verdicts struct {
	cases *caseTable
	// failing are the positions of the failing cases, ascending; the
	// failures of failing[j] are the codes and details of failures from
	// failureEnds[j-1] to failureEnds[j], each text ending at textEnds.
	failing     []uint32
	failureEnds []uint32
	texts       strings.Builder
	textEnds    []uint32
}

// add records the failures of case i, judged in suite order.
func (v *verdicts) add(i int, fs []judge.Failure) {
	if len(fs) == 0 {
		return
	}
	v.failing = append(v.failing, uint32(i))
	for _, f := range fs {
		v.texts.WriteString(string(f.Code))
		v.textEnds = append(v.textEnds, uint32(v.texts.Len()))
		v.texts.WriteString(f.Detail)
		v.textEnds = append(v.textEnds, uint32(v.texts.Len()))
	}
	v.failureEnds = append(v.failureEnds, uint32(len(v.textEnds)/2))
}

// verdictCursor reads verdicts back in suite order; each reader has its
// own, so results files and the report can be written side by side.
type verdictCursor struct {
	v          *verdicts
	ids, texts string
	next       int // index in failing of the next failing case
	c          CaseResult
	buf        []judge.Failure
}

func (v *verdicts) cursor() *verdictCursor {
	return &verdictCursor{v: v, ids: v.cases.ids.String(), texts: v.texts.String(), buf: make([]judge.Failure, 0, 8)}
}

// at is the result of case i, valid until the next call; calls must come
// in ascending order of i.
func (cur *verdictCursor) at(i int) *CaseResult {
	v := cur.v
	cur.c = CaseResult{CaseID: v.cases.id(cur.ids, i), Severity: severityOrder[v.cases.severities[i]], Passed: true, Failures: cur.buf[:0]}
	for cur.next < len(v.failing) && int(v.failing[cur.next]) < i {
		cur.next++
	}
	if cur.next < len(v.failing) && int(v.failing[cur.next]) == i {
		start := uint32(0)
		if cur.next > 0 {
			start = v.failureEnds[cur.next-1]
		}
		for f := start; f < v.failureEnds[cur.next]; f++ {
			cur.c.Failures = append(cur.c.Failures, judge.Failure{
				Code:   judge.Code(cur.text(2 * f)),
				Detail: cur.text(2*f + 1),
			})
		}
		cur.c.Passed = false
		cur.buf = cur.c.Failures
	}
	return &cur.c
}

func (cur *verdictCursor) text(k uint32) string {
	start := uint32(0)
	if k > 0 {
		start = cur.v.textEnds[k-1]
	}
	return cur.texts[start:cur.v.textEnds[k]]
}

// eachCase calls fn with every case result of the snapshot in suite
// order. The result is valid only during the call.
func (s *Snapshot) eachCase(fn func(i int, c *CaseResult)) {
	if v := s.Result.streamed; v != nil {
		cur := v.cursor()
		for i := range v.cases.len() {
			fn(i, cur.at(i))
		}
		return
	}
	for i := range s.Result.Cases {
		fn(i, &s.Result.Cases[i])
	}
}

// eachFailing is eachCase for the failing cases only.
func (s *Snapshot) eachFailing(fn func(c *CaseResult)) {
	if v := s.Result.streamed; v != nil {
		cur := v.cursor()
		for _, i := range v.failing {
			fn(cur.at(int(i)))
		}
		return
	}
	for i := range s.Result.Cases {
		if c := &s.Result.Cases[i]; !c.Passed {
			fn(c)
		}
	}
}

// anyFailing reports whether some case of the snapshot failed.
func (s *Snapshot) anyFailing() bool {
	if v := s.Result.streamed; v != nil {
		return len(v.failing) > 0
	}
	for i := range s.Result.Cases {
		if !s.Result.Cases[i].Passed {
			return true
		}
	}
	return false
}
