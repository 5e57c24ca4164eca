package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// MatcherKind names one of the argument matchers a case may write inside
// its expected arguments.
type MatcherKind int

// The matchers, by the member name that introduces them.
const (
	AnyOf       MatcherKind = iota + 1 // {"$any": [v1, v2, …]}
	Optional                           // {"$optional": v}
	Text                               // {"$text": "s"}
	ExactObject                        // {"$exact": {…}}
	Literal                            // {"$literal": v}
	Unordered                          // {"$unordered": [v1, v2, …]}
)

// Name is the member name that writes the matcher, "$any" for AnyOf.
func (k MatcherKind) Name() string {
	switch k {
	case AnyOf:
		return "$any"
	case Optional:
		return "$optional"
	case Text:
		return "$text"
	case ExactObject:
		return "$exact"
	case Literal:
		return "$literal"
	case Unordered:
		return "$unordered"
	}
	return ""
}

// Matcher is one argument matcher, compiled. Which fields are set depends
// on Kind:
//   - AnyOf: Options, each a compiled value that may itself hold matchers;
//   - Optional: Value, a compiled value;
//   - Text: Text as written and Folded, Text without the characters
//     the comparison ignores (see FoldText);
//   - ExactObject: Value, a compiled Object;
//   - Literal: Value as decoded, with no matcher recognised inside it;
//   - Unordered: Options, the items an array must hold in some order,
//     each a compiled value that may itself hold matchers.
type Matcher struct {
	Kind    MatcherKind
	Options []any
	Value   any
	Text    string
	Folded  string
}

// MatcherError is a malformed matcher, at a JSON path such as
// "expected.tool_calls[1].arguments.city".
type MatcherError struct {
	Path string
	Msg  string
}

func (e *MatcherError) Error() string { return e.Path + ": " + e.Msg }

// CompileArguments turns the expected arguments of a call, as decoded,
// into the value the judge matches against: every object with exactly
// one member whose name starts with "$" becomes a *Matcher. The result is
// an Object or, when the arguments object itself is a matcher, a
// *Matcher. A matcher there that accepts no object, such as $text, is
// not refused: it is a case no output can pass, and the judge says so
// with an arguments failure. Arguments without matchers are
// returned as they are, so a suite that uses none pays nothing for them.
// path names args in errors, e.g. "expected.tool_calls[0].arguments".
func CompileArguments(args any, path string) (any, error) {
	if !hasMatcher(args) {
		return args, nil
	}
	return compile(args, path, false)
}

// hasMatcher reports whether v holds any single-member object whose
// member name starts with "$".
func hasMatcher(v any) bool {
	switch x := v.(type) {
	case Object:
		if len(x) == 1 && strings.HasPrefix(x[0].Name, "$") {
			return true
		}
		for _, m := range x {
			if hasMatcher(m.Value) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasMatcher(e) {
				return true
			}
		}
	}
	return false
}

// compile compiles v found at path; member says whether v is the value of
// an object member, the one place $optional may stand.
func compile(v any, path string, member bool) (any, error) {
	switch x := v.(type) {
	case Object:
		if len(x) == 1 && strings.HasPrefix(x[0].Name, "$") {
			return compileMatcher(x[0].Name, x[0].Value, path, member)
		}
		return compileMembers(x, path)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := compile(e, path+"["+strconv.Itoa(i)+"]", false)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

func compileMembers(o Object, path string) (Object, error) {
	out := make(Object, len(o))
	for i, m := range o {
		c, err := compile(m.Value, path+KeySegment(m.Name), true)
		if err != nil {
			return nil, err
		}
		out[i] = Member{m.Name, c}
	}
	return out, nil
}

// compileMatcher compiles the matcher name with its value v, at path.
func compileMatcher(name string, v any, path string, member bool) (any, error) {
	inner := path + "." + name
	switch name {
	case "$any":
		return compileAnyOf(v, path, inner)
	case "$optional":
		if !member {
			return matcherFail(path, "$optional may only be the value of an object member (the member may then be absent)")
		}
		c, err := compile(v, inner, false)
		if err != nil {
			return nil, err
		}
		return &Matcher{Kind: Optional, Value: c}, nil
	case "$text":
		s, ok := v.(string)
		if !ok {
			return matcherFail(path, "$text needs a string, got %s", shapeOf(v))
		}
		return &Matcher{Kind: Text, Text: s, Folded: FoldText(s)}, nil
	case "$exact":
		return compileExact(v, path, inner)
	case "$literal":
		return &Matcher{Kind: Literal, Value: v}, nil
	case "$unordered":
		items, ok := v.([]any)
		if !ok {
			return matcherFail(path, "$unordered needs an array of the items expected in any order (an empty array matches only []), got %s", shapeOf(v))
		}
		options, err := compileOptions(items, inner)
		if err != nil {
			return nil, err
		}
		return &Matcher{Kind: Unordered, Options: options}, nil
	}
	return matcherFail(path, "unknown matcher %q: use $any, $optional, $text, $exact, $literal or $unordered (to expect an object with this one member, write it in $literal)", name)
}

// matcherFail is the MatcherError for a matcher at path.
func matcherFail(path, format string, a ...any) (any, error) {
	return nil, &MatcherError{Path: path, Msg: fmt.Sprintf(format, a...)}
}

// compileAnyOf compiles {"$any": [alternatives]}: at least one is needed.
func compileAnyOf(v any, path, inner string) (any, error) {
	alts, ok := v.([]any)
	if !ok || len(alts) == 0 {
		return matcherFail(path, "$any needs a non-empty array of alternatives, got %s", shapeOf(v))
	}
	options, err := compileOptions(alts, inner)
	if err != nil {
		return nil, err
	}
	return &Matcher{Kind: AnyOf, Options: options}, nil
}

// compileOptions compiles the items of an $any or $unordered array, each
// at its index below inner.
func compileOptions(items []any, inner string) ([]any, error) {
	options := make([]any, len(items))
	for i, e := range items {
		c, err := compile(e, inner+"["+strconv.Itoa(i)+"]", false)
		if err != nil {
			return nil, err
		}
		options[i] = c
	}
	return options, nil
}

// compileExact compiles {"$exact": {members}}, refusing a lone matcher in
// place of the members, which is more likely a mistake than a member name.
func compileExact(v any, path, inner string) (any, error) {
	o, ok := v.(Object)
	if !ok {
		return matcherFail(path, "$exact needs an object of members, got %s", shapeOf(v))
	}
	if len(o) == 1 && strings.HasPrefix(o[0].Name, "$") {
		return matcherFail(path, "$exact needs an object of members, got the matcher %s (to expect a member named %s, write it in $literal)", o[0].Name, o[0].Name)
	}
	c, err := compileMembers(o, inner)
	if err != nil {
		return nil, err
	}
	return &Matcher{Kind: ExactObject, Value: c}, nil
}

// shapeOf names the JSON type of a decoded value for messages.
func shapeOf(v any) string {
	switch x := v.(type) {
	case Object:
		return "an object"
	case []any:
		if len(x) == 0 {
			return "an empty array"
		}
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case *Matcher:
		return "the matcher " + x.Kind.Name()
	}
	return fmt.Sprintf("%T", v)
}

// FoldText is what $text compares: s without any Unicode White_Space
// character and without the 32 printable ASCII punctuation characters.
// Two folded texts then match when strings.EqualFold says so. It returns
// s itself, without allocating, when there is nothing to drop.
func FoldText(s string) string {
	return strings.Map(func(r rune) rune {
		if isASCIIPunct(r) || unicode.Is(unicode.White_Space, r) {
			return -1
		}
		return r
	}, s)
}

// isASCIIPunct reports whether r is one of !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~.
func isASCIIPunct(r rune) bool {
	return r >= '!' && r <= '/' || r >= ':' && r <= '@' || r >= '[' && r <= '`' || r >= '{' && r <= '~'
}

// KeySegment extends a JSON path with an object key: ".key" where the key
// reads well after a dot, `["odd key"]` otherwise.
func KeySegment(k string) string {
	plain := k != ""
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	q, _ := json.Marshal(k)
	return "[" + string(q) + "]"
}

// MarshalJSON writes the matcher as a case writes it, {"$text": "NYC"}.
func (m *Matcher) MarshalJSON() ([]byte, error) {
	var v any
	switch m.Kind {
	case AnyOf, Unordered:
		v = m.Options
	case Text:
		v = m.Text
	default:
		v = m.Value
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{m.Kind.Name(): ToTree(v)}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Describe says in words what the matcher accepts, for pages and failure
// details: `any of "NYC", text like "New York"`.
func (m *Matcher) Describe() string {
	switch m.Kind {
	case AnyOf:
		parts := make([]string, len(m.Options))
		for i, o := range m.Options {
			parts[i] = describeNested(o)
		}
		return "any of " + strings.Join(parts, ", ")
	case Optional:
		return "optional " + describeNested(m.Value)
	case Text:
		return "text like " + CompactJSON(m.Text)
	case ExactObject:
		return "exactly these members " + DescribeValue(m.Value)
	case Literal:
		return "literally " + CompactJSON(m.Value)
	case Unordered:
		parts := make([]string, len(m.Options))
		for i, o := range m.Options {
			parts[i] = DescribeValue(o)
		}
		return "in any order [" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}

// describeNested describes a value inside a matcher, bracketing a matcher
// whose words would otherwise run into the enclosing ones.
func describeNested(v any) string {
	if m, ok := v.(*Matcher); ok && (m.Kind == AnyOf || m.Kind == Optional) {
		return "(" + m.Describe() + ")"
	}
	return DescribeValue(v)
}

// DescribeValue writes an expected value compactly as JSON, with each
// matcher inside it in words.
func DescribeValue(v any) string {
	switch x := v.(type) {
	case *Matcher:
		return x.Describe()
	case Object:
		var b strings.Builder
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(CompactJSON(m.Name))
			b.WriteString(": ")
			b.WriteString(describeNested(m.Value))
		}
		b.WriteByte('}')
		return b.String()
	case []any:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(describeNested(e))
		}
		b.WriteByte(']')
		return b.String()
	}
	return CompactJSON(v)
}

// compactJSON encodes v on one line without HTML escaping.
func CompactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
