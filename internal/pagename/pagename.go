// Package pagename names the files and anchors a case gets on the report
// site. A case id may be any text (docs/real-data.md, "Case ids"), but a
// page needs a name that every file system, URL and zip archive takes as
// it is. An id that already is such a name (suite.SafeID) keeps it, so
// the links of existing sites stay valid; any other id gets
// "<slug>-<hash>", readable and short, unique by its hash. Names that
// would share a file on a disk that ignores case are given the hashed
// form too.
package pagename

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// hashDigits is how many hexadecimal digits of the id's SHA-256 a hashed
// name carries.
const hashDigits = 12

// maxSlug bounds, in bytes, the part of a hashed name taken from the id.
const maxSlug = 40

// Hashed is the hashed name of id, without ".html": the id with every run
// of characters outside [A-Za-z0-9._-] replaced by one "-", cut to its
// first 40 bytes and trimmed of "-" and "." at both ends, then "-" and
// the first 12 hexadecimal digits of the SHA-256 of the UTF-8 id; only
// those digits when nothing of the id is left.
func Hashed(id string) string { return hashedWith(id, hashDigits) }

// hashedWith is Hashed with digits hexadecimal digits of the hash.
func hashedWith(id string, digits int) string {
	sum := sha256.Sum256([]byte(id))
	h := hex.EncodeToString(sum[:(digits+1)/2])[:digits]
	if slug := Slug(id); slug != "" {
		return slug + "-" + h
	}
	return h
}

// Slug is the readable part of a hashed name: id with every run of
// characters outside [A-Za-z0-9._-] replaced by one "-", cut to its first
// 40 bytes, trimmed of "-" and "." at both ends.
func Slug(id string) string {
	b := make([]byte, 0, min(len(id), maxSlug+1))
	dash := false
	for _, r := range id {
		if len(b) >= maxSlug {
			break
		}
		if r < 0x80 && nameByte(byte(r)) {
			b = append(b, byte(r))
			dash = false
		} else if !dash {
			b = append(b, '-')
			dash = true
		}
	}
	return strings.Trim(string(b), "-.")
}

// nameByte reports whether c may stand in a name as it is.
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// Stems returns, for each of the distinct ids, the name of its page
// without ".html", which is also its anchor on a page that shows several
// cases: the id itself when it is a safe file name, else its Hashed form.
// Names that are equal ignoring case (they would be one file on macOS or
// Windows) are all given the Hashed form. The result is ids itself when
// every id keeps its name, as on every suite of safe ids.
func Stems(ids []string) []string {
	var stems []string // nil while every stem is its id
	hashed := func(i int) bool { return stems != nil && stems[i] != ids[i] }
	hash := func(i int) {
		if stems == nil {
			stems = append([]string(nil), ids...)
		}
		stems[i] = Hashed(ids[i])
	}
	for i, id := range ids {
		if !suite.SafeID(id) {
			hash(i)
		}
	}
	// Hashing a name can only end a clash or, in theory, start one with
	// an id that is literally another's hashed name: repeat until none is
	// left. Each round hashes at least one more name, so it ends.
	for {
		clashes := clashing(current(ids, stems))
		changed := false
		for _, i := range clashes {
			if !hashed(i) {
				hash(i)
				changed = true
			}
		}
		if !changed {
			// Two hashed names can clash only if two ids share their
			// slug and 48 bits of their SHA-256; those get the whole
			// hash.
			for _, i := range clashes {
				stems[i] = hashedWith(ids[i], 2*sha256.Size)
			}
			break
		}
	}
	if stems == nil {
		return ids
	}
	return stems
}

func current(ids, stems []string) []string {
	if stems == nil {
		return ids
	}
	return stems
}

// clashing returns the indexes of names equal to another ignoring case.
func clashing(names []string) []int {
	first := make(map[string]int, len(names))
	var out []int
	marked := map[int]bool{}
	for i, n := range names {
		key := lowerASCII(n)
		if j, ok := first[key]; ok {
			if !marked[j] {
				marked[j] = true
				out = append(out, j)
			}
			out = append(out, i)
			marked[i] = true
			continue
		}
		first[key] = i
	}
	return out
}

// lowerASCII is strings.ToLower for the ASCII names here, which returns
// a name without upper-case letters as it is.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
