package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// jsonDecoder decodes one JSON line at a time into suite.Objects, slices,
// strings, booleans, nil and json.Number (the literal, so numbers compare
// exactly). It is strict where encoding/json is lenient: a repeated member
// name and invalid UTF-8 are errors, since either would let a line mean
// something other than it says. One decoder serves many lines, so its
// buffers are not allocated again for each; it is not safe for concurrent
// use.
type jsonDecoder struct {
	r   bytes.Reader
	dec *jsontext.Decoder
	// unquoted holds the last string read that had escapes.
	unquoted []byte
	// memberStack and elementStack are where objects and arrays are
	// built before being copied out at their final size.
	memberStack  suite.Object
	elementStack []any
	citations    []string // an output's citations, before they are copied out
	// spans are where the items of arrays that must be unique start and
	// end, while checkText compares them.
	spans [][2]int
	// names are where the member names of the open objects start and end,
	// while quickValid looks for a repeated one.
	names []quickName
	// patternAnswers are the answers of the patterns of a quick schema
	// for the short strings checked against them (quickSchema.matches).
	patternAnswers map[*quickSchema]map[string]bool
	// ends are where the objects and arrays of the last line quickValid
	// accepted end.
	ends containerEnds
	// interned maps short strings already seen to one copy of them:
	// member names, decisions, tool names and rule ids repeat on every
	// line, and a large suite would otherwise allocate each again.
	interned map[string]string
	recent   [64]string
}

// Interning is bounded so that hostile or highly varied input cannot grow
// the table without limit; strings past the bound are simply allocated.
const (
	maxInterned    = 4096
	maxInternedLen = 64
)

func newJSONDecoder() *jsonDecoder {
	d := &jsonDecoder{interned: make(map[string]string)}
	d.dec = jsontext.NewDecoder(&d.r)
	return d
}

// text reads the next string, a value or a member name, and returns its
// unquoted bytes, valid until the next read.
func (d *jsonDecoder) text() ([]byte, error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], nil
	}
	d.unquoted, err = jsontext.AppendUnquote(d.unquoted[:0], raw)
	return d.unquoted, err
}

// string reads the next string as a Go string.
func (d *jsonDecoder) string() (string, error) {
	b, err := d.text()
	return string(b), err
}

// symbol is string for text that repeats from line to line, such as
// member names: each distinct one is allocated once.
func (d *jsonDecoder) symbol() (string, error) {
	b, err := d.text()
	return d.intern(b), err
}

// intern returns b as a string, allocating only the first time a short
// string is seen.
func (d *jsonDecoder) intern(b []byte) string {
	// A few names repeat on every line; a direct-mapped cache answers
	// them without hashing the whole string.
	slot := &d.recent[0]
	if len(b) > 0 {
		slot = &d.recent[(len(b)*31+int(b[0])*7+int(b[len(b)-1]))%len(d.recent)]
	}
	if *slot == string(b) {
		return *slot
	}
	if s, ok := d.interned[string(b)]; ok {
		*slot = s
		return s
	}
	s := string(b)
	if len(d.interned) < maxInterned && len(s) <= maxInternedLen {
		d.interned[s] = s
		*slot = s
	}
	return s
}

// decode reads exactly one JSON value from text. When the value is an
// object with a top-level member named rawMember, that member's value is
// also returned as written, and if it is an object and opaque is set, the
// tree holds an empty object in its place: its text is checked, not
// decoded.
func (d *jsonDecoder) decode(text []byte, rawMember string, opaque bool) (v any, raw []byte, err error) {
	if v, raw, ok := d.quickMembers(text, rawMember, opaque); ok {
		return v, raw, nil
	}
	return d.decodeTokens(text, rawMember, opaque)
}

// quickMembers is decode for an object that is valid and well formed,
// the common case: the text is checked in one pass, then built with no
// error handling, and the member kept as written is passed over, not
// built. It reports false for anything else, and the token decoder then
// finds the problem.
func (d *jsonDecoder) quickMembers(text []byte, rawMember string, opaque bool) (suite.Object, []byte, bool) {
	if !jsontext.Value(text).IsValid() {
		return nil, nil, false
	}
	s := &validScanner{b: text, d: d}
	if s.next() != '{' {
		return nil, nil, false
	}
	obj := make(suite.Object, 0, 8) // room for a case's members
	var raw []byte
	s.members(func(name []byte) bool {
		key := d.intern(name)
		var v any
		if key == rawMember && opaque && s.next() == '{' {
			start := s.i
			s.skip()
			raw, v = text[start:s.i], suite.Object{}
		} else {
			s.next()
			start := s.i
			v = s.value()
			if key == rawMember {
				raw = text[start:s.i]
			}
		}
		obj = append(obj, suite.Member{Name: key, Value: v})
		return true
	})
	obj.Sort()
	return obj, raw, true
}

// decodeTokens is decode token by token, which words a syntax error.
func (d *jsonDecoder) decodeTokens(text []byte, rawMember string, opaque bool) (v any, raw []byte, err error) {
	err = d.read(text, func() (err error) {
		if rawMember != "" && d.dec.PeekKind() == '{' {
			v, raw, err = d.readObject(text, rawMember, opaque)
		} else {
			v, err = d.value()
		}
		return err
	})
	return v, raw, err
}

// read runs value over text, which must hold exactly one JSON value, and
// words any syntax error with its column.
func (d *jsonDecoder) read(text []byte, value func() error) error {
	d.r.Reset(text)
	d.dec.Reset(&d.r)
	err := value()
	if err == nil {
		if _, err = d.dec.ReadToken(); err == io.EOF {
			return nil
		} else if err == nil {
			err = fmt.Errorf("unexpected data after the value")
		}
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		return &syntaxError{col: int(syn.ByteOffset) + 1, detail: syn.Err.Error(), early: errors.Is(syn.Err, io.ErrUnexpectedEOF)}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &syntaxError{col: len(text) + 1, early: true}
	}
	return &syntaxError{col: int(d.dec.InputOffset()) + 1, detail: err.Error()}
}

// readObject is value for a top-level object, keeping the text of one
// member's value and, if opaque, not decoding it when it is an object.
func (d *jsonDecoder) readObject(text []byte, rawMember string, opaque bool) (suite.Object, []byte, error) {
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, nil, err
	}
	obj := suite.Object{}
	var raw []byte
	for d.dec.PeekKind() != '}' {
		name, err := d.symbol()
		if err != nil {
			return nil, nil, err
		}
		start := d.dec.InputOffset()
		var v any
		if name == rawMember && opaque && d.dec.PeekKind() == '{' {
			// ReadValue checks syntax, UTF-8 and member names as
			// thoroughly as reading token by token.
			_, err = d.dec.ReadValue()
			v = suite.Object{}
		} else {
			v, err = d.value()
		}
		if err != nil {
			return nil, nil, err
		}
		if name == rawMember {
			raw = bytes.TrimLeft(text[start:d.dec.InputOffset()], ": \t\r\n")
		}
		obj = append(obj, suite.Member{Name: name, Value: v})
	}
	_, err := d.dec.ReadToken()
	obj.Sort()
	return obj, raw, err
}

// value builds the next value from the token stream.
func (d *jsonDecoder) value() (any, error) {
	switch d.dec.PeekKind() {
	case '"':
		return d.string()
	case '0':
		raw, err := d.dec.ReadValue()
		return json.Number(d.intern(raw)), err
	case '[':
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		arr := []any{}
		for d.dec.PeekKind() != ']' {
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := d.dec.ReadToken()
		return arr, err
	case '{':
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		obj := suite.Object{}
		for d.dec.PeekKind() != '}' {
			name, err := d.symbol()
			if err != nil {
				return nil, err
			}
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			obj = append(obj, suite.Member{Name: name, Value: v})
		}
		_, err := d.dec.ReadToken()
		obj.Sort()
		return obj, err
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 'f', 't':
		return tok.Bool(), nil
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

// fieldReader pulls typed fields out of a decoded JSON object and keeps the
// first problem as an error naming file, line and field path. After a
// failure every further call returns a zero value, so callers check once.
type fieldReader struct {
	file string
	line int
	err  error
}

func (r *fieldReader) fail(path, format string, args ...any) {
	if r.err == nil {
		r.err = &suite.InputError{File: r.file, Line: r.line, Field: path, Msg: fmt.Sprintf(format, args...)}
	}
}

// join extends a field path with an object key.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// index extends a field path with an array index.
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// typeName names a JSON value's type for messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case suite.Object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// field returns the required member key of obj.
func (r *fieldReader) field(obj suite.Object, path, key string) any {
	if r.err != nil {
		return nil
	}
	v, ok := obj.Get(key)
	if !ok {
		r.fail(join(path, key), "missing required field")
	}
	return v
}

func (r *fieldReader) object(v any, path string) suite.Object {
	if r.err != nil {
		return nil
	}
	m, ok := v.(suite.Object)
	if !ok {
		r.fail(path, "expected an object, got %s", typeName(v))
	}
	return m
}

func (r *fieldReader) array(v any, path string) []any {
	if r.err != nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		r.fail(path, "expected an array, got %s", typeName(v))
	}
	return a
}

func (r *fieldReader) str(v any, path string) string {
	if r.err != nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.fail(path, "expected a string, got %s", typeName(v))
	}
	return s
}

// nonEmpty is str for strings that must say something.
func (r *fieldReader) nonEmpty(v any, path string) string {
	s := r.str(v, path)
	if r.err == nil && s == "" {
		r.fail(path, "must not be empty")
	}
	return s
}

func (r *fieldReader) strs(v any, path string) []string {
	a := r.array(v, path)
	out := make([]string, 0, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok && r.err == nil {
			r.fail(index(path, i), "expected a string, got %s", typeName(e))
		}
		out = append(out, s)
	}
	return out
}
