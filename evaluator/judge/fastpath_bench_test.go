//go:build unix

package judge

import (
	"syscall"
	"testing"
	"time"
)

// Each fast path of the judge beside the plain way it shortcuts, on the
// same passing output, in one run: see "Fast paths" in docs/design.md.
//
//	go test ./evaluator/judge -run '^$' -bench 'FastPath' -benchmem -count 5

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

// fastAndPlain runs fast and plain as sub-benchmarks and reports the processor
// time per operation of each.
func fastAndPlain(b *testing.B, fast, plain func()) {
	for _, variant := range []struct {
		name string
		f    func()
	}{{"fast", fast}, {"plain", plain}} {
		b.Run(variant.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processorTime()
			for b.Loop() {
				variant.f()
			}
			b.ReportMetric(float64(processorTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkFastPathCitations checks the citations of an output that cites
// what it should, with citationsOK first (citationProblems) and by
// listing the problems alone.
func BenchmarkFastPathCitations(b *testing.B) {
	p := testPolicy(b)
	expected := []string{"ER-2026.10 §5.1", "ER-2026.10 §4.2"}
	actual := []string{"ER-2026.10 §4.2", "ER-2026.10 §5.1"}
	check := func(problems []string) {
		if problems != nil {
			b.Fatal(problems)
		}
	}
	fastAndPlain(b,
		func() { check(citationProblems(expected, actual, p)) },
		func() { check(listCitationProblems(expected, actual, p)) })
}

// BenchmarkFastPathArguments compares the arguments of a matching call,
// with matches first (CompareArguments) and by collecting mismatches
// with their paths alone.
func BenchmarkFastPathArguments(b *testing.B) {
	expected := rejectCase(b).Expected.ToolCalls[0].Arguments
	actual := call(b, "reject_expense", `{"claim_id":"C-1","amount":1250.0,"approver":{"id":"M-1","role":"manager"},"lines":[1,2],"note":"x"}`)
	fastAndPlain(b,
		func() {
			if CompareArguments(expected, actual) != nil {
				b.Fatal("mismatch")
			}
		},
		func() {
			var ms []Mismatch
			if compare("arguments", expected, actual.Arguments, &ms); ms != nil {
				b.Fatal(ms)
			}
		})
}
