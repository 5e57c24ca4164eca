package suite

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// MaxCaseIDLength is the most Unicode code points a case id may hold.
const MaxCaseIDLength = 256

// SafeID reports whether s is a safe file name, ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$:
// 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or
// digit. Snapshot labels must be; a case id that is keeps it as its page
// name. It is written out rather than as a regular expression because
// every case's page name asks it.
func SafeID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ValidCaseID says why id cannot be a case id, or returns nil. A case id
// is any string of 1 to MaxCaseIDLength code points with no control
// character (U+0000–U+001F, U+007F–U+009F) that neither begins nor ends
// with white space (unicode.IsSpace). Ids are compared exactly, with no
// normalisation. The error's message says what to change; callers add
// the file, line and field.
func ValidCaseID(id string) error {
	if id == "" {
		return fmt.Errorf("must not be empty: give the case an id of 1 to %d characters", MaxCaseIDLength)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("%s is not valid UTF-8: write the id in UTF-8", clipQuote(id))
	}
	if first, _ := utf8.DecodeRuneInString(id); unicode.IsSpace(first) {
		return fmt.Errorf("%s begins with white space (%U); a case id may neither begin nor end with white space: trim it", clipQuote(id), first)
	}
	if last, _ := utf8.DecodeLastRuneInString(id); unicode.IsSpace(last) {
		return fmt.Errorf("%s ends with white space (%U); a case id may neither begin nor end with white space: trim it", clipQuote(id), last)
	}
	n := 0
	for _, r := range id {
		n++
		if isControl(r) {
			return fmt.Errorf("%s holds the control character %U at character %d; a case id may hold any character but a control character (U+0000–U+001F, U+007F–U+009F): remove it", clipQuote(id), r, n)
		}
	}
	if n > MaxCaseIDLength {
		return fmt.Errorf("%s is %d characters long; a case id has at most %d: shorten it", clipQuote(id), n, MaxCaseIDLength)
	}
	return nil
}

// isControl reports whether r is a C0 or C1 control character, or DEL.
func isControl(r rune) bool { return r <= 0x1F || r >= 0x7F && r <= 0x9F }

// clipQuote quotes an id for a message, cut after 60 code points so that
// a very long id does not drown the message.
func clipQuote(id string) string {
	const most = 60
	n := 0
	for i := range id {
		if n == most {
			return strconv.Quote(id[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(id)
}
