package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/ciout"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/parallel"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site"
)

const evaluateHelp = `Usage:

  releasegate evaluate --all [--data data] [--out public] [--junit F] [--summary F] [--format text|json] [--quiet]
  releasegate evaluate --latest [--data data] [--output F] [--junit F] [--summary F] [--format text|json] [--quiet]
  releasegate evaluate --cases F --outputs F [--label L] --output F [--baseline F] [--data data] [--junit F] [--summary F] [--format text|json] [--quiet]

Judge output snapshots against the regression suite and decide each one.

With --all, every data/outputs/<label>.jsonl is judged; the command writes
<out>/results/<label>.json for each snapshot and <out>/RELEASE_REPORT.md,
prints a comparison table, and exits 0 whatever the decisions. Each snapshot
is compared with the one before it, and with the baseline when gate.json
names one.

With --latest, every snapshot is judged and the latest one (by recorded_at
in its meta.json, else by label) is the gate: its results file, compared
with the snapshot before it, goes to --output when given, and the exit
status is its decision. This is the gate a project's CI runs when new
recordings replace old ones.

With --cases and --outputs, one snapshot is judged and its results file is
written to --output. POLICY.md, gate.json and case.schema.json come from
--data. The label defaults to the outputs file name without .jsonl. This form
is a CI gate; its exit status is the decision.

When gate.json names a baseline, the snapshot is compared with it, read from
<data>/outputs/<baseline>.jsonl, or from --baseline when given: a pull request
is gated against production that way, and a regression that is unlikely to
be chance blocks it. --baseline alone also turns the comparison on, the
baseline then being named after its file.

Both forms can also write what CI systems read: a JUnit XML report (one test
case per regression case, failures with their codes and details, severity as
a property, the decision and gates as suite properties) and a Markdown step
summary (decision, gates with margins, failing cases). The summary is
appended to its file, as GitHub expects of $GITHUB_STEP_SUMMARY.

--all and --latest keep a small verdict per case rather than the suite.
Snapshots in suite order (one line a case, or with trials each case's
trials one after another, as import writes them, or each trial's lines one
trial after another) are judged as they are read. Snapshots in any other
order, or leaving cases without an output, are read once more with their
lines sorted into suite order, which holds an entry per line and a window
of their text. --junit and --summary also keep each case's title and
latencies. Only trials that leave a case without any read the whole
suite.

Exit status:
  0  PASS (or --all completed)
  3  REVIEW
  4  BLOCK
  1  bad input or I/O failure (nothing is written)
  2  bad usage

Colour marks the decisions only when stdout is a terminal and NO_COLOR is
not set.

Examples:

  releasegate evaluate --all
  releasegate evaluate --latest --junit junit.xml --summary "$GITHUB_STEP_SUMMARY"
  releasegate evaluate --cases data/cases.jsonl --outputs data/outputs/candidate-v3.jsonl \
      --label candidate-v3 --output public/results/candidate-v3.json
  releasegate evaluate --cases data/cases.jsonl --outputs data/outputs/candidate-v2.jsonl \
      --output results.json --junit junit.xml --summary "$GITHUB_STEP_SUMMARY"
  releasegate evaluate --cases data/cases.jsonl --outputs pr.jsonl --output results.json \
      --baseline production.jsonl
  releasegate evaluate --all --format json --quiet > results.json
`

// evaluateMemoryLimit is the soft limit on the Go heap of a streamed
// evaluate --all when GOMEMLIMIT is not set: 1,000,000 cases × 3
// snapshots hold under 200 MiB.
const evaluateMemoryLimit = 224 << 20

// sortedMemoryLimit replaces evaluateMemoryLimit while snapshots out of
// suite order are streamed sorted: 1,000,000 cases × 3 shuffled
// snapshots hold about 400 MiB.
const sortedMemoryLimit = 512 << 20

// ciOutputs are the evaluate flags shared by both forms: extra files for
// CI and how to print.
type ciOutputs struct {
	junit, summary, format string
	quiet                  bool
}

// runEvaluate runs releasegate evaluate: every snapshot (--all), the
// latest gated (--latest), or one snapshot.
func runEvaluate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("evaluate")
	f := defineEvaluateFlags(fs)
	if code := parseFlags(fs, evaluateHelp, args, stdout, stderr); code >= 0 {
		return code
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if msg := f.problem(); msg != "" {
		return usageError(stderr, "evaluate", "%s", msg)
	}
	switch {
	case f.latest:
		return evaluateLatest(f.data, f.output, f.ci, stdout, stderr)
	case f.all:
		return evaluateAll(f.data, f.out, f.ci, stdout, stderr)
	}
	return evaluateOne(f.data, f.cases, f.outputs, f.label, f.output, f.baseline, f.ci, stdout, stderr)
}

// evaluateFlags are the flags of evaluate, and which of them were given.
type evaluateFlags struct {
	all, latest                                        bool
	data, out, cases, outputs, label, output, baseline string
	ci                                                 ciOutputs
	set                                                map[string]bool
}

// defineEvaluateFlags defines the flags of evaluate on fs.
func defineEvaluateFlags(fs *flag.FlagSet) *evaluateFlags {
	f := &evaluateFlags{}
	fs.BoolVar(&f.all, "all", false, "judge every snapshot of the data folder")
	fs.BoolVar(&f.latest, "latest", false, "judge every snapshot and gate the latest: its decision is the exit status")
	fs.StringVar(&f.data, "data", "data", dataUsage)
	fs.StringVar(&f.out, "out", "public", "with --all, write results/ and RELEASE_REPORT.md to `DIR`")
	fs.StringVar(&f.cases, "cases", "", "read the suite of a single snapshot from `FILE`")
	fs.StringVar(&f.outputs, "outputs", "", "read the snapshot's outputs from `FILE`")
	fs.StringVar(&f.label, "label", "", "name the snapshot `NAME` (default: the outputs file name without .jsonl)")
	fs.StringVar(&f.output, "output", "", "write the snapshot's results file to `FILE`")
	fs.StringVar(&f.baseline, "baseline", "", "compare the snapshot with the baseline's outputs in `FILE` (default: the baseline gate.json names, from the data folder)")
	fs.StringVar(&f.ci.junit, "junit", "", "also write a JUnit XML report to `FILE`")
	fs.StringVar(&f.ci.summary, "summary", "", "also append a Markdown summary to `FILE`")
	fs.StringVar(&f.ci.format, "format", "text", "print `FORMAT` on stdout: text, or json for the results file of one snapshot or an array of them with --all")
	fs.BoolVar(&f.ci.quiet, "quiet", false, "print nothing but errors; --format json still prints")
	return f
}

// problem words a combination of flags evaluate cannot run, or is "".
func (f *evaluateFlags) problem() string {
	if f.ci.format != "text" && f.ci.format != "json" {
		return fmt.Sprintf("--format is %q; use text or json", f.ci.format)
	}
	if msg := f.emptyFile("junit", f.ci.junit); msg != "" {
		return msg
	}
	if msg := f.emptyFile("summary", f.ci.summary); msg != "" {
		return msg
	}
	switch {
	case f.all && f.latest:
		return "give --all or --latest, not both"
	case f.latest:
		return f.latestProblem()
	case f.all:
		return f.allProblem()
	}
	return f.oneProblem()
}

// emptyFile words a file flag given with no file name, or is "".
func (f *evaluateFlags) emptyFile(name, value string) string {
	if f.set[name] && value == "" {
		return fmt.Sprintf("--%s needs a file name", name)
	}
	return ""
}

// latestProblem words a flag that cannot go with --latest, or is "".
func (f *evaluateFlags) latestProblem() string {
	for _, other := range []string{"cases", "outputs", "label", "baseline", "out"} {
		if f.set[other] {
			return fmt.Sprintf("--%s cannot be combined with --latest, which reads every snapshot of --data", other)
		}
	}
	return f.emptyFile("output", f.output)
}

// allProblem words a flag of one snapshot given with --all, or is "".
func (f *evaluateFlags) allProblem() string {
	for _, single := range []string{"cases", "outputs", "label", "output", "baseline"} {
		if f.set[single] {
			return fmt.Sprintf("--%s evaluates one snapshot and cannot be combined with --all", single)
		}
	}
	return ""
}

// oneProblem words what evaluating one snapshot lacks or cannot take, or
// is "".
func (f *evaluateFlags) oneProblem() string {
	if f.set["out"] {
		return "--out goes with --all; a single snapshot writes to --output"
	}
	for _, need := range []struct{ name, value string }{{"cases", f.cases}, {"outputs", f.outputs}, {"output", f.output}} {
		if !f.set[need.name] || need.value == "" {
			return fmt.Sprintf("give --all, or --cases, --outputs and --output for one snapshot (missing --%s)", need.name)
		}
	}
	return f.emptyFile("baseline", f.baseline)
}

func evaluateAll(data, out string, ci ciOutputs, stdout, stderr io.Writer) int {
	ctx, stop := interruptible()
	defer stop()
	var paths publish.Paths
	paths.Input("the data folder (--data)", data)
	ci.claim(&paths)
	paths.Output("--out", out)
	if err := paths.Check(); err != nil {
		return failure(stderr, err)
	}
	if err := site.CheckOut(data, out); err != nil {
		return failure(stderr, err)
	}
	if err := ci.checkReplace(); err != nil {
		return failure(stderr, err)
	}
	if err := load.DataFolderProblem(data); err != nil {
		return failure(stderr, err)
	}
	// HANDOFF.md is not evaluated, but a data folder that build refuses is
	// refused here too, before CI goes on to build it.
	if err := load.Check(data, filepath.Join(data, load.HandoffFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failure(stderr, err)
	}
	rel, err := judgeFolder(data, ci)
	if err != nil {
		return failure(stderr, err)
	}
	if err := publishResults(ctx, out, rel, ci); err != nil {
		return failure(stderr, err)
	}
	switch {
	case ci.format == "json":
		results := make([]evaluator.Result, len(rel.Snapshots))
		for i, s := range rel.Snapshots {
			results[i] = s.Result
		}
		stdout.Write(evaluator.EncodeJSON(results))
	case !ci.quiet:
		fmt.Fprint(stdout, colourTable(rel, paletteFor(stdout)))
		fmt.Fprintf(stdout, "\nwrote %s and %s in %s\n", filepath.Join(out, "RELEASE_REPORT.md"), plural(len(rel.Snapshots), "results file"), filepath.Join(out, "results"))
	}
	return exitOK
}

// judgeFolder judges every snapshot of the data folder, streamed, in
// memory that grows by a small verdict per case. The JUnit report gives
// each case its recorded latency as its time, and it and the summary
// name cases by title: each case's title and latencies are then kept
// too.
func judgeFolder(data string, ci ciOutputs) (*evaluator.Release, error) {
	// A streamed suite holds a few bytes a case, so a low soft limit
	// keeps the collector from letting the heap double (docs/design.md,
	// "Scale: streaming evaluation").
	opts := evaluator.StreamOptions{Titles: ci.junit != "" || ci.summary != "", Latencies: ci.junit != ""}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(evaluateMemoryLimit)
		// A suite read whole holds far more than the limit, which would
		// keep the collector running.
		opts.BeforeWhole = func() { debug.SetMemoryLimit(math.MaxInt64) }
		// Lines sorted into suite order hold windows of every snapshot's
		// text and an entry a line.
		opts.BeforeSorted = func() { debug.SetMemoryLimit(sortedMemoryLimit) }
	}
	return evaluator.StreamDir(data, opts)
}

// colourTable is the comparison table with each snapshot's decision
// coloured. Table lines follow the snapshots, after one header line.
func colourTable(rel *evaluator.Release, p palette) string {
	lines := strings.SplitAfter(rel.Table(), "\n")
	for i, s := range rel.Snapshots {
		if i+1 < len(lines) {
			lines[i+1] = p.lastWord(lines[i+1], s.Result.Decision)
		}
	}
	return strings.Join(lines, "")
}

// publishResults replaces <out>/results (one file per snapshot) and
// <out>/RELEASE_REPORT.md in one step, carrying every other file of out
// over, and writes the CI outputs. Everything that can fail is done
// before the step, so a failure changes nothing in out.
func publishResults(ctx context.Context, out string, rel *evaluator.Release, ci ciOutputs) error {
	tree, err := publish.NewTree(ctx, out)
	if err != nil {
		return err
	}
	if err := tree.Keep("results", "RELEASE_REPORT.md"); err != nil {
		tree.Abort()
		return err
	}
	// Large results files and the report take a while to encode; do them
	// side by side.
	errs := make([]error, len(rel.Snapshots)+1)
	parallel.Each(len(errs), 0, func(i int) {
		if i == len(rel.Snapshots) {
			errs[i] = tree.WriteFrom("RELEASE_REPORT.md", rel.WriteReport)
			return
		}
		s := rel.Snapshots[i]
		errs[i] = tree.WriteFrom("results/"+s.Label()+".json", s.Result.WriteJSON)
	})
	if err := errors.Join(errs...); err != nil {
		tree.Abort()
		return err
	}
	if err := writeCIOutputs(rel, ci); err != nil {
		tree.Abort()
		return err
	}
	return tree.Commit()
}

// claim adds the CI outputs to what the command writes.
func (ci ciOutputs) claim(p *publish.Paths) {
	p.Output("--junit", ci.junit)
	p.Output("--summary", ci.summary)
}

// checkReplace refuses, before any work, a --junit file that releasegate
// did not write.
func (ci ciOutputs) checkReplace() error {
	if ci.junit == "" {
		return nil
	}
	return publish.CheckReplace(ci.junit, "--junit", isJUnitReport)
}

// writeCIOutputs writes the JUnit report (replacing the file) and appends
// the step summary, when asked.
func writeCIOutputs(rel *evaluator.Release, ci ciOutputs) error {
	if ci.junit != "" {
		if err := publish.Replace(ci.junit, "--junit", isJUnitReport, func(w io.Writer) error { return ciout.WriteJUnit(w, rel) }); err != nil {
			return err
		}
	}
	if ci.summary != "" {
		return appendFile(ci.summary, ciout.Summary(rel))
	}
	return nil
}

// evaluateBaseline judges the baseline of a single-snapshot evaluate:
// the outputs file given with --baseline, or else the data folder's
// snapshot that gate.json names. A baseline read from a file takes the
// name gate.json gives it, or else its file's; s.Gate then names it.
func evaluateBaseline(data string, s *suite.Suite, file string) (*evaluator.Snapshot, error) {
	label := s.Gate.Baseline
	if file != "" {
		if label == "" {
			l, err := load.Label(file)
			if err != nil {
				return nil, err
			}
			label = l
			s.Gate.Baseline = l
		}
		return evaluator.EvaluateFile(s, label, file, evaluator.Options{})
	}
	path := filepath.Join(data, load.OutputsDir, label+".jsonl")
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, &suite.InputError{File: filepath.Join(data, load.GateFile), Line: s.Gate.BaselineLine, Field: "baseline",
			Msg: fmt.Sprintf("the baseline %q has no outputs: there is no %s; add it, or give --baseline FILE", label, path)}
	}
	return evaluator.EvaluateSnapshot(s, load.SnapshotFile{Label: label, Path: path, Dir: data}, evaluator.Options{})
}

// appendFile adds data to the end of path, creating it if needed. A step
// summary file is shared by every step of a job, so it is never replaced.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func evaluateOne(data, cases, outputs, label, output, baselineFile string, ci ciOutputs, stdout, stderr io.Writer) int {
	if label == "" {
		l, err := load.Label(outputs)
		if err != nil {
			return failure(stderr, err)
		}
		label = l
	} else if !suite.SafeID(label) {
		return usageError(stderr, "evaluate", "label %q is not a safe name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", label)
	}
	var paths publish.Paths
	paths.Input("the suite (--cases)", cases)
	paths.Input("the outputs (--outputs)", outputs)
	paths.Input("the baseline (--baseline)", baselineFile)
	if err := checkGateOutputs(&paths, data, output, ci); err != nil {
		return failure(stderr, err)
	}
	s, err := load.Suite(data, load.Options{CasesPath: cases})
	if err != nil {
		return failure(stderr, err)
	}
	snap, err := evaluator.EvaluateFile(s, label, outputs, evaluator.Options{KeepOutputs: ci.junit != ""})
	if err != nil {
		return failure(stderr, err)
	}
	if baselineFile != "" || s.Gate.Baseline != "" {
		base, err := evaluateBaseline(data, s, baselineFile)
		if err != nil {
			return failure(stderr, err)
		}
		snap = evaluator.Compared(s.Gate, snap, nil, base)
	}
	return gateOne(&evaluator.Release{Suite: s, Snapshots: []*evaluator.Snapshot{snap}}, output, ci, stdout, stderr)
}

// checkGateOutputs refuses, before anything is read or written, a gate
// whose --output, --junit or --summary is one of the inputs in paths or
// the data folder, lies inside one, or names a file releasegate did not
// write (docs/ownership.md).
func checkGateOutputs(paths *publish.Paths, data, output string, ci ciOutputs) error {
	paths.Input("the data folder (--data)", data)
	if output != "" {
		paths.Output("--output", output)
	}
	ci.claim(paths)
	if err := paths.Check(); err != nil {
		return err
	}
	if output != "" {
		if err := publish.CheckReplace(output, "--output", isResultsFile); err != nil {
			return err
		}
	}
	return ci.checkReplace()
}

// evaluateLatest judges every snapshot of data and gates the latest.
func evaluateLatest(data, output string, ci ciOutputs, stdout, stderr io.Writer) int {
	if err := checkGateOutputs(&publish.Paths{}, data, output, ci); err != nil {
		return failure(stderr, err)
	}
	if err := load.DataFolderProblem(data); err != nil {
		return failure(stderr, err)
	}
	if err := load.Check(data, filepath.Join(data, load.HandoffFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failure(stderr, err)
	}
	rel, err := judgeFolder(data, ci)
	if err != nil {
		return failure(stderr, err)
	}
	if len(rel.Snapshots) == 0 {
		return failure(stderr, fmt.Errorf("%s: no snapshot to gate; record one as %s", filepath.Join(data, load.OutputsDir), filepath.Join(data, load.OutputsDir, "<label>.jsonl")))
	}
	return gateOne(rel.Only(rel.Snapshots[len(rel.Snapshots)-1]), output, ci, stdout, stderr)
}

// gateOne writes the results file (when output is given) and CI outputs
// of the one snapshot of rel, prints its decision and returns it as the
// exit status.
func gateOne(rel *evaluator.Release, output string, ci ciOutputs, stdout, stderr io.Writer) int {
	s, snap := rel.Suite, rel.Snapshots[0]
	if output != "" {
		if err := publish.Replace(output, "--output", isResultsFile, snap.Result.WriteJSON); err != nil {
			return failure(stderr, err)
		}
	}
	if err := writeCIOutputs(rel, ci); err != nil {
		return failure(stderr, err)
	}
	r := snap.Result
	label := snap.Label()
	switch {
	case ci.format == "json":
		stdout.Write(snap.JSON())
	case !ci.quiet:
		p := paletteFor(stdout)
		var values []string
		for _, g := range r.Gates {
			if g.Spec.Kind == decide.AgainstLimit {
				values = append(values, g.BriefText(snap.Metrics))
			}
		}
		fmt.Fprintf(stdout, "%s: %s (%s)\n", label, p.decision(r.Decision), strings.Join(values, ", "))
		fmt.Fprintf(stdout, "  %s\n", snap.PassRateSentence(s.Gate.Confidence))
		for _, c := range snap.Comparisons() {
			fmt.Fprintf(stdout, "  %s\n", c.Heading())
		}
		for _, g := range r.Gates {
			if why := g.FailureText(); why != "" {
				fmt.Fprintf(stdout, "  %s\n", why)
			}
		}
		for _, c := range snap.FailingCases() {
			for _, f := range c.Failures {
				where := c.CaseID
				if f.Trial != 0 {
					where = fmt.Sprintf("%s trial %d", c.CaseID, f.Trial)
				}
				fmt.Fprintf(stdout, "  %s [%s] %s: %s\n", where, c.Severity, f.Code, f.Detail)
			}
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
