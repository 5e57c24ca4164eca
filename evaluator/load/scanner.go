package load

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// validScanner builds the value of JSON text that
// jsontext.Value.IsValid has accepted, with no error handling and no
// decoder state: argumentString uses it for arguments sent as a string,
// while the token decoder is in the middle of the line that holds them.
// It used to stand in front of the token decoder for every valid line,
// too; that was dropped (see "Fast paths" in docs/design.md).

// validScanner reads JSON text that jsontext.Value.IsValid has accepted.
type validScanner struct {
	b []byte
	i int
	d *jsonDecoder // for its interning table and scratch space
}

func (s *validScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space, and a ',' or ':' before a value, and returns the
// first byte of what follows.
func (s *validScanner) next() byte {
	s.space()
	if c := s.b[s.i]; c == ',' || c == ':' {
		s.i++
		s.space()
	}
	return s.b[s.i]
}

// text reads a string and returns its unquoted bytes, valid until the
// next string read.
func (s *validScanner) text() []byte {
	start := s.i
	s.i++
	// Jump to the next quote; only a backslash before it makes the scan
	// go byte by byte.
	end := s.i + bytes.IndexByte(s.b[s.i:], '"')
	escaped := bytes.IndexByte(s.b[s.i:end], '\\') >= 0
	if escaped {
		for ; s.b[s.i] != '"'; s.i++ {
			if s.b[s.i] == '\\' {
				s.i++
			}
		}
		end = s.i
	}
	s.i = end + 1
	raw := s.b[start:s.i]
	if !escaped {
		return raw[1 : len(raw)-1]
	}
	s.d.unquoted, _ = jsontext.AppendUnquote(s.d.unquoted[:0], raw) // valid, so no error
	return s.d.unquoted
}

// number reads a number literal.
func (s *validScanner) number() []byte {
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			continue
		}
		break
	}
	return s.b[start:s.i]
}

// members calls member with each member name of the object that starts
// here, until member returns false; it reports whether all were read.
// The name is valid until member reads.
func (s *validScanner) members(member func(name []byte) bool) bool {
	s.next()
	s.i++ // {
	for s.next() != '}' {
		if !member(s.text()) {
			return false
		}
	}
	s.i++
	return true
}

// elements calls element for each element of the array that starts here,
// until element returns false; it reports whether all were read.
func (s *validScanner) elements(element func() bool) bool {
	s.next()
	s.i++ // [
	for s.next() != ']' {
		if !element() {
			return false
		}
	}
	s.i++
	return true
}

// value builds the value that starts here, as jsonDecoder.value does.
func (s *validScanner) value() any {
	switch s.next() {
	case '"':
		return string(s.text())
	case '{':
		d, base := s.d, len(s.d.memberStack)
		s.members(func(name []byte) bool {
			key := d.intern(name)
			v := s.value() // may use the stack above base, and leaves it so
			d.memberStack = append(d.memberStack, suite.Member{Name: key, Value: v})
			return true
		})
		o := make(suite.Object, len(d.memberStack)-base)
		copy(o, d.memberStack[base:])
		clear(d.memberStack[base:]) // drop references for the collector
		d.memberStack = d.memberStack[:base]
		o.Sort()
		return o
	case '[':
		d, base := s.d, len(s.d.elementStack)
		s.elements(func() bool {
			v := s.value()
			d.elementStack = append(d.elementStack, v)
			return true
		})
		arr := make([]any, len(d.elementStack)-base)
		copy(arr, d.elementStack[base:])
		clear(d.elementStack[base:])
		d.elementStack = d.elementStack[:base]
		return arr
	case 't':
		s.i += 4
		return true
	case 'f':
		s.i += 5
		return false
	case 'n':
		s.i += 4
		return nil
	}
	return json.Number(s.number())
}
