package runlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// A log is read token by token with a reader, which knows where in the
// document it is (the JSON path of the value being read) so that every
// problem can be named by file, line and field. Lines are counted only
// when a message needs one, by reading the document again up to the
// problem's offset.

// doc is one JSON document or JSON Lines stream being read: the file the
// user named, or a member of a zip archive.
type doc struct {
	name string // for messages
	// lines returns the 1-based line of a byte offset, 0 when unknown.
	lines func(off int64) int
}

func (d doc) lineAt(off int64) int {
	if d.lines == nil || off < 0 {
		return 0
	}
	return d.lines(off)
}

// linesOf counts lines by reading the document again from the start
// with open, up to the offset asked for.
func linesOf(open func() (io.ReadCloser, error)) func(off int64) int {
	return func(off int64) int {
		rc, err := open()
		if err != nil {
			return 0
		}
		defer rc.Close()
		line := 1
		buf := make([]byte, 64<<10)
		for left := off; left > 0; {
			n, err := rc.Read(buf[:min(int64(len(buf)), left)])
			line += bytes.Count(buf[:n], []byte("\n"))
			left -= int64(n)
			if err != nil {
				break
			}
		}
		return line
	}
}

// problem is bad input found at byte offset off of a document; the
// importer turns it into a suite.InputError once the line is known.
type problem struct {
	doc   doc
	off   int64
	field string
	msg   string
}

func (p *problem) Error() string { return p.inputError().Error() }

func (p *problem) inputError() *suite.InputError {
	return &suite.InputError{File: p.doc.name, Line: p.doc.lineAt(p.off), Field: p.field, Msg: p.msg}
}

// seg is one step of a JSON path: an object member or an array element.
// A member's name is kept in a buffer of its own, reused from object to
// object, so reading names costs no allocation.
type seg struct {
	name  []byte
	index int // -1 for a member
}

// reader reads one document with a jsontext.Decoder.
type reader struct {
	dec  *jsontext.Decoder
	doc  doc
	path []seg
}

// newReader reads with the defaults of jsontext: valid UTF-8, no
// duplicate member names, nesting bounded. Reads go through a large
// buffer: the decoder asks for a few kilobytes at a time, and a log of
// gigabytes would otherwise cost a system call for each.
func newReader(r io.Reader, d doc) *reader {
	return readerWith(bufio.NewReaderSize(r, 256<<10), d)
}

// readerWith reads through a buffer the caller keeps, as the importer
// does for the many small members of an archive.
func readerWith(br *bufio.Reader, d doc) *reader {
	return &reader{dec: jsontext.NewDecoder(br), doc: d}
}

// field is the JSON path of the value about to be read, as the rest of
// releasegate writes paths: results[3].response.output.
func (r *reader) field() string {
	var b strings.Builder
	for _, s := range r.path {
		if s.index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		seg := suite.KeySegment(string(s.name))
		if b.Len() == 0 {
			seg = strings.TrimPrefix(seg, ".")
		}
		b.WriteString(seg)
	}
	return b.String()
}

// here is the offset of the value about to be read: past the separator
// and white space that come before it, so that a message names its line.
func (r *reader) here() int64 {
	off := r.dec.InputOffset()
	for _, c := range r.dec.UnreadBuffer() {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ':' && c != ',' {
			break
		}
		off++
	}
	return off
}

// fail reports bad input at the value about to be read.
func (r *reader) fail(format string, args ...any) error {
	return &problem{doc: r.doc, off: r.here(), field: r.field(), msg: fmt.Sprintf(format, args...)}
}

// syntax words an error of the decoder: malformed JSON, or a document
// that ends early, which is what a truncated log looks like.
func (r *reader) syntax(err error) error {
	if err == nil {
		return nil
	}
	var p *problem
	if errors.As(err, &p) {
		return err
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		field := pointerField(syn.JSONPointer)
		if errors.Is(syn.Err, io.ErrUnexpectedEOF) {
			return &problem{doc: r.doc, off: syn.ByteOffset, field: field, msg: "the file ends in the middle of a JSON value: it is truncated (or still being written); import the complete file"}
		}
		return &problem{doc: r.doc, off: syn.ByteOffset, field: field, msg: "invalid JSON: " + syn.Err.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &problem{doc: r.doc, off: r.dec.InputOffset(), field: r.field(), msg: "the file ends in the middle of a JSON value: it is truncated (or still being written); import the complete file"}
	}
	return &readFailure{name: r.doc.name, err: err}
}

// readFailure is a document that could not be read at all (an I/O error,
// a damaged compressed member), as opposed to one that is bad JSON.
type readFailure struct {
	name string
	err  error
}

func (e *readFailure) Error() string { return fmt.Sprintf("%s: cannot be read: %v", e.name, e.err) }
func (e *readFailure) Unwrap() error { return e.err }

// pointerField writes a JSON Pointer as a path. A pointer does not say
// whether a step is an array index, so a step of digits is taken as one.
func pointerField(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			b.WriteString("[" + tok + "]")
			continue
		}
		seg := suite.KeySegment(tok)
		if b.Len() == 0 {
			seg = strings.TrimPrefix(seg, ".")
		}
		b.WriteString(seg)
	}
	return b.String()
}

// kindName names a JSON kind for messages.
func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "nothing"
}

// peek returns the kind of the next value, or the decoder's error.
func (r *reader) peek() (jsontext.Kind, error) {
	if k := r.dec.PeekKind(); k != 0 {
		return k, nil
	}
	_, err := r.dec.ReadToken()
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return 0, r.syntax(err)
}

// expect checks that the next value is of kind want.
func (r *reader) expect(want jsontext.Kind, wantName string) error {
	k, err := r.peek()
	if err != nil {
		return err
	}
	if k != want {
		return r.fail("expected %s, got %s", wantName, kindName(k))
	}
	return nil
}

// members reads an object, calling member with each member's name; member
// must read or skip the value. The name is valid until member returns.
func (r *reader) members(member func(name []byte) error) error {
	if err := r.expect('{', "an object"); err != nil {
		return err
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return r.syntax(err)
	}
	depth := r.push(-1)
	for r.dec.PeekKind() != '}' {
		v, err := r.dec.ReadValue()
		if err != nil {
			return r.syntax(err)
		}
		s := &r.path[depth]
		if bytes.IndexByte(v, '\\') < 0 {
			s.name = append(s.name[:0], v[1:len(v)-1]...)
		} else if s.name, err = jsontext.AppendUnquote(s.name[:0], v); err != nil {
			return r.syntax(err)
		}
		if err := member(s.name); err != nil {
			return err
		}
	}
	r.path = r.path[:depth]
	_, err := r.dec.ReadToken()
	return r.syntax(err)
}

// push adds a step to the path, keeping the name buffer of a step that
// was there before, and returns its depth.
func (r *reader) push(index int) int {
	depth := len(r.path)
	if depth < cap(r.path) {
		r.path = r.path[:depth+1]
	} else {
		r.path = append(r.path, seg{})
	}
	r.path[depth].index = index
	return depth
}

// elements reads an array, calling element with each index; element must
// read or skip the value.
func (r *reader) elements(element func(i int) error) error {
	if err := r.expect('[', "an array"); err != nil {
		return err
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return r.syntax(err)
	}
	depth := r.push(0)
	for i := 0; r.dec.PeekKind() != ']'; i++ {
		r.path[depth].index = i
		if err := element(i); err != nil {
			return err
		}
	}
	r.path = r.path[:depth]
	_, err := r.dec.ReadToken()
	return r.syntax(err)
}

// isNull reads a null and reports true, or reads nothing and reports
// false.
func (r *reader) isNull() (bool, error) {
	k, err := r.peek()
	if err != nil || k != 'n' {
		return false, err
	}
	_, err = r.dec.ReadToken()
	return true, r.syntax(err)
}

// str reads a string.
func (r *reader) str() (string, error) {
	if err := r.expect('"', "a string"); err != nil {
		return "", err
	}
	tok, err := r.dec.ReadToken()
	if err != nil {
		return "", r.syntax(err)
	}
	return tok.String(), nil
}

// optStr reads a string or null (false).
func (r *reader) optStr() (string, bool, error) {
	if null, err := r.isNull(); null || err != nil {
		return "", false, err
	}
	s, err := r.str()
	return s, err == nil, err
}

// num reads a number and returns its literal.
func (r *reader) num() (string, error) {
	if err := r.expect('0', "a number"); err != nil {
		return "", err
	}
	tok, err := r.dec.ReadToken()
	if err != nil {
		return "", r.syntax(err)
	}
	return tok.String(), nil
}

// optNum reads a number or null (false).
func (r *reader) optNum() (string, bool, error) {
	if null, err := r.isNull(); null || err != nil {
		return "", false, err
	}
	s, err := r.num()
	return s, err == nil, err
}

// decimal reads a non-negative number or null (nil), for a latency, a
// cost or a token count.
func (r *reader) decimal() (*Decimal, error) {
	if null, err := r.isNull(); null || err != nil {
		return nil, err
	}
	// The path is still the number's after it is read, so it is spelled
	// out only for a message.
	off := r.here()
	lit, err := r.num()
	if err != nil {
		return nil, err
	}
	d, err := ParseDecimal(lit)
	if err != nil {
		return nil, &problem{doc: r.doc, off: off, field: r.field(), msg: err.Error()}
	}
	if d.Sign() < 0 {
		return nil, &problem{doc: r.doc, off: off, field: r.field(), msg: fmt.Sprintf("%s is negative", lit)}
	}
	return &d, nil
}

// integer reads a whole number that fits an int.
func (r *reader) integer() (int, error) {
	off := r.here()
	lit, err := r.num()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(lit)
	if err != nil {
		return 0, &problem{doc: r.doc, off: off, field: r.field(), msg: fmt.Sprintf("expected a whole number, got %s", lit)}
	}
	return n, nil
}

// value reads any value and returns a copy of its JSON text.
func (r *reader) value() (jsontext.Value, error) {
	if _, err := r.peek(); err != nil {
		return nil, err
	}
	v, err := r.dec.ReadValue()
	if err != nil {
		return nil, r.syntax(err)
	}
	return v.Clone(), nil
}

// skip reads past the next value.
func (r *reader) skip() error {
	if _, err := r.peek(); err != nil {
		return err
	}
	return r.syntax(r.dec.SkipValue())
}
