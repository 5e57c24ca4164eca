package jsonappend

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// marshal is what encoding/json writes for v.
func marshal(t testing.TB, v any, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 9.99e-7, 1e-7, 1e-10, 1e-100, 1e21, 9.99e20, 1e100, 0.1, 12345.678, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		if got, want := string(Float(nil, f)), marshal(t, f, true); got != want {
			t.Errorf("%v: %s, encoding/json writes %s", f, got, want)
		}
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{"", "plain", "GEN-000001", `q"uote`, `back\slash`, "<b>&amp;</b>", "tab\tnl\n", "\x00", "ünïcode €", "bad\xffutf8", "line\u2028sep\u2029", "\x7f"} {
		for _, html := range []bool{true, false} {
			if got, want := string(String(nil, s, html)), marshal(t, s, html); got != want {
				t.Errorf("%q (escapeHTML %v): %s, encoding/json writes %s", s, html, got, want)
			}
		}
	}
	if got := string(Strings(nil, nil, true)); got != "null" {
		t.Errorf("nil strings: %s", got)
	}
	if got, want := string(Strings([]byte("x"), []string{"a", "<"}, true)), `x["a","\u003c"]`; got != want {
		t.Errorf("strings: %s, want %s", got, want)
	}
}

func FuzzString(f *testing.F) {
	f.Add("GEN-1 <x> & \"y\"")
	f.Add("\xff\u2028\x01")
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			if got, want := string(String(nil, s, html)), marshal(t, s, html); got != want {
				t.Fatalf("%q (escapeHTML %v): %s, encoding/json writes %s", s, html, got, want)
			}
		}
	})
}

func FuzzFloat(f *testing.F) {
	f.Add(1e-7)
	f.Add(1e21)
	f.Add(620.5)
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		if got, want := string(Float(nil, x)), marshal(t, x, true); got != want {
			t.Fatalf("%v: %s, encoding/json writes %s", x, got, want)
		}
	})
}

// BenchmarkStrings appends 100,000 case ids, as a chart's categories.
func BenchmarkStrings(b *testing.B) {
	ids := make([]string, 100_000)
	for i := range ids {
		ids[i] = "GEN-" + string(rune('A'+i%26)) + "-000001"
	}
	var out []byte
	for b.Loop() {
		out = Strings(out[:0], ids, true)
	}
	b.SetBytes(int64(len(out)))
}
