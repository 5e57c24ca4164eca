package stats

import "math/big"

// maxSettle bounds the search of CasesToSettle: beyond 2^53 cases a
// double no longer counts them exactly.
const maxSettle = 1 << 53

// CasesToSettle answers "how many cases at the same pass rate would
// settle it?" for a gate that needs the lower bound of the Wilson interval
// at z to reach threshold, after x of n cases passed (n ≥ 1): the fewest
// n′ ≥ n whose lower bound, at the pass rate x/n, is at least threshold
// (n itself only when its bound already is).
//
// "At the same pass rate" means x′ = n′·x/n passes, a real number, which
// the Wilson formula takes as it is: x′ is computed as (n′·x)/n in double,
// and the bound as Wilson computes it, compared with threshold exactly.
// At a pass rate of 100 % x′ = n′ is a whole number anyway.
//
// It is false when no number of cases would do: when the pass rate is
// below 100 % and not above threshold (the bound stays below the pass
// rate), or when it is 100 % and threshold is 1. The bound grows with n′
// towards the pass rate, so the answer is found by doubling and then
// halving the range; beyond 2^53 cases it is false as well.
func CasesToSettle(x, n int, z float64, threshold *big.Rat) (int64, bool) {
	if n < 1 || x < 0 || x > n {
		return 0, false
	}
	rate := big.NewRat(int64(x), int64(n))
	if c := rate.Cmp(threshold); c < 0 || c == 0 && x < n || x == n && threshold.Cmp(big.NewRat(1, 1)) >= 0 {
		return 0, false
	}
	reaches := func(cases int64) bool {
		nf := float64(cases)
		lo := wilson(float64(nf*float64(x))/float64(n), nf, z).Lo
		return new(big.Rat).SetFloat64(lo).Cmp(threshold) >= 0
	}
	below, above := int64(n), int64(n)
	for !reaches(above) {
		if above >= maxSettle/2 {
			return 0, false
		}
		below, above = above, 2*above
	}
	if above == int64(n) {
		return above, true
	}
	for above-below > 1 {
		mid := below + (above-below)/2
		if reaches(mid) {
			above = mid
		} else {
			below = mid
		}
	}
	return above, true
}
