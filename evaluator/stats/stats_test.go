package stats

import (
	"math"
	"math/big"
	"strconv"
	"testing"
)

func TestLevels(t *testing.T) {
	tests := []struct {
		confidence, z, alpha     float64
		text, alphaText, percent string
	}{
		{0.8, 1.2815515655446004, 0.2, "0.8", "0.2", "80%"},
		{0.9, 1.6448536269514722, 0.1, "0.9", "0.1", "90%"},
		{0.95, 1.959963984540054, 0.05, "0.95", "0.05", "95%"},
		{0.99, 2.5758293035489004, 0.01, "0.99", "0.01", "99%"},
	}
	if len(Levels) != len(tests) {
		t.Fatalf("%d levels, want %d", len(Levels), len(tests))
	}
	for i, tt := range tests {
		l, ok := LevelOf(tt.confidence)
		if !ok || l != Levels[i] || l.Z() != tt.z || l.Alpha() != tt.alpha || l.Confidence() != tt.confidence || l.String() != tt.text || l.Percent() != tt.percent {
			t.Errorf("level %v: %v %v z=%v α=%v %q %q", tt.confidence, l, ok, l.Z(), l.Alpha(), l.String(), l.Percent())
		}
		// α is 1 − confidence exactly, as decimals.
		exact := decimal(t, tt.alphaText)
		if sum := new(big.Rat).Add(decimal(t, tt.text), exact); sum.Cmp(big.NewRat(1, 1)) != 0 {
			t.Errorf("%s + %s = %s, want 1", tt.text, tt.alphaText, sum.RatString())
		}
		// Each α is the double just above its decimal, so that p < α for a
		// double p decides exactly as p < the decimal would.
		if f, _ := strconv.ParseFloat(tt.alphaText, 64); f != tt.alpha || new(big.Rat).SetFloat64(tt.alpha).Cmp(exact) <= 0 {
			t.Errorf("α %v lies at or below its decimal", tt.alpha)
		}
	}
	var zero Level
	if zero.Confidence() != 0.95 {
		t.Errorf("the zero level is %v, want the default 0.95", zero.Confidence())
	}
	for _, c := range []float64{0, 0.5, 0.949, 0.951, 1, 95, math.NaN()} {
		if _, ok := LevelOf(c); ok {
			t.Errorf("LevelOf(%v) accepted", c)
		}
	}
}

func decimal(t testing.TB, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a decimal: %q", s)
	}
	return r
}

func TestRounding(t *testing.T) {
	tests := []struct {
		f       float64
		places  int
		decimal float64
		digits  int
		sig     float64
	}{
		{0.7575436, 6, 0.757544, 6, 0.757544},
		{1, 6, 1, 6, 1},
		{0, 6, 0, 6, 0},
		{0.000030517578125, 6, 0.000031, 6, 0.0000305176},
		{1.0 / 3, 6, 0.333333, 6, 0.333333},
		// 1/128 is exactly halfway at the seventh decimal: to even.
		{0.0078125, 6, 0.007812, 2, 0.0078},
		{0.25, 6, 0.25, 6, 0.25},
		{1.2345678e-7, 6, 0, 6, 1.23457e-7},
		{0.99999951, 6, 1, 6, 1},
		{0.99999949, 6, 0.999999, 7, 0.9999995},
	}
	for _, tt := range tests {
		if got := RoundDecimals(tt.f, tt.places); got != tt.decimal {
			t.Errorf("RoundDecimals(%v, %d) = %v, want %v", tt.f, tt.places, got, tt.decimal)
		}
		if got := RoundSignificant(tt.f, tt.digits); got != tt.sig {
			t.Errorf("RoundSignificant(%v, %d) = %v, want %v", tt.f, tt.digits, got, tt.sig)
		}
	}
}
