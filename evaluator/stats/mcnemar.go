package stats

import "math"

// McNemar is the exact two-sided McNemar test of two snapshots judged on
// the same cases, where b cases passed in the first and fail in the
// second (regressions) and c failed in the first and pass in the second
// (fixes): with m = b + c, p = 1 when m = 0, else
//
//	p = min(1, 2 · Σ_{i=0}^{min(b,c)} C(m, i) / 2^m).
//
// The largest term is computed by Loader's saddle-point method (as R's
// dbinom does), accurate to a few units in the last place, and the sum
// runs down from it by the ratio of neighbouring terms until the rest can
// no longer change it. Near m/2 that is about 4.5·√m terms, a few
// microseconds for m = 1,000,000; the relative error stays below 1e-12.
func McNemar(b, c int) float64 {
	m := b + c
	k := min(b, c)
	if m == 0 || 2*k >= m {
		// b = c: the lower tail alone is at least one half.
		return 1
	}
	return min(1, 2*binomialHalfTail(k, m))
}

// binomialHalfTail is P(X ≤ k) for X binomial with m trials of chance
// one half, 0 ≤ k < m/2.
func binomialHalfTail(k, m int) float64 {
	term := binomialHalf(k, m)
	if term == 0 {
		return 0
	}
	// Σ_{i ≤ k} C(m, i) = C(m, k) · (1 + k/(m−k+1) + …): each ratio is
	// below one, so the terms fall and the loop stops once they are
	// negligible.
	sum, r := 1.0, 1.0
	fm := float64(m)
	for i := k; i > 0; i-- {
		r *= float64(i) / (fm - float64(i) + 1)
		sum += r
		if r < sum*0x1p-60 {
			break
		}
	}
	return term * sum
}

// binomialHalf is C(m, k) / 2^m, 0 ≤ k ≤ m.
func binomialHalf(k, m int) float64 {
	if k == 0 || k == m {
		return math.Ldexp(1, -m)
	}
	x, n := float64(k), float64(m)
	np := n / 2
	lc := stirlerr(n) - stirlerr(x) - stirlerr(n-x) - bd0(x, np) - bd0(n-x, np)
	lf := ln2Pi + math.Log(x) + math.Log1p(-x/n)
	return math.Exp(lc - 0.5*lf)
}

// ln2Pi is ln(2π).
const ln2Pi = 1.8378770664093456

// stirlerrSmall is stirlerr(n) for n = 0 … 15.
var stirlerrSmall = [...]float64{
	0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834, 0.020790672103765093,
	0.016644691189821193, 0.013876128823070748, 0.01189670994589177, 0.010411265261972096,
	0.009255462182712733, 0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
	0.006408994188004207, 0.0059513701127588475, 0.005554733551962801,
}

// stirlerr is the error of Stirling's formula for a whole number n:
// ln(n!) − ln(√(2πn)·(n/e)^n), from a table up to 15 and its asymptotic
// series beyond (Loader, "Fast and accurate computation of binomial
// probabilities", 2000).
func stirlerr(n float64) float64 {
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	if n <= 15 {
		return stirlerrSmall[int(n)]
	}
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 is the deviance term x·ln(x/np) + np − x, by its series where x is
// near np so that the cancellation costs no precision.
func bd0(x, np float64) float64 {
	if math.Abs(x-np) < 0.1*(x+np) {
		v := (x - np) / (x + np)
		s := (x - np) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
	}
	return x*math.Log(x/np) + np - x
}
