package ciout

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math/big"

	"github.com/releasegate/releasegate/evaluator"
)

// The elements of a JUnit report, as encoding/xml writes them. The names
// and attributes are those of the common JUnit schema
// (testdata/junit.xsd); an optional attribute is left out when empty.
type (
	testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	testsuite struct {
		Name       string     `xml:"name,attr"`
		Tests      int        `xml:"tests,attr"`
		Failures   int        `xml:"failures,attr"`
		Errors     int        `xml:"errors,attr"`
		Skipped    int        `xml:"skipped,attr"`
		Time       string     `xml:"time,attr,omitempty"`
		Properties []property `xml:"properties>property"`
		Cases      []testcase `xml:"testcase"`
	}
	testcase struct {
		Classname  string     `xml:"classname,attr"`
		Name       string     `xml:"name,attr"`
		Time       string     `xml:"time,attr,omitempty"`
		Properties []property `xml:"properties>property"`
		Failure    *failure   `xml:"failure"`
	}
	property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
)

// JUnit writes the release as a JUnit XML report: a <testsuite> per
// snapshot, named by its label, and a <testcase> per regression case in
// suite order. A failed case carries one <failure> whose message lists its
// codes and whose body holds each code's detail; every case carries its
// severity as a property. The suite's properties hold the decision and
// each gate, so a CI report shows why a snapshot is REVIEW or BLOCK even
// when all its cases pass.
//
// A case's time is the recorded latency of its output, in seconds, when
// the snapshot kept its outputs (evaluator.Options.KeepOutputs); it is
// left out otherwise. There is no timestamp or host name, so the same
// release gives the same bytes. Text XML cannot hold (control characters,
// invalid UTF-8) becomes U+FFFD.
func JUnit(rel *evaluator.Release) []byte {
	doc := testsuites{Name: "releasegate", Suites: make([]testsuite, len(rel.Snapshots))}
	for i, snap := range rel.Snapshots {
		doc.Suites[i] = suiteOf(rel, snap)
		doc.Tests += doc.Suites[i].Tests
		doc.Failures += doc.Suites[i].Failures
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		// Only an unsupported type fails, and the types above are fixed.
		panic("ciout: encoding the JUnit report: " + err.Error())
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// suiteOf is the <testsuite> of one snapshot.
func suiteOf(rel *evaluator.Release, snap *evaluator.Snapshot) testsuite {
	r := snap.Result
	s := testsuite{Name: r.Label, Tests: r.CasesTotal, Failures: r.CasesTotal - r.CasesPassed, Cases: make([]testcase, len(r.Cases))}
	if total, ok := totalSeconds(snap); ok {
		s.Time = total
	}
	s.Properties = []property{
		{"decision", string(r.Decision)},
		{"policy_version", rel.Suite.PolicyVersion()},
	}
	for _, g := range gateViews(snap) {
		verdict := "pass"
		if !g.passed {
			verdict = "FAIL"
		}
		s.Properties = append(s.Properties, property{"gate." + g.name, fmt.Sprintf("%s: observed %s, %s, margin %s", verdict, g.observed, g.threshold, g.margin)})
	}
	for i, c := range r.Cases {
		tc := testcase{Classname: r.Label, Name: c.CaseID}
		if title := caseTitle(rel.Suite, c.CaseID); title != "" {
			tc.Name += ": " + title
		}
		if secs, ok := caseSeconds(snap, i); ok {
			tc.Time = secs
		}
		tc.Properties = []property{{"severity", string(c.Severity)}}
		if !c.Passed {
			f := &failure{Message: codes(c.Failures), Type: string(c.Failures[0].Code)}
			var body bytes.Buffer
			for j, cf := range c.Failures {
				if j > 0 {
					body.WriteByte('\n')
				}
				body.WriteString(string(cf.Code) + ": " + cf.Detail)
			}
			f.Body = body.String()
			tc.Failure = f
		}
		s.Cases[i] = tc
	}
	return s
}

// caseSeconds is the latency of the output for the case at position i, in
// seconds; false when outputs were not kept or the output is missing.
func caseSeconds(snap *evaluator.Snapshot, i int) (string, bool) {
	if i >= len(snap.Outputs) || snap.Outputs[i] == nil || snap.Outputs[i].LatencyMS == nil {
		return "", false
	}
	return seconds(snap.Outputs[i].LatencyMS.Rat()), true
}

// totalSeconds sums the latencies of the kept outputs.
func totalSeconds(snap *evaluator.Snapshot) (string, bool) {
	if snap.Outputs == nil {
		return "", false
	}
	sum := new(big.Rat)
	for _, o := range snap.Outputs {
		if o != nil && o.LatencyMS != nil {
			sum.Add(sum, o.LatencyMS.Rat())
		}
	}
	return seconds(sum), true
}

// seconds writes milliseconds as seconds: 840 → 0.84.
func seconds(ms *big.Rat) string {
	return evaluator.FormatDecimal(new(big.Rat).Quo(ms, big.NewRat(1000, 1)), 6)
}
