package load

import (
	"slices"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// OutputLines remembers the outputs of the last good reading of one
// outputs file by the text of their lines, so that the next reading
// parses only the lines that changed: a live server keeps one per
// snapshot, and an edit of one output then costs a hash of each line
// instead of parsing 100,000 of them (docs/design.md, "serve --watch at
// 100,000 cases × 3").
//
// A line is known as CaseLines knows it: by two 64-bit hashes of its text
// and its length. A remembered output is taken only when the suite's
// decisions are those it was read with (the only thing an output line is
// checked against besides the data format); any other line is parsed, so
// a problem is worded as it always is. An output read from a line is the
// same whichever line number it stands on, but for its Line, which is set.
// Everything else the suite checks an output against (its case, its
// trial, a decision its case requires) is checked for every line, taken
// or parsed.
//
// The zero OutputLines is not ready: make one with NewOutputLines. It is
// safe for one reading at a time.
type OutputLines struct {
	lineKeys
	outputs   map[lineKey]*suite.Output
	decisions suite.Vocabulary // what the remembered outputs were read with
}

// NewOutputLines makes an empty OutputLines.
func NewOutputLines() *OutputLines {
	return &OutputLines{lineKeys: newLineKeys()}
}

// Len is the number of lines remembered.
func (l *OutputLines) Len() int {
	if l == nil {
		return 0
	}
	return len(l.outputs)
}

// outputsReading is one reading of an outputs file with OutputLines:
// what the last reading left, and what this one finds.
type outputsReading struct {
	lines *OutputLines
	was   map[lineKey]*suite.Output
	found map[lineKey]*suite.Output
}

// begin starts a reading of a suite of these decisions; nil when lines
// is nil.
func (l *OutputLines) begin(decisions suite.Vocabulary) *outputsReading {
	if l == nil {
		return nil
	}
	r := &outputsReading{lines: l, found: make(map[lineKey]*suite.Output, len(l.outputs))}
	if slices.Equal(l.decisions, decisions) {
		r.was = l.outputs
	}
	return r
}

// parse is parseOutput, taking the output remembered for text when
// there is one.
func (r *outputsReading) parse(d *jsonDecoder, file string, line int, text []byte, decisions suite.Vocabulary) (*suite.Output, error) {
	if r == nil {
		return parseOutput(d, file, line, text, decisions)
	}
	k := r.lines.key(text)
	if old, ok := r.was[k]; ok {
		o := *old // its lists are shared: no one changes a read output
		o.Line = line
		r.found[k] = &o
		return &o, nil
	}
	o, err := parseOutput(d, file, line, text, decisions)
	if err == nil {
		r.found[k] = o
	}
	return o, err
}

// commit keeps what a good reading found for the next; after a failed
// reading the last good one's outputs stay remembered.
func (r *outputsReading) commit(decisions suite.Vocabulary) {
	if r == nil {
		return
	}
	r.lines.outputs, r.lines.decisions = r.found, slices.Clone(decisions)
}
