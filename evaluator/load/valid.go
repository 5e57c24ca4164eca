package load

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Every line is checked to be valid JSON before a scanner reads it, and
// that check, jsontext.Value.IsValid, is the floor of an evaluation's
// cost (docs/design.md, "Scale: streaming evaluation"). quickValid is the
// same check for the lines a data folder is made of, in one pass with no
// decoder state: it accepts only what IsValid accepts (RFC 8259 with
// valid UTF-8 and no repeated member name), and says false for anything
// it does not handle (a member name with an escape, an object of more
// than 64 members, nesting deeper than 64, an escaped surrogate), which
// IsValid then decides. FuzzQuickPaths holds it to IsValid; what it
// saves is in "Fast paths", docs/design.md.

// valid reports whether text is one valid JSON value, as IsValid does.
// When quickValid decided, d.ends holds where each object and array of
// text ends.
func (d *jsonDecoder) valid(text []byte) bool {
	return d.quickValid(text) || jsontext.Value(text).IsValid()
}

// plainByte marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	maxQuickDepth   = 64
	maxQuickMembers = 64
)

// quickValid reports whether b is certainly one valid JSON value; false
// may also mean that it is one quickValid does not handle.
func (d *jsonDecoder) quickValid(b []byte) bool {
	d.names = d.names[:0]
	d.ends.reset(len(b))
	v := validator{d: d, b: b}
	if !v.run() {
		d.ends.reset(0)
		return false
	}
	return true
}

// containerEnds holds where each object and array of the last line
// quickValid accepted ends, by where it starts, so that a scanner passes
// over one it does not read at once. Lines longer than 64 KiB are not
// recorded.
type containerEnds struct {
	at  []int32 // at[start] is the end, 0 where nothing is recorded
	set []int32 // the starts recorded, to clear
	on  bool    // recording for the current line
}

// reset forgets the last line and prepares for one of n bytes.
func (e *containerEnds) reset(n int) {
	for _, start := range e.set {
		e.at[start] = 0
	}
	e.set = e.set[:0]
	e.on = n <= 64<<10
	if e.on && len(e.at) < n {
		e.at = make([]int32, max(n, 1024))
	}
}

// stop forgets the last line and records nothing until the next reset.
func (e *containerEnds) stop() {
	e.reset(0)
	e.on = false
}

func (e *containerEnds) record(start, end int) {
	if e.on {
		e.at[start] = int32(end)
		e.set = append(e.set, int32(start))
	}
}

// end is where the container at start ends, or 0 when that is not known.
func (e *containerEnds) end(start int) int {
	if start < len(e.at) {
		return int(e.at[start])
	}
	return 0
}

// run is quickValid.
func (v *validator) run() bool {
	end := v.value(skipSpace(v.b, 0))
	return end >= 0 && skipSpace(v.b, end) == len(v.b)
}

// value checks the value that starts at i and returns where it ends, or
// -1.
func (v *validator) value(i int) int {
	b := v.b
	for {
		// A value starts at i.
		if i < len(b) && (b[i] == '{' || b[i] == '[') {
			var value bool
			if i, value = v.open(i); i < 0 {
				return -1
			}
			if value {
				continue
			}
		} else if i = validScalar(b, i); i < 0 {
			return -1
		}
		// A value ends before i.
		var more bool
		if i, more = v.next(i); !more {
			return i
		}
	}
}

// validator is the state of quickValid: the values open around the
// one it reads.
type validator struct {
	d         *jsonDecoder
	b         []byte
	depth     int
	stack     [maxQuickDepth]byte // '{' or '[' for each open value
	starts    [maxQuickDepth]int  // where each open value starts
	namesFrom [maxQuickDepth]int  // where the names of each open object start in d.names
}

// open reads the '{' or '[' at i and reports where the next value
// starts, or the position after the value when it is empty; -1 for
// anything else.
func (v *validator) open(i int) (next int, value bool) {
	b, c := v.b, v.b[i]
	if v.depth == maxQuickDepth {
		return -1, false
	}
	v.stack[v.depth], v.starts[v.depth], v.namesFrom[v.depth] = c, i, len(v.d.names)
	v.depth++
	i = skipSpace(b, i+1)
	if i < len(b) && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
		v.depth--
		return i + 1, false
	}
	if c == '{' {
		i = v.d.memberName(b, i, v.namesFrom[v.depth-1])
	}
	return i, true
}

// next closes the values that end after the value ending before i and
// reports where the next value starts; more is false once no value is
// open, i then just after the last one closed, or on anything invalid,
// where i is then -1.
func (v *validator) next(i int) (int, bool) {
	b := v.b
	for {
		if v.depth == 0 {
			return i, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return -1, false
		}
		open := v.stack[v.depth-1]
		if open == '{' && b[i] == '}' || open == '[' && b[i] == ']' {
			v.d.names = v.d.names[:v.namesFrom[v.depth-1]]
			v.depth--
			i++
			v.d.ends.record(v.starts[v.depth], i)
			continue
		}
		if b[i] != ',' {
			return -1, false
		}
		i = skipSpace(b, i+1)
		if open == '{' {
			i = v.d.memberName(b, i, v.namesFrom[v.depth-1])
		}
		return i, i >= 0
	}
}

// validScalar reads the string, number or literal at i and returns
// where it ends, or -1.
func validScalar(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	lit := ""
	switch b[i] {
	case '"':
		end, _, ok := validString(b, i)
		if !ok {
			return -1
		}
		return end
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	case 'n':
		lit = "null"
	default:
		end, ok := validNumber(b, i)
		if !ok {
			return -1
		}
		return end
	}
	if !hasPrefixAt(b, i, lit) {
		return -1
	}
	return i + len(lit)
}

// memberName reads a member name and its colon at i, refusing a name
// already among d.names[from:]; it returns where the value starts, or
// -1.
func (d *jsonDecoder) memberName(b []byte, i int, from int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	end, escaped, ok := validString(b, i)
	if !ok || escaped || len(d.names)-from >= maxQuickMembers {
		return -1
	}
	// Names are told apart by their length and last letter before
	// their bytes are compared.
	name := b[i:end]
	key := uint32(len(name))<<8 | uint32(name[len(name)-2])
	for _, n := range d.names[from:] {
		if n.key == key && string(b[n.start:n.end]) == string(name) {
			return -1
		}
	}
	d.names = append(d.names, quickName{int32(i), int32(end), key})
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// quickName is where a member name starts and ends, and a key to tell
// most names apart without comparing them.
type quickName struct {
	start, end int32
	key        uint32
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func hasPrefixAt(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// validString reads the string whose quote is at i and returns where it
// ends and whether it has escapes.
func validString(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		// Eight bytes at a time to the first that is special, then one
		// by one near the end.
		for len(b)-i >= 8 {
			if special := specialBytes(binary.LittleEndian.Uint64(b[i:])); special != 0 {
				i += bits.TrailingZeros64(special) / 8
				break
			}
			i += 8
		}
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(b, i+2)
				if !ok || r >= 0xD800 && r <= 0xDFFF {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				return 0, false, false
			}
			i += size
		}
	}
}

// specialBytes sets the top bit of each of the eight bytes of x (least
// significant first) that is below 0x20, at or above 0x80, a quote or a
// backslash, and possibly of bytes after the first such: its lowest bit
// marks the first exactly.
func specialBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	below20 := (x - 0x20*ones) & ^x & highs
	return x&highs | below20 | zero(x^'"'*ones) | zero(x^'\\'*ones)
}

// hex4 reads the four hex digits at i.
func hex4(b []byte, i int) (rune, bool) {
	if len(b)-i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// validNumber reads the number at i: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsAt(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digitsAt(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsAt(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digitsAt(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
