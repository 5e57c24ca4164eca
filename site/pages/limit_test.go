package pages

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
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

// overLimit must order the rows over a limit as sorting their exact
// values does, largest first and ties in suite order, also where values
// round to the same float64 or ParseFloat refuses them.
func TestOverLimitOrdersExactly(t *testing.T) {
	values := []string{"0.1", "0.10000000000000000001", "1e400", "5", "0.09999999999999999999", "5.0", "1e-400", "2e-400", "7"}
	want := exactOverLimit(values)
	if got := overLimitOf(values); !slices.Equal(got, want) {
		t.Fatalf("order %v, the exact sort gives %v", got, want)
	}
}

func FuzzOverLimit(f *testing.F) {
	f.Add("0.1", "0.10000000000000000001", "1e400")
	f.Add("5", "5.0", "1e-400")
	f.Add("2e-400", "1e-400", "0")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		values := []string{a, b, c, a, c}
		for _, v := range values {
			// Every literal a row can hold: a JSON number, however large.
			if _, ok := new(big.Rat).SetString(v); !ok || !json.Valid([]byte(v)) {
				return
			}
		}
		if got, want := overLimitOf(values), exactOverLimit(values); !slices.Equal(got, want) {
			t.Fatalf("%q: order %v, the exact sort gives %v", values, got, want)
		}
	})
}

// overLimitOf puts every value over the limit and returns overLimit's order.
func overLimitOf(values []string) []int {
	rows := make([]CaseRow, len(values))
	for i, v := range values {
		rows[i].CostSort, rows[i].CostOver = Decimal(v), true
	}
	return overLimit(rows, func(r CaseRow) bool { return r.CostOver }, func(r CaseRow) string { return string(r.CostSort) })
}

// exactOverLimit sorts the positions of values by their exact fractions.
func exactOverLimit(values []string) []int {
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, _ := new(big.Rat).SetString(values[a])
		y, _ := new(big.Rat).SetString(values[b])
		return -x.Cmp(y)
	})
	return order
}

// BenchmarkFastPathOverLimit orders 100,000 outputs over a cost limit,
// with the values repeating as whole cents do: by their floats, going to
// fractions for equal floats of different literals ("fast"), and by their
// fractions, each read once ("plain").
//
//	go test ./site/pages -run '^$' -bench FastPathOverLimit -benchmem -count 5
func BenchmarkFastPathOverLimit(b *testing.B) {
	values := make([]string, 100_000)
	for i := range values {
		values[i] = strconv.Itoa(300+i*7919%2900) + ".5"
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			exact := make([]*big.Rat, len(values))
			for i, v := range values {
				exact[i], _ = new(big.Rat).SetString(v)
			}
			order := make([]int, len(values))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return -exact[a].Cmp(exact[b]) })
		}
	})
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			overLimitOf(values)
		}
	})
}
