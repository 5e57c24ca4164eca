package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Mismatch is one required argument that the actual call lacks or gets
// wrong.
type Mismatch struct {
	Path     string // "arguments.approver.id"
	Expected any
	Actual   any  // nil when Missing
	Missing  bool // the actual call has no value at Path
	Reason   string
}

// String words the mismatch for a failure detail.
func (m Mismatch) String() string {
	if m.Missing {
		return fmt.Sprintf("%s: missing (expected %s)", m.Path, Show(m.Expected))
	}
	if m.Reason != "" {
		return fmt.Sprintf("%s: %s", m.Path, m.Reason)
	}
	return fmt.Sprintf("%s: expected %s, got %s", m.Path, Show(m.Expected), Show(m.Actual))
}

// CompareArguments matches the required arguments of an expected call
// against an actual call: an expected object needs each of its keys, each
// matching, and allows extra keys; an expected array needs an array of the
// same length matching element by element; scalars must be equal JSON
// values, numbers by numeric value. Mismatches come in path order.
func CompareArguments(expected any, actual suite.ToolCall) []Mismatch {
	if actual.Unreadable {
		return []Mismatch{{Path: "arguments", Expected: expected, Reason: "not a JSON object: " + quoteStart(actual.Raw)}}
	}
	exp, ok := expected.(suite.Object)
	if !ok {
		return []Mismatch{{Path: "arguments", Expected: expected, Actual: actual.Arguments}}
	}
	if objectMatches(exp, actual.Arguments) {
		return nil
	}
	var ms []Mismatch
	compareObject("arguments", exp, actual.Arguments, &ms)
	return ms
}

// maxQuoted bounds how much of an unreadable argument string a detail
// quotes.
const maxQuoted = 60

// quoteStart quotes the start of s, marking a cut with "…".
func quoteStart(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// compareObject walks both objects' members in name order at once.
func compareObject(path string, exp, act suite.Object, ms *[]Mismatch) {
	j := 0
	for _, m := range exp {
		for j < len(act) && act[j].Name < m.Name {
			j++
		}
		switch {
		case j == len(act) || act[j].Name != m.Name:
			*ms = append(*ms, Mismatch{Path: path + KeySegment(m.Name), Expected: m.Value, Missing: true})
		case !isContainer(m.Value) && EqualScalars(m.Value, act[j].Value):
			// Equal scalars, the common case, need no path.
		default:
			compare(path+KeySegment(m.Name), m.Value, act[j].Value, ms)
		}
	}
}

func compare(path string, exp, act any, ms *[]Mismatch) {
	switch e := exp.(type) {
	case suite.Object:
		if a, ok := act.(suite.Object); ok {
			compareObject(path, e, a, ms)
			return
		}
	case []any:
		a, ok := act.([]any)
		if ok && len(a) == len(e) {
			for i := range e {
				compare(path+"["+strconv.Itoa(i)+"]", e[i], a[i], ms)
			}
			return
		}
		if ok {
			*ms = append(*ms, Mismatch{Path: path, Expected: exp, Actual: act,
				Reason: fmt.Sprintf("expected an array of %d items, got %d", len(e), len(a))})
			return
		}
	default:
		if EqualScalars(exp, act) {
			return
		}
	}
	*ms = append(*ms, Mismatch{Path: path, Expected: exp, Actual: act})
}

// matches and objectMatches are compare without paths or allocations,
// for the common case where everything matches.
func matches(exp, act any) bool {
	switch e := exp.(type) {
	case suite.Object:
		a, ok := act.(suite.Object)
		return ok && objectMatches(e, a)
	case []any:
		a, ok := act.([]any)
		if !ok || len(a) != len(e) {
			return false
		}
		for i := range e {
			if !matches(e[i], a[i]) {
				return false
			}
		}
		return true
	}
	return EqualScalars(exp, act)
}

func objectMatches(exp, act suite.Object) bool {
	j := 0
	for _, m := range exp {
		for j < len(act) && act[j].Name < m.Name {
			j++
		}
		if j == len(act) || act[j].Name != m.Name || !matches(m.Value, act[j].Value) {
			return false
		}
	}
	return true
}

// KeySegment extends a path with an object key: ".key" where the key reads
// well after a dot, `["odd key"]` otherwise.
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

func isContainer(v any) bool {
	switch v.(type) {
	case suite.Object, []any:
		return true
	}
	return false
}

// EqualScalars compares two decoded JSON scalars: strings exactly, numbers
// by value (1250 equals 1250.0 and 1.25e3), booleans and null by identity.
func EqualScalars(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && EqualNumbers(string(x), string(y))
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// EqualNumbers compares two JSON number literals by value without
// evaluating them, so 1e999999999 costs no more than 1.
func EqualNumbers(a, b string) bool {
	if a == b {
		return true
	}
	na, oka := canonical(a)
	nb, okb := canonical(b)
	return oka && okb && na == nb
}

// canonical writes a number literal as sign, significant digits and the
// power of ten of the last digit: "-1250.0" and "-1.25e3" both become
// "-125e1". Zero of any sign or form is "0".
func canonical(lit string) (string, bool) {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(lit), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	trimmed := strings.TrimRight(digits, "0")
	if trimmed == "" {
		return "0", true
	}
	// The power of ten of the last significant digit; exponents of any
	// length are exact, short ones avoid big arithmetic.
	shift := int64(len(digits)-len(trimmed)) - int64(len(frac))
	var power string
	if e, err := strconv.ParseInt(expPart, 10, 32); err == nil || !hasExp {
		power = strconv.FormatInt(e+shift, 10)
	} else {
		exp, ok := new(big.Int).SetString(strings.TrimPrefix(expPart, "+"), 10)
		if !ok {
			return "", false
		}
		power = exp.Add(exp, big.NewInt(shift)).String()
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + power, true
}

// maxShown bounds a value quoted in a failure detail.
const maxShown = 120

// Show renders a JSON value compactly for messages.
func Show(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
