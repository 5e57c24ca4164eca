package ciout

import (
	"bytes"
	"fmt"
	"math/big"
	"unicode/utf8"

	"github.com/releasegate/releasegate/evaluator"
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
// release gives the same bytes.
func JUnit(rel *evaluator.Release) []byte {
	var b bytes.Buffer
	tests, failures := 0, 0
	for _, snap := range rel.Snapshots {
		tests += snap.Result.CasesTotal
		failures += snap.Result.CasesTotal - snap.Result.CasesPassed
	}
	b.Grow(512 + tests*320) // about what one case takes, so b grows once
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, "<testsuites name=\"releasegate\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n", tests, failures)
	for _, snap := range rel.Snapshots {
		writeSuite(&b, rel, snap)
	}
	b.WriteString("</testsuites>\n")
	return b.Bytes()
}

func writeSuite(b *bytes.Buffer, rel *evaluator.Release, snap *evaluator.Snapshot) {
	r := snap.Result
	fmt.Fprintf(b, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\"", attr(r.Label), r.CasesTotal, r.CasesTotal-r.CasesPassed)
	if total, ok := totalSeconds(snap); ok {
		fmt.Fprintf(b, " time=\"%s\"", total)
	}
	b.WriteString(">\n    <properties>\n")
	property(b, "      ", "decision", string(r.Decision))
	property(b, "      ", "policy_version", rel.Suite.PolicyVersion())
	for _, g := range gateViews(snap) {
		verdict := "pass"
		if !g.passed {
			verdict = "FAIL"
		}
		property(b, "      ", "gate."+g.name, fmt.Sprintf("%s: observed %s, %s, margin %s", verdict, g.observed, g.threshold, g.margin))
	}
	b.WriteString("    </properties>\n")
	// The loop below runs once per case and snapshot, so it writes
	// straight into b instead of formatting.
	for i, c := range r.Cases {
		b.WriteString(`    <testcase classname="`)
		writeEscaped(b, r.Label, true)
		b.WriteString(`" name="`)
		writeEscaped(b, c.CaseID, true)
		if title := caseTitle(rel.Suite, c.CaseID); title != "" {
			b.WriteString(": ")
			writeEscaped(b, title, true)
		}
		b.WriteByte('"')
		if secs, ok := caseSeconds(snap, i); ok {
			b.WriteString(` time="` + secs + `"`)
		}
		b.WriteString(">\n      <properties>\n")
		property(b, "        ", "severity", string(c.Severity))
		b.WriteString("      </properties>\n")
		if !c.Passed {
			b.WriteString(`      <failure message="`)
			writeEscaped(b, codes(c.Failures), true)
			b.WriteString(`" type="`)
			writeEscaped(b, string(c.Failures[0].Code), true)
			b.WriteString(`">`)
			for j, f := range c.Failures {
				if j > 0 {
					b.WriteByte('\n')
				}
				writeEscaped(b, string(f.Code)+": "+f.Detail, false)
			}
			b.WriteString("</failure>\n")
		}
		b.WriteString("    </testcase>\n")
	}
	b.WriteString("  </testsuite>\n")
}

func property(b *bytes.Buffer, indent, name, value string) {
	b.WriteString(indent + `<property name="`)
	writeEscaped(b, name, true)
	b.WriteString(`" value="`)
	writeEscaped(b, value, true)
	b.WriteString("\"/>\n")
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

// attr escapes s for a double-quoted XML attribute. Line breaks and tabs
// become character references, because a parser would otherwise turn them
// into spaces.
func attr(s string) string {
	var b bytes.Buffer
	writeEscaped(&b, s, true)
	return b.String()
}

// text escapes s for XML character data, keeping line breaks readable.
func text(s string) string {
	var b bytes.Buffer
	writeEscaped(&b, s, false)
	return b.String()
}

// writeEscaped writes s to b escaped for an attribute value or for
// character data. Runs of characters that need nothing are copied whole.
func writeEscaped(b *bytes.Buffer, s string, inAttr bool) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		var esc string
		size := 1
		switch {
		case c == '&':
			esc = "&amp;"
		case c == '<':
			esc = "&lt;"
		case c == '>':
			esc = "&gt;"
		case c == '"' && inAttr:
			esc = "&quot;"
		case c == '\r':
			// Parsers fold a raw CR into a line feed; a reference survives.
			esc = "&#xD;"
		case c == '\n' && inAttr:
			// In an attribute a parser would turn these into spaces.
			esc = "&#xA;"
		case c == '\t' && inAttr:
			esc = "&#x9;"
		case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7F):
			// Plain ASCII.
		default:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if !xmlChar(r) || (r == utf8.RuneError && size == 1) {
				// XML 1.0 cannot carry this character at all, not even
				// as a reference; show that something was there.
				esc = "\uFFFD"
			}
		}
		if esc == "" {
			i += size
			continue
		}
		b.WriteString(s[start:i])
		b.WriteString(esc)
		i += size
		start = i
	}
	b.WriteString(s[start:])
}

// xmlChar reports whether XML 1.0 allows r in a document.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}
