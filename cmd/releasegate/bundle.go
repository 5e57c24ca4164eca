package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/releasegate/releasegate/internal/bundle"
)

const bundleHelp = `Usage:

  releasegate bundle [--data data] [-o FILE] [--quiet]

Build the report site and pack it, with the inputs it was built from, into
one zip archive to hand over: unzip it and open index.html, offline.

The archive holds one folder, releasegate-<policy version>-<inputs hash>/,
with the site at its root, results/<label>.json, RELEASE_REPORT.md, the
inputs byte for byte in inputs/ (POLICY.md, case.schema.json, cases.jsonl,
gate.json, HANDOFF.md, outputs/<label>.jsonl), VERSION (the releasegate
that made it) and MANIFEST, the SHA-256 of every file in sha256sum format.

Bundle refuses, as bad input, what verify would refuse: case ids or
snapshot labels that differ only in case (ER-001 and er-001), more than
1,000,000 entries, a file over 1 GiB or a site over 8 GiB. What the inputs
show (names, the number of files, the inputs' sizes) is refused before any
page is rendered; the finished archive is checked again.

The same inputs give a byte-identical archive. Every entry carries the time
SOURCE_DATE_EPOCH when it is set, otherwise the first day of the policy
version's month (ER-2026.10: 2026-10-01 00:00 UTC).

Check an archive with "releasegate verify FILE".

Exit status:
  0  the archive was written, whatever the decisions
  1  bad input or I/O failure (no archive is written)
  2  bad usage

Examples:

  releasegate bundle
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) releasegate bundle -o handoff.zip
`

func runBundle(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bundle")
	data := fs.String("data", "data", dataUsage)
	output := fs.String("o", "", "write the archive to `FILE` (default: releasegate-<version>-<hash>.zip in the current folder)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	if code := parseFlags(fs, bundleHelp, args, stdout, stderr); code >= 0 {
		return code
	}
	limitHeap()
	ctx, stop := interruptible()
	defer stop()
	opts := bundle.Options{Data: *data, Output: *output, Producer: producer(), Context: ctx}
	if epoch, ok := os.LookupEnv("SOURCE_DATE_EPOCH"); ok && epoch != "" {
		t, err := bundle.ParseSourceDateEpoch(epoch)
		if err != nil {
			return usageError(stderr, "bundle", "%v", err)
		}
		opts.Modified = t
	}
	created, err := bundle.Create(opts)
	if err != nil {
		return failure(stderr, err)
	}
	if *quiet {
		return exitOK
	}
	fmt.Fprint(stdout, created.Release.Table())
	fmt.Fprintf(stdout, "\nwrote %s: %d files, %s, sha256 %s\n", created.Path, created.Files, byteSize(created.Bytes), created.SHA256)
	fmt.Fprintf(stdout, "check it with: releasegate verify %s\n", created.Path)
	return exitOK
}

// producer names this releasegate in a bundle's VERSION: its version and
// source revision, without the Go version and platform, which do not
// change what it writes.
func producer() string {
	info, _ := debug.ReadBuildInfo()
	line, _, _ := strings.Cut(versionLine(info, ""), " (")
	return line
}

// byteSize writes a size for people: "812.4 KiB".
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
