package suite

import (
	"reflect"
	"slices"
)

// Equal reports whether o and p are the same output, field for field,
// as reflect.DeepEqual would (a nil list differs from an empty one), but
// without reflection for what a JSON line holds: a live server compares
// every output of a snapshot it reads again (docs/design.md, Fast paths).
func (o *Output) Equal(p *Output) bool {
	if o == nil || p == nil {
		return o == p
	}
	return o.CaseID == p.CaseID && o.Decision == p.Decision && o.Trial == p.Trial && o.Line == p.Line &&
		sameNumber(o.LatencyMS, p.LatencyMS) && sameNumber(o.CostUSD, p.CostUSD) &&
		sameList(o.Citations, p.Citations) && slices.EqualFunc(o.ToolCalls, p.ToolCalls, ToolCall.equal) &&
		(o.ToolCalls == nil) == (p.ToolCalls == nil) && o.Place == p.Place
}

func (c ToolCall) equal(d ToolCall) bool {
	return c.Name == d.Name && c.Unreadable == d.Unreadable && c.Raw == d.Raw && c.Arguments.Equal(d.Arguments)
}

// Equal reports whether o and p have the same members in the same order,
// as reflect.DeepEqual would.
func (o Object) Equal(p Object) bool {
	return (o == nil) == (p == nil) && slices.EqualFunc(o, p, func(a, b Member) bool {
		return a.Name == b.Name && equalValue(a.Value, b.Value)
	})
}

// equalValue compares two values of a decoded JSON tree as
// reflect.DeepEqual does.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case Number:
		y, ok := b.(Number)
		return ok && x == y
	case Object:
		y, ok := b.(Object)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		return ok && (x == nil) == (y == nil) && slices.EqualFunc(x, y, equalValue)
	}
	return reflect.DeepEqual(a, b)
}

func sameNumber(a, b *Number) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func sameList[E comparable](a, b []E) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// Equal reports whether c and d are the same case, field for field, as
// reflect.DeepEqual would, comparing the values of a decoded JSON tree
// without reflection: a live server compares every case of a suite it
// reads again.
func (c *Case) Equal(d *Case) bool {
	if c == nil || d == nil {
		return c == d
	}
	e, f := &c.Expected, &d.Expected
	return c.ID == d.ID && c.Title == d.Title && c.Severity == d.Severity && c.Line == d.Line &&
		sameList(c.Input, d.Input) && c.InputPlace == d.InputPlace &&
		e.Decision == f.Decision && e.ToolMatch == f.ToolMatch &&
		sameList(e.Citations, f.Citations) && sameList(e.ForbiddenTools, f.ForbiddenTools) &&
		(e.ToolCalls == nil) == (f.ToolCalls == nil) &&
		slices.EqualFunc(e.ToolCalls, f.ToolCalls, func(a, b ExpectedCall) bool {
			return a.Name == b.Name && equalValue(a.Arguments, b.Arguments)
		})
}
