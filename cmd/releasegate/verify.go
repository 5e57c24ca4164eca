package main

import (
	"archive/zip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/internal/bundle"
	"github.com/releasegate/releasegate/site/pages"
)

const verifyHelp = `Usage:

  releasegate verify FILE

Prove that a bundle written by "releasegate bundle" is unchanged and that
its decisions still follow from its inputs.

The archive is unpacked into a temporary folder, removed afterwards, also
when verify is stopped with Ctrl-C or SIGTERM. An archive with absolute or
"../" paths, links, unusual file modes, duplicate names, more than
1,000,000 entries, or entries that expand beyond 1 GiB each, 8 GiB in all,
or their declared size (zip bombs) is refused before anything is written. Then every file is checked against MANIFEST, and
missing, extra and altered files are all named. Last, the site is built
again from the bundled inputs: every file of the bundle (pages, assets,
results/<label>.json, RELEASE_REPORT.md) must be byte-identical to the
rebuild, and a file the rebuild does not write (an injected script) or
does write but the bundle lacks is named too.

A bundle made by another releasegate (see its VERSION) is said to be so;
its results and report must still match, while pages that differ are
reported as unproven rather than forged, and the bundle is not verified.

Exit status:
  0  verified
  1  not verified, refused, or unreadable
  2  bad usage

Examples:

  releasegate verify releasegate-ER-2026.10-3fa2c1d9.zip
`

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, helpText(fs, verifyHelp))
		return exitOK
	case err != nil:
		return usageError(stderr, "verify", "%v%s", err, flagHint(fs, err))
	case fs.NArg() == 0:
		return usageError(stderr, "verify", "name the bundle to verify")
	case fs.NArg() > 1:
		return usageError(stderr, "verify", "verify one bundle at a time (got %d arguments)", fs.NArg())
	}
	limitHeap()
	ctx, stop := interruptible()
	defer stop()
	rep, err := bundle.Verify(fs.Arg(0), bundle.VerifyOptions{Producer: producer(), Context: ctx})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "releasegate verify: %s: interrupted; not verified\n", fs.Arg(0))
		return exitFail
	}
	var refused *bundle.RefusedError
	if errors.As(err, &refused) {
		fmt.Fprintf(stdout, "NOT VERIFIED %s: %s\n", refused.Archive, strings.TrimPrefix(refused.Error(), refused.Archive+": "))
	}
	if err != nil {
		return failure(stderr, err)
	}
	printVerifyReport(stdout, rep)
	for _, w := range handoffWarnings(fs.Arg(0), rep) {
		fmt.Fprintf(stderr, "releasegate verify: warning: %s\n", w)
	}
	if !rep.Verified() {
		fmt.Fprintf(stderr, "releasegate verify: %s: not verified (%s)\n", rep.Archive, plural(len(rep.Problems), "problem"))
		return exitFail
	}
	return exitOK
}

// maxProblemsShown bounds the problems printed: a changed input changes
// every page of a large site.
const maxProblemsShown = 200

func printVerifyReport(w io.Writer, rep *bundle.Report) {
	if rep.Verified() {
		fmt.Fprintf(w, "verified %s\n", rep.Archive)
	} else {
		fmt.Fprintf(w, "NOT VERIFIED %s: %s\n", rep.Archive, plural(len(rep.Problems), "problem"))
		for i, p := range rep.Problems {
			if i == maxProblemsShown {
				fmt.Fprintf(w, "  ... and %d more problems\n", len(rep.Problems)-i)
				break
			}
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	fmt.Fprintf(w, "  archive sha256 %s\n", rep.SHA256)
	fmt.Fprintf(w, "  %d files listed in %s/MANIFEST\n", rep.Files, rep.Root)
	if rep.OtherVersion {
		if rep.MadeBy == "" {
			fmt.Fprintf(w, "  made by an earlier releasegate (no VERSION file), not by this %s: pages can only be proven by the releasegate that made them; install the version that made the bundle and verify with it\n", producer())
		} else {
			fmt.Fprintf(w, "  made by %s, not by this %s: pages can only be proven by the releasegate that made them; to prove them, install exactly %s and verify with it\n", rep.MadeBy, producer(), rep.MadeBy)
		}
	}
	if rep.Rebuilt > 0 {
		fmt.Fprintf(w, "  %d files of the site built again from inputs/ and compared byte for byte\n", rep.Rebuilt)
	}
	if len(rep.Snapshots) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s evaluated again from inputs/:\n", plural(len(rep.Snapshots), "snapshot"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    snapshot\tbundled\trecomputed")
	for _, s := range rep.Snapshots {
		bundled := string(s.Bundled)
		if bundled == "" {
			bundled = "-"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", s.Label, bundled, s.Recomputed)
	}
	tw.Flush()
}

// handoffWarnings checks the bundled HANDOFF.md against the recomputed
// decisions: a sentence naming a snapshot with another decision is worth
// a warning, not a failure. A bundle without the file has nothing to say.
func handoffWarnings(archive string, rep *bundle.Report) []string {
	if rep.Root == "" || len(rep.Snapshots) == 0 {
		return nil
	}
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return nil
	}
	defer zr.Close()
	f, err := zr.Open(rep.Root + "/" + bundle.InputsDir + "/" + load.HandoffFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	// Verify has checked the entry against MANIFEST and the size limits.
	src, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil
	}
	decisions := map[string]decide.Decision{}
	for _, s := range rep.Snapshots {
		decisions[s.Label] = s.Recomputed
	}
	var out []string
	for _, c := range pages.CheckHandoff(src, decisions) {
		out = append(out, c.String())
	}
	return out
}
