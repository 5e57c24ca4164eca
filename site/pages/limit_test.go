package pages

import (
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// exceededBy must order every value as the exact comparison does, also
// where the two round to the same float64.
func TestLimitExceededBy(t *testing.T) {
	for _, tc := range []struct {
		value, limit string
		want         bool
	}{
		{"2501", "2500", true},
		{"2500", "2500", false},
		{"2499.999", "2500", false},
		{"0.1", "0.1", false},
		{"0.10000000000000000001", "0.1", true}, // the same float64
		{"0.09999999999999999999", "0.1", false},
		{"1e3", "999.5", true},
	} {
		l := newLimit(suite.MustNumber(tc.limit).Rat(), true)
		if got := l.exceededBy(suite.MustNumber(tc.value)); got != tc.want {
			t.Errorf("%s over the limit %s: %v, want %v", tc.value, tc.limit, got, tc.want)
		}
	}
	if newLimit(suite.MustNumber("1").Rat(), false).exceededBy(suite.MustNumber("5")) {
		t.Error("a value is over a limit no gate sets")
	}
}

func FuzzLimitExceededBy(f *testing.F) {
	f.Add("0.10000000000000000001", "0.1")
	f.Add("2500", "2500.0")
	f.Add("1e400", "1e399")
	f.Fuzz(func(t *testing.T, value, lim string) {
		v, err := suite.ParseNumber(value)
		if err != nil {
			return
		}
		l, err := suite.ParseNumber(lim)
		if err != nil {
			return
		}
		want := v.Rat().Cmp(l.Rat()) > 0
		if got := newLimit(l.Rat(), true).exceededBy(v); got != want {
			t.Fatalf("%s over %s: %v, the exact comparison says %v", value, lim, got, want)
		}
	})
}
