package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/releasegate/releasegate/site"
)

const buildHelp = `Usage:

  releasegate build [--data data] [--out public] [--web DIR] [--quiet]

Evaluate every snapshot of the data folder and write the report site to
--out: index.html (the release overview), a page per snapshot, a drilldown
per case of each snapshot, a history page per case, policy.html with an
anchor on every rule, handoff.html (when the data folder has HANDOFF.md),
results/<label>.json, RELEASE_REPORT.md, 404.html and .nojekyll.

Every link is relative: publish the folder at a domain root or under a
project path, or open index.html from disk. The site is built beside --out
and swapped in at the end, so a failed build leaves the previous site as it
was. --out must be new, empty, or an earlier site; build refuses to replace
a folder that holds the data folder or files of its own.

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
	opts := site.BuildOptions{Progress: newProgress(stderr, *quiet)}
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
	if !*quiet {
		fmt.Fprint(stdout, colourTable(rel, paletteFor(stdout)))
		fmt.Fprintf(stdout, "\nwrote the site to %s; open %s\n", *out, filepath.Join(*out, "index.html"))
	}
	return exitOK
}
