package suite

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestValidCaseID(t *testing.T) {
	tests := []struct {
		id   string
		want string // a prefix of the message; "" for a valid id
	}{
		{"ER-001", ""},
		{"[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]", ""},
		{"a b", ""},
		{"Ünïcödé ✓ 漢字", ""},
		{"e\u0301", ""},
		{"../../etc/passwd", ""},
		{"<script>", ""},
		{"x\u2028y", ""}, // a line separator is no control character
		{strings.Repeat("é", MaxCaseIDLength), ""},
		{"", "must not be empty"},
		{" ER-1", `" ER-1" begins with white space (U+0020)`},
		{"ER-1 ", `"ER-1 " ends with white space (U+0020)`},
		{"\u00a0ER-1", `"\u00a0ER-1" begins with white space (U+00A0)`},
		{"ER-1\u3000", `"ER-1\u3000" ends with white space (U+3000)`},
		{" ", `" " begins with white space`},
		{"ER\t1", `"ER\t1" holds the control character U+0009 at character 3`},
		{"ER\x001", `"ER\x001" holds the control character U+0000`},
		{"ER\x7f", `"ER\x7f" holds the control character U+007F`},
		{"ER\u009f", `"ER\u009f" holds the control character U+009F`},
		{strings.Repeat("é", MaxCaseIDLength+1), `"` + strings.Repeat("é", 60) + `"… is 257 characters long`},
		{"ab\xff", `"ab\xff" is not valid UTF-8`},
	}
	for _, tt := range tests {
		err := ValidCaseID(tt.id)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidCaseID(%q) = %v", tt.id, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("ValidCaseID(%q) = %v, want %s…", tt.id, err, tt.want)
		}
	}
}

// FuzzValidCaseID holds ValidCaseID to the rule as written, rune by rune.
func FuzzValidCaseID(f *testing.F) {
	for _, s := range []string{"ER-001", " x", "x ", "a\tb", "", "[a]b|c", "\u0085", strings.Repeat("x", 257)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		runes := []rune(id)
		want := utf8.ValidString(id) && len(runes) >= 1 && len(runes) <= MaxCaseIDLength &&
			!unicode.IsSpace(runes[0]) && !unicode.IsSpace(runes[len(runes)-1])
		for _, r := range runes {
			if r < 0x20 || r >= 0x7f && r < 0xa0 {
				want = false
			}
		}
		if err := ValidCaseID(id); (err == nil) != want {
			t.Fatalf("ValidCaseID(%q) = %v, want valid %v", id, err, want)
		}
	})
}

// FuzzSafeID holds SafeID to the pattern it spells out.
func FuzzSafeID(f *testing.F) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	for _, s := range []string{"ER-001", "a", "", "-a", "a.", strings.Repeat("a", 64), strings.Repeat("a", 65), "a b", "é", "a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := SafeID(s), pattern.MatchString(s); got != want {
			t.Fatalf("SafeID(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}

// safeIDInputs are ids of every kind SafeID meets: safe ones of several
// lengths, and real ids that are not.
var safeIDInputs = []string{"ER-001", "GEN-000123", "a-baseline-v1-2026-11-12T0930Z-gpt-large-eu1",
	"[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]", "Ünïcödé", "sample 14"}

// BenchmarkSafeID and BenchmarkSafeIDPattern are the written-out check
// and the regular expression it spells out, on the same ids.
func BenchmarkSafeID(b *testing.B) {
	for b.Loop() {
		for _, s := range safeIDInputs {
			SafeID(s)
		}
	}
}

func BenchmarkSafeIDPattern(b *testing.B) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	for b.Loop() {
		for _, s := range safeIDInputs {
			pattern.MatchString(s)
		}
	}
}

// BenchmarkValidCaseID checks the ids a suite's every line holds.
func BenchmarkValidCaseID(b *testing.B) {
	for b.Loop() {
		for _, s := range safeIDInputs {
			if ValidCaseID(s) != nil {
				b.Fatal(s)
			}
		}
	}
}
