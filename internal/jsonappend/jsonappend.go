// Package jsonappend appends JSON values to a byte slice exactly as
// encoding/json writes them, without reflection. The large files a
// release writes (results, case tables, chart options) are made this way;
// anything out of the ordinary goes through encoding/json itself, so the
// two never disagree (docs/design.md, Fast paths).
package jsonappend

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// Float appends f as encoding/json writes a float64: the shortest
// decimal, in exponent form only for magnitudes below 1e-6 or from 1e21.
// f must be finite, which encoding/json requires too.
func Float(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// encoding/json writes 1e-7 where strconv writes 1e-07.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// String appends s as a JSON string, as encoding/json writes it with
// SetEscapeHTML(escapeHTML) (json.Marshal escapes HTML). Text with
// nothing to escape is copied as it is.
func String(b []byte, s string, escapeHTML bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || escapeHTML && (c == '<' || c == '>' || c == '&') {
				return slowString(b, s, escapeHTML)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return slowString(b, s, escapeHTML)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func slowString(b []byte, s string, escapeHTML bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// Strings appends ss as encoding/json writes a []string; nil as null.
func Strings(b []byte, ss []string, escapeHTML bool) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, s, escapeHTML)
	}
	return append(b, ']')
}
