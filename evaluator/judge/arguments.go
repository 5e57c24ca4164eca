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
// wrong, or a member that an $exact matcher does not allow.
type Mismatch struct {
	Path       string // "arguments.approver.id"
	Expected   any    // nil when Unexpected
	Actual     any    // nil when Missing
	Missing    bool   // the actual call has no value at Path
	Unexpected bool   // the actual call has a member at Path that $exact does not list
	Reason     string
}

// String words the mismatch for a failure detail.
func (m Mismatch) String() string {
	switch {
	case m.Missing:
		return fmt.Sprintf("%s: missing (expected %s)", m.Path, Show(m.Expected))
	case m.Unexpected:
		return fmt.Sprintf("%s: not expected, got %s (only the listed members are allowed)", m.Path, Show(m.Actual))
	case m.Reason != "":
		return fmt.Sprintf("%s: %s", m.Path, m.Reason)
	}
	return fmt.Sprintf("%s: expected %s, got %s", m.Path, Show(m.Expected), Show(m.Actual))
}

// CompareArguments matches the expected arguments of a call (an Object or
// a *suite.Matcher, as suite.CompileArguments made them) against an
// actual call: an expected object needs each of its keys, each matching,
// and allows extra keys; an expected array needs an array of the same
// length matching element by element; scalars must be equal JSON values,
// numbers by numeric value; matchers match as suite.Matcher says.
// Arguments the agent sent as an unreadable string match nothing.
// Mismatches come in path order.
func CompareArguments(expected any, actual suite.ToolCall) []Mismatch {
	if actual.Unreadable {
		return []Mismatch{{Path: "arguments", Expected: expected,
			Reason: "the call's arguments are a string that is not a JSON object: " + quoteStart(actual.Raw)}}
	}
	if matches(expected, actual.Arguments) {
		return nil
	}
	var ms []Mismatch
	compare("arguments", expected, actual.Arguments, &ms)
	return ms
}

// argumentsMatch is CompareArguments(expected, actual) == nil without
// allocating.
func argumentsMatch(expected any, actual *suite.ToolCall) bool {
	return !actual.Unreadable && matches(expected, actual.Arguments)
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

// compareObject walks both objects' members in name order at once. With
// exact set, members of act that exp does not list are mismatches too.
func compareObject(path string, exp, act suite.Object, exact bool, ms *[]Mismatch) {
	j := 0
	for _, m := range exp {
		for j < len(act) && act[j].Name < m.Name {
			if exact {
				*ms = append(*ms, Mismatch{Path: path + KeySegment(act[j].Name), Actual: act[j].Value, Unexpected: true})
			}
			j++
		}
		switch {
		case j == len(act) || act[j].Name != m.Name:
			if !isOptional(m.Value) {
				*ms = append(*ms, Mismatch{Path: path + KeySegment(m.Name), Expected: m.Value, Missing: true})
			}
			continue
		case !isContainer(m.Value) && EqualScalars(m.Value, act[j].Value):
			// Equal scalars, the common case, need no path.
		default:
			compare(path+KeySegment(m.Name), m.Value, act[j].Value, ms)
		}
		j++
	}
	for ; exact && j < len(act); j++ {
		*ms = append(*ms, Mismatch{Path: path + KeySegment(act[j].Name), Actual: act[j].Value, Unexpected: true})
	}
}

func compare(path string, exp, act any, ms *[]Mismatch) {
	switch e := exp.(type) {
	case suite.Object:
		if a, ok := act.(suite.Object); ok {
			compareObject(path, e, a, false, ms)
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
	case *suite.Matcher:
		switch e.Kind {
		case suite.Optional, suite.Literal:
			// Present, an optional value must match; a literal is
			// compared by the plain rules, which see no matchers in it.
			compare(path, e.Value, act, ms)
			return
		case suite.ExactObject:
			if a, ok := act.(suite.Object); ok {
				compareObject(path, e.Value.(suite.Object), a, true, ms)
				return
			}
		case suite.Unordered:
			if a, ok := act.([]any); ok {
				if reason := unorderedProblem(e.Options, a); reason != "" {
					*ms = append(*ms, Mismatch{Path: path, Expected: exp, Actual: act, Reason: reason})
				}
				return
			}
		default:
			// Which alternative of $any was meant cannot be known, so
			// the whole value is the mismatch.
			if matcherMatches(e, act) {
				return
			}
		}
	default:
		if EqualScalars(exp, act) {
			return
		}
	}
	*ms = append(*ms, Mismatch{Path: path, Expected: exp, Actual: act})
}

// matches and objectMatches are compare without paths or allocations,
// for the common case where everything matches (see "Fast paths" in
// docs/design.md).
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
	case *suite.Matcher:
		return matcherMatches(e, act)
	}
	return EqualScalars(exp, act)
}

func objectMatches(exp, act suite.Object) bool {
	j := 0
	for _, m := range exp {
		for j < len(act) && act[j].Name < m.Name {
			j++
		}
		if j == len(act) || act[j].Name != m.Name {
			if isOptional(m.Value) {
				continue
			}
			return false
		}
		if !matches(m.Value, act[j].Value) {
			return false
		}
	}
	return true
}

// matcherMatches applies one matcher to a value that is present.
func matcherMatches(m *suite.Matcher, act any) bool {
	switch m.Kind {
	case suite.AnyOf:
		for _, o := range m.Options {
			if matches(o, act) {
				return true
			}
		}
		return false
	case suite.Optional, suite.Literal:
		return matches(m.Value, act)
	case suite.Text:
		s, ok := act.(string)
		return ok && strings.EqualFold(suite.FoldText(s), m.Folded)
	case suite.ExactObject:
		a, ok := act.(suite.Object)
		exp := m.Value.(suite.Object)
		return ok && onlyListed(exp, a) && objectMatches(exp, a)
	case suite.Unordered:
		a, ok := act.([]any)
		return ok && len(a) == len(m.Options) && unorderedPairs(m.Options, a) == len(a)
	}
	return false
}

// onlyListed reports whether every member of act is named in exp; both
// are sorted by name.
func onlyListed(exp, act suite.Object) bool {
	if len(act) > len(exp) {
		return false
	}
	i := 0
	for _, m := range act {
		for i < len(exp) && exp[i].Name < m.Name {
			i++
		}
		if i == len(exp) || exp[i].Name != m.Name {
			return false
		}
	}
	return true
}

func isOptional(v any) bool {
	m, ok := v.(*suite.Matcher)
	return ok && m.Kind == suite.Optional
}

// KeySegment extends a path with an object key: ".key" where the key reads
// well after a dot, `["odd key"]` otherwise.
func KeySegment(k string) string { return suite.KeySegment(k) }

func isContainer(v any) bool {
	switch v.(type) {
	case suite.Object, []any, *suite.Matcher:
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

// Show renders a JSON value compactly for messages; matchers inside an
// expected value are put in words.
func Show(v any) string {
	var s string
	if holdsMatcher(v) {
		s = suite.DescribeValue(v)
	} else {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return fmt.Sprint(v)
		}
		s = strings.TrimSuffix(b.String(), "\n")
	}
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

// holdsMatcher reports whether v is or contains a compiled matcher.
func holdsMatcher(v any) bool {
	switch x := v.(type) {
	case *suite.Matcher:
		return true
	case suite.Object:
		for _, m := range x {
			if holdsMatcher(m.Value) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holdsMatcher(e) {
				return true
			}
		}
	}
	return false
}
