package load

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// validJSON reports whether text is exactly one JSON value that jsontext
// would accept with its default, strict options: RFC 8259 syntax, valid
// UTF-8, escapes that decode to Unicode scalar values, unique member
// names in every object, and nesting at most maxDepth deep. It answers the
// common question of the fast paths in one tight pass; FuzzValidJSON holds
// it to jsontext.Value.IsValid.
func validJSON(text []byte) bool {
	var v validator
	return v.check(text)
}

// check is validJSON with a validator whose buffers are reused from call
// to call.
func (v *validator) check(text []byte) bool {
	v.b, v.i, v.names = text, 0, v.names[:0]
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.b)
}

// plain marks the bytes a string may hold as they are: printable ASCII
// other than the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// maxDepth is jsontext's limit on nested objects and arrays.
const maxDepth = 10000

type validator struct {
	b     []byte
	i     int
	names [][]byte // member names of the objects being checked, innermost last
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{':
		return v.object(depth + 1)
	case c == '[':
		return v.array(depth + 1)
	case c == '"':
		_, _, ok := v.str()
		return ok
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	}
	return false
}

func (v *validator) literal(word string) bool {
	if !bytes.HasPrefix(v.b[v.i:], []byte(word)) {
		return false
	}
	v.i += len(word)
	return true
}

func (v *validator) object(depth int) bool {
	if depth > maxDepth {
		return false
	}
	v.i++ // {
	v.space()
	if v.i < len(v.b) && v.b[v.i] == '}' {
		v.i++
		return true
	}
	first := len(v.names)
	ok := v.members(depth)
	v.names = v.names[:first]
	return ok
}

// members checks an object's members, after its '{'.
func (v *validator) members(depth int) bool {
	first := len(v.names)
	var seen map[string]struct{}
	for {
		if v.i >= len(v.b) || v.b[v.i] != '"' {
			return false
		}
		nameStart := v.i
		name, escaped, ok := v.str()
		if !ok {
			return false
		}
		if escaped {
			name, _ = jsontext.AppendUnquote(nil, v.b[nameStart:v.i])
		}
		// Few names are compared one by one; many go in a set, so a
		// huge object cannot make the check quadratic.
		if seen != nil {
			if _, dup := seen[string(name)]; dup {
				return false
			}
			seen[string(name)] = struct{}{}
		} else {
			for _, other := range v.names[first:] {
				if bytes.Equal(other, name) {
					return false
				}
			}
			v.names = append(v.names, name)
			if len(v.names)-first > 32 {
				seen = make(map[string]struct{}, 64)
				for _, n := range v.names[first:] {
					seen[string(n)] = struct{}{}
				}
			}
		}
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		if more, ok := v.valueThen(depth, '}'); !ok || !more {
			return ok
		}
	}
}

func (v *validator) array(depth int) bool {
	if depth > maxDepth {
		return false
	}
	v.i++ // [
	v.space()
	if v.i < len(v.b) && v.b[v.i] == ']' {
		v.i++
		return true
	}
	for {
		if more, ok := v.valueThen(depth, ']'); !ok || !more {
			return ok
		}
	}
}

// valueThen checks a value of an object or array and what follows it: a
// ',' before more, or closer at the end.
func (v *validator) valueThen(depth int, closer byte) (more, ok bool) {
	if !v.value(depth) {
		return false, false
	}
	v.space()
	if v.i >= len(v.b) {
		return false, false
	}
	switch v.b[v.i] {
	case ',':
		v.i++
		v.space()
		return true, true
	case closer:
		v.i++
		return false, true
	}
	return false, false
}

// str checks a string and returns its content as written, and whether
// it has escapes.
func (v *validator) str() (content []byte, escaped, ok bool) {
	v.i++ // "
	start := v.i
	for v.i < len(v.b) {
		// Most bytes are plain ASCII; pass eight at a time while none
		// is a control byte, a quote, a backslash or non-ASCII.
		for v.i+8 <= len(v.b) {
			x := binary.LittleEndian.Uint64(v.b[v.i:])
			const ones, highs = 0x0101010101010101, 0x8080808080808080
			special := (x - 0x20*ones) | (x ^ ('"' * ones) - ones) | (x ^ ('\\' * ones) - ones) | x
			if special&highs != 0 {
				break
			}
			v.i += 8
		}
		for v.i < len(v.b) && plain[v.b[v.i]] {
			v.i++
		}
		if v.i >= len(v.b) {
			break
		}
		c := v.b[v.i]
		switch {
		case c == '"':
			content = v.b[start:v.i]
			v.i++
			return content, escaped, true
		case c == '\\':
			escaped = true
			if !v.escape() {
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c < utf8.RuneSelf:
			v.i++
		default:
			r, size := utf8.DecodeRune(v.b[v.i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false, false
			}
			v.i += size
		}
	}
	return nil, false, false
}

// escape checks one escape sequence at v.i; a surrogate must come as a
// high-low pair.
func (v *validator) escape() bool {
	if v.i+1 >= len(v.b) {
		return false
	}
	c := v.b[v.i+1]
	v.i += 2
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
	default:
		return false
	}
	r, ok := v.hex4()
	switch {
	case !ok, r >= 0xDC00 && r <= 0xDFFF: // a low surrogate alone
		return false
	case r >= 0xD800 && r <= 0xDBFF:
		if v.i+1 >= len(v.b) || v.b[v.i] != '\\' || v.b[v.i+1] != 'u' {
			return false
		}
		v.i += 2
		low, ok := v.hex4()
		return ok && low >= 0xDC00 && low <= 0xDFFF
	}
	return true
}

func (v *validator) hex4() (rune, bool) {
	if v.i+4 > len(v.b) {
		return 0, false
	}
	var r rune
	for _, c := range v.b[v.i : v.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	v.i += 4
	return r, true
}

// number checks the RFC 8259 number grammar.
func (v *validator) number() bool {
	digits := func() int {
		n := 0
		for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
			v.i++
			n++
		}
		return n
	}
	if v.b[v.i] == '-' {
		v.i++
	}
	if v.i < len(v.b) && v.b[v.i] == '0' {
		v.i++
	} else if digits() == 0 {
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if digits() == 0 {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
