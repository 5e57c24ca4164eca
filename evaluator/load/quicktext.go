package load

import (
	"bytes"
	"regexp"
	"unicode/utf8"
)

// checkText is check for the value that starts at s.i, read from its
// text rather than from a decoded tree, so that a case line need not be
// built to be validated (see "Fast paths" in docs/design.md). Its yes
// and no are as certain as check's; it says unsure wherever check would,
// and in a few more places (a uniqueItems array holding an escaped
// string). After yes or unsure, s.i is past the value; after no it is
// anywhere in it.
func (q *quickSchema) checkText(s *validScanner) verdict {
	c := s.next()
	start := s.i
	if q == nil || q.never {
		s.skip()
		if q == nil {
			return yes
		}
		return no
	}
	r := q.typeText(s, c)
	if q.typeOnly {
		s.i = start
		s.skip()
		return r
	}
	if r != no && q.hasEnum {
		s.i = start
		r = r.and(enumText(s, c, q.enum))
	}
	if r != no && q.ref != nil {
		s.i = start
		r = r.and(q.ref.checkText(s))
	}
	if r != no && q.if_ != nil {
		s.i = start
		switch q.if_.checkText(s) {
		case yes:
			s.i = start
			r = r.and(q.then.checkText(s))
		case no:
			s.i = start
			r = r.and(q.else_.checkText(s))
		default:
			r = r.and(unsure)
		}
	}
	if r == no {
		return no
	}
	s.i = start
	switch c {
	case '{':
		r = r.and(q.objectText(s))
	case '[':
		r = r.and(q.arrayText(s))
	case '"':
		r = r.and(q.stringText(s.d, s.text()))
	default:
		s.skip()
	}
	return r
}

// textKind is the JSON type of the value whose first byte is c.
func textKind(c byte) int {
	switch c {
	case 'n':
		return nullType
	case 't', 'f':
		return booleanType
	case '"':
		return stringType
	case '[':
		return arrayType
	case '{':
		return objectType
	}
	return numberType
}

// typeText is checkType for the value that starts with c at s.i.
func (q *quickSchema) typeText(s *validScanner, c byte) verdict {
	if q.types == 0 {
		return yes
	}
	t := textKind(c)
	if t == numberType {
		switch {
		case q.types&numberType != 0:
			return yes
		case q.types&integerType == 0:
			return no
		case bytes.ContainsAny(s.number(), ".eE"):
			return unsure // 1.0 and 1e2 are integers too
		}
		return yes // an integer literal
	}
	if q.types&t != 0 {
		return yes
	}
	return no
}

// enumText is inEnum for the value that starts with c at s.i.
func enumText(s *validScanner, c byte, enum []any) verdict {
	var text []byte
	if c == '"' {
		text = s.text()
	}
	kind := textKind(c)
	r := no
	for _, e := range enum {
		switch c {
		case '"':
			if e, ok := e.(string); ok && e == string(text) {
				return yes
			}
		case 't', 'f':
			if e == (c == 't') {
				return yes
			}
		case 'n':
			if e == nil {
				return yes
			}
		default:
			if kindOf(e) == kind {
				r = unsure
			}
		}
	}
	return r
}

// objectText is checkObject for the object at s.i.
func (q *quickSchema) objectText(s *validScanner) verdict {
	if len(q.required) > 64 {
		s.skip()
		return unsure
	}
	r := yes
	var found uint64
	n := 0
	s.members(func(name []byte) bool {
		n++
		for i, req := range q.required {
			if req == string(name) {
				found |= 1 << i
			}
		}
		switch p := q.prop(name); {
		case p != nil:
			r = r.and(p.checkText(s))
		case q.noAdditional:
			r = no
		case q.additional != nil:
			r = r.and(q.additional.checkText(s))
		default:
			s.skip()
		}
		return r != no
	})
	if r == no || found != 1<<len(q.required)-1 {
		return no
	}
	if q.minProps >= 0 && n < q.minProps || q.maxProps >= 0 && n > q.maxProps {
		return no
	}
	return r
}

// prop is the schema "properties" gives name, nil when it gives none.
func (q *quickSchema) prop(name []byte) *quickSchema {
	lo, hi := 0, len(q.props)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch p := q.props[m].name; {
		case p == string(name):
			return q.props[m].schema
		case p < string(name):
			lo = m + 1
		default:
			hi = m
		}
	}
	return nil
}

// arrayText is checkArray for the array at s.i. For uniqueItems it
// compares strings, booleans and null by their text, and leaves an
// escaped string, like any other value, to the library.
func (q *quickSchema) arrayText(s *validScanner) verdict {
	r := yes
	n := 0
	d := s.d
	base := len(d.spans)
	s.elements(func() bool {
		c := s.next()
		start := s.i
		r = r.and(q.items.checkText(s))
		if r == no {
			return false
		}
		if q.unique && r == yes {
			if n > 32 || c != '"' && c != 't' && c != 'f' && c != 'n' || bytes.IndexByte(s.b[start:s.i], '\\') >= 0 {
				r = unsure
			} else {
				d.spans = append(d.spans, [2]int{start, s.i})
			}
		}
		n++
		return true
	})
	spans := d.spans[base:]
	d.spans = d.spans[:base]
	if r == no || q.minItems >= 0 && n < q.minItems || q.maxItems >= 0 && n > q.maxItems {
		return no
	}
	if q.unique && r == yes {
		for i, a := range spans {
			for _, b := range spans[:i] {
				if bytes.Equal(s.b[a[0]:a[1]], s.b[b[0]:b[1]]) {
					return no
				}
			}
		}
	}
	return r
}

// stringText is checkString for the unquoted text of a string; d keeps
// what patterns answered for strings that repeat.
func (q *quickSchema) stringText(d *jsonDecoder, b []byte) verdict {
	if q.minLength >= 0 || q.maxLength >= 0 {
		n := utf8.RuneCount(b)
		if q.minLength >= 0 && n < q.minLength || q.maxLength >= 0 && n > q.maxLength {
			return no
		}
	}
	if q.pattern == nil || d.matches(q, b) {
		return yes
	}
	return no
}

// Pattern answers are kept for short strings, a bounded number of them
// for each pattern: rule ids and other words repeat from line to line.
const (
	maxMatchesKept   = 1024
	maxMatchedLength = 64
)

// matches is whether the pattern of q matches b, remembered for b.
func (d *jsonDecoder) matches(q *quickSchema, b []byte) bool {
	kept := d.patternAnswers[q]
	if match, ok := kept[string(b)]; ok {
		return match
	}
	var match bool
	if re, ok := q.pattern.(*regexp.Regexp); ok {
		match = re.Match(b)
	} else {
		match = q.pattern.MatchString(string(b))
	}
	if len(b) <= maxMatchedLength && len(kept) < maxMatchesKept {
		if kept == nil {
			if d.patternAnswers == nil {
				d.patternAnswers = map[*quickSchema]map[string]bool{}
			}
			kept = map[string]bool{}
			d.patternAnswers[q] = kept
		}
		kept[string(b)] = match
	}
	return match
}
