package ciout

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
)

// inSuite writes tc inside <testsuites><testsuite> as WriteJUnit does,
// with appendTestcase when byHand is set and with encoding/xml otherwise.
func inSuite(t testing.TB, tc *testcase, byHand bool) []byte {
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	outer, inner := element("testsuites"), element("testsuite", "name", "s")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(enc.EncodeToken(outer))
	must(enc.EncodeToken(inner))
	must(enc.EncodeElement(properties{[]property{{"p", "v"}}}, element("properties")))
	if byHand {
		must(enc.Flush())
		_, err := w.Write(appendTestcase(nil, tc))
		must(err)
	} else {
		must(enc.EncodeElement(tc, element("testcase")))
	}
	must(enc.EncodeToken(inner.End()))
	must(enc.EncodeToken(outer.End()))
	must(enc.Close())
	must(w.Flush())
	return out.Bytes()
}

// FuzzTestcase holds appendTestcase to encoding/xml: the same bytes for
// any text in any field, markup, control characters and invalid UTF-8
// included, and with each optional part present or not.
func FuzzTestcase(f *testing.F) {
	f.Add("candidate-v2", "ER-001: Ordinary approval", "0.84", "minor", "decision, citation", "decision", "decision: expected approve, got deny\ncitation: missing §2.1", "", uint8(7))
	f.Add(`a"b'c&d<e>f`, "tab\there\r\n", "", "\x00\x1f\x7f", "\xff\xfe", "\ufffd", "é 😀 \u2028", "trial 2: x", uint8(0))
	f.Add("", "", "", "", "", "", "", "", uint8(255))
	f.Fuzz(func(t *testing.T, class, name, time, severity, message, typ, body, systemOut string, parts uint8) {
		tc := testcase{Classname: class, Name: name, Time: time, SystemOut: systemOut}
		if parts&1 != 0 {
			tc.Properties = append(tc.Properties, property{"severity", severity})
		}
		if parts&2 != 0 {
			tc.Properties = append(tc.Properties, property{"versus_previous", body})
		}
		if parts&4 != 0 {
			tc.Failure = &failure{Message: message, Type: typ, Body: body}
		}
		if got, want := inSuite(t, &tc, true), inSuite(t, &tc, false); !bytes.Equal(got, want) {
			t.Fatalf("by hand:\n%s\nencoding/xml:\n%s", got, want)
		}
	})
}

// benchmarkTestcases are the <testcase> elements of a JUnit report of
// bigRelease(10000).
func benchmarkTestcases() []testcase {
	rel := bigRelease(10000)
	var tcs []testcase
	for _, snap := range rel.Snapshots {
		snap.EachCase(func(i int, c *evaluator.CaseResult) { tcs = append(tcs, testcaseOf(rel, snap, i, c, nil)) })
	}
	return tcs
}

// BenchmarkFastPathTestcase writes the same test cases by hand, as
// WriteJUnit does (fast), and with encoding/xml (plain).
func BenchmarkFastPathTestcase(b *testing.B) {
	tcs := benchmarkTestcases()
	b.Run("fast", func(b *testing.B) {
		w := bufio.NewWriter(io.Discard)
		var buf []byte
		for b.Loop() {
			for i := range tcs {
				buf = appendTestcase(buf[:0], &tcs[i])
				w.Write(buf)
			}
		}
		b.ReportMetric(float64(len(tcs))*float64(b.N)/b.Elapsed().Seconds(), "testcases/s")
	})
	b.Run("plain", func(b *testing.B) {
		enc := xml.NewEncoder(io.Discard)
		enc.Indent("", "  ")
		for b.Loop() {
			for i := range tcs {
				if err := enc.EncodeElement(&tcs[i], element("testcase")); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(tcs))*float64(b.N)/b.Elapsed().Seconds(), "testcases/s")
	})
}
