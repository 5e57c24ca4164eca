package pages

import (
	"strconv"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestP95Note checks the small-sample note against the nearest rank the
// evaluator uses: the note must name the answer decide.P95 returns.
func TestP95Note(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, ""},
		{1, "p95 of 1 answer is the slowest one: a single slow answer decides it."},
		{12, "p95 of 12 answers is the slowest one: a single slow answer decides it."},
		{19, "p95 of 19 answers is the slowest one: a single slow answer decides it."},
		{20, "p95 of 20 answers is the second slowest: 2 slow answers decide it."},
		{40, "p95 of 40 answers is the third slowest: 3 slow answers decide it."},
		{99, "p95 of 99 answers is the fifth slowest: 5 slow answers decide it."},
		{100, ""},
	}
	for _, tt := range tests {
		if got := p95Note(tt.n); got != tt.want {
			t.Errorf("p95Note(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	// The rank agrees with decide.P95 for every n the note covers: of the
	// values 1..n, the k-th slowest is n-k+1.
	for n := 1; n < fewAnswers; n++ {
		values := make([]suite.Number, n)
		for i := range values {
			values[i] = suite.MustNumber(strconv.Itoa(i + 1))
		}
		got, _ := decide.P95(values)
		if want := float64(n - p95Rank(n) + 1); got.Float64() != want {
			t.Fatalf("n=%d: decide.P95 is %v, the note's rank says %v", n, got.Float64(), want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 12: "12", 999: "999", 1000: "1,000", 3000: "3,000", 1234567: "1,234,567"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
