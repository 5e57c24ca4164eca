package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/site/write"
)

const evaluateHelp = `Usage:

  releasegate evaluate --all [--data data] [--out public]
  releasegate evaluate --cases F --outputs F [--label L] --output F [--data data]

Judge output snapshots against the regression suite and decide each one.

With --all, every data/outputs/<label>.jsonl is judged; the command writes
<out>/results/<label>.json for each snapshot and <out>/RELEASE_REPORT.md,
prints a comparison table, and exits 0 whatever the decisions.

With --cases and --outputs, one snapshot is judged and its results file is
written to --output. POLICY.md, gate.json and case.schema.json come from
--data. The label defaults to the outputs file name without .jsonl. This form
is a CI gate; its exit status is the decision.

Exit status:
  0  PASS (or --all completed)
  3  REVIEW
  4  BLOCK
  1  bad input or I/O failure (nothing is written)
  2  bad usage

Flags:
  --all           judge every snapshot of the data folder
  --data DIR      data folder (default "data")
  --out DIR       where --all writes results/ and RELEASE_REPORT.md (default "public")
  --cases FILE    the suite, for a single snapshot
  --outputs FILE  the snapshot's outputs
  --label NAME    the snapshot's name
  --output FILE   the results file to write

Examples:

  releasegate evaluate --all
  releasegate evaluate --cases data/cases.jsonl --outputs data/outputs/candidate-v3.jsonl \
      --label candidate-v3 --output public/results/candidate-v3.json
`

func runEvaluate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("evaluate", evaluateHelp, stderr)
	all := fs.Bool("all", false, "")
	data := fs.String("data", "data", "")
	out := fs.String("out", "public", "")
	cases := fs.String("cases", "", "")
	outputs := fs.String("outputs", "", "")
	label := fs.String("label", "", "")
	output := fs.String("output", "", "")
	if code := parseFlags(fs, evaluateHelp, args, stdout, stderr); code >= 0 {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *all {
		for _, single := range []string{"cases", "outputs", "label", "output"} {
			if set[single] {
				return usageError(stderr, "evaluate", "--%s evaluates one snapshot and cannot be combined with --all", single)
			}
		}
		return evaluateAll(*data, *out, stdout, stderr)
	}
	if set["out"] {
		return usageError(stderr, "evaluate", "--out goes with --all; a single snapshot writes to --output")
	}
	for _, need := range []string{"cases", "outputs", "output"} {
		if !set[need] || fs.Lookup(need).Value.String() == "" {
			return usageError(stderr, "evaluate", "give --all, or --cases, --outputs and --output for one snapshot (missing --%s)", need)
		}
	}
	return evaluateOne(*data, *cases, *outputs, *label, *output, stdout, stderr)
}

func evaluateAll(data, out string, stdout, stderr io.Writer) int {
	rel, err := evaluator.EvaluateDir(data, evaluator.Options{})
	if err != nil {
		return failure(stderr, err)
	}
	if err := writeResults(out, rel); err != nil {
		return failure(stderr, err)
	}
	fmt.Fprint(stdout, rel.Table())
	fmt.Fprintf(stdout, "\nwrote %s and %d results files in %s\n", filepath.Join(out, "RELEASE_REPORT.md"), len(rel.Snapshots), filepath.Join(out, "results"))
	return exitOK
}

// writeResults replaces <out>/results with one file per snapshot and
// writes <out>/RELEASE_REPORT.md.
func writeResults(out string, rel *evaluator.Release) error {
	tree, err := write.NewTree(filepath.Join(out, "results"))
	if err != nil {
		return err
	}
	for _, s := range rel.Snapshots {
		if err := tree.Write(s.Label()+".json", s.JSON()); err != nil {
			tree.Abort()
			return err
		}
	}
	if err := tree.Commit(); err != nil {
		return err
	}
	return write.File(filepath.Join(out, "RELEASE_REPORT.md"), rel.Report())
}

func evaluateOne(data, cases, outputs, label, output string, stdout, stderr io.Writer) int {
	if label == "" {
		l, err := load.Label(outputs)
		if err != nil {
			return failure(stderr, err)
		}
		label = l
	} else if !suite.SafeID(label) {
		return usageError(stderr, "evaluate", "label %q is not a safe name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", label)
	}
	s, err := load.Suite(data, cases)
	if err != nil {
		return failure(stderr, err)
	}
	snap, err := evaluator.EvaluateFile(s, label, outputs, evaluator.Options{})
	if err != nil {
		return failure(stderr, err)
	}
	if err := write.File(output, snap.JSON()); err != nil {
		return failure(stderr, err)
	}
	r := snap.Result
	fmt.Fprintf(stdout, "%s: %s (%s passed, %d critical failures, p95 %s, average %s)\n", label, r.Decision, snap.PassCount(), r.CriticalFailures, snap.P95Text(), snap.AvgCostText())
	for _, c := range snap.FailingCases() {
		for _, f := range c.Failures {
			fmt.Fprintf(stdout, "  %s [%s] %s: %s\n", c.CaseID, c.Severity, f.Code, f.Detail)
		}
	}
	switch r.Decision {
	case decide.Review:
		return exitReview
	case decide.Block:
		return exitBlock
	}
	return exitOK
}
