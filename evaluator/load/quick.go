package load

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Most lines of a large suite or snapshot are well formed, and checking
// JSON text in one pass (jsonDecoder.valid: quickValid, or
// jsontext.Value.IsValid) costs a fraction of decoding it token by
// token. A line that passes is walked by validScanner with no error
// handling at all, which gives up on the first thing that is not exactly
// what the data format asks for. Any line it gives up on, and every
// invalid line, goes through the token decoder, which words the error. The two paths build the same values; FuzzQuickPaths
// holds them to that. See the package doc for what each path saves.

// validScanner reads JSON text already found valid.
type validScanner struct {
	b []byte
	i int
	d *jsonDecoder // for its interning table and scratch space
	// ends, when set, are where the objects and arrays of b end, so
	// that skip passes over them at once.
	ends *containerEnds
	// plain is set when b holds no backslash, so no string has escapes.
	plain bool
	// check makes the scanner check the text as it reads it, for text
	// not yet found valid (checkedOutput); bad is then set on anything
	// invalid or not handled, and the reading stops.
	check bool
	bad   bool
	depth int // of the objects and arrays open, when checking
}

// newValidScanner is a validScanner of text, which must be valid JSON.
func newValidScanner(text []byte, d *jsonDecoder) *validScanner {
	return &validScanner{b: text, d: d, plain: bytes.IndexByte(text, '\\') < 0}
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
	if s.check {
		return s.checkedNext()
	}
	if c := s.b[s.i]; c == ',' || c == ':' {
		s.i++
		s.space()
	}
	return s.b[s.i]
}

// text reads a string and returns its unquoted bytes, valid until the
// next string read.
func (s *validScanner) text() []byte {
	if s.check {
		return s.checkedText()
	}
	start := s.i
	s.i++
	// Jump to the next quote; only a backslash before it makes the scan
	// go byte by byte.
	end := s.i + bytes.IndexByte(s.b[s.i:], '"')
	if s.plain {
		s.i = end + 1
		return s.b[start+1 : end]
	}
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
	if s.check {
		return s.checkedNumber()
	}
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

// skip passes over one value.
func (s *validScanner) skip() {
	if s.check {
		s.checkedSkip()
		return
	}
	c := s.next()
	if s.ends != nil && (c == '{' || c == '[') {
		if end := s.ends.end(s.i); end > s.i {
			s.i = end
			return
		}
	}
	switch c {
	case '"':
		s.text()
	case '{', '[':
		depth := 0
		for {
			switch s.b[s.i] {
			case '"':
				s.text()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	case 't':
		s.literal("true")
	case 'n':
		s.literal("null")
	case 'f':
		s.literal("false")
	default:
		s.number()
	}
}

// literal passes over lit, which starts here.
func (s *validScanner) literal(lit string) {
	if s.check && !hasPrefixAt(s.b, s.i, lit) {
		s.fail()
		return
	}
	s.i += len(lit)
}

// members calls member with each member name of the object that starts
// here, until member returns false; it reports whether all were read.
// The name is valid until member reads.
func (s *validScanner) members(member func(name []byte) bool) bool {
	if s.check {
		return s.checkedMembers(member)
	}
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
	if s.check {
		return s.checkedElements(element)
	}
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
		s.literal("true")
		return true
	case 'f':
		s.literal("false")
		return false
	case 'n':
		s.literal("null")
		return nil
	}
	return json.Number(s.number())
}

// quickOutput is parseOutput for a line already found valid. It gives up,
// returning false, on anything the data format does not allow.
func (d *jsonDecoder) quickOutput(text []byte, line int) (*suite.Output, bool) {
	return newValidScanner(text, d).output(line)
}

// output reads an output line; false for anything the data format does
// not allow, and for anything a checking scanner finds bad.
func (s *validScanner) output(line int) (*suite.Output, bool) {
	if s.next() != '{' {
		return nil, false
	}
	o := &suite.Output{Line: line}
	var seen uint8 // outputBit of each field read
	ok := s.members(func(name []byte) bool {
		seen |= outputBit(name)
		return s.outputField(o, name)
	})
	if !ok || seen&requiredOutputFields != requiredOutputFields {
		return nil, false
	}
	if seen&citationsBit == 0 {
		o.Citations = []string{}
	}
	return o, true
}

// outputField reads the member name of an output line into o; false for
// a value the data format does not allow.
func (s *validScanner) outputField(o *suite.Output, name []byte) bool {
	var ok bool
	switch string(name) {
	case "case_id":
		o.CaseID, ok = s.quickString(false)
	case "decision":
		var dec string
		dec, ok = s.quickString(true)
		// An empty decision is refused; the token decoder words it.
		o.Decision, ok = suite.Decision(dec), ok && dec != ""
	case "tool_calls":
		o.ToolCalls, ok = s.toolCalls()
	case "citations":
		o.Citations, ok = s.quickCitations()
	case "latency_ms":
		o.LatencyMS, ok = s.measured()
	case "cost_usd":
		o.CostUSD, ok = s.measured()
	case "trial":
		if c := s.next(); c >= '0' && c <= '9' {
			o.Trial, ok = parseTrial(s.number())
		}
	default:
		s.skip()
		ok = true
	}
	return ok
}

// quickString reads a string; sym interns it, for the words that repeat
// from line to line.
func (s *validScanner) quickString(sym bool) (string, bool) {
	if s.next() != '"' {
		return "", false
	}
	if sym {
		return s.d.intern(s.text()), true
	}
	return string(s.text()), true
}

// measured reads a latency or cost: a number not below zero, or null.
func (s *validScanner) measured() (*suite.Number, bool) {
	switch c := s.next(); {
	case c == 'n':
		s.literal("null")
		return nil, true
	case c != '-' && (c < '0' || c > '9'):
		return nil, false
	}
	lit := s.number()
	if n, ok := suite.PlainNumber(lit); ok { // the common case
		return &n, true
	}
	n, err := suite.ParseNumber(string(lit))
	return &n, err == nil && n.Sign() >= 0
}

// quickCitations reads an array of strings, gathered in the decoder's
// buffer so that the list is allocated once, at its final size.
func (s *validScanner) quickCitations() ([]string, bool) {
	if s.next() != '[' {
		return nil, false
	}
	d := s.d
	cited := d.citations[:0]
	ok := s.elements(func() bool {
		c, ok := s.quickString(true)
		cited = append(cited, c)
		return ok
	})
	citations := make([]string, len(cited)) // at its final size
	copy(citations, cited)
	d.citations = cited
	return citations, ok
}

// toolCalls reads an array of calls in any of the wire formats
// outputCall knows.
func (s *validScanner) toolCalls() ([]suite.ToolCall, bool) {
	if s.next() != '[' {
		return nil, false
	}
	calls := make([]suite.ToolCall, 0, 1) // one call is the common case
	ok := s.elements(func() bool {
		if s.next() != '{' {
			return false
		}
		var item callItem
		s.members(func(name []byte) bool {
			value := func() any {
				if s.next() == '"' { // names and types repeat
					return s.d.intern(s.text())
				}
				return s.value()
			}
			if !item.set(string(name), value) {
				s.skip()
			}
			return true
		})
		call, problem := s.d.outputCall(&item)
		calls = append(calls, call)
		return problem == nil
	})
	return calls, ok
}
