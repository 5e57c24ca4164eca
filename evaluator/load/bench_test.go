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

// sampleOutputLines are the non-blank lines of every sample snapshot.
func sampleOutputLines(b testing.TB) []numbered {
	var lines []numbered
	for _, name := range []string{"baseline-v1", "candidate-v2", "candidate-v3"} {
		lines = append(lines, sampleLines(b, filepath.Join("outputs", name+".jsonl"))...)
	}
	return lines
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

// BenchmarkReadLines reads a 10,000-line outputs file whole, as a bundle
// keeps it, against os.ReadFile of the same file (no checks).
func BenchmarkReadLines(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(sampleDir, "outputs", "candidate-v3.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	data := bytes.Repeat(src, 10_000/bytes.Count(src, []byte("\n")))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("ReadLines", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := ReadLines(dir, path, 1<<30); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := os.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}
