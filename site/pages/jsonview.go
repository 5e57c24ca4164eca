package pages

import (
	"bytes"
	"encoding/json"
	"html"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// JSONLine is one line of a pretty-printed JSON value. Lines where a
// value starts carry its path in the notation of judge.CompareArguments
// ("arguments.approver.id"), so a mismatch can be pointed at.
type JSONLine struct {
	Text string
	Path string // "" on closing brackets
	Mark bool   // the value on this line is a mismatch
	Note string // why it is marked, in words
	// Matcher is what an argument matcher on this line accepts, in
	// words ("any of …"), written after Text.
	Matcher string
}

// jsonHTML renders lines for a <pre> element, one span per line, the
// marked ones with their note. Like cmd/cover's source view it writes
// the markup here rather than in a template: a drilldown holds dozens of
// lines, and a template action per line would dominate the build time
// of a large suite.
func jsonHTML(lines []JSONLine) template.HTML {
	var b strings.Builder
	for _, l := range lines {
		if l.Mark {
			b.WriteString(`<span class="line diff">`)
		} else {
			b.WriteString(`<span class="line">`)
		}
		b.WriteString(html.EscapeString(l.Text))
		if l.Matcher != "" {
			b.WriteString(`<span class="matcher">`)
			b.WriteString(html.EscapeString(l.Matcher))
			b.WriteString(`</span>`)
		}
		if l.Note != "" {
			b.WriteString(`<span class="note"> ← `)
			b.WriteString(html.EscapeString(l.Note))
			b.WriteString(`</span>`)
		}
		b.WriteString("</span>\n")
	}
	return template.HTML(b.String())
}

// jsonLines pretty-prints a decoded JSON value (numbers as json.Number)
// with two-space indents and object keys sorted, rooted at path.
func jsonLines(path string, v any) []JSONLine {
	var lines []JSONLine
	writeJSON(&lines, 0, "", path, v, "")
	return lines
}

// maxIndentDepth is how deep values are laid out one per line; anything
// deeper is written compactly on its line. Without it a hostile value
// nested thousands deep would make a page of hundreds of megabytes.
const maxIndentDepth = 32

func writeJSON(lines *[]JSONLine, depth int, key, path string, v any, comma string) {
	indent := strings.Repeat("  ", depth)
	if depth >= maxIndentDepth {
		*lines = append(*lines, JSONLine{Text: indent + key + suite.CompactJSON(v) + comma, Path: path})
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			*lines = append(*lines, JSONLine{Text: indent + key + "{}" + comma, Path: path})
			return
		}
		*lines = append(*lines, JSONLine{Text: indent + key + "{", Path: path})
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			c := ","
			if i == len(keys)-1 {
				c = ""
			}
			writeJSON(lines, depth+1, quote(k)+": ", path+judge.KeySegment(k), x[k], c)
		}
		*lines = append(*lines, JSONLine{Text: indent + "}" + comma})
	case []any:
		if len(x) == 0 {
			*lines = append(*lines, JSONLine{Text: indent + key + "[]" + comma, Path: path})
			return
		}
		*lines = append(*lines, JSONLine{Text: indent + key + "[", Path: path})
		for i, e := range x {
			c := ","
			if i == len(x)-1 {
				c = ""
			}
			writeJSON(lines, depth+1, "", path+"["+strconv.Itoa(i)+"]", e, c)
		}
		*lines = append(*lines, JSONLine{Text: indent + "]" + comma})
	default:
		*lines = append(*lines, JSONLine{Text: indent + key + scalarJSON(v) + comma, Path: path})
	}
}

func scalarJSON(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case string:
		return quote(x)
	case nil:
		return "null"
	}
	return suite.CompactJSON(v)
}

// quote writes s as a JSON string without HTML escapes; the page
// escapes for HTML.
func quote(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return suite.CompactJSON(s)
		}
	}
	return `"` + s + `"` // plain ASCII needs no escape
}

// markMismatches marks the lines whose path holds a mismatch. On the
// expected side every mismatch is marked; on the actual side only those
// where the actual call has a value.
func markMismatches(lines []JSONLine, ms []judge.Mismatch, expectedSide bool) {
	byPath := make(map[string]judge.Mismatch, len(ms))
	for _, m := range ms {
		byPath[m.Path] = m
	}
	for i := range lines {
		m, ok := byPath[lines[i].Path]
		if !ok || lines[i].Path == "" {
			continue
		}
		switch {
		case m.Missing && expectedSide:
			lines[i].Mark, lines[i].Note = true, "missing from the actual call"
		case m.Missing:
		case m.Reason != "":
			lines[i].Mark, lines[i].Note = true, m.Reason
		case expectedSide:
			lines[i].Mark, lines[i].Note = true, "actual: "+judge.Show(m.Actual)
		default:
			lines[i].Mark, lines[i].Note = true, "expected: "+judge.Show(m.Expected)
		}
	}
}

// prettyInput indents a case's raw input JSON, keeping its key order.
// Input nested deeper than maxIndentDepth is shown as written.
func prettyInput(raw json.RawMessage) string {
	// What IsValid refuses beyond RFC 8259 goes to json.Indent.
	if jsontext.Value(raw).IsValid(jsontext.AllowDuplicateNames(true)) {
		var b strings.Builder
		b.Grow(len(raw) + len(raw)/2 + 64)
		if indentValid(&b, raw) {
			return b.String()
		}
		return string(raw)
	}
	if nestingDepth(raw) > maxIndentDepth {
		return string(raw)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// indentValid writes src to dst as json.Indent(dst, src, "", "  ")
// does, for a src that is valid JSON, unless src nests deeper than
// maxIndentDepth (ok false). A large release shows tens of thousands of
// case inputs, and json.Indent's byte-by-byte state machine took a
// twentieth of a build's processor time; checking the input with
// jsontext and laying it out here takes about two thirds of that
// (FuzzIndentValid holds the two to the same bytes; see docs/design.md,
// "Fast paths").
func indentValid(dst *strings.Builder, src []byte) (ok bool) {
	// json.Indent drops leading white space and keeps trailing.
	end := len(bytes.TrimRight(src, " \t\r\n"))
	tail := src[end:]
	src = src[:end]
	depth, open := 0, false // open: a '{' or '[' waits for its first value
	nesting := 0            // as nestingDepth counts, empty values too
	for i := 0; i < len(src); {
		c := src[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			i++
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			indentLine(dst, depth)
		}
		switch c {
		case '"':
			// Jump to the next quote; only a backslash before it makes
			// the scan go byte by byte.
			j := i + 1 + bytes.IndexByte(src[i+1:], '"')
			if bytes.IndexByte(src[i+1:j], '\\') >= 0 {
				for j = i + 1; src[j] != '"'; j++ {
					if src[j] == '\\' {
						j++
					}
				}
			}
			dst.Write(src[i : j+1])
			i = j + 1
			continue
		case '{', '[':
			if nesting++; nesting > maxIndentDepth {
				return false
			}
			open = true
			dst.WriteByte(c)
		case ',':
			dst.WriteByte(c)
			indentLine(dst, depth)
		case ':':
			dst.WriteByte(c)
			dst.WriteByte(' ')
		case '}', ']':
			nesting--
			if open {
				open = false // empty: {} or []
			} else {
				depth--
				indentLine(dst, depth)
			}
			dst.WriteByte(c)
		default: // a number, true, false or null
			j := i
			for j < len(src) && !jsonDelimiter[src[j]] {
				j++
			}
			dst.Write(src[i:j])
			i = j
			continue
		}
		i++
	}
	dst.Write(tail)
	return true
}

// jsonDelimiter marks the bytes that end a number or literal.
var jsonDelimiter = [256]bool{',': true, ':': true, '}': true, ']': true, ' ': true, '\t': true, '\r': true, '\n': true}

// indentLine starts a new line indented depth levels of two spaces.
func indentLine(dst *strings.Builder, depth int) {
	dst.WriteByte('\n')
	for range depth {
		dst.WriteString("  ")
	}
}

// nestingDepth is the deepest nesting of objects and arrays in a JSON text.
func nestingDepth(raw []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
