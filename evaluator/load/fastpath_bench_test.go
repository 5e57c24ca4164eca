//go:build unix

package load

import (
	"bytes"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Each fast path of this package beside the plain way it shortcuts, on
// the same lines, in one run: see "Fast paths" in docs/design.md.
//
//	go test ./evaluator/load -run '^$' -bench 'FastPath' -benchmem -count 5
//
// The sub-benchmark "interleaved" runs the two one after the other in
// each round and reports the ratio of their processor times, which a
// machine whose load changes from one second to the next cannot bias.

// processorTime is the processor time the process has used, user and
// system: on a shared machine it tells the work apart from waiting for a
// core, which wall time does not.
func processorTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fastAndPlain benchmarks one round of the fast and the plain way as
// sub-benchmarks "fast" and "plain", each reporting its processor time,
// and both interleaved.
func fastAndPlain(b *testing.B, size int64, fast, plain func()) {
	for _, variant := range []struct {
		name  string
		round func()
	}{{"fast", fast}, {"plain", plain}} {
		b.Run(variant.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			cpu := processorTime()
			for b.Loop() {
				variant.round()
			}
			b.ReportMetric(float64(processorTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		var fastTime, plainTime time.Duration
		for i := 0; b.Loop(); i++ {
			ways := [2]func(){fast, plain}
			spent := [2]*time.Duration{&fastTime, &plainTime}
			for k := range 2 {
				k := (k + i) % 2 // each goes first in every other round
				start := processorTime()
				ways[k]()
				*spent[k] += processorTime() - start
			}
		}
		b.ReportMetric(float64(fastTime)/float64(b.N), "fast-cpu-ns/op")
		b.ReportMetric(float64(plainTime)/float64(b.N), "plain-cpu-ns/op")
		b.ReportMetric(float64(plainTime)/float64(fastTime), "plain/fast")
	})
}

func totalBytes(lines []numbered) int64 {
	n := 0
	for _, l := range lines {
		n += len(l.text)
	}
	return int64(n)
}

// BenchmarkFastPathOutputScanner reads the sample's output lines with the
// scanner for valid lines (parseOutput) and with the token decoder alone.
func BenchmarkFastPathOutputScanner(b *testing.B) {
	lines := sampleOutputLines(b)
	decisions := sampleSchema(b).Decisions
	d := newJSONDecoder()
	round := func(parse func(d *jsonDecoder, file string, line int, text []byte, decisions suite.Vocabulary) (*suite.Output, error)) func() {
		return func() {
			for _, l := range lines {
				if _, err := parse(d, "out.jsonl", l.line, l.text, decisions); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	fastAndPlain(b, totalBytes(lines), round(parseOutput), round(parseOutputTokens))
}

// BenchmarkFastPathCaseScanner decodes the sample's case lines into trees
// with the scanner for valid lines (decode) and with the token decoder
// alone; the input is kept opaque in both, as the sample schema allows.
func BenchmarkFastPathCaseScanner(b *testing.B) {
	lines := sampleLines(b, CasesFile)
	d := newJSONDecoder()
	round := func(decode func(d *jsonDecoder, text []byte, rawMember string, opaque bool) (any, []byte, error)) func() {
		return func() {
			for _, l := range lines {
				if _, _, err := decode(d, l.text, "input", true); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	fastAndPlain(b, totalBytes(lines), round((*jsonDecoder).decode), round((*jsonDecoder).decodeTokens))
}

// BenchmarkFastPathQuickSchema validates the sample's decoded cases
// against case.schema.json with the quick answers (CaseSchema.Validate)
// and with the JSON Schema validator alone.
func BenchmarkFastPathQuickSchema(b *testing.B) {
	schema := sampleSchema(b)
	if schema.quick == nil {
		b.Fatal("the sample schema has no quick answers")
	}
	d := newJSONDecoder()
	var trees []any
	for _, l := range sampleLines(b, CasesFile) {
		v, _, err := d.decode(l.text, "input", schema.opaqueInput)
		if err != nil {
			b.Fatal(err)
		}
		trees = append(trees, v)
	}
	round := func(validate func(v any) error) func() {
		return func() {
			for _, v := range trees {
				if err := validate(v); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	fastAndPlain(b, 0, round(schema.Validate), round(func(v any) error { return schema.schema.Validate(suite.ToTree(v)) }))
}

// BenchmarkFastPathOpaqueInput parses and validates the sample's case
// lines with each input passed over (the schema asks nothing of it but
// to be an object) and with each input decoded and validated.
func BenchmarkFastPathOpaqueInput(b *testing.B) {
	schema := sampleSchema(b)
	if !schema.opaqueInput {
		b.Fatal("the sample schema looks into inputs")
	}
	plain := *schema
	plain.opaqueInput = false
	policy := sampleSuite(b).Policy
	lines := sampleLines(b, CasesFile)
	d := newJSONDecoder()
	round := func(schema *CaseSchema) func() {
		p := &caseParser{file: CasesFile, schema: schema, policy: policy, decisions: schema.Decisions}
		return func() {
			for _, l := range lines {
				if _, err := p.parse(d, l.text, l.line); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	fastAndPlain(b, totalBytes(lines), round(schema), round(&plain))
}

// repeatedCases is the sample's cases.jsonl 1,000 times over, 12,000
// lines, and the parser of its lines.
func repeatedCases(b *testing.B) ([]byte, *caseParser) {
	src, err := os.ReadFile(filepath.Join(sampleDir, CasesFile))
	if err != nil {
		b.Fatal(err)
	}
	schema := sampleSchema(b)
	return bytes.Repeat(src, 1000), &caseParser{file: CasesFile, schema: schema, policy: sampleSuite(b).Policy, decisions: schema.Decisions}
}

// parseSequentially is parseLines on one decoder, a line after another.
func parseSequentially(lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (*suite.Case, error)) ([]*suite.Case, error) {
	d := newJSONDecoder()
	var out []*suite.Case
	for {
		text, n, err := lr.next()
		if err != nil {
			return out, nil
		}
		c, err := parse(d, text, n)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
}

// BenchmarkFastPathParallelLines parses 12,000 case lines in chunks on
// all cores (parseLines) and one after another on one decoder. The
// parallel way is meant to save wall time, so compare ns/op too.
func BenchmarkFastPathParallelLines(b *testing.B) {
	data, p := repeatedCases(b)
	round := func(parse func(lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (*suite.Case, error)) ([]*suite.Case, error)) func() {
		return func() {
			cases, err := parse(newLineReader(CasesFile, bytes.NewReader(data)), p.parse)
			if err != nil || len(cases) != 12_000 {
				b.Fatal(len(cases), err)
			}
		}
	}
	inParallel := func(lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (*suite.Case, error)) ([]*suite.Case, error) {
		return parseLines(lr, parse, nil)
	}
	fastAndPlain(b, int64(len(data)), round(inParallel), round(parseSequentially))
}

// BenchmarkFastPathParallelStream hands 12,000 case lines on in chunks
// of 256 parsed on all cores (streamLines), and parsed one after another
// on one decoder. As above, compare ns/op too.
func BenchmarkFastPathParallelStream(b *testing.B) {
	data, p := repeatedCases(b)
	sequential := func(lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (*suite.Case, error), yield func([]*suite.Case) error) error {
		d := newJSONDecoder()
		batch := make([]*suite.Case, 0, 256)
		for {
			text, n, err := lr.next()
			if err != nil {
				break
			}
			c, err := parse(d, text, n)
			if err != nil {
				return err
			}
			if batch = append(batch, c); len(batch) == 256 {
				if err := yield(batch); err != nil {
					return err
				}
				batch = make([]*suite.Case, 0, 256)
			}
		}
		if len(batch) > 0 {
			return yield(batch)
		}
		return nil
	}
	round := func(stream func(lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (*suite.Case, error), yield func([]*suite.Case) error) error) func() {
		return func() {
			n := 0
			err := stream(newLineReader(CasesFile, bytes.NewReader(data)), p.parse, func(batch []*suite.Case) error {
				n += len(batch)
				return nil
			})
			if err != nil || n != 12_000 {
				b.Fatal(n, err)
			}
		}
	}
	fastAndPlain(b, int64(len(data)), round(streamLines[*suite.Case]), round(sequential))
}

// BenchmarkFastPathQuickValid checks the sample's case and output lines
// for valid JSON with quickValid (IsValid deciding only what it does not
// handle) and with jsontext.Value.IsValid alone.
func BenchmarkFastPathQuickValid(b *testing.B) {
	lines := append(sampleLines(b, CasesFile), sampleOutputLines(b)...)
	d := newJSONDecoder()
	round := func(valid func(text []byte) bool) func() {
		return func() {
			for _, l := range lines {
				if !valid(l.text) {
					b.Fatalf("line %d: not valid", l.line)
				}
			}
		}
	}
	fastAndPlain(b, totalBytes(lines), round(d.valid), round(func(text []byte) bool { return jsontext.Value(text).IsValid() }))
}

// BenchmarkFastPathQuickCase parses the sample's case lines straight
// into their Case (parse) and by way of a tree validated against the
// schema (parseTree, the exact path).
func BenchmarkFastPathQuickCase(b *testing.B) {
	schema := sampleSchema(b)
	p := &caseParser{file: CasesFile, schema: schema, policy: sampleSuite(b).Policy, decisions: schema.Decisions}
	lines := sampleLines(b, CasesFile)
	d := newJSONDecoder()
	round := func(parse func(d *jsonDecoder, text []byte, line int) (*suite.Case, error)) func() {
		return func() {
			for _, l := range lines {
				if _, err := parse(d, l.text, l.line); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	fastAndPlain(b, totalBytes(lines), round(p.parse), round(p.parseTree))
}

// BenchmarkFastPathPlainNumber reads the latencies and costs of the
// sample's output lines with suite.PlainNumber, ParseNumber deciding
// only what it leaves, and with ParseNumber and Sign alone, as measured
// does.
func BenchmarkFastPathPlainNumber(b *testing.B) {
	var lits [][]byte
	for _, l := range sampleOutputLines(b) {
		s := newValidScanner(l.text, newJSONDecoder())
		s.next()
		s.i++
		for s.next() != '}' {
			name := string(s.text())
			if c := s.next(); (name == "latency_ms" || name == "cost_usd") && c != 'n' {
				lits = append(lits, s.number())
				continue
			}
			s.skip()
		}
	}
	if len(lits) < 40 {
		b.Fatalf("%d literals", len(lits))
	}
	round := func(plain bool) func() {
		return func() {
			for _, lit := range lits {
				if _, ok := suite.PlainNumber(lit); ok && !plain {
					continue
				} else if n, err := suite.ParseNumber(string(lit)); err != nil || n.Sign() < 0 {
					b.Fatal(lit, err)
				}
			}
		}
	}
	fastAndPlain(b, 0, round(false), round(true))
}

// BenchmarkFastPathCheckedOutput reads the sample's output lines in one
// pass that checks and reads (checkedOutput), and by checking them
// first and reading them after (jsonDecoder.valid, then quickOutput).
func BenchmarkFastPathCheckedOutput(b *testing.B) {
	lines := sampleOutputLines(b)
	d := newJSONDecoder()
	fastAndPlain(b, totalBytes(lines), func() {
		for _, l := range lines {
			if _, ok := d.checkedOutput(l.text, l.line); !ok {
				b.Fatalf("line %d: checkedOutput gave up", l.line)
			}
		}
	}, func() {
		for _, l := range lines {
			if !d.valid(l.text) {
				b.Fatalf("line %d: invalid", l.line)
			}
			if _, ok := d.quickOutput(l.text, l.line); !ok {
				b.Fatalf("line %d: quickOutput gave up", l.line)
			}
		}
	})
}

// BenchmarkFastPathLineWindow reads again every third line of a file of
// 30,000 output lines, in order, as the grouped pages of a build read the
// outputs of failing results: through a lineWindow (fast) and with one
// read a line (plain).
func BenchmarkFastPathLineWindow(b *testing.B) {
	lines := sampleLines(b, "outputs/candidate-v2.jsonl")
	var text []byte
	var places []suite.LinePlace
	for i := range 30_000 {
		line := lines[i%len(lines)].text
		if i%3 == 0 {
			places = append(places, suite.LinePlace{Offset: int64(len(text)), Size: int32(len(line) + 1), Sum: crc32.Checksum(line, castagnoli)})
		}
		text = append(append(text, line...), '\n')
	}
	path := filepath.Join(b.TempDir(), "outputs.jsonl")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fast := func() {
		var w lineWindow
		for k, at := range places {
			if _, err := readLineAt(f, path, 3*k+1, at, &w); err != nil {
				b.Fatal(err)
			}
		}
	}
	plain := func() {
		var buf []byte
		for k, at := range places {
			buf = slices.Grow(buf[:0], int(at.Size))[:at.Size]
			if _, err := f.ReadAt(buf, at.Offset); err != nil {
				b.Fatal(err)
			}
			if line := clean(buf, 3*k+1); crc32.Checksum(line, castagnoli) != at.Sum {
				b.Fatal("the line read is not the line placed")
			}
		}
	}
	fastAndPlain(b, int64(len(text)), fast, plain)
}
