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
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	fail := func(off int64, field, format string, args ...any) error {
		return &suite.InputError{File: file, Line: lineAt(off), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	syntax := func(err error) error {
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			if syn.Err == jsontext.ErrDuplicateName {
				return fail(syn.ByteOffset, syn.JSONPointer.LastToken(), "set twice")
			}
			return documentSyntaxError(file, data, int(syn.ByteOffset), errors.Is(syn.Err, io.ErrUnexpectedEOF), syn.Err.Error())
		}
		return documentSyntaxError(file, data, len(data), true, "")
	}
	m := &suite.Meta{}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if k := dec.PeekKind(); k != '{' {
		if _, err := dec.ReadValue(); err != nil {
			return nil, syntax(err)
		}
		return nil, fail(0, "", "expected a JSON object describing the snapshot, got %s", kindName(k))
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, syntax(err)
	}
	// A syntax error ends the reading; a wrong member is noted and the
	// reading goes on, so that one run reports them all.
	var problems []error
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, syntax(err)
		}
		key, keyAt := tok.String(), dec.InputOffset()
		var dst *string
		switch key {
		case "recorded_at":
			dst = &m.RecordedAt
		case "model":
			dst = &m.Model
		case "commit":
			dst = &m.Commit
		case "description":
			dst = &m.Description
		default:
			e := fail(keyAt, key, "").(*suite.InputError)
			e.Msg, e.Fix = unknownName("member", key, []string{"recorded_at", "model", "commit", "description"})
			problems = append(problems, e)
			if _, err := dec.ReadValue(); err != nil {
				return nil, syntax(err)
			}
			continue
		}
		kind := dec.PeekKind()
		val, err := dec.ReadToken()
		if err != nil {
			return nil, syntax(err)
		}
		if kind != '"' {
			problems = append(problems, fail(keyAt, key, "expected a string, got %s", kindName(kind)))
			continue
		}
		*dst = val.String()
		if _, ok := RecordedAt(m); key == "recorded_at" && !ok {
			problems = append(problems, fail(keyAt, key, "%q is not an RFC 3339 date and time such as 2026-11-12T09:30:00Z", *dst))
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, syntax(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			return nil, fail(dec.InputOffset(), "", "unexpected data after the object")
		}
		return nil, syntax(err)
	}
	if err := JoinProblems(problems); err != nil {
		return nil, err
	}
	return m, nil
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
