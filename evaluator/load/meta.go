package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// MetaSuffix ends the name of a snapshot's optional description,
// outputs/<label>.meta.json.
const MetaSuffix = ".meta.json"

// Meta parses a snapshot's meta.json: an object whose members, all
// optional, are the strings recorded_at (RFC 3339), model, commit and
// description. Unknown members are refused, so a misspelt one does not
// silently fall away.
func Meta(file string, data []byte) (*suite.Meta, error) {
	data = bytes.TrimPrefix(data, bom)
	r := &metaReader{file: file, data: data, dec: jsontext.NewDecoder(bytes.NewReader(data)), m: &suite.Meta{}}
	dec := r.dec
	if k := dec.PeekKind(); k != '{' {
		if _, err := dec.ReadValue(); err != nil {
			return nil, r.syntax(err)
		}
		return nil, r.fail(0, "", "expected a JSON object describing the snapshot, got %s", kindName(k))
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, r.syntax(err)
	}
	// A syntax error ends the reading; a wrong member is noted and the
	// reading goes on, so that one run reports them all.
	for dec.PeekKind() != '}' {
		if err := r.member(); err != nil {
			return nil, err
		}
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	if err := JoinProblems(r.problems); err != nil {
		return nil, err
	}
	return r.m, nil
}

// metaReader reads a meta.json, noting the problems with its members.
type metaReader struct {
	file     string
	data     []byte
	dec      *jsontext.Decoder
	m        *suite.Meta
	problems []error
}

// metaMembers are the members a meta.json may have.
var metaMembers = []string{"recorded_at", "model", "commit", "description"}

// fail is the InputError for the member field at offset off.
func (r *metaReader) fail(off int64, field, format string, args ...any) error {
	line := 1 + bytes.Count(r.data[:min(int(off), len(r.data))], []byte("\n"))
	return &suite.InputError{File: r.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// syntax words an error of the decoder: a member set twice, or JSON that
// cannot be read.
func (r *metaReader) syntax(err error) error {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		if syn.Err == jsontext.ErrDuplicateName {
			return r.fail(syn.ByteOffset, syn.JSONPointer.LastToken(), "set twice")
		}
		return documentSyntaxError(r.file, r.data, int(syn.ByteOffset), errors.Is(syn.Err, io.ErrUnexpectedEOF), syn.Err.Error())
	}
	return documentSyntaxError(r.file, r.data, len(r.data), true, "")
}

// field is where the member key goes, nil for a member meta.json has not.
func (r *metaReader) field(key string) *string {
	switch key {
	case "recorded_at":
		return &r.m.RecordedAt
	case "model":
		return &r.m.Model
	case "commit":
		return &r.m.Commit
	case "description":
		return &r.m.Description
	}
	return nil
}

// member reads one member, noting an unknown one, a value that is not a
// string, and a recorded_at that is not RFC 3339; the error is a syntax
// error, which ends the reading.
func (r *metaReader) member() error {
	dec := r.dec
	tok, err := dec.ReadToken()
	if err != nil {
		return r.syntax(err)
	}
	key, keyAt := tok.String(), dec.InputOffset()
	dst := r.field(key)
	if dst == nil {
		e := r.fail(keyAt, key, "").(*suite.InputError)
		e.Msg, e.Fix = unknownName("member", key, metaMembers)
		r.problems = append(r.problems, e)
		if _, err := dec.ReadValue(); err != nil {
			return r.syntax(err)
		}
		return nil
	}
	kind := dec.PeekKind()
	val, err := dec.ReadToken()
	if err != nil {
		return r.syntax(err)
	}
	if kind != '"' {
		r.problems = append(r.problems, r.fail(keyAt, key, "expected a string, got %s", kindName(kind)))
		return nil
	}
	*dst = val.String()
	if _, ok := RecordedAt(r.m); key == "recorded_at" && !ok {
		r.problems = append(r.problems, r.fail(keyAt, key, "%q is not an RFC 3339 date and time such as 2026-11-12T09:30:00Z", *dst))
	}
	return nil
}

// end reads the end of the object, which must end the file.
func (r *metaReader) end() error {
	if _, err := r.dec.ReadToken(); err != nil {
		return r.syntax(err)
	}
	if _, err := r.dec.ReadToken(); err != io.EOF {
		if err == nil {
			return r.fail(r.dec.InputOffset(), "", "unexpected data after the object")
		}
		return r.syntax(err)
	}
	return nil
}

// rfc3339 is RFC 3339's date-time, which time.Parse alone reads more
// loosely.
var rfc3339 = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`)

// RecordedAt returns when the snapshot was recorded, false when its meta
// does not say (or says it in another format than RFC 3339).
func RecordedAt(m *suite.Meta) (time.Time, bool) {
	if m == nil || !rfc3339.MatchString(m.RecordedAt) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(m.RecordedAt))
	return t, err == nil
}

// MetaBeside reads the meta.json beside the outputs file at path
// (outputs/<label>.meta.json for outputs/<label>.jsonl); nil when there
// is none.
func MetaBeside(path string) (*suite.Meta, error) {
	metaPath := strings.TrimSuffix(path, ".jsonl") + MetaSuffix
	data, err := ReadNamed(metaPath, MaxSmallJSONBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Meta(metaPath, data)
}
