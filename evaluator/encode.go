package evaluator

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/jsonappend"
)

// The results files of a large suite run to tens of megabytes, so they are
// written by hand rather than by reflection: field by field, streamed in
// chunks. The bytes are exactly those of encoding/json with two-space
// indents and HTML escaping off; a test holds the two side by side, and
// BenchmarkFastPathResultsFile times them ("Fast paths" in docs/design.md).

// JSON encodes the results file: indented, keys in the documented order, one
// trailing newline. The same inputs always give the same bytes.
func (s *Snapshot) JSON() []byte {
	var b bytes.Buffer
	// Sized near the file's length: growing a buffer to tens of
	// megabytes by doubling allocated twice that and copied it.
	b.Grow(s.Result.sizeHint())
	s.Result.WriteJSON(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// sizeHint is about the length of r's results file: a case without
// failures takes about 110 bytes (155 with trials), a failure about 90
// and its detail, a changed case of a comparison about 90. On the
// generated suites and the examples it is within 10 % of the length, or
// above it.
func (r *Result) sizeHint() int {
	n := 4096
	for i := range r.Cases {
		n += 110 + len(r.Cases[i].CaseID)
		if r.Cases[i].Trials > 0 {
			n += 45 // "trials" and "trials_passed"
		}
		for _, f := range r.Cases[i].Failures {
			n += 90 + len(f.Detail)
		}
	}
	for _, c := range []*decide.Comparison{r.VersusPrevious, r.VersusBaseline} {
		if c != nil {
			n += 90 * len(c.Cases)
		}
	}
	return n
}

// JSONAfter is JSON for a snapshot judged again whose case results may
// be those of before, whose results file is last. Where they are, the
// case results are copied from last as they were written instead of
// encoded again: at 100,000 cases they are nearly all of the file, and
// an edit of the thresholds, a title or the policy leaves them as they
// were. before and last may be nil.
func (s *Snapshot) JSONAfter(before *Snapshot, last []byte) []byte {
	cases, ok := writtenCases(before, s, last)
	if !ok {
		return s.JSON()
	}
	var b bytes.Buffer
	b.Grow(len(last) + len(last)/64 + 4096)
	s.Result.writeJSON(&b, cases) // a bytes.Buffer does not fail
	return b.Bytes()
}

// The members around "cases" at the top of a results file, as encoder
// writes them. Inside a string a line break is written \n, so a raw one
// followed by two spaces and a quote only begins a top-level member.
var (
	casesMember  = []byte("\n  \"cases\": ")
	inputsMember = []byte(",\n  \"inputs\": ")
)

// writtenCases is the encoded "cases" array of last, the results file of
// before, when after has the same case results.
func writtenCases(before, after *Snapshot, last []byte) ([]byte, bool) {
	if before == nil || before.Result.streamed != nil || after.Result.streamed != nil ||
		!slices.EqualFunc(before.Result.Cases, after.Result.Cases, func(a, b CaseResult) bool { return a.Equal(&b) }) ||
		(before.Result.Cases == nil) != (after.Result.Cases == nil) {
		return nil, false
	}
	_, rest, ok := bytes.Cut(last, casesMember)
	if !ok {
		return nil, false
	}
	cases, _, ok := bytes.Cut(rest, inputsMember)
	return cases, ok
}

// WriteJSON writes r as its results file to w.
func (r *Result) WriteJSON(w io.Writer) error { return r.writeJSON(w, nil) }

// writeJSON is WriteJSON writing cases, when not nil, as the encoded
// case results.
func (r *Result) writeJSON(w io.Writer, cases []byte) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	e := &encoder{w: bw, written: cases}
	e.result(r, "")
	e.b = append(e.b, '\n')
	e.flush()
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// EncodeJSON writes results the way results files are written, as one
// JSON array: two-space indents, no HTML escaping, a final newline.
func EncodeJSON(results []Result) []byte {
	var b bytes.Buffer
	e := &encoder{w: &b}
	if results == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.array(len(results), "", func(i int, indent string) { e.result(&results[i], indent) })
	}
	e.b = append(e.b, '\n')
	e.flush()
	return b.Bytes()
}

// encoder appends JSON to a buffer and hands it to w in chunks.
// written, when not nil, is written as a result's case results, as it
// is.
type encoder struct {
	w       io.Writer
	b       []byte
	err     error
	written []byte
}

const chunkSize = 32 << 10

func (e *encoder) flush() {
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// object writes {"k": v, ...} with one member per line; member writes
// the members, each through key.
func (e *encoder) object(indent string, members func(key func(name string), inner string)) {
	inner := indent + "  "
	first := true
	e.b = append(e.b, '{')
	members(func(name string) {
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		e.b = append(e.b, '\n')
		e.b = append(e.b, inner...)
		e.str(name)
		e.b = append(e.b, ": "...)
	}, inner)
	if !first {
		e.b = append(e.b, '\n')
		e.b = append(e.b, indent...)
	}
	e.b = append(e.b, '}')
}

// array writes n elements, one per line, or [] when n is 0.
func (e *encoder) array(n int, indent string, elem func(i int, indent string)) {
	if n == 0 {
		e.b = append(e.b, "[]"...)
		return
	}
	inner := indent + "  "
	e.b = append(e.b, '[')
	for i := range n {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, '\n')
		e.b = append(e.b, inner...)
		elem(i, inner)
		if len(e.b) >= chunkSize {
			e.flush()
		}
	}
	e.b = append(e.b, '\n')
	e.b = append(e.b, indent...)
	e.b = append(e.b, ']')
}

func (e *encoder) result(r *Result, indent string) {
	e.object(indent, func(key func(string), inner string) {
		key("label")
		e.str(r.Label)
		key("decision")
		e.str(string(r.Decision))
		key("cases_total")
		e.b = strconv.AppendInt(e.b, int64(r.CasesTotal), 10)
		key("cases_passed")
		e.b = strconv.AppendInt(e.b, int64(r.CasesPassed), 10)
		key("pass_rate")
		e.float(r.PassRate)
		key("confidence")
		e.float(r.Confidence)
		key("pass_rate_interval")
		if r.PassRateInterval == nil {
			e.b = append(e.b, "null"...)
		} else {
			e.array(2, inner, func(i int, _ string) { e.float(r.PassRateInterval[i]) })
		}
		if r.Trials != 0 {
			key("trials")
			e.b = strconv.AppendInt(e.b, int64(r.Trials), 10)
		}
		if r.TrialPassRate != nil {
			key("trial_pass_rate")
			e.float(*r.TrialPassRate)
		}
		key("critical_failures")
		e.b = strconv.AppendInt(e.b, int64(r.CriticalFailures), 10)
		key("p95_latency_ms")
		e.optFloat(r.P95LatencyMS)
		key("avg_cost_usd")
		e.optFloat(r.AvgCostUSD)
		key("gates")
		e.gates(r.Gates, inner)
		if r.VersusPrevious != nil {
			key("versus_previous")
			e.comparison(r.VersusPrevious, inner)
		}
		if r.VersusBaseline != nil {
			key("versus_baseline")
			e.comparison(r.VersusBaseline, inner)
		}
		key("cases")
		switch {
		case e.written != nil:
			e.flush()
			if e.err == nil {
				_, e.err = e.w.Write(e.written)
			}
		case r.streamed != nil:
			e.streamedCases(r.streamed, inner)
		default:
			e.cases(r.Cases, inner)
		}
		key("inputs")
		e.object(inner, func(key func(string), _ string) {
			key("cases_sha256")
			e.str(r.Inputs.CasesSHA256)
			key("outputs_sha256")
			e.str(r.Inputs.OutputsSHA256)
			key("policy_sha256")
			e.str(r.Inputs.PolicySHA256)
			key("gate_sha256")
			e.str(r.Inputs.GateSHA256)
		})
		if r.Meta != nil {
			key("meta")
			e.meta(r.Meta, inner)
		}
	})
}

func (e *encoder) gates(gates []decide.GateResult, indent string) {
	if gates == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.array(len(gates), indent, func(i int, indent string) {
		g := &gates[i]
		e.object(indent, func(key func(string), _ string) {
			key("gate")
			e.str(g.Gate)
			key("threshold")
			if g.Threshold.Label != "" {
				e.str(g.Threshold.Label)
			} else {
				e.optFloat(g.Threshold.Number)
			}
			key("observed")
			e.optFloat(g.Observed)
			key("passed")
			e.b = strconv.AppendBool(e.b, g.Passed)
			if g.Inconclusive {
				key("inconclusive")
				e.b = strconv.AppendBool(e.b, true)
			}
			if g.LowerBound != nil {
				key("lower_bound")
				e.float(*g.LowerBound)
			}
		})
	})
}

// comparison writes versus_previous or versus_baseline.
func (e *encoder) comparison(c *decide.Comparison, indent string) {
	e.object(indent, func(key func(string), inner string) {
		key("label")
		e.str(c.Label)
		key("regressions")
		e.b = strconv.AppendInt(e.b, int64(c.Regressions), 10)
		key("fixes")
		e.b = strconv.AppendInt(e.b, int64(c.Fixes), 10)
		key("p_value")
		e.float(c.PValue)
		key("significant")
		e.b = strconv.AppendBool(e.b, c.Significant)
		key("cases")
		if c.Cases == nil {
			e.b = append(e.b, "null"...)
			return
		}
		e.array(len(c.Cases), inner, func(i int, indent string) {
			ch := &c.Cases[i]
			e.object(indent, func(key func(string), _ string) {
				key("case_id")
				e.str(ch.CaseID)
				key("change")
				e.str(string(ch.Change))
				key("p_value")
				e.optFloat(ch.PValue)
			})
		})
	})
}

func (e *encoder) cases(cases []CaseResult, indent string) {
	if cases == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.array(len(cases), indent, func(i int, indent string) { e.caseResult(&cases[i], indent) })
}

// streamedCases writes the cases of a streamed snapshot, reading each
// back from its compact verdicts.
func (e *encoder) streamedCases(v *verdicts, indent string) {
	cur := v.cursor()
	e.array(v.cases.len(), indent, func(i int, indent string) { e.caseResult(cur.at(i), indent) })
}

func (e *encoder) caseResult(c *CaseResult, indent string) {
	e.object(indent, func(key func(string), inner string) {
		key("case_id")
		e.str(c.CaseID)
		key("severity")
		e.str(string(c.Severity))
		key("passed")
		e.b = strconv.AppendBool(e.b, c.Passed)
		if c.Trials != 0 {
			key("trials")
			e.b = strconv.AppendInt(e.b, int64(c.Trials), 10)
			key("trials_passed")
			e.b = strconv.AppendInt(e.b, int64(c.TrialsPassed), 10)
		}
		key("failures")
		if c.Failures == nil {
			e.b = append(e.b, "null"...)
			return
		}
		e.array(len(c.Failures), inner, func(i int, indent string) {
			f := &c.Failures[i]
			e.object(indent, func(key func(string), _ string) {
				key("code")
				e.str(string(f.Code))
				key("detail")
				e.str(f.Detail)
				if f.Trial != 0 {
					key("trial")
					e.b = strconv.AppendInt(e.b, int64(f.Trial), 10)
				}
			})
		})
	})
}

// meta writes a snapshot's meta.json members, those given only.
func (e *encoder) meta(m *suite.Meta, indent string) {
	e.object(indent, func(key func(string), _ string) {
		for _, member := range []struct{ name, value string }{
			{"recorded_at", m.RecordedAt}, {"model", m.Model}, {"commit", m.Commit}, {"description", m.Description},
		} {
			if member.value != "" {
				key(member.name)
				e.str(member.value)
			}
		}
	})
}

func (e *encoder) optFloat(f *float64) {
	if f == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.float(*f)
}

// float formats f as encoding/json does: the shortest representation,
// in exponent form only for very small or very large magnitudes.
func (e *encoder) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		panic("evaluator: results hold only finite numbers")
	}
	e.b = jsonappend.Float(e.b, f)
}

// str writes a JSON string as encoding/json does without escaping HTML.
func (e *encoder) str(s string) { e.b = jsonappend.String(e.b, s, false) }
