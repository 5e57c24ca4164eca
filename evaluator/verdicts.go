package evaluator

import (
	"slices"
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
// order, and their titles when the JUnit report or the step summary will
// name the cases (StreamOptions.Titles).
type caseTable struct {
	ids        textList
	severities []uint8 // index in severityOrder
	titles     *textList
}

var severityOrder = [...]suite.Severity{suite.Critical, suite.Major, suite.Minor}

func (t *caseTable) add(c *suite.Case) {
	t.ids.add(c.ID)
	sev := 0
	for i, s := range severityOrder {
		if s == c.Severity {
			sev = i
		}
	}
	t.severities = append(t.severities, uint8(sev))
	if t.titles != nil {
		t.titles.add(c.Title)
	}
}

func (t *caseTable) len() int { return len(t.ids.ends) }

// id is case i's id; it shares the table's memory.
func (t *caseTable) id(blocks []string, i int) string { return t.ids.at(blocks, i) }

// textList is a list of texts kept one after another in a textStore.
type textList struct {
	store textStore
	ends  []uint32 // where each text ends in store
}

func (l *textList) add(s string) { l.ends = append(l.ends, l.store.add(s)) }

// at is text i, read from blocks, the store's blocks, or from the store
// as it stands when blocks is nil; it shares the store's memory.
func (l *textList) at(blocks []string, i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.store.text(blocks, start, l.ends[i])
}

// verdicts are one snapshot's case verdicts.
type verdicts struct {
	cases *caseTable
	// failing are the positions of the cases with failures, ascending;
	// the failures of failing[j] are the codes and details of failures
	// from failureEnds[j-1] to failureEnds[j], each text ending at
	// textEnds. Without trials such a case failed.
	failing     []uint32
	failureEnds []uint32
	texts       textStore
	textEnds    []uint32
	// With k trials a case, a case without failures passed all k; for
	// failing[j], trialsPassed[j] trials passed and passes[j] says
	// whether the case passed, and each failure's trial is in
	// failureTrials.
	k             int
	trialsPassed  []uint16
	passes        []bool
	failureTrials []uint16
	// latencies are each case's recorded latencies, the literals of its
	// outputs in milliseconds separated by spaces ("" when none was
	// recorded); nil unless kept (StreamOptions.Latencies). They are
	// added up only for the snapshots a JUnit report is written for.
	latencies *textList
}

// addLatencies records the latency literals of the next case, judged in
// suite order, when latencies are kept.
func (v *verdicts) addLatencies(literals []byte) {
	if v.latencies != nil {
		v.latencies.add(string(literals))
	}
}

// add records the failures of case i, judged in suite order.
func (v *verdicts) add(i int, fs []judge.Failure) {
	if len(fs) == 0 {
		return
	}
	v.failing = append(v.failing, uint32(i))
	for _, f := range fs {
		v.textEnds = append(v.textEnds, v.texts.add(string(f.Code)), v.texts.add(f.Detail))
	}
	v.failureEnds = append(v.failureEnds, uint32(len(v.textEnds)/2))
}

// addTrials records case i with trials: passed of its trials passed, the
// case passes or not, and fs are the failures of every trial.
func (v *verdicts) addTrials(i int, fs []judge.Failure, passed int, pass bool) {
	if len(fs) == 0 {
		return
	}
	v.add(i, fs)
	v.trialsPassed = append(v.trialsPassed, uint16(passed)) // at most load's limit of 1,000
	v.passes = append(v.passes, pass)
	for _, f := range fs {
		v.failureTrials = append(v.failureTrials, uint16(f.Trial))
	}
}

// verdictCursor reads verdicts back in suite order; each reader has its
// own, so results files and the report can be written side by side.
type verdictCursor struct {
	v          *verdicts
	ids, texts []string // the blocks of each textStore
	next       int      // index in failing of the next failing case
	c          CaseResult
	buf        []judge.Failure
}

func (v *verdicts) cursor() *verdictCursor {
	return &verdictCursor{v: v, ids: v.cases.ids.store.blocks(), texts: v.texts.blocks(), buf: make([]judge.Failure, 0, 8)}
}

// at is the result of case i, valid until the next call; calls must come
// in ascending order of i.
func (cur *verdictCursor) at(i int) *CaseResult {
	v := cur.v
	cur.c = CaseResult{CaseID: v.cases.id(cur.ids, i), Severity: severityOrder[v.cases.severities[i]], Passed: true,
		Trials: v.k, TrialsPassed: v.k, Failures: cur.buf[:0]}
	for cur.next < len(v.failing) && int(v.failing[cur.next]) < i {
		cur.next++
	}
	if j := cur.next; j < len(v.failing) && int(v.failing[j]) == i {
		start := uint32(0)
		if j > 0 {
			start = v.failureEnds[j-1]
		}
		for f := start; f < v.failureEnds[j]; f++ {
			failure := judge.Failure{Code: judge.Code(cur.text(2 * f)), Detail: cur.text(2*f + 1)}
			if v.k > 0 {
				failure.Trial = int(v.failureTrials[f])
			}
			cur.c.Failures = append(cur.c.Failures, failure)
		}
		cur.c.Passed = false
		if v.k > 0 {
			cur.c.TrialsPassed, cur.c.Passed = int(v.trialsPassed[j]), v.passes[j]
		}
		cur.buf = cur.c.Failures
	}
	return &cur.c
}

func (cur *verdictCursor) text(k uint32) string {
	start := uint32(0)
	if k > 0 {
		start = cur.v.textEnds[k-1]
	}
	return cur.v.texts.text(cur.texts, start, cur.v.textEnds[k])
}

// textStore keeps many short texts one after another, each found by
// where it starts and ends. The texts are written into blocks that are
// never copied again, rather than into one buffer that is copied, and
// its memory touched anew, each time it grows: a large suite's ids and
// failures run to megabytes (docs/design.md, "Scale: streaming
// evaluation").
type textStore struct {
	sealed []string        // the full blocks
	starts []uint32        // where each block starts, the open one last
	open   strings.Builder // the block being written
	size   uint32          // the length of all texts
}

// The first block holds 64 KiB; each next one twice as much, up to 1 MiB.
const firstTextBlock, maxTextBlock = 64 << 10, 1 << 20

// add appends s and returns where it ends.
func (t *textStore) add(s string) uint32 {
	if t.open.Len()+len(s) > t.open.Cap() {
		if len(t.starts) > 0 {
			t.sealed = append(t.sealed, t.open.String())
			t.open = strings.Builder{}
		}
		t.open.Grow(max(len(s), min(firstTextBlock<<len(t.sealed), maxTextBlock)))
		t.starts = append(t.starts, t.size)
	}
	t.open.WriteString(s)
	t.size += uint32(len(s))
	return t.size
}

// blocks are the store's blocks as they stand, for text.
func (t *textStore) blocks() []string {
	return append(t.sealed[:len(t.sealed):len(t.sealed)], t.open.String())
}

// text is the text from start to end, read from blocks, or from the
// store as it stands when blocks is nil.
func (t *textStore) text(blocks []string, start, end uint32) string {
	// The block that holds start: the last that starts at or before it.
	b, _ := slices.BinarySearch(t.starts, start+1)
	if b == 0 {
		return "" // the store is empty
	}
	b--
	var block string
	switch {
	case blocks != nil:
		block = blocks[b]
	case b < len(t.sealed):
		block = t.sealed[b]
	default:
		block = t.open.String()
	}
	return block[start-t.starts[b] : end-t.starts[b]]
}

// EachCase calls fn with every case result of the snapshot in suite
// order. The result is valid only during the call.
func (s *Snapshot) EachCase(fn func(i int, c *CaseResult)) {
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

// eachFailing is EachCase for the failing cases only.
func (s *Snapshot) eachFailing(fn func(c *CaseResult)) {
	if v := s.Result.streamed; v != nil {
		cur := v.cursor()
		for _, i := range v.failing {
			if c := cur.at(int(i)); !c.Passed {
				fn(c)
			}
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
		return len(v.failing) > 0 && (v.k == 0 || slices.Contains(v.passes, false))
	}
	for i := range s.Result.Cases {
		if !s.Result.Cases[i].Passed {
			return true
		}
	}
	return false
}
