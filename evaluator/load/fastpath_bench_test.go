//go:build unix

package load

import (
	"syscall"
	"testing"
	"time"

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
