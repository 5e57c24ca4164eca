package suite

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestAnchor(t *testing.T) {
	tests := map[string]string{
		"ER-2026.10 §4.2":     "rule-er-2026-10-4-2",
		"ER-2026.10 §10.1.3":  "rule-er-2026-10-10-1-3",
		"AB1-2030.01 §7":      "rule-ab1-2030-01-7",
		"--X--":               "rule-x",
		"ÉR-2026.10 §1 (new)": "rule-r-2026-10-1-new",
	}
	for id, want := range tests {
		if got := Anchor(id); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestParseRuleID(t *testing.T) {
	tests := []struct {
		text, id, title string
		ok              bool
	}{
		{"ER-2026.10 §4.2 Receipts for amounts over USD 25", "ER-2026.10 §4.2", "Receipts for amounts over USD 25", true},
		{"ER-2026.10 §4.2", "ER-2026.10 §4.2", "", true},
		{"ER-2026.10 §4.2: Receipts", "ER-2026.10 §4.2", "Receipts", true},
		{"ER-2026.10 §4.2. Receipts", "ER-2026.10 §4.2", "Receipts", true},
		{"ER-2026.10 §12.3.4 Deep", "ER-2026.10 §12.3.4", "Deep", true},
		{"ER-2026.10 §4.2a Receipts", "", "", false},
		{"ER-2026.10  §4.2 two spaces", "", "", false},
		{"ER-2026.1 §4.2 short month", "", "", false},
		{"er-2026.10 §4.2 lower case", "", "", false},
		{"Receipts ER-2026.10 §4.2", "", "", false},
		{"ER-2026.10 S4.2", "", "", false},
	}
	for _, tt := range tests {
		r, ok := ParseRuleID(tt.text)
		if ok != tt.ok || r.ID != tt.id || r.Title != tt.title {
			t.Errorf("ParseRuleID(%q) = %q %q %v, want %q %q %v", tt.text, r.ID, r.Title, ok, tt.id, tt.title, tt.ok)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	src := "# Policy ER-2026.10\n\nIntro.\n\n## ER-2026.10 §1 General\n\n```\n## ER-2026.10 §9 in a code block is not a rule\n```\n\nER-2026.10 §2 Setext\n---\n\n### **ER-2026.10 §3.1** Bold id\n"
	p, err := ParsePolicy("POLICY.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Rules {
		got = append(got, r.ID+"@"+strconv.Itoa(r.Line))
	}
	want := "ER-2026.10 §1@5 ER-2026.10 §2@11 ER-2026.10 §3.1@14"
	if strings.Join(got, " ") != want {
		t.Fatalf("rules = %v, want %s", got, want)
	}
	if p.Version != "ER-2026.10" {
		t.Errorf("version = %q", p.Version)
	}
	if r, ok := p.Successor("ER-2026.08 §3.1"); !ok || r.ID != "ER-2026.10 §3.1" {
		t.Errorf("Successor = %v %v", r, ok)
	}
	if _, ok := p.Successor("XY-2026.08 §3.1"); ok {
		t.Error("a rule of another series has a successor")
	}
}

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"# Nothing here\n", "POLICY.md: no rule headings found"},
		{"## ER-2026.10 §1 A\n\n## ER-2026.08 §2 B\n", "POLICY.md:3: rule ER-2026.08 §2 has version ER-2026.08"},
		{"## ER-2026.10 §1 A\n\n## ER-2026.10 §1 Again\n", "POLICY.md:3: rule ER-2026.10 §1 is defined twice (first at line 1)"},
	}
	for _, tt := range tests {
		_, err := ParsePolicy("POLICY.md", []byte(tt.src))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParsePolicy(%q) error = %v, want prefix %q", tt.src, err, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	good := []string{"0", "-0", "12.5", "1e3", "0.025", "1E-2", "1e-400", "4.9e-324", "1.7976931348623157E+308", "0e400"}
	for _, lit := range good {
		if _, err := ParseNumber(lit); err != nil {
			t.Errorf("ParseNumber(%q): %v", lit, err)
		}
	}
	bad := []string{"", "01", "+1", "1e999", "NaN", "0x10", " 1", "1.", ".5", "-", "1e", "1e+", "1.e3", "--1", "1 ", "Infinity", strings.Repeat("1", 65), "0e10000000000000000000", "1e-401", "0E+401", "1e99999999999999999999"}
	for _, lit := range bad {
		if _, err := ParseNumber(lit); err == nil {
			t.Errorf("ParseNumber(%q) accepted", lit)
		}
	}
	if MustNumber("0.30").Cmp(MustNumber("3e-1")) != 0 || MustNumber("1").Cmp(MustNumber("1.0000000000000000001")) >= 0 {
		t.Error("Cmp is not exact")
	}
}

func FuzzParsePolicy(f *testing.F) {
	f.Add("## ER-2026.10 §4.2 Receipts\n\ntext\n")
	f.Add("ER-2026.10 §1\n===\n# ER-2026.10 §1.1 *x*\n")
	f.Add("> ## ER-2026.10 §2 quoted\n- ## ER-2026.10 §3 listed\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParsePolicy("POLICY.md", []byte(src))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "POLICY.md") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, r := range p.Rules {
			if got, ok := p.Rule(r.ID); !ok || got != r {
				t.Fatalf("rule %q not found by id", r.ID)
			}
			if r.Line < 1 || r.Line > lines {
				t.Fatalf("rule %q on line %d of %d", r.ID, r.Line, lines)
			}
			if again, ok := ParseRuleID(r.ID); !ok || again.ID != r.ID {
				t.Fatalf("rule id %q does not parse again", r.ID)
			}
			if a := Anchor(r.ID); strings.Trim(a, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || strings.Contains(a, "--") {
				t.Fatalf("anchor %q has characters outside [a-z0-9-]", a)
			}
		}
	})
}

func TestNumberSign(t *testing.T) {
	tests := map[string]int{"0": 0, "-0": 0, "-0.000e5": 0, "0e-3": 0, "1": 1, "0.001": 1, "-1e-300": -1, "-0.5": -1, "2E+3": 1}
	for lit, want := range tests {
		if got := MustNumber(lit).Sign(); got != want || got != MustNumber(lit).Rat().Sign() {
			t.Errorf("Sign(%s) = %d, want %d", lit, got, want)
		}
	}
}

func FuzzValidNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.5e+3", "01", "1.", "1e", ".5", "0.011", "620", "-0", "12345678901234567890123456789012345678901234567890123456789012345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidNumber(s), json.Valid([]byte(s)) && s != "" && strings.TrimSpace(s) == s && (s[0] == '-' || s[0] >= '0' && s[0] <= '9'); got != want {
			t.Fatalf("ValidNumber(%q) = %v, encoding/json says %v", s, got, want)
		}
		// PlainNumber, for literals of valid JSON text, is ParseNumber
		// where it answers.
		if !ValidNumber(s) {
			return
		}
		if n, ok := PlainNumber([]byte(s)); ok {
			if want, err := ParseNumber(s); err != nil || n != want || n.Sign() < 0 {
				t.Fatalf("PlainNumber(%q) = %v, ParseNumber gives %v, %v", s, n, want, err)
			}
		}
	})
}

func TestDecimalSum(t *testing.T) {
	tests := []struct {
		add  []string
		want string
	}{
		{nil, "0"},
		{[]string{"0.1", "0.2"}, "3/10"},
		{[]string{"0.025", "0.025", "0.025"}, "3/40"},
		{[]string{"1e3", "0.001", "-1"}, "999001/1000"},
		{[]string{"12.50", "1E-2", "0"}, "1251/100"},
		{[]string{"0", "0.0", "-0"}, "0"},
		// Past int64: a long mantissa, a sum that overflows, exponents
		// far apart, and back below zero.
		{[]string{"92233720368547758070", "1"}, "92233720368547758071"},
		{[]string{"900000000000000000", "900000000000000000", "0.5"}, "3600000000000000001/2"},
		{[]string{"1e-30", "1"}, "1000000000000000000000000000001/1000000000000000000000000000000"},
		{[]string{"1", "1e-30", "-1"}, "1/1000000000000000000000000000000"},
		{[]string{"-9e18", "-9e18"}, "-18000000000000000000"},
		{[]string{"1E+2", "-0.5e1"}, "95"},
	}
	for _, tt := range tests {
		var s DecimalSum
		want := new(big.Rat)
		for _, lit := range tt.add {
			s.Add(MustNumber(lit))
			want.Add(want, MustNumber(lit).Rat())
		}
		if got := s.Rat(); got.RatString() != tt.want || got.Cmp(want) != 0 {
			t.Errorf("sum of %v = %s, want %s", tt.add, got.RatString(), tt.want)
		}
	}
}

// FuzzDecimalSum checks the sum against exact rational arithmetic.
func FuzzDecimalSum(f *testing.F) {
	f.Add("0.0125", "1e-7", "900000000000000000")
	f.Add("-0", "12.50", "1E+3")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var s DecimalSum
		want := new(big.Rat)
		for _, lit := range []string{a, b, c} {
			n, err := ParseNumber(lit)
			if err != nil || len(lit) > 40 {
				return
			}
			s.Add(n)
			want.Add(want, n.Rat())
		}
		if got := s.Rat(); got.Cmp(want) != 0 {
			t.Fatalf("sum of %q %q %q = %s, want %s", a, b, c, got.RatString(), want.RatString())
		}
	})
}

func TestObject(t *testing.T) {
	src := `{"b":[1,{"z":true,"a":null}],"a":{"y":"<x>","x":1.50},"":"empty","é":"accent"}`
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	o := NewObject(m)
	var names []string
	for _, mem := range o {
		names = append(names, mem.Name)
	}
	if strings.Join(names, ",") != ",a,b,é" {
		t.Errorf("members in order %q", names)
	}
	if v, ok := o.Get("a"); !ok || v.(Object)[0].Name != "x" {
		t.Errorf("Get(a) = %v, %v", v, ok)
	}
	if _, ok := o.Get("c"); ok {
		t.Error("Get found a member that is not there")
	}
	if !reflect.DeepEqual(o.Map(), m) {
		t.Errorf("Map() = %v, want %v", o.Map(), m)
	}
	// Encoded as the map it came from, HTML escaping left to the encoder.
	for _, escape := range []bool{false, true} {
		encode := func(v any) string {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(escape)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		if got, want := encode(o), encode(m); got != want {
			t.Errorf("escape %v: encoded %s, want %s", escape, got, want)
		}
	}
}
