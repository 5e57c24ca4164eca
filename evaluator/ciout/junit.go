package ciout

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
)

// The elements of a JUnit report below <testsuite>, as encoding/xml
// writes them; WriteJUnit writes <testsuites> and <testsuite> itself. The
// names and attributes are those of the common JUnit schema
// (testdata/junit.xsd); an optional attribute is left out when empty.
type (
	testcase struct {
		Classname  string     `xml:"classname,attr"`
		Name       string     `xml:"name,attr"`
		Time       string     `xml:"time,attr,omitempty"`
		Properties []property `xml:"properties>property"`
		Failure    *failure   `xml:"failure"`
		SystemOut  string     `xml:"system-out,omitempty"`
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

// WriteJUnit writes the release to w as a JUnit XML report: a
// <testsuite> per snapshot, named by its label, and a <testcase> per
// regression case in suite order. A failed case carries one <failure>
// whose message lists its codes and whose body holds each code's detail;
// every case carries its severity as a property. The suite's properties
// hold the decision and each gate, so a CI report shows why a snapshot is
// REVIEW or BLOCK even when all its cases pass.
//
// With repeated trials each case also carries "trials" ("2/3 trials") and,
// when flaky, flaky=true; a failed case's message gives its passed trials
// and codes, and its body names every failed trial with its failures. A
// case that passed despite failed trials has no <failure>: its failed
// trials go to <system-out>. Without trials none of this appears.
//
// A case's time is the recorded latency of its output (summed over its
// trials), in seconds, when the release kept its latencies
// (evaluator.Options.KeepOutputs, evaluator.StreamOptions.Latencies); it
// is left out otherwise. A case is named by its id and title; a streamed
// release keeps titles with evaluator.StreamOptions.Titles. There is no
// timestamp or host name, so the same release gives the same bytes. Text
// XML cannot hold (control characters, invalid UTF-8) becomes U+FFFD.
//
// The report is written case by case, so a streamed release of any size
// is written in little memory.
func WriteJUnit(w io.Writer, rel *evaluator.Release) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	tests, failures := 0, 0
	for _, snap := range rel.Snapshots {
		tests += snap.Result.CasesTotal
		failures += snap.Result.CasesTotal - snap.Result.CasesPassed
	}
	root := element("testsuites", "name", "releasegate", "tests", strconv.Itoa(tests), "failures", strconv.Itoa(failures), "errors", "0")
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	for _, snap := range rel.Snapshots {
		if err := writeSuite(enc, bw, rel, snap); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// JUnit is WriteJUnit into memory.
func JUnit(rel *evaluator.Release) []byte {
	var b bytes.Buffer
	if err := WriteJUnit(&b, rel); err != nil {
		// Writing to memory does not fail, and the types encoded are fixed.
		panic("ciout: writing the JUnit report: " + err.Error())
	}
	return b.Bytes()
}

// element is a start tag with attributes given as name, value pairs.
func element(name string, attrs ...string) xml.StartElement {
	e := xml.StartElement{Name: xml.Name{Local: name}}
	for i := 0; i < len(attrs); i += 2 {
		e.Attr = append(e.Attr, xml.Attr{Name: xml.Name{Local: attrs[i]}, Value: attrs[i+1]})
	}
	return e
}

// writeSuite writes the <testsuite> of one snapshot, a case at a time:
// the element and its properties with enc, each <testcase> by hand
// (appendTestcase) to w, the writer enc writes to.
func writeSuite(enc *xml.Encoder, w *bufio.Writer, rel *evaluator.Release, snap *evaluator.Snapshot) error {
	r := snap.Result
	start := element("testsuite", "name", r.Label, "tests", strconv.Itoa(r.CasesTotal), "failures", strconv.Itoa(r.CasesTotal-r.CasesPassed), "errors", "0", "skipped", "0")
	if total, ok := snap.TotalSeconds(); ok {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "time"}, Value: total})
	}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	level := rel.Suite.Gate.Confidence
	props := []property{
		{"decision", string(r.Decision)},
		{"policy_version", rel.Suite.PolicyVersion()},
		{"pass_rate", snap.PassRateSentence(level)},
	}
	for _, g := range gateViews(snap) {
		value := fmt.Sprintf("%s: observed %s, %s, margin %s", g.verdict(), g.observed, g.threshold, g.margin)
		if g.unproven != "" {
			value += "; " + g.unproven
		}
		props = append(props, property{"gate." + g.name, value})
	}
	// Each changed case carries its change, by comparison.
	changes := map[int][]property{}
	for _, cmp := range []struct {
		name string
		c    *decide.Comparison
	}{{"versus_previous", r.VersusPrevious}, {"versus_baseline", r.VersusBaseline}} {
		if cmp.c == nil {
			continue
		}
		props = append(props, property{cmp.name, comparisonNote(cmp.c)})
		for _, ch := range cmp.c.Cases {
			changes[ch.Index] = append(changes[ch.Index], property{cmp.name, fmt.Sprintf("%s against %s; %s", ch.Change, cmp.c.Label, evidenceNote(ch))})
		}
	}
	if err := enc.EncodeElement(properties{props}, element("properties")); err != nil {
		return err
	}
	// What enc holds goes first; it writes the end tag after the cases,
	// its indentation unchanged by them.
	if err := enc.Flush(); err != nil {
		return err
	}
	var b []byte
	var err error
	snap.EachCase(func(i int, c *evaluator.CaseResult) {
		if err == nil {
			tc := testcaseOf(rel, snap, i, c, changes[i])
			b = appendTestcase(b[:0], &tc)
			_, err = w.Write(b)
		}
	})
	if err != nil {
		return err
	}
	return enc.EncodeToken(start.End())
}

// properties is a <properties> element.
type properties struct {
	List []property `xml:"property"`
}

// testcaseOf is the <testcase> of the case at position i, c being its
// result and changes what the snapshot's comparisons say of it.
func testcaseOf(rel *evaluator.Release, snap *evaluator.Snapshot, i int, c *evaluator.CaseResult, changes []property) testcase {
	tc := testcase{Classname: snap.Label(), Name: c.CaseID}
	if title := rel.CaseTitle(i); title != "" {
		tc.Name += ": " + title
	}
	if secs, ok := snap.CaseSeconds(i); ok {
		tc.Time = secs
	}
	tc.Properties = append([]property{{"severity", string(c.Severity)}}, changes...)
	if snap.Trials() > 0 {
		addTrials(&tc, *c)
	} else if !c.Passed {
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
	return tc
}

// addTrials words a case of a snapshot with trials: properties with its
// passed trials ("2/3 trials") and, when some but not all passed,
// flaky=true; the failure body (or, for a case that passed despite failed
// trials, the system-out) names each failed trial with its failures.
func addTrials(tc *testcase, c evaluator.CaseResult) {
	tc.Properties = append(tc.Properties, property{"trials", fmt.Sprintf("%d/%d trials", c.TrialsPassed, c.Trials)})
	if c.Flaky() {
		tc.Properties = append(tc.Properties, property{"flaky", "true"})
	}
	if len(c.Failures) == 0 {
		return
	}
	body := trialFailures(c)
	if c.Passed {
		tc.SystemOut = body
		return
	}
	msg := fmt.Sprintf("%d/%d trials passed", c.TrialsPassed, c.Trials)
	if c.Flaky() {
		msg += " (flaky)"
	}
	tc.Failure = &failure{Message: msg + ": " + trialCodes(c.Failures), Type: string(c.Failures[0].Code), Body: body}
}

// trialFailures lists a case's failed trials, one line per failure:
// "trial 2: decision: expected approve, got deny".
func trialFailures(c evaluator.CaseResult) string {
	var body bytes.Buffer
	for j, f := range c.Failures {
		if j > 0 {
			body.WriteByte('\n')
		}
		fmt.Fprintf(&body, "trial %d: %s: %s", f.Trial, f.Code, f.Detail)
	}
	return body.String()
}

// trialCodes lists the distinct failure codes over every trial, in the
// order they first appear.
func trialCodes(fs []judge.Failure) string {
	var seen []string
	for _, f := range fs {
		if !slices.Contains(seen, string(f.Code)) {
			seen = append(seen, string(f.Code))
		}
	}
	return strings.Join(seen, ", ")
}
