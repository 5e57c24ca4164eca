package runlog

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Decimal is an exact decimal number, mant × 10^exp. Latencies and costs
// are carried as decimals from the JSON number text of the log to the
// line written, so 18.517 seconds become 18517 ms and two costs add up
// to their exact sum, with no binary rounding on the way. The zero value
// is 0.
type Decimal struct {
	mant *big.Int
	exp  int
}

// ParseDecimal reads a JSON number literal. It refuses what the
// evaluator would refuse in an output line: literals over 64 characters
// and exponents beyond ±400.
func ParseDecimal(lit string) (Decimal, error) {
	if _, err := suite.ParseNumber(lit); err != nil {
		return Decimal{}, err
	}
	lower := strings.ToLower(lit)
	mantissa, expPart, _ := strings.Cut(lower, "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	exp := 0
	if expPart != "" {
		e, err := strconv.Atoi(strings.TrimPrefix(expPart, "+"))
		if err != nil {
			return Decimal{}, fmt.Errorf("%q is not a JSON number", lit)
		}
		exp = e
	}
	m, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return Decimal{}, fmt.Errorf("%q is not a JSON number", lit)
	}
	return Decimal{mant: m, exp: exp - len(frac)}, nil
}

// DecimalInt returns n as a decimal.
func DecimalInt(n int64) Decimal { return Decimal{mant: big.NewInt(n)} }

func (d Decimal) m() *big.Int {
	if d.mant == nil {
		return new(big.Int)
	}
	return d.mant
}

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int { return d.m().Sign() }

// Add returns d + e.
func (d Decimal) Add(e Decimal) Decimal {
	a, b := d.m(), e.m()
	exp := min(d.exp, e.exp)
	sum := new(big.Int).Mul(a, pow10(d.exp-exp))
	sum.Add(sum, new(big.Int).Mul(b, pow10(e.exp-exp)))
	return Decimal{mant: sum, exp: exp}
}

// Mul returns d × e.
func (d Decimal) Mul(e Decimal) Decimal {
	return Decimal{mant: new(big.Int).Mul(d.m(), e.m()), exp: d.exp + e.exp}
}

// Shift returns d × 10^k.
func (d Decimal) Shift(k int) Decimal { return Decimal{mant: d.m(), exp: d.exp + k} }

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// normal returns the mantissa without trailing zeros and its exponent.
func (d Decimal) normal() (*big.Int, int) {
	m, exp := new(big.Int).Set(d.m()), d.exp
	if m.Sign() == 0 {
		return m, 0
	}
	ten, r := big.NewInt(10), new(big.Int)
	for {
		q, rem := new(big.Int).QuoRem(m, ten, r)
		if rem.Sign() != 0 {
			return m, exp
		}
		m, exp = q, exp+1
	}
}

// String writes the number in plain decimal notation without needless
// zeros: 18517, 0.00065, 1000.
func (d Decimal) String() string {
	m, exp := d.normal()
	digits := m.String()
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	var s string
	switch {
	case exp >= 0:
		s = digits + strings.Repeat("0", exp)
	case len(digits) > -exp:
		s = digits[:len(digits)+exp] + "." + digits[len(digits)+exp:]
	default:
		s = "0." + strings.Repeat("0", -exp-len(digits)) + digits
	}
	if neg {
		s = "-" + s
	}
	return s
}

// literal is the JSON number written for d: plain notation, or, where
// that would not fit the 64 characters an output line allows, digits
// and an exponent (12345e-70). It fails when neither fits.
func (d Decimal) literal() (string, error) {
	s := d.String()
	if _, err := suite.ParseNumber(s); err == nil {
		return s, nil
	}
	m, exp := d.normal()
	s = m.String() + "e" + strconv.Itoa(exp)
	if _, err := suite.ParseNumber(s); err != nil {
		return "", fmt.Errorf("the exact value %s cannot be written in 64 characters", d.String())
	}
	return s, nil
}
