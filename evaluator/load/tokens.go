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

// place is where a value sits in a line: a member of the top-level object,
// an element of one of its arrays, or a member of such an element. It is
// spelled out only when a message needs it.
type place struct {
	parent string // the top-level member
	index  int    // the element's index in parent, or -1
	name   string // the member's name within that element, or ""
}

// at is the place of a top-level member.
func at(name string) place { return place{parent: name, index: -1} }

// elem is the place of element i of p.
func (p place) elem(i int) place { return place{parent: p.parent, index: i} }

// member is the place of a member of p, an element.
func (p place) member(name string) place { return place{parent: p.parent, index: p.index, name: name} }

func (p place) String() string {
	s := p.parent
	if p.index >= 0 {
		s = index(s, p.index)
	}
	if p.name != "" {
		s = join(s, p.name)
	}
	return s
}

// expect checks the kind of the next value; on a mismatch it records the
// problem, skips the value and reports false.
func (d *jsonDecoder) expect(r *fieldReader, p place, want jsontext.Kind, wantName string) (bool, error) {
	if k := d.dec.PeekKind(); k != want {
		r.fail(p.String(), "expected %s, got %s", wantName, kindName(k))
		return false, d.dec.SkipValue()
	}
	return true, nil
}

// members calls member with each member name of an object; the name is
// valid only until member reads, and member must consume the value.
func (d *jsonDecoder) members(r *fieldReader, p place, member func(name []byte) error) error {
	if ok, err := d.expect(r, p, '{', "an object"); !ok {
		return err
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return err
	}
	for d.dec.PeekKind() != '}' {
		name, err := d.text()
		if err != nil {
			return err
		}
		if err := member(name); err != nil {
			return err
		}
	}
	_, err := d.dec.ReadToken()
	return err
}

// elements calls element with the index of each element of an array;
// element must consume the value.
func (d *jsonDecoder) elements(r *fieldReader, p place, element func(i int) error) error {
	if ok, err := d.expect(r, p, '[', "an array"); !ok {
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

func (d *jsonDecoder) str(r *fieldReader, p place) (string, error) {
	if ok, err := d.expect(r, p, '"', "a string"); !ok {
		return "", err
	}
	return d.string()
}

// sym is str for text that repeats from line to line.
func (d *jsonDecoder) sym(r *fieldReader, p place) (string, error) {
	if ok, err := d.expect(r, p, '"', "a string"); !ok {
		return "", err
	}
	return d.symbol()
}

// syms reads an array of strings that repeat from line to line.
func (d *jsonDecoder) syms(r *fieldReader, p place) ([]string, error) {
	out := []string{}
	err := d.elements(r, p, func(i int) error {
		s, err := d.sym(r, p.elem(i))
		out = append(out, s)
		return err
	})
	return out, err
}

// nonNegative reads a JSON number that must be zero or more.
func (d *jsonDecoder) nonNegative(r *fieldReader, p place) (suite.Number, error) {
	if ok, err := d.expect(r, p, '0', "a number"); !ok {
		return suite.Number{}, err
	}
	raw, err := d.dec.ReadValue()
	if err != nil {
		return suite.Number{}, err
	}
	n, perr := suite.ParseNumber(d.intern(raw))
	switch {
	case perr != nil:
		r.fail(p.String(), "%v", perr)
	case n.Sign() < 0:
		r.fail(p.String(), "must not be negative, got %s", n)
	}
	return n, nil
}

// toolCalls reads an array of {"name": string, "arguments": object};
// other members of a call are skipped.
func (d *jsonDecoder) toolCalls(r *fieldReader, p place) ([]suite.ToolCall, error) {
	calls := []suite.ToolCall{}
	err := d.elements(r, p, func(i int) error {
		call := p.elem(i)
		var tc suite.ToolCall
		var hasName, hasArgs bool
		err := d.members(r, call, func(name []byte) error {
			switch string(name) {
			case "name":
				hasName = true
				s, err := d.sym(r, call.member("name"))
				if err == nil && r.err == nil && s == "" {
					r.fail(call.member("name").String(), "must not be empty")
				}
				tc.Name = s
				return err
			case "arguments":
				hasArgs = true
				if ok, err := d.expect(r, call.member("arguments"), '{', "an object"); !ok {
					return err
				}
				v, err := d.value()
				tc.Arguments, _ = v.(suite.Object)
				return err
			}
			return d.dec.SkipValue()
		})
		switch {
		case err != nil:
			return err
		case !hasName:
			r.fail(call.member("name").String(), "missing required field")
		case !hasArgs:
			r.fail(call.member("arguments").String(), "missing required field")
		}
		calls = append(calls, tc)
		return nil
	})
	return calls, err
}
