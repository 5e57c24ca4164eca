package evaluator

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// marshalled is what encoding/json makes of v with the results file
// settings: the reference the hand-written encoder must match.
func marshalled(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func ptr(f float64) *float64 { return &f }

func number(f float64) decide.GateThreshold { return decide.GateThreshold{Number: &f} }

func TestJSONMatchesEncodingJSON(t *testing.T) {
	rel, err := EvaluateDir(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hostile := Result{
		Label:    "odd",
		Decision: decide.Review,
		PassRate: 1e-7,
		Gates: []decide.GateResult{
			{Gate: "a", Threshold: number(1e21), Observed: ptr(math.Copysign(0, -1)), Passed: true},
			{Gate: "b", Threshold: number(5e-324), Observed: ptr(math.MaxFloat64)},
			{Gate: "c", Threshold: number(0.1), Observed: ptr(123456789.125)},
			{Gate: "d", Threshold: number(-2.5e-10)},
			{Gate: "off", Observed: ptr(3), Passed: true},
			{Gate: "inconclusive", Threshold: number(0.9), Observed: ptr(1), Inconclusive: true, LowerBound: ptr(0.757506)},
			{Gate: "no_regression", Threshold: decide.GateThreshold{Label: "v\"1\u2028"}, Observed: ptr(1.23457e-7), Passed: false},
		},
		Confidence:       0.99,
		PassRateInterval: &[2]float64{1e-7, 1},
		VersusPrevious: &decide.Comparison{Label: "prev", Regressions: 2, Fixes: 1, PValue: 1, Cases: []decide.CaseChange{
			{CaseID: "x <&>", Change: decide.Regressed, PValue: ptr(0.0000305176)}, {CaseID: "y", Change: decide.Fixed},
		}},
		VersusBaseline: &decide.Comparison{Label: "base", Regressions: 9, PValue: 0.00390625, Significant: true, Cases: []decide.CaseChange{}},
		Cases: []CaseResult{
			{CaseID: "x", Severity: "critical", Failures: []judge.Failure{
				{Code: judge.Arguments, Detail: "quote \" backslash \\ tab \t nl \n cr \r nul \x00 bell \x07 del \x7f"},
				{Code: judge.Citation, Detail: "html <b>&amp;</b> § é 漢字 😀 \u2028 \u2029"},
				{Code: judge.Decision, Detail: "bad utf-8 \xff\xfe end \xe2\x82"},
			}},
			{CaseID: "y", Severity: "minor", Passed: true, Failures: []judge.Failure{}},
			{CaseID: "z", Severity: "minor", Passed: true},
		},
	}
	trials := hostile
	trials.Trials, trials.TrialPassRate = 5, ptr(0.7)
	trials.Cases = []CaseResult{
		{CaseID: "x", Severity: "critical", Passed: false, Trials: 5, TrialsPassed: 4, Failures: []judge.Failure{{Code: judge.MissingOutput, Detail: "none", Trial: 3}}},
		{CaseID: "y", Severity: "minor", Passed: false, Trials: 5, Failures: []judge.Failure{}},
	}
	trials.Meta = &suite.Meta{RecordedAt: "2026-11-12T09:30:00Z", Model: "m <1>", Description: "a \"quoted\" note"}
	emptyMeta := hostile
	emptyMeta.Meta = &suite.Meta{}
	nilChanges := hostile
	nilChanges.VersusPrevious = &decide.Comparison{Label: "p"}
	tests := map[string]Result{"empty": {}, "hostile": hostile, "trials": trials, "empty meta": emptyMeta, "nil changes": nilChanges}
	for _, s := range rel.Snapshots {
		tests[s.Label()] = s.Result
	}
	for name, r := range tests {
		t.Run(name, func(t *testing.T) {
			got := (&Snapshot{Result: r}).JSON()
			if want := marshalled(t, r); !bytes.Equal(got, want) {
				t.Fatalf("JSON differs from encoding/json:\n got %s\nwant %s", got, want)
			}
		})
	}
	var all []Result
	for _, s := range rel.Snapshots {
		all = append(all, s.Result)
	}
	for name, rs := range map[string][]Result{"nil": nil, "none": {}, "sample": all, "hostile": {hostile, {}}} {
		if got, want := EncodeJSON(rs), marshalled(t, rs); !bytes.Equal(got, want) {
			t.Errorf("EncodeJSON(%s) differs from encoding/json:\n got %s\nwant %s", name, got, want)
		}
	}
}

// FuzzJSON checks the encoder against encoding/json on arbitrary text and
// numbers.
func FuzzJSON(f *testing.F) {
	f.Add("ER-001", "expected approve, got reject", 0.5, 1250.0)
	f.Add("\u2028", "\xff<&>\"\\\x01", 1e-7, 1e21)
	f.Fuzz(func(t *testing.T, id, detail string, x, y float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
			return
		}
		r := Result{
			Label:    id,
			PassRate: x,
			Gates: []decide.GateResult{{Gate: detail, Threshold: number(y), Observed: ptr(x)}, {Gate: id, Observed: ptr(y)},
				{Gate: id, Threshold: decide.GateThreshold{Label: detail}, Observed: ptr(x), Inconclusive: true, LowerBound: ptr(y)}},
			PassRateInterval: &[2]float64{x, y},
			VersusBaseline:   &decide.Comparison{Label: detail, PValue: y, Cases: []decide.CaseChange{{CaseID: id, PValue: ptr(x)}}},
			Cases:            []CaseResult{{CaseID: id, Failures: []judge.Failure{{Code: judge.Code(id), Detail: detail}}}},
			Meta:             &suite.Meta{Model: detail, Commit: id},
		}
		if got, want := (&Snapshot{Result: r}).JSON(), marshalled(t, r); !bytes.Equal(got, want) {
			t.Fatalf("JSON differs from encoding/json:\n got %q\nwant %q", got, want)
		}
	})
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteJSONReportsWriteErrors(t *testing.T) {
	r := Result{Cases: make([]CaseResult, 5000)}
	for i := range r.Cases {
		r.Cases[i].Failures = []judge.Failure{}
	}
	full := len((&Snapshot{Result: r}).JSON())
	for _, room := range []int{0, chunkSize / 2, full - 1} {
		if err := r.WriteJSON(&failingWriter{n: room}); err == nil {
			t.Errorf("room for %d of %d bytes: no error", room, full)
		}
	}
	if err := r.WriteJSON(&failingWriter{n: full}); err != nil {
		t.Errorf("room for all %d bytes: %v", full, err)
	}
}

// BenchmarkWriteJSON encodes a results file of 100,000 cases, a third of
// them failing.
func BenchmarkWriteJSON(b *testing.B) {
	r := Result{Label: "candidate", Decision: decide.Review, Gates: make([]decide.GateResult, 4), Cases: make([]CaseResult, 100_000)}
	for i := range r.Cases {
		c := &r.Cases[i]
		c.CaseID, c.Severity, c.Passed, c.Failures = "G0000001", "major", i%3 != 0, []judge.Failure{}
		if !c.Passed {
			c.Failures = []judge.Failure{{Code: judge.Citation, Detail: "cites outdated ER-2026.08 §6.1; the current rule is ER-2026.10 §6.1"}}
		}
	}
	var n int64
	for b.Loop() {
		w := &countingWriter{}
		if err := r.WriteJSON(w); err != nil {
			b.Fatal(err)
		}
		n = w.n
	}
	b.SetBytes(n)
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// TestJSONAfter: a snapshot judged again writes its results file as JSON
// does, taking the case results from the file last written when they are
// the same, and encoding them when they differ, when there is no file or
// when the file is not one.
func TestJSONAfter(t *testing.T) {
	rel, err := EvaluateDir(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, before := range rel.Snapshots {
		last := before.JSON()
		// A file whose case results read otherwise than they are: where
		// JSONAfter takes them from, it says so.
		marked := bytes.Replace(last, []byte(`"case_id": "ER-001"`), []byte(`"case_id": "taken"`), 1)
		regated := *before
		regated.Result.Decision, regated.Result.Gates = decide.Block, nil
		rejudged := *before
		rejudged.Result.Cases = slices.Clone(before.Result.Cases)
		rejudged.Result.Cases[0].Passed = !rejudged.Result.Cases[0].Passed
		for _, tc := range []struct {
			name   string
			after  *Snapshot
			before *Snapshot
			last   []byte
			taken  bool
		}{
			{"the same", before, before, marked, true},
			{"other gates", &regated, before, marked, true},
			{"other case results", &rejudged, before, marked, false},
			{"no snapshot before", &regated, nil, marked, false},
			{"no file", &regated, before, nil, false},
			{"not a results file", &regated, before, []byte(`{"cases": []}`), false},
		} {
			got := tc.after.JSONAfter(tc.before, tc.last)
			want := tc.after.JSON()
			if tc.taken {
				want = bytes.Replace(want, []byte(`"case_id": "ER-001"`), []byte(`"case_id": "taken"`), 1)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %s: JSONAfter differs from JSON (case results taken: %v)", before.Label(), tc.name, tc.taken)
			}
		}
	}
}

// FuzzJSONAfter: whatever its text, a results file's case results are
// found in it and taken as they were written.
func FuzzJSONAfter(f *testing.F) {
	f.Add("ER-001", "expected approve, got reject", true)
	f.Add("x\n  \"inputs\": ", "\n  \"cases\": [", false)
	f.Fuzz(func(t *testing.T, id, detail string, passed bool) {
		before := &Snapshot{Result: Result{
			Label:          detail,
			Gates:          []decide.GateResult{{Gate: id, Threshold: decide.GateThreshold{Label: detail}}},
			VersusBaseline: &decide.Comparison{Label: detail, Cases: []decide.CaseChange{{CaseID: id}}},
			Cases:          []CaseResult{{CaseID: id, Passed: passed, Failures: []judge.Failure{{Code: judge.Code(id), Detail: detail}}}, {CaseID: detail, Failures: []judge.Failure{}}},
			Inputs:         Inputs{CasesSHA256: id},
			Meta:           &suite.Meta{Model: detail},
		}}
		after := *before
		after.Result.Decision, after.Result.Inputs.CasesSHA256 = decide.Review, detail
		if got, want := after.JSONAfter(before, before.JSON()), after.JSON(); !bytes.Equal(got, want) {
			t.Fatalf("JSONAfter differs from JSON:\n got %q\nwant %q", got, want)
		}
	})
}
