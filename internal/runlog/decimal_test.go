package runlog

import (
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

func TestDecimal(t *testing.T) {
	tests := []struct {
		lit   string
		shift int    // × 10^shift
		want  string // String
	}{
		{"18.517", 3, "18517"},
		{"0.1", 3, "100"},
		{"12", 3, "12000"},
		{"1.0", 3, "1000"},
		{"1e-3", 3, "1"},
		{"2.5610002921894193e-05", 3, "0.025610002921894193"},
		{"0.0010712500000000002", 0, "0.0010712500000000002"},
		{"4e-05", 0, "0.00004"},
		{"1.50E+2", 0, "150"},
		{"-0.5", 0, "-0.5"},
		{"0", 3, "0"},
		{"0.000", 0, "0"},
		{"123456789012345678901234567890", 0, "123456789012345678901234567890"},
	}
	for _, tt := range tests {
		d, err := ParseDecimal(tt.lit)
		if err != nil {
			t.Fatalf("%s: %v", tt.lit, err)
		}
		if got := d.Shift(tt.shift).String(); got != tt.want {
			t.Errorf("%s × 10^%d = %s, want %s", tt.lit, tt.shift, got, tt.want)
		}
	}
}

func TestDecimalArithmetic(t *testing.T) {
	d := func(s string) Decimal {
		v, err := ParseDecimal(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := d("0.00061").Add(d("4e-05")).String(); got != "0.00065" {
		t.Errorf("0.00061 + 4e-05 = %s, want 0.00065 (in binary floats it is 0.0006500000000000001)", got)
	}
	// (1200 × 0.15 + 85 × 0.6) / 10⁶
	price := DecimalInt(1200).Mul(d("0.15")).Add(DecimalInt(85).Mul(d("0.6"))).Shift(-6)
	if got := price.String(); got != "0.000231" {
		t.Errorf("price = %s, want 0.000231", got)
	}
	var zero Decimal
	if zero.String() != "0" || zero.Sign() != 0 || zero.Add(d("1.5")).String() != "1.5" {
		t.Errorf("the zero Decimal is not 0")
	}
}

func TestDecimalLiteral(t *testing.T) {
	tiny := DecimalInt(7).Shift(-100)
	lit, err := tiny.literal()
	if err != nil || lit != "7e-100" {
		t.Errorf("7 × 10^-100 is written %q (%v), want 7e-100: plain notation would not fit 64 characters", lit, err)
	}
	long, err := ParseDecimal("1234567890123456789012345678901234567890")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := long.Mul(long).Shift(-70).literal(); err == nil || !strings.Contains(err.Error(), "cannot be written in 64 characters") {
		t.Errorf("a value of 80 digits: error %v, want one saying it cannot be written", err)
	}
	for _, bad := range []string{"", "1.", ".5", "01", "1e999", "NaN", strings.Repeat("1", 65)} {
		if _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) accepted it", bad)
		}
	}
}

func TestDeriveLabel(t *testing.T) {
	tests := []struct{ name, want string }{
		{"openai:gpt-4.1-nano", "openai-gpt-4.1-nano"},
		{"agent-a", "agent-a"},
		{"2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp", "2025-09-15T15-04-34-04-00_popularity_jKN69eAYYpZFAZhRgMAztp"},
		{"anthropic/claude sonnet (test)", "anthropic-claude-sonnet-test"},
		{"..hidden", "hidden"},
		{"_-x-_", "x"},
		{"модель", ""},
		{"café-v2", "caf--v2"},
		{strings.Repeat("a", 63) + "-bcd", strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		got := DeriveLabel(tt.name)
		if got != tt.want {
			t.Errorf("DeriveLabel(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if got != "" && !suite.SafeID(got) {
			t.Errorf("DeriveLabel(%q) = %q, which is not a label", tt.name, got)
		}
	}
}

func TestMetaJSON(t *testing.T) {
	if got := (Meta{}).JSON(); got != nil {
		t.Errorf("an empty meta gives %q, want no file", got)
	}
	got := string(Meta{Model: "m", RecordedAt: "2026-01-01T00:00:00Z", Description: `say "hi"`}.JSON())
	want := "{\n  \"recorded_at\": \"2026-01-01T00:00:00Z\",\n  \"model\": \"m\",\n  \"description\": \"say \\\"hi\\\"\"\n}\n"
	if got != want {
		t.Errorf("meta.json =\n%s\nwant\n%s", got, want)
	}
}
