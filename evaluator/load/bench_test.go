package load

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// numbered is one non-blank line and where it stood.
type numbered struct {
	text []byte
	line int
}

func sampleLines(b testing.TB, name string) []numbered {
	data, err := os.ReadFile(filepath.Join(sampleDir, name))
	if err != nil {
		b.Fatal(err)
	}
	lr := newLineReader("cases.jsonl", bytes.NewReader(data))
	var lines []numbered
	for {
		text, n, err := lr.next()
		if err != nil {
			return lines
		}
		lines = append(lines, numbered{bytes.Clone(text), n})
	}
}

func BenchmarkParseOutput(b *testing.B) {
	lines := sampleLines(b, "outputs/baseline-v1.jsonl")
	b.SetBytes(int64(len(bytes.Join(func() [][]byte {
		var t [][]byte
		for _, l := range lines {
			t = append(t, l.text)
		}
		return t
	}(), nil))))
	d := newJSONDecoder()
	for b.Loop() {
		for _, l := range lines {
			if _, err := parseOutput(d, "out.jsonl", l.line, l.text, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkParseCase(b *testing.B) {
	s := sampleSuite(b)
	schema := sampleSchema(b)
	lines := sampleLines(b, CasesFile)
	p := &caseParser{file: "cases.jsonl", schema: schema, policy: s.Policy}
	d := newJSONDecoder()
	for b.Loop() {
		for _, l := range lines {
			if _, err := p.parse(d, l.text, l.line); err != nil {
				b.Fatal(err)
			}
		}
	}
}
