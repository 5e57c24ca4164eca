package load

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+3`, `true`, `false`, `null`, ` {"a" : [1, 2.0, {"b": null}] } `,
	`{"a":1,"b":2}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"a":1}}`, `[{"a":1},{"a":2}]`,
	`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\u00e9"`, `"é"`, "\"\xff\"", "\"\xed\xa0\x80\"",
	`"\x"`, `"\u12"`, "\"a\tb\"", `"\/\b\f\n\r\t\"\\"`,
	`01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `1 2`, `[1,]`, `{"a":1,}`, `{"a"}`, `{a:1}`, `[`, `{`, `"abc`,
	`tru`, `nul`, `truex`, ``, ` `, "\ufeff{}", `{"a":1}x`, `[1]]`,
}

func TestValidJSONMatchesJSONText(t *testing.T) {
	for _, in := range validCases {
		if got, want := validJSON([]byte(in)), jsontext.Value(in).IsValid(); got != want {
			t.Errorf("validJSON(%q) = %v, jsontext says %v", in, got, want)
		}
	}
	// Nesting up to jsontext's limit, and one past it.
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		for _, in := range []string{
			strings.Repeat("[", depth) + strings.Repeat("]", depth),
			strings.Repeat(`{"":`, depth) + `0` + strings.Repeat("}", depth),
		} {
			if got, want := validJSON([]byte(in)), jsontext.Value(in).IsValid(); got != want {
				t.Errorf("depth %d: validJSON = %v, jsontext says %v", depth, got, want)
			}
		}
	}
	// Many members: a duplicate far apart is still found.
	var b strings.Builder
	b.WriteString("{")
	for i := range 5000 {
		b.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":0,`)
	}
	b.WriteString(`"ka":1}`)
	if validJSON([]byte(b.String())) != jsontext.Value(b.String()).IsValid() {
		t.Error("large object: verdicts differ")
	}
}

// FuzzValidJSON holds validJSON to jsontext on arbitrary text.
func FuzzValidJSON(f *testing.F) {
	for _, in := range validCases {
		f.Add(in)
	}
	for _, name := range []string{CasesFile, "outputs/candidate-v2.jsonl"} {
		for _, l := range sampleLines(f, name) {
			f.Add(string(l.text))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := validJSON([]byte(in)), jsontext.Value(in).IsValid(); got != want {
			t.Fatalf("validJSON(%q) = %v, jsontext says %v", in, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	lines := sampleLines(b, CasesFile)
	n := 0
	for _, l := range lines {
		n += len(l.text)
	}
	b.SetBytes(int64(n))
	b.Run("validJSON", func(b *testing.B) {
		var v validator
		for b.Loop() {
			for _, l := range lines {
				v.check(l.text)
			}
		}
	})
	b.Run("jsontext", func(b *testing.B) {
		for b.Loop() {
			for _, l := range lines {
				jsontext.Value(l.text).IsValid()
			}
		}
	})
}
