package stats

// fisherTolerance is the relative margin within which a table counts as
// no more probable than the one observed, so that tables of equal
// probability count alike although rounding may set them a hair apart.
const fisherTolerance = 1 + 1e-7

// Fisher is the two-sided Fisher exact test of one case judged in
// repeated trials in two snapshots: passedA of trialsA trials passed in
// the first, passedB of trialsB in the second (trialsA, trialsB ≥ 1). On
// the table [[passedA, trialsA − passedA], [passedB, trialsB − passedB]]
// p sums the hypergeometric probability of every table with the same
// margins whose probability is at most the observed table's × (1 + 1e-7).
//
// The probabilities are taken relative to the most probable table, by the
// ratio of neighbouring tables, so that nothing overflows and their sum
// is at least one; the relative error is a few units in the last place
// per table. A table less probable than 1e-300 of the most probable one
// counts as 0.
func Fisher(passedA, trialsA, passedB, trialsB int) float64 {
	if trialsA < 1 || trialsB < 1 || passedA < 0 || passedA > trialsA || passedB < 0 || passedB > trialsB {
		return 1
	}
	passes := passedA + passedB
	total := trialsA + trialsB
	lo, hi := max(0, passes-trialsB), min(trialsA, passes)
	if lo == hi {
		return 1
	}
	// The top-left cell x has weight C(trialsA, x)·C(trialsB, passes − x);
	// from x to x+1 it changes by ratio(x).
	ratio := func(x int) float64 {
		return float64(trialsA-x) * float64(passes-x) / (float64(x+1) * float64(trialsB-passes+x+1))
	}
	mode := min(hi, max(lo, (trialsA+1)*(passes+1)/(total+2)))
	// weight(passedA), walking from the mode.
	observed := 1.0
	for x := mode; x < passedA; x++ {
		observed *= ratio(x)
	}
	for x := mode; x > passedA; x-- {
		observed /= ratio(x - 1)
	}
	limit := observed * fisherTolerance
	sum, tail := 1.0, 0.0
	if 1 <= limit {
		tail = 1
	}
	w := 1.0
	for x := mode; x < hi && w > 0; x++ {
		w *= ratio(x)
		sum += w
		if w <= limit {
			tail += w
		}
	}
	w = 1.0
	for x := mode; x > lo && w > 0; x-- {
		w /= ratio(x - 1)
		sum += w
		if w <= limit {
			tail += w
		}
	}
	return min(1, tail/sum)
}
