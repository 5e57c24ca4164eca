//go:build unix

package evaluator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
)

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

// BenchmarkFastPathResultsFile encodes the results file of 10,000 cases,
// a third of them failing, with the hand-written encoder (WriteJSON) and
// with encoding/json set up the same way; the bytes are checked equal
// first. See "Fast paths" in docs/design.md.
//
//	go test ./evaluator -run '^$' -bench 'FastPath' -benchmem -count 5
func BenchmarkFastPathResultsFile(b *testing.B) {
	r := Result{Label: "candidate", Decision: decide.Review, Gates: make([]decide.GateResult, 4), Cases: make([]CaseResult, 10_000)}
	for i := range r.Cases {
		c := &r.Cases[i]
		c.CaseID, c.Severity, c.Passed, c.Failures = "G0000001", "major", i%3 != 0, []judge.Failure{}
		if !c.Passed {
			c.Failures = []judge.Failure{{Code: judge.Citation, Detail: "cites outdated ER-2026.08 §6.1; the current rule is ER-2026.10 §6.1"}}
		}
	}
	plain := func(w *bytes.Buffer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(&r)
	}
	var fast, reference bytes.Buffer
	if err := r.WriteJSON(&fast); err != nil {
		b.Fatal(err)
	}
	if err := plain(&reference); err != nil {
		b.Fatal(err)
	}
	if !bytes.Equal(fast.Bytes(), reference.Bytes()) {
		b.Fatal("the two encoders disagree")
	}
	for _, variant := range []struct {
		name   string
		encode func(w *bytes.Buffer) error
	}{{"fast", func(w *bytes.Buffer) error { return r.WriteJSON(w) }}, {"plain", plain}} {
		b.Run(variant.name, func(b *testing.B) {
			b.SetBytes(int64(fast.Len()))
			b.ReportAllocs()
			var w bytes.Buffer
			cpu := processorTime()
			for b.Loop() {
				w.Reset()
				if err := variant.encode(&w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processorTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkFastPathTextStore keeps the failure texts of 100,000 cases, a
// third of them failing, as a streamed snapshot does, and reads them
// back: in a textStore's blocks, and in one strings.Builder.
func BenchmarkFastPathTextStore(b *testing.B) {
	const detail = "cites outdated ER-2026.08 §6.1; the current rule is ER-2026.10 §6.1; expected approve_expense, got reject_expense"
	texts := make([]string, 0, 2*33_334)
	for i := range 33_334 {
		texts = append(texts, string(judge.Citation), detail[:len(detail)-i%40])
	}
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	ends := make([]uint32, len(texts))
	fast := func() int {
		var s textStore
		for i, t := range texts {
			ends[i] = s.add(t)
		}
		blocks, n, start := s.blocks(), 0, uint32(0)
		for _, end := range ends {
			n += len(s.text(blocks, start, end))
			start = end
		}
		return n
	}
	plain := func() int {
		var s strings.Builder
		for i, t := range texts {
			s.WriteString(t)
			ends[i] = uint32(s.Len())
		}
		all, n, start := s.String(), 0, uint32(0)
		for _, end := range ends {
			n += len(all[start:end])
			start = end
		}
		return n
	}
	for _, variant := range []struct {
		name string
		keep func() int
	}{{"fast", fast}, {"plain", plain}} {
		b.Run(variant.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			cpu := processorTime()
			for b.Loop() {
				if variant.keep() != size {
					b.Fatal("texts lost")
				}
			}
			b.ReportMetric(float64(processorTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkJSONAfter writes the results file of 100,000 cases, a third
// failing, after an edit of the thresholds: its case results encoded
// again ("plain", JSON) and taken from the file before ("fast",
// JSONAfter).
//
//	go test ./evaluator -run '^$' -bench JSONAfter -benchmem -count 5
func BenchmarkJSONAfter(b *testing.B) {
	before := &Snapshot{Result: Result{Label: "candidate", Decision: decide.Review, Gates: make([]decide.GateResult, 4), Cases: make([]CaseResult, 100_000)}}
	for i := range before.Result.Cases {
		c := &before.Result.Cases[i]
		c.CaseID, c.Severity, c.Passed, c.Failures = fmt.Sprintf("GEN-%06d", i), "major", i%3 != 0, []judge.Failure{}
		if !c.Passed {
			c.Failures = []judge.Failure{{Code: judge.Citation, Detail: "cites outdated ER-2026.08 §6.1; the current rule is ER-2026.10 §6.1"}}
		}
	}
	last := before.JSON()
	after := *before
	after.Result.Decision = decide.Block
	if !bytes.Equal(after.JSONAfter(before, last), after.JSON()) {
		b.Fatal("JSONAfter differs from JSON")
	}
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(last)))
		for b.Loop() {
			after.JSON()
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(last)))
		for b.Loop() {
			after.JSONAfter(before, last)
		}
	})
}
