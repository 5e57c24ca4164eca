package decide

import (
	"strconv"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// The literal path of FormatNumber must write what the exact one writes.
func TestFormatNumberAsTheExactValue(t *testing.T) {
	for _, tc := range []struct {
		lit       string
		prec      int
		want      string
		fromPlain bool // written off the literal, not through a fraction
	}{
		{"0", 3, "0", true},
		{"0.000", 3, "0", true},
		{"12.50", 3, "12.5", true},
		{"1234567", 3, "1234567", true},
		{"0.01325", 8, "0.01325", true},
		{"0.123456789", 8, "0.12345679", false}, // rounded
		{"0.0000000049", 8, "0", false},
		{"2.9995", 3, "3", false},
		{"1e3", 3, "1000", false},
		{"1.5E-2", 8, "0.015", false},
		{"-0", 3, "0", false},
		{"-1.25", 3, "-1.25", false},
	} {
		n := suite.MustNumber(tc.lit)
		if got := FormatNumber(n, tc.prec); got != tc.want {
			t.Errorf("FormatNumber(%s, %d) = %q, want %q", tc.lit, tc.prec, got, tc.want)
		}
		if _, plain := plainDecimal(tc.lit, tc.prec); plain != tc.fromPlain {
			t.Errorf("plainDecimal(%s, %d) reports %v, want %v", tc.lit, tc.prec, plain, tc.fromPlain)
		}
	}
	if got, want := FormatMSNumber(suite.MustNumber("1234567.5")), "1,234,567.5 ms"; got != want {
		t.Errorf("FormatMSNumber = %q, want %q", got, want)
	}
	if got, want := FormatUSDNumber(suite.MustNumber("0.0125")), "USD 0.0125"; got != want {
		t.Errorf("FormatUSDNumber = %q, want %q", got, want)
	}
}

func FuzzFormatNumber(f *testing.F) {
	for _, lit := range []string{"0", "10.5", "0.00000001", "123456789.123", "1e-9", "-3.25", "00", "5.", "7.0000"} {
		f.Add(lit, 3)
		f.Add(lit, 8)
	}
	f.Fuzz(func(t *testing.T, lit string, prec int) {
		n, err := suite.ParseNumber(lit)
		if err != nil || prec < 0 || prec > 12 {
			return
		}
		want := FormatDecimal(n.Rat(), prec)
		if got := FormatNumber(n, prec); got != want {
			t.Fatalf("FormatNumber(%q, %d) = %q, the exact value gives %q", lit, prec, got, want)
		}
		if got, want := FormatMSNumber(n), FormatMS(n.Rat()); got != want {
			t.Fatalf("FormatMSNumber(%q) = %q, FormatMS gives %q", lit, got, want)
		}
		if got, want := FormatUSDNumber(n), FormatUSD(n.Rat()); got != want {
			t.Fatalf("FormatUSDNumber(%q) = %q, FormatUSD gives %q", lit, got, want)
		}
	})
}

// BenchmarkFastPathFormatNumber writes latencies and costs as a large
// case table does: /fast off their literals (FormatMSNumber and
// FormatUSDNumber), /plain through exact fractions (see docs/design.md,
// Fast paths).
func BenchmarkFastPathFormatNumber(b *testing.B) {
	var latencies, costs []suite.Number
	for i := range 1000 {
		latencies = append(latencies, suite.MustNumber(strconv.Itoa(800+i*7)))
		costs = append(costs, suite.MustNumber("0.0"+strconv.Itoa(10000+i*13)))
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			for i := range latencies {
				_, _ = FormatMSNumber(latencies[i]), FormatUSDNumber(costs[i])
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			for i := range latencies {
				_, _ = FormatMS(latencies[i].Rat()), FormatUSD(costs[i].Rat())
			}
		}
	})
}
