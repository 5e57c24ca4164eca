package load

import (
	"hash/maphash"
	"sync"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// CaseLines remembers the cases of the last reading of a cases file by
// the text of their lines, so that the next reading parses only the lines
// that changed: a live server keeps one, and an edit of one case, or of
// POLICY.md, then costs a hash of each line instead of parsing 100,000
// of them (docs/design.md, "serve --watch at 100,000 cases × 3").
//
// A line is known by two 64-bit hashes of its text under seeds chosen
// when the CaseLines is made, and its length. A remembered case is taken
// only when the schema and KeepInputs are those it was read with, and
// when every rule it cites is a rule of the policy read now (the only
// thing a case line is checked against besides the schema); any other
// line is parsed, so a problem is worded as it always is. A case read
// from a line is the same whichever line number it stands on, but for
// its Line, which is set.
//
// The zero CaseLines is not ready: make one with NewCaseLines. It is
// safe for one reading at a time.
type CaseLines struct {
	lineKeys

	mu    sync.Mutex
	cases map[lineKey]*suite.Case
	// What the remembered cases were read with.
	schemaSHA256 string
	keepInputs   bool
}

// lineKey is a line known by two 64-bit hashes of its text and its
// length.
type lineKey struct {
	a, b uint64
	n    int
}

// lineKeys makes the keys of lines under two seeds of its own.
type lineKeys struct{ seeds [2]maphash.Seed }

func newLineKeys() lineKeys { return lineKeys{[2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}} }

func (l lineKeys) key(text []byte) lineKey {
	return lineKey{maphash.Bytes(l.seeds[0], text), maphash.Bytes(l.seeds[1], text), len(text)}
}

// NewCaseLines makes an empty CaseLines.
func NewCaseLines() *CaseLines { return &CaseLines{lineKeys: newLineKeys()} }

// begin starts a reading with the schema of that hash and keepInputs: it
// returns the cases remembered from the last reading when they were read
// alike (nil otherwise) and forgets them, to remember this reading's.
func (l *CaseLines) begin(schemaSHA256 string, keepInputs bool) map[lineKey]*suite.Case {
	l.mu.Lock()
	defer l.mu.Unlock()
	was := l.cases
	if l.schemaSHA256 != schemaSHA256 || l.keepInputs != keepInputs {
		was = nil
	}
	l.cases, l.schemaSHA256, l.keepInputs = make(map[lineKey]*suite.Case, len(was)), schemaSHA256, keepInputs
	return was
}

func (l *CaseLines) remember(k lineKey, c *suite.Case) {
	l.mu.Lock()
	l.cases[k] = c
	l.mu.Unlock()
}

// reuse is the case remembered for text, moved to line, when the policy
// p reads it with allows it.
func (p *caseParser) reuse(k lineKey, line int) (*suite.Case, bool) {
	old, ok := p.known[k]
	if !ok || !p.knownRules(old.Expected.Citations) {
		return nil, false
	}
	c := *old // its lists are shared: no one changes a read case
	c.Line = line
	return &c, true
}
