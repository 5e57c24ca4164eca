// Package stats holds the statistics behind releasegate's evidence: the
// Wilson score interval of a pass rate, the exact McNemar test of two
// snapshots judged on the same cases, Fisher's exact test of one case
// judged in repeated trials, and how many cases at the same pass rate
// would settle a gate. It is pure: numbers in, numbers out.
//
// The interval is computed in IEEE-754 double precision in exactly the
// order docs/evidence.md writes it, so that anyone who computes it the
// same way gets the same bits. The p-values are exact quantities computed
// in floating point with a relative error far below 1e-9 (see McNemar and
// Fisher); a p-value below the smallest double is 0.
package stats

import (
	"math"
	"strconv"
)

// Level is a confidence level gate.json may set. The zero value is the
// default, 95 %.
type Level int

// The confidence levels, the default first.
const (
	Level95 Level = iota
	Level80
	Level90
	Level99
)

// Levels lists every level in increasing order of confidence.
var Levels = [...]Level{Level80, Level90, Level95, Level99}

// levels holds each level's confidence, z and α as exact decimal
// literals, by Level.
var levels = [...]struct {
	confidence, z, alpha float64
	text                 string
}{
	Level95: {0.95, 1.959963984540054, 0.05, "0.95"},
	Level80: {0.8, 1.2815515655446004, 0.2, "0.8"},
	Level90: {0.9, 1.6448536269514722, 0.1, "0.9"},
	Level99: {0.99, 2.5758293035489004, 0.01, "0.99"},
}

// LevelOf returns the level whose confidence is c, false when c is none
// of 0.8, 0.9, 0.95 and 0.99.
func LevelOf(c float64) (Level, bool) {
	for _, l := range Levels {
		if levels[l].confidence == c {
			return l, true
		}
	}
	return 0, false
}

// Confidence is the level as a fraction: 0.95.
func (l Level) Confidence() float64 { return levels[l].confidence }

// Z is the two-sided normal quantile of the level: 1.959963984540054 for
// 95 %.
func (l Level) Z() float64 { return levels[l].z }

// Alpha is 1 − confidence, the p-value below which a difference is
// significant: 0.05 for 95 %. Each α is the double nearest its decimal,
// and each of those lies above the decimal, so p < Alpha() holds for a
// double p exactly when p is below the decimal itself.
func (l Level) Alpha() float64 { return levels[l].alpha }

// Significant reports whether a p-value says a difference is unlikely to
// be chance at this level: p < α, so that p exactly at α is not.
func (l Level) Significant(p float64) bool { return p < levels[l].alpha }

// String is the confidence as gate.json writes it: "0.95".
func (l Level) String() string { return levels[l].text }

// Percent is the confidence for people: "95%".
func (l Level) Percent() string {
	return strconv.FormatFloat(100*levels[l].confidence, 'f', -1, 64) + "%"
}

// Interval is a two-sided confidence interval of a share, Lo ≤ Hi, both
// within [0, 1].
type Interval struct {
	Lo, Hi float64
}

// Wilson is the Wilson score interval of x passes in n trials (n ≥ 1,
// 0 ≤ x ≤ n) for the two-sided normal quantile z:
//
//	z2 = z·z; d = n + z2; center = (x + z2/2) / d
//	half = (z / d) · sqrt(x·(n − x)/n + z2/4)
//	lo = max(0, center − half); hi = min(1, center + half)
//
// each operation rounded to double in the order written.
func Wilson(x, n int, z float64) Interval {
	return wilson(float64(x), float64(n), z)
}

// wilson is Wilson for a real x, which CasesToSettle needs. The explicit
// float64 conversions keep the compiler from fusing a multiplication with
// the addition or subtraction that follows it, which some processors
// would round once instead of twice.
func wilson(x, n, z float64) Interval {
	z2 := float64(z * z)
	d := n + z2
	center := (x + z2/2) / d
	half := float64((z / d) * math.Sqrt(float64(x*(n-x))/n+z2/4))
	return Interval{Lo: max(0, center-half), Hi: min(1, center+half)}
}

// RoundDecimals rounds f to the double nearest its decimal rounding to
// places decimal places (ties to even, on f's exact binary value):
// RoundDecimals(0.7575436, 6) = 0.757544.
func RoundDecimals(f float64, places int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', places, 64), 64)
	return r
}

// RoundSignificant rounds f to digits significant digits (ties to even,
// on f's exact binary value): RoundSignificant(0.000030517578125, 6) =
// 0.0000305176.
func RoundSignificant(f float64, digits int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'e', digits-1, 64), 64)
	return r
}
