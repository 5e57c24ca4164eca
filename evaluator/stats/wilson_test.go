package stats

import (
	"math"
	"math/big"
	"strconv"
	"testing"
)

// wilsonBig computes the Wilson interval with big.Float at prec bits,
// every operation rounded to nearest even in the order written. At 53
// bits that is IEEE-754 double arithmetic, operation by operation.
func wilsonBig(x, n int, z float64, prec uint) (lo, hi *big.Float) {
	f := func() *big.Float { return new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven) }
	X, N, Z := f().SetInt64(int64(x)), f().SetInt64(int64(n)), f().SetFloat64(z)
	two, four := f().SetInt64(2), f().SetInt64(4)
	z2 := f().Mul(Z, Z)
	d := f().Add(N, z2)
	center := f().Quo(f().Add(X, f().Quo(z2, two)), d)
	inner := f().Add(f().Quo(f().Mul(X, f().Sub(N, X)), N), f().Quo(z2, four))
	half := f().Mul(f().Quo(Z, d), f().Sqrt(inner))
	lo, hi = f().Sub(center, half), f().Add(center, half)
	if lo.Sign() < 0 {
		lo = f()
	}
	if hi.Cmp(f().SetInt64(1)) > 0 {
		hi = f().SetInt64(1)
	}
	return lo, hi
}

// TestWilsonIsDoubleArithmeticInTheOrderWritten checks every x ≤ n ≤ 200
// at every level: the interval is bit for bit the one of IEEE-754 double
// operations in the order written, it lies within 1e-15 of the exact
// interval, and its 6-decimal rounding is the exact interval's, but where
// the exact bound lies within 1e-12 of a rounding tie.
func TestWilsonIsDoubleArithmeticInTheOrderWritten(t *testing.T) {
	maxN := 200
	if testing.Short() {
		maxN = 60
	}
	for _, level := range Levels {
		z := level.Z()
		for n := 1; n <= maxN; n++ {
			for x := 0; x <= n; x++ {
				got := Wilson(x, n, z)
				lo53, hi53 := wilsonBig(x, n, z, 53)
				if l, _ := lo53.Float64(); l != got.Lo {
					t.Fatalf("%d/%d at %s: lo %v, double arithmetic gives %v", x, n, level, got.Lo, l)
				}
				if h, _ := hi53.Float64(); h != got.Hi {
					t.Fatalf("%d/%d at %s: hi %v, double arithmetic gives %v", x, n, level, got.Hi, h)
				}
				loRef, hiRef := wilsonBig(x, n, z, 256)
				for _, b := range []struct {
					name string
					got  float64
					ref  *big.Float
				}{{"lo", got.Lo, loRef}, {"hi", got.Hi, hiRef}} {
					diff := new(big.Float).Sub(new(big.Float).SetFloat64(b.got), b.ref)
					if d, _ := diff.Float64(); math.Abs(d) > 1e-15 {
						t.Fatalf("%d/%d at %s: %s %v is %g from the exact %s", x, n, level, b.name, b.got, d, b.ref.Text('g', 30))
					}
					if nearTie(b.ref, 6, 1e-12) {
						continue
					}
					want, _ := strconv.ParseFloat(b.ref.Text('f', 6), 64)
					if RoundDecimals(b.got, 6) != want {
						t.Fatalf("%d/%d at %s: %s %v is written %v, the exact bound rounds to %v", x, n, level, b.name, b.got, RoundDecimals(b.got, 6), want)
					}
				}
				if x > 0 && x < n && !(got.Lo < float64(x)/float64(n) && float64(x)/float64(n) < got.Hi) {
					t.Fatalf("%d/%d at %s: [%v, %v] does not hold the pass rate", x, n, level, got.Lo, got.Hi)
				}
			}
		}
	}
}

// nearTie reports whether f lies within eps of a value halfway between
// two decimals of the given places.
func nearTie(f *big.Float, places int, eps float64) bool {
	scaled := new(big.Float).SetPrec(256).Mul(f, big.NewFloat(math.Pow10(places)))
	scaled.Sub(scaled, big.NewFloat(0.5))
	whole, _ := scaled.Int(nil)
	frac := new(big.Float).SetPrec(256).Sub(scaled, new(big.Float).SetInt(whole))
	fr, _ := frac.Float64()
	unit := math.Pow10(-places)
	return fr*unit < eps || (1-fr)*unit < eps
}

func TestWilsonKnownValues(t *testing.T) {
	tests := []struct {
		x, n   int
		level  Level
		lo, hi float64 // rounded to 6 decimals
	}{
		{12, 12, Level95, 0.757506, 1},
		{11, 12, Level95, 0.64612, 0.985135},
		{8, 12, Level95, 0.390622, 0.86188},
		{0, 12, Level95, 0, 0.242494},
		{3, 3, Level95, 0.438503, 1},
		{1, 1, Level80, 0.378448, 1},
	}
	for _, tt := range tests {
		got := Wilson(tt.x, tt.n, tt.level.Z())
		if RoundDecimals(got.Lo, 6) != tt.lo || RoundDecimals(got.Hi, 6) != tt.hi {
			t.Errorf("%d/%d at %s: [%v, %v], want [%v, %v]", tt.x, tt.n, tt.level, got.Lo, got.Hi, tt.lo, tt.hi)
		}
	}
}

func TestCasesToSettle(t *testing.T) {
	z := Level95.Z()
	rat := func(s string) *big.Rat { return decimal(t, s) }
	tests := []struct {
		name      string
		x, n      int
		threshold string
		want      int64
		ok        bool
	}{
		// 12/12: lo = n/(n + z²) reaches 0.9 once n ≥ 9·z² = 34.57.
		{"all pass", 12, 12, "0.9", 35, true},
		{"all pass, any threshold below one", 1, 1, "0.99", 381, true},
		{"all pass, threshold one", 12, 12, "1", 0, false},
		{"rate at the threshold never settles", 9, 10, "0.9", 0, false},
		{"rate below the threshold never settles", 8, 10, "0.9", 0, false},
		{"already settled", 100, 100, "0.5", 100, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CasesToSettle(tt.x, tt.n, z, rat(tt.threshold))
			if got != tt.want || ok != tt.ok {
				t.Fatalf("CasesToSettle(%d, %d, %s) = %d, %v; want %d, %v", tt.x, tt.n, tt.threshold, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestCasesToSettleIsTheFewest checks the answer against the definition
// by brute force: at n′ the bound reaches the threshold, at n′ − 1 it
// does not.
func TestCasesToSettleIsTheFewest(t *testing.T) {
	for _, level := range Levels {
		z := level.Z()
		for n := 1; n <= 40; n++ {
			for x := 1; x <= n; x++ {
				for _, th := range []string{"0.5", "0.8", "0.9", "0.95", "0.99"} {
					threshold := decimal(t, th)
					lo := func(cases int64) *big.Rat {
						c := float64(cases)
						return new(big.Rat).SetFloat64(wilson(c*float64(x)/float64(n), c, z).Lo)
					}
					got, ok := CasesToSettle(x, n, z, threshold)
					rate := big.NewRat(int64(x), int64(n))
					settles := rate.Cmp(threshold) > 0 || x == n && threshold.Cmp(big.NewRat(1, 1)) < 0
					if ok != settles {
						t.Fatalf("%d/%d at %s, threshold %s: ok = %v, want %v", x, n, level, th, ok, settles)
					}
					if !ok {
						continue
					}
					if got < int64(n) || lo(got).Cmp(threshold) < 0 || got > int64(n) && lo(got-1).Cmp(threshold) >= 0 {
						t.Fatalf("%d/%d at %s, threshold %s: %d cases is not the fewest that settle it", x, n, level, th, got)
					}
				}
			}
		}
	}
}

// TestBoundExactlyAtThreshold: a threshold equal to the bound, digit for
// digit, is reached; one a hair above it is not.
func TestBoundExactlyAtThreshold(t *testing.T) {
	z := Level95.Z()
	lo := Wilson(12, 12, z).Lo
	exact := new(big.Rat).SetFloat64(lo)
	// 12/12 reaches its own bound at n = 12 already.
	if got, ok := CasesToSettle(12, 12, z, exact); !ok || got != 12 {
		t.Errorf("threshold at the bound: %d, %v; want 12, true", got, ok)
	}
	above := new(big.Rat).Add(exact, big.NewRat(1, 1e18))
	if got, ok := CasesToSettle(12, 12, z, above); !ok || got != 13 {
		t.Errorf("threshold a hair above the bound: %d, %v; want 13, true", got, ok)
	}
}

func BenchmarkWilson(b *testing.B) {
	z := Level95.Z()
	var s float64
	for i := 0; b.Loop(); i++ {
		s += Wilson(i%1000, 1000, z).Lo
	}
	_ = s
}

func BenchmarkCasesToSettle(b *testing.B) {
	z, threshold := Level95.Z(), big.NewRat(9, 10)
	for b.Loop() {
		CasesToSettle(46, 50, z, threshold)
	}
}
