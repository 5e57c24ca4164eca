package load

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// The typed readers below take one value from the token stream. A value of
// the wrong type is recorded in r and skipped, so the rest of the line is
// still checked for syntax; the error they return is a syntax error only.

// kindName names a JSON kind for messages, as typeName does for values.
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

// expect checks the kind of the next value; on a mismatch it records the
// problem, skips the value and reports false.
func (d *jsonDecoder) expect(r *fieldReader, path string, want jsontext.Kind, wantName string) (bool, error) {
	if k := d.dec.PeekKind(); k != want {
		r.fail(path, "expected %s, got %s", wantName, kindName(k))
		return false, d.dec.SkipValue()
	}
	return true, nil
}

// members calls member with each member name of an object; member must
// consume the value.
func (d *jsonDecoder) members(r *fieldReader, path string, member func(name string) error) error {
	if ok, err := d.expect(r, path, '{', "an object"); !ok {
		return err
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for d.dec.PeekKind() != '}' {
		tok, err := d.dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(tok.String()); err != nil {
			return err
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

// elements calls element with the index of each element of an array;
// element must consume the value.
func (d *jsonDecoder) elements(r *fieldReader, path string, element func(i int) error) error {
	if ok, err := d.expect(r, path, '[', "an array"); !ok {
		return err
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; d.dec.PeekKind() != ']'; i++ {
		if err := element(i); err != nil {
			return err
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

func (d *jsonDecoder) str(r *fieldReader, path string) (string, error) {
	if ok, err := d.expect(r, path, '"', "a string"); !ok {
		return "", err
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		return "", err
	}
	return tok.String(), nil
}

func (d *jsonDecoder) strs(r *fieldReader, path string) ([]string, error) {
	out := []string{}
	err := d.elements(r, path, func(i int) error {
		s, err := d.str(r, index(path, i))
		out = append(out, s)
		return err
	})
	return out, err
}

// nonNegative reads a JSON number that must be zero or more.
func (d *jsonDecoder) nonNegative(r *fieldReader, path string) (suite.Number, error) {
	if ok, err := d.expect(r, path, '0', "a number"); !ok {
		return suite.Number{}, err
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		return suite.Number{}, err
	}
	n, perr := suite.ParseNumber(tok.String())
	switch {
	case perr != nil:
		r.fail(path, "%v", perr)
	case n.Sign() < 0:
		r.fail(path, "must not be negative, got %s", n)
	}
	return n, nil
}

// toolCalls reads an array of {"name": string, "arguments": object};
// other members of a call are skipped.
func (d *jsonDecoder) toolCalls(r *fieldReader, path string) ([]suite.ToolCall, error) {
	calls := []suite.ToolCall{}
	err := d.elements(r, path, func(i int) error {
		p := index(path, i)
		var call suite.ToolCall
		var hasName, hasArgs bool
		err := d.members(r, p, func(name string) error {
			switch name {
			case "name":
				hasName = true
				s, err := d.str(r, join(p, "name"))
				if err == nil && r.err == nil && s == "" {
					r.fail(join(p, "name"), "must not be empty")
				}
				call.Name = s
				return err
			case "arguments":
				hasArgs = true
				if ok, err := d.expect(r, join(p, "arguments"), '{', "an object"); !ok {
					return err
				}
				v, err := readValue(d.dec)
				call.Arguments, _ = v.(map[string]any)
				return err
			}
			return d.dec.SkipValue()
		})
		switch {
		case err != nil:
			return err
		case !hasName:
			r.fail(join(p, "name"), "missing required field")
		case !hasArgs:
			r.fail(join(p, "arguments"), "missing required field")
		}
		calls = append(calls, call)
		return nil
	})
	return calls, err
}
