package load

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// An output line is short and read nearly whole, so checking that it is
// valid JSON (jsonDecoder.valid) and then reading it (quickOutput) goes
// over the same bytes twice. checkedOutput does both in one pass: the
// scanner, in its checking mode, checks each value as it reads it, by
// the rules quickValid follows (RFC 8259, valid UTF-8, no member name
// given twice), and gives up on anything invalid or that quickValid
// does not handle either. A line it gives up on is read as before, so
// every error is worded as before; FuzzQuickPaths holds what it accepts
// to jsontext.Value.IsValid and quickOutput. What it saves is in "Fast
// paths", docs/design.md.

// checkedOutput is quickOutput for a line not yet found valid: false
// when the line is invalid, or not one quickOutput reads.
func (d *jsonDecoder) checkedOutput(text []byte, line int) (*suite.Output, bool) {
	d.names = d.names[:0]
	d.ends.stop() // skip records nothing
	s := &validScanner{b: text, d: d, check: true}
	o, ok := s.output(line)
	if !ok || !s.checkedEnd() {
		return nil, false
	}
	return o, true
}

// checkedEnd reports whether the text ends after the value just read,
// which is then known to be valid JSON.
func (s *validScanner) checkedEnd() bool {
	if s.space(); s.bad || s.i != len(s.b) {
		s.fail()
		return false
	}
	return true
}

// fail marks the text bad and ends the reading: every later read finds
// the end of the text.
func (s *validScanner) fail() {
	s.bad = true
	s.i = len(s.b)
}

// checkedNext is next when checking: the separators are read by
// checkedMembers and checkedElements, so it only looks.
func (s *validScanner) checkedNext() byte {
	if s.i >= len(s.b) {
		s.fail()
		return 0
	}
	return s.b[s.i]
}

// checkedText is text when checking.
func (s *validScanner) checkedText() []byte {
	start := s.i
	end, escaped, ok := validString(s.b, start)
	if !ok {
		s.fail()
		return nil
	}
	s.i = end
	if !escaped {
		return s.b[start+1 : end-1]
	}
	s.d.unquoted, _ = jsontext.AppendUnquote(s.d.unquoted[:0], s.b[start:end]) // valid, so no error
	return s.d.unquoted
}

// checkedNumber is number when checking.
func (s *validScanner) checkedNumber() []byte {
	start := s.i
	end, ok := validNumber(s.b, start)
	if !ok {
		s.fail()
		return nil
	}
	s.i = end
	return s.b[start:end]
}

// checkedSkip is skip when checking: quickValid's validator checks the
// value it passes over.
func (s *validScanner) checkedSkip() {
	s.space()
	v := validator{d: s.d, b: s.b}
	if s.i = v.value(s.i); s.i < 0 {
		s.fail()
	}
}

// open enters the object or array that starts here; false when there is
// none, or when it is nested deeper than quickValid handles. The caller
// leaves it.
func (s *validScanner) open(c byte) bool {
	if s.checkedNext() != c || s.depth == maxQuickDepth {
		s.fail()
		return false
	}
	s.depth++
	s.i++
	return true
}

// checkedMembers is members when checking: each name is checked and
// compared with the object's other names (jsonDecoder.memberName), and
// every separator is read here.
func (s *validScanner) checkedMembers(member func(name []byte) bool) bool {
	if s.space(); !s.open('{') {
		return false
	}
	d, b := s.d, s.b
	from := len(d.names)
	ok := s.checkedItems('}', func() bool {
		if s.i = d.memberName(b, s.i, from); s.i < 0 {
			s.fail()
			return false
		}
		n := d.names[len(d.names)-1]
		return member(b[n.start+1 : n.end-1])
	})
	d.names = d.names[:from]
	s.depth--
	return ok
}

// checkedElements is elements when checking.
func (s *validScanner) checkedElements(element func() bool) bool {
	if s.space(); !s.open('[') {
		return false
	}
	ok := s.checkedItems(']', element)
	s.depth--
	return ok
}

// checkedItems reads the items of the object or array just opened, up to
// its closing byte, and the commas between them; item reads one.
func (s *validScanner) checkedItems(closing byte, item func() bool) bool {
	b := s.b
	s.i = skipSpace(b, s.i)
	if s.i < len(b) && b[s.i] == closing {
		s.i++
		return true
	}
	for {
		if !item() || s.bad {
			return false
		}
		s.i = skipSpace(b, s.i)
		switch {
		case s.i < len(b) && b[s.i] == closing:
			s.i++
			return true
		case s.i < len(b) && b[s.i] == ',':
			s.i = skipSpace(b, s.i+1)
		default:
			s.fail()
			return false
		}
	}
}
