package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Problem is one reason a bundle is not verified.
type Problem struct {
	Path   string // the file concerned, relative to the top folder
	Kind   string // one of the Kind constants
	Detail string
}

// Kinds of problem.
const (
	Missing  = "missing"  // listed in MANIFEST, not in the archive
	Extra    = "extra"    // in the archive, not listed in MANIFEST
	Altered  = "altered"  // content differs from its MANIFEST checksum
	Invalid  = "invalid"  // MANIFEST or the top folder name is malformed
	Differs  = "differs"  // a bundled result differs from the re-evaluation
	Unproven = "unproven" // the re-evaluation could not run
)

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s", p.Path, p.Kind, p.Detail)
}

// fileSum is one MANIFEST line.
type fileSum struct {
	Path string
	Sum  string // lower-case hex SHA-256
}

func sumHex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// encodeManifest writes sums in sha256sum format, sorted by path.
func encodeManifest(sums []fileSum) []byte {
	sorted := slices.Clone(sums)
	slices.SortFunc(sorted, func(a, b fileSum) int { return strings.Compare(a.Path, b.Path) })
	var b bytes.Buffer
	for _, s := range sorted {
		b.WriteString(s.Sum)
		b.WriteString("  ")
		b.WriteString(s.Path)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// inputsHash is the short hash naming a bundle: the first hex digits of
// the SHA-256 of the MANIFEST lines of the files below inputs/.
func inputsHash(sums []fileSum) string {
	var inputs []fileSum
	for _, s := range sums {
		if strings.HasPrefix(s.Path, InputsDir+"/") {
			inputs = append(inputs, s)
		}
	}
	return sumHex(encodeManifest(inputs))[:hashLen]
}

// parseManifest reads MANIFEST. It accepts what sha256sum writes (two
// spaces, or " *" for binary mode) and CRLF line ends, and reports every
// malformed or duplicate line instead of stopping at the first.
func parseManifest(data []byte) (map[string]string, []Problem) {
	sums := map[string]string{}
	firstLine := map[string]int{}
	var problems []Problem
	bad := func(line int, format string, args ...any) {
		problems = append(problems, Problem{Path: ManifestName, Kind: Invalid, Detail: fmt.Sprintf("line %d: ", line) + fmt.Sprintf(format, args...)})
	}
	text := string(data)
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return sums, []Problem{{Path: ManifestName, Kind: Invalid, Detail: "empty: it lists no files"}}
	}
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		if len(line) < 66 || !isLowerHex(line[:64]) || (line[64:66] != "  " && line[64:66] != " *") {
			bad(n, "want 64 lower-case hex digits, two spaces and a path, got %q", clip(line))
			continue
		}
		sum, path := line[:64], line[66:]
		if why := checkPath(path); why != "" {
			bad(n, "path %q: %s", clip(path), why)
			continue
		}
		if first, dup := firstLine[path]; dup {
			bad(n, "%s is listed again (first on line %d)", path, first)
			continue
		}
		firstLine[path] = n
		sums[path] = sum
	}
	return sums, problems
}

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// clip shortens text quoted in a message.
func clip(s string) string {
	const max = 80
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
