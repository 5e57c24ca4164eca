package ciout

import (
	"unicode/utf8"
)

// A JUnit report holds a <testcase> per case of every snapshot, and
// encoding/xml spends about 6.7 µs on each (reflection, and a write per
// piece): 2 s of a 100,000-case × 3 report. appendTestcase writes the
// element by hand, byte for byte as encoding/xml writes it at the depth
// WriteJUnit puts it; FuzzTestcase holds it to encoding/xml, and
// BenchmarkFastPathTestcase measures the pair (docs/design.md, "Fast
// paths": 5.4×).

// appendTestcase appends tc as encoding/xml writes it with Indent("",
// "  ") inside <testsuites><testsuite>: on a line of its own, indented
// two levels, each child element on a line of its own.
func appendTestcase(b []byte, tc *testcase) []byte {
	b = append(b, "\n    <testcase"...)
	b = appendAttr(b, "classname", tc.Classname)
	b = appendAttr(b, "name", tc.Name)
	if tc.Time != "" {
		b = appendAttr(b, "time", tc.Time)
	}
	b = append(b, '>')
	// encoding/xml writes the parent of properties>property even for
	// none.
	if len(tc.Properties) == 0 {
		b = append(b, "\n      <properties></properties>"...)
	} else {
		b = append(b, "\n      <properties>"...)
		for _, p := range tc.Properties {
			b = append(b, "\n        <property"...)
			b = appendAttr(b, "name", p.Name)
			b = appendAttr(b, "value", p.Value)
			b = append(b, "></property>"...)
		}
		b = append(b, "\n      </properties>"...)
	}
	if f := tc.Failure; f != nil {
		b = append(b, "\n      <failure"...)
		b = appendAttr(b, "message", f.Message)
		b = appendAttr(b, "type", f.Type)
		b = append(b, '>')
		b = appendEscaped(b, f.Body)
		b = append(b, "</failure>"...)
	}
	if tc.SystemOut != "" {
		b = append(b, "\n      <system-out>"...)
		b = appendEscaped(b, tc.SystemOut)
		b = append(b, "</system-out>"...)
	}
	return append(b, "\n    </testcase>"...)
}

// appendAttr appends ` name="value"`, the value escaped.
func appendAttr(b []byte, name, value string) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value)
	return append(b, '"')
}

// appendEscaped appends s escaped as encoding/xml escapes text and
// attribute values: the five markup characters, tab, newline and
// carriage return as references, and what XML cannot hold (control
// characters, invalid UTF-8) as U+FFFD.
func appendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !inCharacterRange(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b = append(b, s[last:i-width]...)
		b = append(b, esc...)
		last = i
	}
	return append(b, s[last:]...)
}

// inCharacterRange reports whether r may appear in XML text: the Char
// production of XML 1.0.
func inCharacterRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
