// Package bundle packs a built report site and the inputs it was built from
// into one reproducible zip archive, a handoff bundle, and verifies such an
// archive: that every file is the one its MANIFEST lists and that the
// bundled decisions still follow from the bundled inputs.
//
// Layout of a bundle. Every entry sits below one top folder named
// releasegate-<policy version>-<inputs hash>, e.g.
// releasegate-ER-2026.10-3fa2c1d9/:
//
//	index.html, policy.html, snapshots/..., assets/...  the site; open index.html
//	results/<label>.json, RELEASE_REPORT.md           the decisions
//	inputs/POLICY.md, inputs/case.schema.json,        the inputs, byte for byte
//	inputs/cases.jsonl, inputs/gate.json,
//	inputs/HANDOFF.md, inputs/outputs/<label>.jsonl
//	inputs/outputs/<label>.meta.json
//	VERSION                                           the releasegate that made it
//	MANIFEST                                          "sha256  path" per file
//
// POLICY.md, HANDOFF.md and each meta.json are there when the data folder
// has them; without POLICY.md the top folder is named after "no-policy".
//
// MANIFEST is in sha256sum format (lower-case hex SHA-256, two spaces,
// the path relative to the top folder), one line per file, sorted by path,
// not listing itself; "sha256sum -c MANIFEST" run in the top folder checks
// it. The inputs hash is the first 8 hex digits of the SHA-256 of the
// MANIFEST lines of the files below inputs/, so this recomputes it:
//
//	grep '  inputs/' MANIFEST | sha256sum | cut -c1-8
//
// Reproducibility: entries are sorted by path, carry no extra fields, mode
// 0644, one fixed time, and are compressed with Deflate at level 6 (or
// stored when that is not smaller). The time is SOURCE_DATE_EPOCH when
// the caller passes it, otherwise the first day of the policy version's
// month (ER-2026.10 gives 2026-10-01 00:00:00 UTC), clamped to the range
// a zip file can hold (1980 to 2107). The same inputs, built by the same
// releasegate binary, give the same bytes.
package bundle

import (
	"fmt"
	"strings"
)

// Names inside a bundle.
const (
	ManifestName = "MANIFEST"
	InputsDir    = "inputs"
	ResultsDir   = "results"
	ReportName   = "RELEASE_REPORT.md"
	VersionName  = "VERSION" // the releasegate that made the bundle
	rootPrefix   = "releasegate-"
	hashLen      = 8
)

// Limits bound what extraction accepts, so that a hostile archive cannot
// fill the disk or the memory. A zero field takes its default.
type Limits struct {
	MaxEntries   int   // entries in the archive
	MaxFileSize  int64 // bytes of one file, expanded
	MaxTotalSize int64 // bytes of all files, expanded
	// MaxRatio caps expanded/compressed size for files of at least
	// ratioFloor bytes; smaller files are bounded by the size limits.
	MaxRatio int64
}

// DefaultLimits are the limits used where a field is zero: room for the
// site of 100,000 cases × 3 snapshots (about 400,000 files, 2.4 GB) with a
// margin, and far below what a zip bomb expands to.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:   1_000_000,
		MaxFileSize:  1 << 30, // the inputs of a large suite: 100,000 cases are an 89 MB cases.jsonl
		MaxTotalSize: 8 << 30,
		MaxRatio:     200,
	}
}

// ratioFloor is the smallest expanded size the ratio cap applies to: small
// files compress well (a run of spaces, an empty JSON array) and are
// harmless.
const ratioFloor = 1 << 20

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxEntries > 0 {
		d.MaxEntries = l.MaxEntries
	}
	if l.MaxFileSize > 0 {
		d.MaxFileSize = l.MaxFileSize
	}
	if l.MaxTotalSize > 0 {
		d.MaxTotalSize = l.MaxTotalSize
	}
	if l.MaxRatio > 0 {
		d.MaxRatio = l.MaxRatio
	}
	return d
}

// checkPath reports why a slash path is not acceptable inside a bundle,
// or "" when it is. Accepted paths are relative, use only letters, digits
// and ". _ - + @ ~", and have no empty, "." or ".." element: nothing that
// could leave the extraction folder or mean different files on different
// systems.
func checkPath(p string) string {
	switch {
	case p == "":
		return "empty name"
	case strings.HasPrefix(p, "/"):
		return "absolute path"
	case strings.Contains(p, `\`):
		return "backslash in name"
	case len(p) >= 2 && p[1] == ':':
		return "drive letter in name"
	}
	for _, elem := range strings.Split(p, "/") {
		switch elem {
		case "":
			return "empty path element"
		case ".":
			return `"." path element`
		case "..":
			return `".." path element leaves the bundle folder`
		}
	}
	for _, c := range []byte(p) {
		if !safeByte(c) {
			return fmt.Sprintf("character %q not allowed in names", rune(c))
		}
	}
	return ""
}

func safeByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("._-+@~/", c) >= 0
}

// RootName is the bundle's top folder: releasegate-<version>-<hash>.
func RootName(version, inputsHash string) string {
	return rootPrefix + version + "-" + inputsHash
}

// parseRootName splits a top folder name into version and inputs hash.
func parseRootName(root string) (version, hash string, ok bool) {
	rest, ok := strings.CutPrefix(root, rootPrefix)
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 || len(rest)-i-1 != hashLen {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}
