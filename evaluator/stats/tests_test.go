package stats

import (
	"math"
	"math/big"
	"testing"
)

// relErr is |got − want| / want, or |got| when want is 0.
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / want
}

// TestMcNemarExact checks every b, c ≤ 300 against the exact rational p,
// from the binomial coefficients in big integers.
func TestMcNemarExact(t *testing.T) {
	const maxBC = 300
	row := []*big.Int{big.NewInt(1)} // C(m, ·)
	worst := 0.0
	for m := 0; m <= 2*maxBC; m++ {
		if m > 0 {
			next := make([]*big.Int, m+1)
			next[0], next[m] = big.NewInt(1), big.NewInt(1)
			for i := 1; i < m; i++ {
				next[i] = new(big.Int).Add(row[i-1], row[i])
			}
			row = next
		}
		// prefix[k] = Σ_{i ≤ k} C(m, i), for k ≤ m/2.
		prefix := make([]*big.Int, m/2+1)
		sum := new(big.Int)
		for k := range prefix {
			sum.Add(sum, row[k])
			prefix[k] = new(big.Int).Set(sum)
		}
		for b := max(0, m-maxBC); b <= min(m, maxBC); b++ {
			c := m - b
			want := 1.0
			if k := min(b, c); m > 0 {
				// 2·S / 2^m, exactly, then rounded once to a double.
				exact := new(big.Float).SetInt(prefix[k])
				exact.SetMantExp(exact, 1-m)
				if exact.Cmp(big.NewFloat(1)) < 0 {
					want, _ = exact.Float64()
				}
			}
			got := McNemar(b, c)
			// Significance as the exact p would decide it, but within 1e-9
			// of α, where either way is allowed.
			for _, level := range Levels {
				a := level.Alpha()
				if level.Significant(got) != (want < a) && math.Abs(want-a) > 1e-9*a {
					t.Fatalf("McNemar(%d, %d) at %s: significant %v, exactly p = %v", b, c, level, level.Significant(got), want)
				}
			}
			e := relErr(got, want)
			worst = max(worst, e)
			if e > 1e-12 {
				t.Fatalf("McNemar(%d, %d) = %v, exactly %v (relative error %g)", b, c, got, want, e)
			}
			if McNemar(c, b) != got {
				t.Fatalf("McNemar(%d, %d) ≠ McNemar(%d, %d)", b, c, c, b)
			}
		}
	}
	t.Logf("largest relative error for b, c ≤ %d: %g", maxBC, worst)
}

// mcnemarReference sums 2·Σ_{i ≤ k} C(m, i) / 2^m term by term from i = 0
// in 192-bit floating point: no cut-off and no approximation of any term.
func mcnemarReference(b, c int) float64 {
	m, k := b+c, min(b, c)
	if m == 0 || 2*k >= m {
		return 1
	}
	const prec = 192
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	num, den := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	for i := 0; i < k; i++ {
		term.Mul(term, num.SetInt64(int64(m-i)))
		term.Quo(term, den.SetInt64(int64(i+1)))
		sum.Add(sum, term)
	}
	sum.SetMantExp(sum, 1-m)
	p, _ := sum.Float64()
	return min(1, p)
}

// TestMcNemarLarge checks p-values for m up to 1,000,000 against a
// 192-bit reference, within 1e-9 relative (the measured error is far
// smaller).
func TestMcNemarLarge(t *testing.T) {
	pairs := [][2]int{
		{5000, 5100}, {49_000, 51_000}, {100_000, 100_600},
		{481_500, 518_500}, {490_000, 510_000}, {497_000, 503_000}, {498_800, 501_200},
		{499_500, 500_500}, {499_999, 500_001}, {499_999, 500_000},
	}
	if testing.Short() {
		pairs = pairs[:4]
	}
	for _, bc := range pairs {
		b, c := bc[0], bc[1]
		got, want := McNemar(b, c), mcnemarReference(b, c)
		if e := relErr(got, want); e > 1e-9 || want == 0 {
			t.Errorf("McNemar(%d, %d) = %v, reference %v (relative error %g)", b, c, got, want, e)
		} else {
			t.Logf("McNemar(%d, %d) = %.17g, relative error %.3g", b, c, got, e)
		}
	}
}

func TestMcNemarKnownValues(t *testing.T) {
	tests := []struct {
		b, c int
		want float64
	}{
		{0, 0, 1}, {0, 3, 0.25}, {3, 0, 0.25}, {0, 1, 1}, {1, 1, 1}, {5, 5, 1},
		{0, 5, 0.0625}, {1, 5, 0.21875}, {2, 8, 0.109375},
		// A regression that cannot be chance at 95 %: 2·(1 + 11)/2^11.
		{10, 1, 0.01171875},
		{0, 2000, 0}, // 2^-1999 is below the smallest double
	}
	for _, tt := range tests {
		if got := McNemar(tt.b, tt.c); relErr(got, tt.want) > 1e-13 {
			t.Errorf("McNemar(%d, %d) = %v, want %v", tt.b, tt.c, got, tt.want)
		}
	}
}

// binomials is C(n, k) for n ≤ 40, exact in uint64.
func binomials() [][]uint64 {
	c := make([][]uint64, 41)
	for n := range c {
		c[n] = make([]uint64, n+1)
		c[n][0], c[n][n] = 1, 1
		for k := 1; k < n; k++ {
			c[n][k] = c[n-1][k-1] + c[n-1][k]
		}
	}
	return c
}

// fisherExact is the two-sided Fisher p with the (1 + 1e-7) rule applied
// exactly: a table counts when 10^7·w ≤ (10^7 + 1)·w_observed, with w its
// weight C(kA, x)·C(kB, s − x) in integers.
func fisherExact(C [][]uint64, a, kA, b, kB int) float64 {
	s := a + b
	lo, hi := max(0, s-kB), min(kA, s)
	weight := func(x int) uint64 { return C[kA][x] * C[kB][s-x] }
	obs := weight(a)
	var tail, total uint64
	for x := lo; x <= hi; x++ {
		w := weight(x)
		total += w
		if w*10_000_000 <= obs*10_000_001 {
			tail += w
		}
	}
	p, _ := new(big.Rat).SetFrac(new(big.Int).SetUint64(tail), new(big.Int).SetUint64(total)).Float64()
	return p
}

// TestFisherExact checks every 2×2 table with 1 to 20 trials a side
// against the exact rational p.
func TestFisherExact(t *testing.T) {
	C := binomials()
	worst, tables := 0.0, 0
	for kA := 1; kA <= 20; kA++ {
		for kB := 1; kB <= 20; kB++ {
			for a := 0; a <= kA; a++ {
				for b := 0; b <= kB; b++ {
					got, want := Fisher(a, kA, b, kB), fisherExact(C, a, kA, b, kB)
					e := relErr(got, want)
					worst = max(worst, e)
					tables++
					if e > 1e-12 {
						t.Fatalf("Fisher(%d/%d, %d/%d) = %v, exactly %v (relative error %g)", a, kA, b, kB, got, want, e)
					}
					// Which snapshot is which does not matter.
					if swapped := Fisher(b, kB, a, kA); relErr(swapped, got) > 1e-12 {
						t.Fatalf("Fisher(%d/%d, %d/%d) = %v but swapped %v", a, kA, b, kB, got, swapped)
					}
				}
			}
		}
	}
	t.Logf("%d tables, largest relative error %g", tables, worst)
}

func TestFisherKnownValues(t *testing.T) {
	tests := []struct {
		a, kA, b, kB int
		want         float64
	}{
		{3, 3, 0, 3, 0.1}, // 2 / C(6,3)
		{3, 3, 3, 3, 1},   // no difference
		{1, 1, 0, 1, 1},   // one trial each: anything could be chance
		{5, 5, 0, 5, 2.0 / 252},
		{2, 3, 1, 3, 1},
		{0, 4, 4, 4, 2.0 / 70},
	}
	for _, tt := range tests {
		if got := Fisher(tt.a, tt.kA, tt.b, tt.kB); relErr(got, tt.want) > 1e-14 {
			t.Errorf("Fisher(%d/%d, %d/%d) = %v, want %v", tt.a, tt.kA, tt.b, tt.kB, got, tt.want)
		}
	}
	// Tables as probable as the observed one count, whichever side of the
	// mode they lie: [[1,3],[3,1]] and its mirror [[3,1],[1,3]].
	if l, r := Fisher(1, 4, 3, 4), Fisher(3, 4, 1, 4); l != r || relErr(l, 34.0/70) > 1e-14 {
		t.Errorf("mirrored tables: %v and %v, want 34/70", l, r)
	}
}

// FuzzStatistics holds the three statistics to their definitions on any
// input: an interval within [0, 1] that holds the pass rate, p-values in
// [0, 1] that agree with the exact reference for small inputs, and tests
// that do not care which snapshot comes first.
func FuzzStatistics(f *testing.F) {
	f.Add(uint16(12), uint16(12), uint16(0), uint16(3), uint8(3), uint8(3), uint8(0), uint8(3))
	f.Add(uint16(0), uint16(1), uint16(400), uint16(10), uint8(0), uint8(20), uint8(20), uint8(20))
	C := binomials()
	f.Fuzz(func(t *testing.T, x, n, b, c uint16, a, kA, bb, kB uint8) {
		if n > 0 {
			xi := int(x) % (int(n) + 1)
			for _, level := range Levels {
				iv := Wilson(xi, int(n), level.Z())
				rate := float64(xi) / float64(n)
				// Rounding may leave the bounds a hair on the wrong side of
				// the rate: 0 of n gives a lower bound of 1.4e-17.
				if !(0 <= iv.Lo && iv.Lo <= rate+1e-15 && rate-1e-15 <= iv.Hi && iv.Hi <= 1) {
					t.Fatalf("%d/%d at %s: interval [%v, %v]", xi, n, level, iv.Lo, iv.Hi)
				}
				if got, ok := CasesToSettle(xi, int(n), level.Z(), big.NewRat(1, 2)); ok && got < int64(n) {
					t.Fatalf("%d/%d settles at %d cases, fewer than it has", xi, n, got)
				}
			}
		}
		p := McNemar(int(b), int(c))
		if !(0 <= p && p <= 1) || p != McNemar(int(c), int(b)) {
			t.Fatalf("McNemar(%d, %d) = %v", b, c, p)
		}
		if b <= 60 && c <= 60 {
			if want := mcnemarReference(int(b), int(c)); relErr(p, want) > 1e-12 {
				t.Fatalf("McNemar(%d, %d) = %v, reference %v", b, c, p, want)
			}
		}
		ka, kb := int(kA)%20+1, int(kB)%20+1
		ai, bi := int(a)%(ka+1), int(bb)%(kb+1)
		fp := Fisher(ai, ka, bi, kb)
		if want := fisherExact(C, ai, ka, bi, kb); relErr(fp, want) > 1e-12 || relErr(Fisher(bi, kb, ai, ka), fp) > 1e-12 {
			t.Fatalf("Fisher(%d/%d, %d/%d) = %v, exactly %v", ai, ka, bi, kb, fp, want)
		}
	})
}

// The benchmarks come in pairs: the computation used and the plain
// summation it replaces, on the same input.

func BenchmarkMcNemarMillion(b *testing.B) {
	for b.Loop() {
		McNemar(499_000, 501_000)
	}
}

func BenchmarkMcNemarMillionPlain(b *testing.B) {
	for b.Loop() {
		mcnemarReference(499_000, 501_000)
	}
}

func BenchmarkMcNemarSmall(b *testing.B) {
	for b.Loop() {
		McNemar(40, 60)
	}
}

func BenchmarkMcNemarSmallPlain(b *testing.B) {
	for b.Loop() {
		mcnemarReference(40, 60)
	}
}

func BenchmarkFisher(b *testing.B) {
	for b.Loop() {
		Fisher(7, 20, 15, 20)
	}
}

func BenchmarkFisherPlain(b *testing.B) {
	C := binomials()
	for b.Loop() {
		fisherExact(C, 7, 20, 15, 20)
	}
}
