package load

import (
	"math/big"

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

// place is where a value sits in a line: a member of the top-level object
// or an element of one of its arrays. It is spelled out only when a
// message needs it.
type place struct {
	parent string // the top-level member
	index  int    // the element's index in parent, or -1
}

// at is the place of a top-level member.
func at(name string) place { return place{parent: name, index: -1} }

// elem is the place of element i of p.
func (p place) elem(i int) place { return place{parent: p.parent, index: i} }

func (p place) String() string {
	s := p.parent
	if p.index >= 0 {
		s = index(s, p.index)
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

// measured reads a latency or cost: a non-negative number, or null when
// it was not measured.
func (d *jsonDecoder) measured(r *fieldReader, p place) (*suite.Number, error) {
	if d.dec.PeekKind() == 'n' {
		_, err := d.dec.ReadToken()
		return nil, err
	}
	if ok, err := d.expect(r, p, '0', "a number or null"); !ok {
		return nil, err
	}
	n, err := d.nonNegative(r, p)
	return &n, err
}

// trial reads a trial number: a whole number from 1 to maxTrial.
func (d *jsonDecoder) trial(r *fieldReader, p place) (int, error) {
	if ok, err := d.expect(r, p, '0', "a positive whole number"); !ok {
		return 0, err
	}
	raw, err := d.dec.ReadValue()
	if err != nil {
		return 0, err
	}
	t, ok := parseTrial(raw)
	if !ok {
		r.fail(p.String(), "must be a whole number from 1 to %d, got %s", maxTrial, raw)
	}
	return t, nil
}

// parseTrial reads a trial number literal; 2.0 is 2.
func parseTrial(raw []byte) (int, bool) {
	n, err := suite.ParseNumber(string(raw))
	if err != nil {
		return 0, false
	}
	rat := n.Rat()
	if !rat.IsInt() || rat.Sign() <= 0 || rat.Cmp(big.NewRat(maxTrial, 1)) > 0 {
		return 0, false
	}
	return int(rat.Num().Int64()), true
}

// toolCalls reads an output's array of tool calls, each in any of the
// wire formats outputCall knows.
func (d *jsonDecoder) toolCalls(r *fieldReader, p place) ([]suite.ToolCall, error) {
	calls := []suite.ToolCall{}
	err := d.elements(r, p, func(i int) error {
		item := p.elem(i)
		var c callItem
		var valueErr error
		err := d.members(r, item, func(name []byte) error {
			value := func() any {
				if d.dec.PeekKind() == '"' { // names and types repeat
					v, err := d.symbol()
					if err != nil {
						valueErr = err
					}
					return v
				}
				v, err := d.value()
				if err != nil {
					valueErr = err
				}
				return v
			}
			if !c.set(string(name), value) {
				return d.dec.SkipValue()
			}
			return valueErr
		})
		if err != nil || r.err != nil {
			calls = append(calls, suite.ToolCall{})
			return err
		}
		call, problem := d.outputCall(&c)
		if problem != nil {
			r.fail(join(item.String(), problem.field), "%s", problem.msg)
		}
		calls = append(calls, call)
		return nil
	})
	return calls, err
}
