package pages

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// indentSeeds are JSON texts in every layout json.Indent rewrites.
var indentSeeds = []string{
	`{"amount":18.5,"approval":{"approver_id":"M-118","status":"approved"},"tags":["a","b"],"none":null}`,
	"  {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\" : { } , \"c\" : [ ] }  \n",
	`[]`, `{}`, `[{}]`, `[[],[[]]]`, `"x\"y\\"`, `"\u00e9\n"`, `-1.5e+10`, `true`, ` false `, `null`,
	`{"a":"}],:\\\"{["}`, `{"é":"ü","":""}`, `[1,-0,0.5e-3,1E2]`, "\n\n1\n",
	strings.Repeat("[", maxIndentDepth) + strings.Repeat("]", maxIndentDepth),
	strings.Repeat("[", maxIndentDepth+1) + strings.Repeat("]", maxIndentDepth+1),
	strings.Repeat(`{"a":`, maxIndentDepth+1) + "{}" + strings.Repeat("}", maxIndentDepth+1),
}

func TestIndentValid(t *testing.T) {
	for _, src := range indentSeeds {
		if !jsontext.Value(src).IsValid() {
			t.Fatalf("seed %q is not valid JSON", src)
		}
		sameIndent(t, src)
	}
}

func FuzzIndentValid(f *testing.F) {
	for _, src := range indentSeeds {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if jsontext.Value(src).IsValid() {
			sameIndent(t, src)
		}
		// Whatever the text, prettyInput shows what it did before.
		want := src
		var b bytes.Buffer
		if nestingDepth([]byte(src)) <= maxIndentDepth && json.Indent(&b, []byte(src), "", "  ") == nil {
			want = b.String()
		}
		if got := prettyInput([]byte(src)); got != want {
			t.Fatalf("prettyInput(%q) = %q, want %q", src, got, want)
		}
	})
}

// sameIndent fails t unless indentValid lays src out as json.Indent does.
func sameIndent(t *testing.T, src string) {
	t.Helper()
	var want bytes.Buffer
	if err := json.Indent(&want, []byte(src), "", "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", src, err)
	}
	var b strings.Builder
	b.WriteString("before")
	ok := indentValid(&b, []byte(src))
	got := b.String()
	if deep := nestingDepth([]byte(src)) > maxIndentDepth; ok == deep {
		t.Fatalf("indentValid(%q): ok %v, nested %d deep", src, ok, nestingDepth([]byte(src)))
	}
	if ok && got != "before"+want.String() {
		t.Fatalf("indentValid(%q) =\n%s\nwant\n%s", src, got, want.String())
	}
}

// BenchmarkFastPathIndent lays out the inputs of 10,000 generated cases:
// /fast as prettyInput does, /plain with json.Indent (see docs/design.md,
// Fast paths).
func BenchmarkFastPathIndent(b *testing.B) {
	var inputs [][]byte
	for _, c := range loadGeneratedSuite(b, 10000).Cases {
		inputs = append(inputs, c.Input)
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			for _, in := range inputs {
				_ = prettyInput(in)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			for _, in := range inputs {
				buf.Reset()
				if err := json.Indent(&buf, in, "", "  "); err != nil {
					b.Fatal(err)
				}
				_ = buf.String()
			}
		}
	})
}

// loadGeneratedSuite is the suite of n generated cases.
func loadGeneratedSuite(tb testing.TB, n int) *suite.Suite {
	tb.Helper()
	data := filepath.Join(tb.TempDir(), "data")
	if err := gensuite.Write(filepath.Join("..", "..", "data"), data, n); err != nil {
		tb.Fatal(err)
	}
	s, err := load.Suite(data, load.Options{KeepInputs: true})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
