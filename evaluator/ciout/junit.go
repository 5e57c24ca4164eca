package ciout

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
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

// JUnit writes the release as a JUnit XML report: a <testsuite> per
// snapshot, named by its label, and a <testcase> per regression case in
// suite order. A failed case carries one <failure> whose message lists its
// codes and whose body holds each code's detail; every case carries its
// severity as a property. The suite's properties hold the decision and
// each gate, so a CI report shows why a snapshot is REVIEW or BLOCK even
// when all its cases pass.
//
// With repeated trials each case also carries "trials" ("2/3 trials") and,
// when flaky, flaky=true; a failed case's message gives its passed trials
// and codes, and its body names every failed trial with its failures. A
// case that passed despite failed trials has no <failure>: its failed
// trials go to <system-out>. Without trials none of this appears.
//
// A case's time is the recorded latency of its output (summed over its
// trials), in seconds, when the snapshot kept its outputs
// (evaluator.Options.KeepOutputs); it is left out otherwise. There is no timestamp or host name, so the same
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
	level := rel.Suite.Gate.Confidence
	s.Properties = []property{
		{"decision", string(r.Decision)},
		{"policy_version", rel.Suite.PolicyVersion()},
		{"pass_rate", snap.PassRateSentence(level)},
	}
	for _, g := range gateViews(snap) {
		value := fmt.Sprintf("%s: observed %s, %s, margin %s", g.verdict(), g.observed, g.threshold, g.margin)
		if g.unproven != "" {
			value += "; " + g.unproven
		}
		s.Properties = append(s.Properties, property{"gate." + g.name, value})
	}
	// Each changed case carries its change, by comparison.
	changes := make([][]property, len(r.Cases))
	for _, cmp := range []struct {
		name string
		c    *decide.Comparison
	}{{"versus_previous", r.VersusPrevious}, {"versus_baseline", r.VersusBaseline}} {
		if cmp.c == nil {
			continue
		}
		s.Properties = append(s.Properties, property{cmp.name, comparisonNote(cmp.c)})
		for _, ch := range cmp.c.Cases {
			changes[ch.Index] = append(changes[ch.Index], property{cmp.name, fmt.Sprintf("%s against %s; %s", ch.Change, cmp.c.Label, evidenceNote(ch))})
		}
	}
	for i, c := range r.Cases {
		tc := testcase{Classname: r.Label, Name: c.CaseID}
		if title := caseTitle(rel.Suite, c.CaseID); title != "" {
			tc.Name += ": " + title
		}
		if secs, ok := caseSeconds(snap, i); ok {
			tc.Time = secs
		}
		tc.Properties = append([]property{{"severity", string(c.Severity)}}, changes[i]...)
		if snap.Trials() > 0 {
			addTrials(&tc, c)
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
		s.Cases[i] = tc
	}
	return s
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

// caseSeconds is the recorded latency of the case at position i, in
// seconds, summed over its trials when the snapshot has them; false when
// outputs were not kept or nothing of the case was recorded.
func caseSeconds(snap *evaluator.Snapshot, i int) (string, bool) {
	sum, recorded := new(big.Rat), false
	for _, outs := range keptOutputs(snap) {
		if i < len(outs) && outs[i] != nil && outs[i].LatencyMS != nil {
			sum.Add(sum, outs[i].LatencyMS.Rat())
			recorded = true
		}
	}
	if !recorded {
		return "", false
	}
	return seconds(sum), true
}

// totalSeconds sums the latencies of the kept outputs, every trial's.
func totalSeconds(snap *evaluator.Snapshot) (string, bool) {
	if snap.Outputs == nil {
		return "", false
	}
	sum := new(big.Rat)
	for _, outs := range keptOutputs(snap) {
		for _, o := range outs {
			if o != nil && o.LatencyMS != nil {
				sum.Add(sum, o.LatencyMS.Rat())
			}
		}
	}
	return seconds(sum), true
}

// keptOutputs are the kept outputs by trial: every trial's with trials,
// else the only ones.
func keptOutputs(snap *evaluator.Snapshot) [][]*suite.Output {
	if snap.TrialOutputs != nil {
		return snap.TrialOutputs
	}
	return [][]*suite.Output{snap.Outputs}
}

// seconds writes milliseconds as seconds: 840 → 0.84.
func seconds(ms *big.Rat) string {
	return evaluator.FormatDecimal(new(big.Rat).Quo(ms, big.NewRat(1000, 1)), 6)
}
