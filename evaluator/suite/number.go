package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// maxNumberLen bounds the literal of a latency, cost or threshold: longer
// literals carry no meaning for money or milliseconds and would only make
// exact arithmetic slow.
const maxNumberLen = 64

// maxExponent bounds the exponent of such a literal; every float64 can be
// written within it.
const maxExponent = 400

// Number is a JSON number kept as its literal text, so that sums and
// comparisons of money are exact decimals rather than binary floats.
// The zero value is 0.
type Number struct{ lit string }

// ParseNumber checks that lit is a JSON number whose value a float64 can
// hold and returns it.
func ParseNumber(lit string) (Number, error) {
	if len(lit) > maxNumberLen {
		return Number{}, fmt.Errorf("number has more than %d characters", maxNumberLen)
	}
	if !ValidNumber(lit) {
		return Number{}, fmt.Errorf("%q is not a JSON number", lit)
	}
	// Without an exponent, 64 characters cannot leave the float64 range.
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			return Number{}, fmt.Errorf("%s is out of range", lit)
		}
		// 0e99999999999 is zero and 1e-99999 underflows quietly, but
		// exact arithmetic on such exponents would be slow or impossible.
		if e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+")); err != nil || e > maxExponent || e < -maxExponent {
			return Number{}, fmt.Errorf("%s has an exponent beyond ±%d", lit, maxExponent)
		}
	}
	return Number{lit: lit}, nil
}

// PlainNumber is ParseNumber for a literal from JSON text already found
// valid: one with neither a sign nor an exponent, at most 64 characters
// long, needs no further check and is not below zero. It reports false
// for any other literal, which ParseNumber then reads.
func PlainNumber(lit []byte) (Number, bool) {
	if len(lit) == 0 || len(lit) > maxNumberLen || lit[0] == '-' || bytes.ContainsAny(lit, "eE") {
		return Number{}, false
	}
	return Number{lit: string(lit)}, true
}

// MustNumber is ParseNumber for literals known to be valid, as in tests.
func MustNumber(lit string) Number {
	n, err := ParseNumber(lit)
	if err != nil {
		panic(err)
	}
	return n
}

// Literal is the literal as written, "" for the zero value; with
// LiteralNumber it keeps a Number in less memory than the Number itself.
func (n Number) Literal() string { return n.lit }

// LiteralNumber is the Number whose Literal is lit, which must have come
// from Literal.
func LiteralNumber(lit string) Number { return Number{lit: lit} }

// String returns the literal as written.
func (n Number) String() string {
	if n.lit == "" {
		return "0"
	}
	return n.lit
}

// Rat returns the exact value.
func (n Number) Rat() *big.Rat {
	r, ok := new(big.Rat).SetString(n.String())
	if !ok { // unreachable: ParseNumber accepted the literal
		panic("suite: bad number literal " + n.lit)
	}
	return r
}

// Float64 returns the nearest float64, for display and JSON output.
func (n Number) Float64() float64 {
	f, _ := strconv.ParseFloat(n.String(), 64)
	return f
}

// Sign returns -1, 0 or +1, read off the literal.
func (n Number) Sign() int {
	lit := n.String()
	mant, _, _ := strings.Cut(strings.ToLower(lit), "e")
	if strings.Trim(mant, "-0.") == "" {
		return 0
	}
	if lit[0] == '-' {
		return -1
	}
	return 1
}

// Cmp compares two numbers exactly.
func (n Number) Cmp(m Number) int {
	if n.lit == m.lit {
		return 0
	}
	// The float64 order is exact unless both round to the same float.
	a, b := n.Float64(), m.Float64()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return n.Rat().Cmp(m.Rat())
}

// MarshalJSON writes the value as the shortest float64 literal, so equal
// values always print the same bytes.
func (n Number) MarshalJSON() ([]byte, error) { return json.Marshal(n.Float64()) }

// UnmarshalJSON accepts a JSON number.
func (n *Number) UnmarshalJSON(b []byte) error {
	v, err := ParseNumber(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// ValidNumber checks the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func ValidNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	i, ok := numberInteger(s, i)
	if !ok {
		return false
	}
	if i, ok = numberFraction(s, i); !ok {
		return false
	}
	if i, ok = numberExponent(s, i); !ok {
		return false
	}
	return i == len(s)
}

// digitsEnd is the index after the run of digits of s at i.
func digitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// numberInteger reads the integer part of a number at i, 0 or digits
// without a leading 0, and returns the index after it.
func numberInteger(s string, i int) (int, bool) {
	switch {
	case i < len(s) && s[i] == '0':
		return i + 1, true
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		return digitsEnd(s, i), true
	}
	return i, false
}

// numberFraction reads the fraction of a number at i, if any: a point and
// at least one digit.
func numberFraction(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '.' {
		if j := digitsEnd(s, i+1); j > i+1 {
			return j, true
		}
		return i, false
	}
	return i, true
}

// numberExponent reads the exponent of a number at i, if any: e or E, a
// sign or none, and at least one digit.
func numberExponent(s string, i int) (int, bool) {
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := digitsEnd(s, i); j > i {
			return j, true
		}
		return i, false
	}
	return i, true
}

// DecimalSum adds numbers exactly, as a whole number of units of the
// smallest decimal place seen so far; unlike big.Rat it never reduces a
// fraction, which keeps summing many prices cheap. While the sum fits an
// int64 it does no big arithmetic at all. The zero value is 0.
type DecimalSum struct {
	small int64    // the sum in units of 10^exp, while big is nil
	big   *big.Int // the sum in units of 10^exp, once small overflowed
	exp   int
	part  big.Int // scratch for the next addend
}

// Add adds n to the sum.
func (s *DecimalSum) Add(n Number) {
	if s.big == nil {
		if mant, exp, ok := n.smallDecimal(); ok && s.addSmall(mant, exp) {
			return
		}
		s.big = big.NewInt(s.small)
	}
	mant, exp := n.decimal(&s.part)
	if s.big.Sign() == 0 || exp < s.exp {
		if s.big.Sign() != 0 {
			s.big.Mul(s.big, pow10(s.exp-exp))
		}
		s.exp = exp
	}
	if exp > s.exp {
		mant.Mul(mant, pow10(exp-s.exp))
	}
	s.big.Add(s.big, mant)
}

// addSmall adds mant × 10^exp in int64 arithmetic; it changes nothing and
// reports false when that would overflow.
func (s *DecimalSum) addSmall(mant int64, exp int) bool {
	if s.small == 0 {
		s.small, s.exp = mant, exp
		return true
	}
	sum, sumExp := s.small, s.exp
	var ok bool
	switch {
	case exp < sumExp:
		if sum, ok = scale(sum, sumExp-exp); !ok {
			return false
		}
		sumExp = exp
	case exp > sumExp:
		if mant, ok = scale(mant, exp-sumExp); !ok {
			return false
		}
	}
	total := sum + mant
	if (mant > 0 && total < sum) || (mant < 0 && total > sum) {
		return false
	}
	s.small, s.exp = total, sumExp
	return true
}

// scale returns x × 10^k, or false if that overflows an int64.
func scale(x int64, k int) (int64, bool) {
	if x == 0 {
		return 0, true
	}
	if k > 18 {
		return 0, false
	}
	p := int64(1)
	for range k {
		p *= 10
	}
	if x > math.MaxInt64/p || x < -math.MaxInt64/p {
		return 0, false
	}
	return x * p, true
}

// Rat returns the sum.
func (s *DecimalSum) Rat() *big.Rat {
	units := s.big
	if units == nil {
		units = big.NewInt(s.small)
	}
	r := new(big.Rat).SetInt(units)
	if s.exp < 0 {
		return r.Quo(r, new(big.Rat).SetInt(pow10(-s.exp)))
	}
	return r.Mul(r, new(big.Rat).SetInt(pow10(s.exp)))
}

// smallDecimal splits the literal into mant × 10^exp without allocating,
// when the mantissa has at most 18 digits and the exponent is short.
func (n Number) smallDecimal() (mant int64, exp int, ok bool) {
	lit := n.String()
	i, neg := 0, false
	if lit[0] == '-' {
		neg, i = true, 1
	}
	digits, frac := 0, 0
	inFrac := false
	for ; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c == '.':
			inFrac = true
			continue
		case c == 'e' || c == 'E':
			e, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
			if err != nil || e > 1e6 || e < -1e6 {
				return 0, 0, false
			}
			exp = e
			i = len(lit)
			continue
		}
		if mant != 0 || c != '0' {
			if digits++; digits > 18 {
				return 0, 0, false
			}
		}
		mant = mant*10 + int64(c-'0')
		if inFrac {
			frac++
		}
	}
	if neg {
		mant = -mant
	}
	return mant, exp - frac, true
}

// decimal splits the literal into mant × 10^exp, mant written into z.
// ParseNumber bounded the literal, so exp stays within a few hundred.
func (n Number) decimal(z *big.Int) (*big.Int, int) {
	lit := strings.ToLower(n.String())
	mantissa, expPart, _ := strings.Cut(lit, "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	exp, _ := strconv.Atoi(expPart)
	if _, ok := z.SetString(whole+frac, 10); !ok {
		panic("suite: bad number literal " + lit) // unreachable after ParseNumber
	}
	return z, exp - len(frac)
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}
