package ciout

import (
	"bytes"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/goldentest"
)

const sampleDir = "../../data"

// sampleRelease evaluates the sample data folder, keeping the outputs so
// the JUnit report carries times.
func sampleRelease(t testing.TB) *evaluator.Release {
	t.Helper()
	rel, err := evaluator.EvaluateDir(sampleDir, evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// singleRelease evaluates one sample snapshot the way the single-snapshot
// evaluate does: without keeping its outputs.
func singleRelease(t testing.TB, label string) *evaluator.Release {
	t.Helper()
	s, err := load.Suite(sampleDir, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := evaluator.EvaluateFile(s, label, filepath.Join(sampleDir, "outputs", label+".jsonl"), evaluator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &evaluator.Release{Suite: s, Snapshots: []*evaluator.Snapshot{snap}}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", name), got)
}

func TestGoldenFiles(t *testing.T) {
	tests := []struct {
		name string
		rel  func(testing.TB) *evaluator.Release
	}{
		{"release", sampleRelease},
		{"candidate-v2", func(t testing.TB) *evaluator.Release { return singleRelease(t, "candidate-v2") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel := tt.rel(t)
			golden(t, tt.name+".junit.xml", JUnit(rel))
			golden(t, tt.name+".summary.md", Summary(rel))
		})
	}
}

func TestOutputsAreDeterministic(t *testing.T) {
	a, b := sampleRelease(t), sampleRelease(t)
	if !bytes.Equal(JUnit(a), JUnit(b)) {
		t.Error("two evaluations of the same data give different JUnit reports")
	}
	if !bytes.Equal(Summary(a), Summary(b)) {
		t.Error("two evaluations of the same data give different summaries")
	}
}

// TestCandidateV2 checks the designed outcome where CI shows it: one
// failing case, ER-007 with an outdated citation, and a REVIEW decision
// because of the latency gate.
func TestCandidateV2(t *testing.T) {
	rel := singleRelease(t, "candidate-v2")
	doc := parseJUnit(t, JUnit(rel))
	if len(doc.Suites) != 1 {
		t.Fatalf("got %d test suites, want 1", len(doc.Suites))
	}
	ts := doc.Suites[0]
	if ts.Name != "candidate-v2" || ts.Tests != 12 || ts.Failures != 1 {
		t.Errorf("suite %q tests=%d failures=%d, want candidate-v2 12 1", ts.Name, ts.Tests, ts.Failures)
	}
	if got := ts.property("decision"); got != "REVIEW" {
		t.Errorf("decision property %q, want REVIEW", got)
	}
	if got := ts.property("gate.p95_latency_ms"); !strings.HasPrefix(got, "FAIL: observed 5,200 ms") {
		t.Errorf("p95 gate property %q, want a failure observed at 5,200 ms", got)
	}
	var failed []junitCase
	for _, c := range ts.Cases {
		if c.Classname != "candidate-v2" {
			t.Errorf("case %q has classname %q", c.Name, c.Classname)
		}
		if c.property("severity") == "" {
			t.Errorf("case %q has no severity property", c.Name)
		}
		if c.Time != "" {
			t.Errorf("case %q has time %q though outputs were not kept", c.Name, c.Time)
		}
		if len(c.Failures) > 0 {
			failed = append(failed, c)
		}
	}
	if len(failed) != 1 {
		t.Fatalf("%d failing test cases, want 1", len(failed))
	}
	f := failed[0]
	if !strings.HasPrefix(f.Name, "ER-007: ") || f.property("severity") != "major" {
		t.Errorf("failing case %q severity %q, want ER-007 major", f.Name, f.property("severity"))
	}
	if f.Failures[0].Message != "citation" || !strings.Contains(f.Failures[0].Body, "citation: ") || !strings.Contains(f.Failures[0].Body, "ER-2026.08 §6.1") {
		t.Errorf("failure message %q body %q, want the citation code and the outdated rule", f.Failures[0].Message, f.Failures[0].Body)
	}

	md := string(Summary(rel))
	for _, want := range []string{
		"### `candidate-v2`: REVIEW",
		"**REVIEW**: a latency or cost gate failed",
		"| p95 latency | 5,200 ms | at most 2,500 ms | -2,700 ms | **fail** |",
		"| average cost | USD 0.0125 | at most USD 0.025 | +USD 0.0125 | pass |",
		"| pass rate | 91.67% | at least 90% | +1.67 pp | pass |",
		"Failing cases (1):",
		"| **ER-007** ",
		"| major | `citation` | missing ER-2026.10 §6.1; cites outdated ER-2026.08 §6.1",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "| `") != 1 {
		t.Errorf("summary should list exactly one failure row:\n%s", md)
	}
}

func TestJUnitTimesFromKeptOutputs(t *testing.T) {
	doc := parseJUnit(t, JUnit(sampleRelease(t)))
	for _, ts := range doc.Suites {
		if ts.Time == "" {
			t.Errorf("suite %s has no time though its outputs were kept", ts.Name)
		}
		for _, c := range ts.Cases {
			if c.Time == "" {
				t.Errorf("%s %s has no time", ts.Name, c.Name)
			}
		}
	}
	// candidate-v2's slow response: 5,200 ms is 5.2 s.
	v2 := doc.Suites[1]
	found := false
	for _, c := range v2.Cases {
		found = found || c.Time == "5.2"
	}
	if v2.Name != "candidate-v2" || !found {
		t.Errorf("suite %s has no case timed 5.2 s", v2.Name)
	}
}

func TestSummaryOverview(t *testing.T) {
	md := string(Summary(sampleRelease(t)))
	for _, want := range []string{
		"| `baseline-v1` | 8/12 | 39.1–86.2% | 2 | 1,100 ms | USD 0.01325 | **BLOCK** |",
		"| `candidate-v2` | 11/12 | 64.6–98.5% | 0 | 5,200 ms | USD 0.0125 | **REVIEW** |",
		"| `candidate-v3` | 12/12 | 75.8–100% | 0 | 2,050 ms | USD 0.011 | **PASS** |",
		"### `candidate-v3`: PASS",
		"All 12 cases pass.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if !strings.HasSuffix(md, "\n\n") {
		t.Error("summary does not end with a blank line, so appended summaries would run together")
	}
}

// syntheticRelease is one snapshot of one failing case whose title and
// failure detail are given, with metrics m.
func syntheticRelease(title, detail string, m decide.Metrics, gate suite.Gate) *evaluator.Release {
	c := &suite.Case{ID: "C-1", Title: title, Severity: suite.Major}
	s := suite.NewSuite(suite.NewPolicy(nil), []*suite.Case{c}, gate)
	decision, gates := decide.DefaultGates().Decide(m, gate)
	snap := &evaluator.Snapshot{
		Result: evaluator.Result{
			Label: "snap", Decision: decision, CasesTotal: m.CasesTotal, CasesPassed: m.CasesPassed, Gates: gates,
			Cases: []evaluator.CaseResult{{CaseID: c.ID, Severity: c.Severity, Failures: []judge.Failure{{Code: judge.Decision, Detail: detail}}}},
		},
		Metrics: m,
	}
	return &evaluator.Release{Suite: s, Snapshots: []*evaluator.Snapshot{snap}}
}

func num(s string) suite.Number { return suite.MustNumber(s) }

func metrics(passRate *big.Rat, critical int, p95, cost string) decide.Metrics {
	m := decide.Metrics{CasesTotal: 1, PassRate: passRate, CriticalFailures: critical}
	if p95 != "" {
		n := num(p95)
		m.P95LatencyMS = &n
		m.AvgCostUSD = num(cost).Rat()
	}
	return m
}

// gateOf builds thresholds in the order of decide.DefaultGates; "null" turns a
// gate off.
func gateOf(values ...string) suite.Gate {
	g := suite.Gate{Thresholds: map[string]*suite.Number{}}
	for i, v := range values {
		if v == "null" {
			g.Thresholds[decide.DefaultGates()[i].Key] = nil
			continue
		}
		n := num(v)
		g.Thresholds[decide.DefaultGates()[i].Key] = &n
	}
	return g
}

var sampleGate = gateOf("0.9", "0", "2500", "0.025")

func TestGateMargins(t *testing.T) {
	tests := []struct {
		name    string
		m       decide.Metrics
		want    [4]string // margins in gate order
		results [4]bool
	}{
		{"at every limit", metrics(big.NewRat(9, 10), 0, "2500", "0.025"),
			[4]string{"0 pp", "0", "0 ms", "USD 0"}, [4]bool{true, true, true, true}},
		{"over every limit", metrics(big.NewRat(1, 2), 2, "2770", "0.0250001"),
			[4]string{"-40 pp", "-2", "-270 ms", "-USD 0.0000001"}, [4]bool{}},
		{"tiny pass-rate shortfall", metrics(big.NewRat(89999, 100000), 0, "10", "0"),
			[4]string{"-<0.01 pp", "0", "+2,490 ms", "+USD 0.025"}, [4]bool{false, true, true, true}},
		{"no outputs", metrics(big.NewRat(0, 1), 1, "", ""),
			[4]string{"-90 pp", "-1", "n/a", "n/a"}, [4]bool{}},
	}
	off := gateOf("0.9", "null", "null", "0.025")
	rel := syntheticRelease("t", "d", metrics(big.NewRat(1, 1), 3, "9999", "0.01"), off)
	for _, v := range gateViews(rel.Snapshots[0]) {
		if v.name != decide.GateP95Latency && v.name != decide.GateCriticalFailures {
			continue
		}
		if v.threshold != "not gated" || v.margin != "n/a" || !v.passed {
			t.Errorf("off gate %s: threshold %q margin %q passed %v", v.name, v.threshold, v.margin, v.passed)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel := syntheticRelease("t", "d", tt.m, sampleGate)
			views := gateViews(rel.Snapshots[0])
			for i, v := range views {
				if v.margin != tt.want[i] || v.passed != tt.results[i] {
					t.Errorf("%s: margin %q passed %v, want %q %v", v.name, v.margin, v.passed, tt.want[i], tt.results[i])
				}
			}
		})
	}
}

// FuzzJUnitRoundTrip checks that any title and detail survive the report:
// it stays well-formed XML and parses back to the same text, with only the
// characters XML cannot carry replaced.
func FuzzJUnitRoundTrip(f *testing.F) {
	for _, seed := range []string{"", "plain", `<a href="x">&amp;</a>`, "line\r\nbreak\ttab", "\x00\x1b\xff\xfe", "]]>", "§4.2 😀"} {
		f.Add(seed, seed)
	}
	f.Fuzz(func(t *testing.T, title, detail string) {
		m := metrics(big.NewRat(0, 1), 0, "1", "0")
		doc := parseJUnit(t, JUnit(syntheticRelease(title, detail, m, sampleGate)))
		c := doc.Suites[0].Cases[0]
		wantName := "C-1"
		if title != "" {
			wantName += ": " + xmlSafe(title)
		}
		if c.Name != wantName {
			t.Errorf("name %q, want %q", c.Name, wantName)
		}
		if want := "decision: " + xmlSafe(detail); c.Failures[0].Body != want {
			t.Errorf("failure body %q, want %q", c.Failures[0].Body, want)
		}
	})
}

// xmlSafe is what an XML parser gives back for s: s with every character
// XML 1.0 cannot hold replaced by U+FFFD.
func xmlSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !xmlChar(r) {
			r = '\uFFFD' // also what an invalid byte decodes to
		}
		b.WriteRune(r)
	}
	return b.String()
}

// xmlChar reports whether XML 1.0 allows r in a document.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}

// bigRelease is a release of three snapshots of n cases, every third case
// failing, for the benchmarks.
func bigRelease(n int) *evaluator.Release {
	cases := make([]*suite.Case, n)
	results := make([]evaluator.CaseResult, n)
	for i := range cases {
		id := "C-" + big.NewInt(int64(i)).String()
		cases[i] = &suite.Case{ID: id, Title: "A case title with <markup> & a | pipe", Severity: suite.Minor}
		results[i] = evaluator.CaseResult{CaseID: id, Severity: suite.Minor, Passed: i%3 != 0, Failures: []judge.Failure{}}
		if i%3 == 0 {
			results[i].Failures = []judge.Failure{{Code: judge.Citation, Detail: "cites outdated ER-2026.08 §6.1; the current rule is ER-2026.10 §6.1"}}
		}
	}
	s := suite.NewSuite(suite.NewPolicy(nil), cases, sampleGate)
	m := metrics(big.NewRat(2, 3), 0, "900", "0.01")
	decision, gates := decide.DefaultGates().Decide(m, sampleGate)
	rel := &evaluator.Release{Suite: s}
	for _, label := range []string{"a", "b", "c"} {
		rel.Snapshots = append(rel.Snapshots, &evaluator.Snapshot{
			Result:  evaluator.Result{Label: label, Decision: decision, CasesTotal: n, CasesPassed: n - (n+2)/3, Gates: gates, Cases: results},
			Metrics: m,
		})
	}
	return rel
}

func BenchmarkJUnit(b *testing.B) {
	rel := bigRelease(10000)
	b.ResetTimer()
	for b.Loop() {
		JUnit(rel)
	}
}

func BenchmarkSummary(b *testing.B) {
	rel := bigRelease(10000)
	b.ResetTimer()
	for b.Loop() {
		Summary(rel)
	}
}
