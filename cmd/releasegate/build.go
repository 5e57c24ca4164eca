package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"

	"github.com/releasegate/releasegate/internal/bundle"
	"github.com/releasegate/releasegate/site"
)

const buildHelp = `Usage:

  releasegate build [--data data] [--out public] [--web DIR] [--quiet]

Evaluate every snapshot of the data folder and write the report site to
--out: index.html (the release overview), a page per snapshot, a drilldown
per case of each snapshot, a history page per case, policy.html with an
anchor on every rule, handoff.html (when the data folder has HANDOFF.md),
results/<label>.json, RELEASE_REPORT.md, 404.html and .nojekyll. Above
50,000 results (cases × snapshots) results share pages, 100 cases a page
(snapshots/<label>/p0001.html#<case>), and so do case histories
(cases/p0001.html#<case>), so the site stays within what GitHub Pages
publishes.

Unless GOMEMLIMIT is set, build (like bundle and verify) asks the Go
runtime to keep its heap near 512 MiB: 100,000 cases × 3 snapshots build
in less than 600 MB of memory. Outputs and case inputs are read again from
their files for the pages that show them, but the site is made from the
whole evaluated suite, so a larger suite needs more: build raises the
limit to two and a half times what the evaluated suite holds (see
docs/design.md, "Scale").

Every link is relative: publish the folder at a domain root or under a
project path, or open index.html from disk. The site is built beside --out
and swapped in at the end, so a failed build leaves the previous site as it
was. --out must be new, empty, or a folder releasegate wrote: it keeps the
list of its files in --out/.releasegate-owned and replaces a folder only
when every file in it is on that list, unchanged. A folder with anything
else in it, or one holding or inside the data folder, is refused (see
docs/ownership.md).

The command exits 0 when the site is written, whatever the decisions; use
"releasegate evaluate" to gate a pipeline on a decision.

Exit status:
  0  the site is written
  1  bad input or I/O failure (nothing is changed)
  2  bad usage

Examples:

  releasegate build
  releasegate build --data data --out site --web .
`

func runBuild(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("build")
	data := fs.String("data", "data", dataUsage)
	out := fs.String("out", "public", "write the site to the folder `DIR`")
	web := fs.String("web", "", "read templates/ and assets/ from `DIR` instead of the built-in copies, to work on the report's look without rebuilding")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	if code := parseFlags(fs, buildHelp, args, stdout, stderr); code >= 0 {
		return code
	}
	if *out == "" {
		return usageError(stderr, "build", "--out must name a folder")
	}
	limitHeap()
	ctx, stop := interruptible()
	defer stop()
	var files int
	var size int64
	opts := site.BuildOptions{
		Context:   ctx,
		Evaluated: fitHeap,
		Progress:  newProgress(stderr, *quiet),
		Warn:      func(msg string) { fmt.Fprintf(stderr, "releasegate build: warning: %s\n", msg) },
		Written:   func(n int, b int64) { files, size = n, b },
	}
	if *web != "" {
		for _, sub := range []string{"templates", "assets"} {
			if info, err := os.Stat(filepath.Join(*web, sub)); err != nil || !info.IsDir() {
				return usageError(stderr, "build", "--web %s must hold templates/ and assets/ (no folder %s)", *web, filepath.Join(*web, sub))
			}
		}
		opts.Web = os.DirFS(*web)
	}
	rel, err := site.Build(*data, *out, opts)
	if err != nil {
		return failure(stderr, err)
	}
	for _, w := range sizeWarnings(files, size, len(rel.Snapshots)) {
		fmt.Fprintf(stderr, "releasegate build: warning: %s\n", w)
	}
	if !*quiet {
		fmt.Fprint(stdout, colourTable(rel, paletteFor(stdout)))
		fmt.Fprintf(stdout, "\nwrote the site to %s (%d files, %s); open %s\n", *out, files, siteSize(size), filepath.Join(*out, "index.html"))
	}
	return exitOK
}

// pagesLimit is the largest site GitHub Pages publishes.
const pagesLimit = 1_000_000_000

// sizeWarnings names each limit a site of files and size bytes exceeds:
// GitHub Pages' size, and a bundle's entry count and expanded size (the
// site, the inputs and MANIFEST).
func sizeWarnings(files int, size int64, snapshots int) []string {
	var out []string
	if size > pagesLimit {
		out = append(out, fmt.Sprintf("the site is %s, over GitHub Pages' limit of 1 GB: it cannot be published there", siteSize(size)))
	}
	lim := bundle.DefaultLimits()
	// The inputs: POLICY.md, case.schema.json, cases.jsonl, gate.json,
	// HANDOFF.md and one outputs file per snapshot; and MANIFEST.
	if entries := files + 5 + snapshots + 1; entries > lim.MaxEntries {
		out = append(out, fmt.Sprintf("a bundle of this site would hold about %d entries, over the limit of %d that bundle and verify accept", entries, lim.MaxEntries))
	}
	if size > lim.MaxTotalSize {
		out = append(out, fmt.Sprintf("the site is %s, over the %s that bundle and verify accept expanded", siteSize(size), siteSize(lim.MaxTotalSize)))
	}
	return out
}

// siteSize writes a size in the units the limits are stated in.
func siteSize(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// limitHeap sets the soft heap limit of the commands that render a whole
// site (build, bundle, verify), unless GOMEMLIMIT sets one: the garbage
// collector then works harder instead of letting the heap double, and a
// site of 100,000 cases × 3 is built in less than 600 MB.
func limitHeap() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(site.BuildMemoryLimit)
	}
}

// fitHeap raises the limit limitHeap set to what the evaluated release
// needs to be rendered without the collector running all the time
// (site.FitMemoryLimit), unless GOMEMLIMIT sets one. The live heap is
// read as the last collection left it: evaluating a large suite collects
// often, and the last collection is close to its end.
func fitHeap() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	if metrics.Read(sample); sample[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(site.FitMemoryLimit(sample[0].Value.Uint64()))
	}
}
