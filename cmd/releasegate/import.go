package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/internal/runlog"
)

const importHelp = `Usage:

  releasegate import FORMAT FILE [--data data] [--label L] [--force] [--price-in USD --price-out USD]

Turn one recorded run into a snapshot of the data folder: outputs/<label>.jsonl
and, with what the run records of its model, time, commit and description,
outputs/<label>.meta.json. FORMAT is one of:

  inspect          an Inspect AI log, .eval or .json
  promptfoo        a promptfoo export (promptfoo eval -o results.json), one
                   snapshot per provider
  openai-batch     the output file of an OpenAI Batch API job
  anthropic-batch  the results file of an Anthropic Message Batch

Each recorded answer becomes a line: the case id the run gives it, its trial
(an Inspect epoch, a promptfoo repeat), its tool calls, latency and cost. A
record that failed (an API error, an expired request, a sample that stopped
with an error) gets no line, so its case is judged missing_output; the
command lists those records. When the data folder has a suite, every case id
of the run must be in it, and the lines follow its order.

Cost is the run's own dollar figure; without one, --price-in and --price-out
(USD per million input and output tokens) price the token counts; otherwise
it is null, as is a latency the run does not record.

The label is --label, or is made from the file name (promptfoo: from each
provider's label or id). An existing snapshot is replaced only with --force.
Nothing is written unless the whole run imports, and a snapshot file appears
whole or not at all. docs/import.md says which field becomes which.

Exit status:
  0  the snapshot was written (failed records are listed, not an error)
  1  bad input or I/O failure (nothing is written)
  2  bad usage

Examples:

  releasegate import inspect logs/2026-02-03T09-15-00_support-agent.eval
  releasegate import promptfoo results.json --data data
  releasegate import openai-batch batch_output.jsonl --label gpt-4.1-mini \
      --price-in 0.40 --price-out 1.60
  releasegate import anthropic-batch msgbatch_results.jsonl --label claude-v2 --force
`

// importProgressBytes is the size from which a log is large enough for
// a progress line.
const importProgressBytes = 64 << 20

// importFlags are the options of one import.
type importFlags struct {
	data, label         string
	force               bool
	priceIn, priceOut   *runlog.Decimal
	format              runlog.Format
	file                string
	stdout, stderr      io.Writer
	progressOnTerminal  bool
	progressMinimumSize int64
}

func runImport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("import")
	data := fs.String("data", "data", "write the snapshot into the data folder `DIR`, checking its case ids against DIR/cases.jsonl when there is one")
	label := fs.String("label", "", "name the snapshot `NAME` (default: made from the file name, or from each promptfoo provider)")
	force := fs.Bool("force", false, "replace a snapshot of the same label")
	priceIn := fs.String("price-in", "", "price input tokens at `USD` per million, for runs that record no cost")
	priceOut := fs.String("price-out", "", "price output tokens at `USD` per million, for runs that record no cost")
	// FORMAT and FILE may come before, between or after the flags.
	var positional []string
	err := fs.Parse(args)
	for err == nil && fs.NArg() > 0 {
		positional = append(positional, fs.Arg(0))
		err = fs.Parse(fs.Args()[1:])
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, helpText(fs, importHelp))
		return exitOK
	case err != nil:
		return usageError(stderr, "import", "%v%s", err, flagHint(fs, err))
	case len(positional) < 2:
		return usageError(stderr, "import", "give the format and the file: releasegate import FORMAT FILE")
	case len(positional) > 2:
		return usageError(stderr, "import", "unexpected argument %q", positional[2])
	}
	opts := importFlags{data: *data, label: *label, force: *force, format: runlog.Format(positional[0]), file: positional[1],
		stdout: stdout, stderr: stderr, progressOnTerminal: true, progressMinimumSize: importProgressBytes}
	if !opts.format.Valid() {
		return usageError(stderr, "import", "unknown format %q: use %s", positional[0], formatList())
	}
	if opts.label != "" && !suite.SafeID(opts.label) {
		return usageError(stderr, "import", "label %q is not a safe name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", opts.label)
	}
	if (*priceIn == "") != (*priceOut == "") {
		return usageError(stderr, "import", "give both --price-in and --price-out, or neither")
	}
	if *priceIn != "" {
		for _, p := range []struct {
			name, text string
			dst        **runlog.Decimal
		}{{"price-in", *priceIn, &opts.priceIn}, {"price-out", *priceOut, &opts.priceOut}} {
			d, err := runlog.ParseDecimal(p.text)
			if err != nil || d.Sign() < 0 {
				return usageError(stderr, "import", "--%s is %q; give a price in USD per million tokens, such as 0.40", p.name, p.text)
			}
			*p.dst = &d
		}
	}
	return importRun(opts)
}

// formatList names the formats for a message: "inspect, promptfoo,
// openai-batch or anthropic-batch".
func formatList() string {
	var names []string
	for _, f := range runlog.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func importRun(o importFlags) int {
	ctx, stop := interruptible()
	defer stop()
	outDir := filepath.Join(o.data, load.OutputsDir)
	if info, err := os.Stat(o.data); err != nil || !info.IsDir() {
		return failure(o.stderr, &suite.InputError{File: o.data, Msg: "not a data folder: create it (releasegate init makes one) or name it with --data"})
	}
	if _, err := os.Lstat(outDir); err == nil {
		if err := load.CheckDir(o.data, outDir); err != nil {
			return failure(o.stderr, err)
		}
	}
	ids, err := suiteIDs(o.data)
	if err != nil {
		return failure(o.stderr, err)
	}
	f, err := load.OpenNamed(o.file)
	if err != nil {
		return failure(o.stderr, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return failure(o.stderr, err)
	}
	// With one snapshot and its label known, a label that is taken is
	// refused before a long log is read.
	if o.format != runlog.Promptfoo {
		label := o.label
		if label == "" {
			label = fileLabel(o.file, o.format)
		}
		if err := checkTarget(outDir, label, o.force, nil); err != nil {
			return failure(o.stderr, err)
		}
	}
	stores := &scratch{}
	defer stores.remove()
	progress := o.newProgress(info.Size())
	src := runlog.Source{Name: o.file, Data: &countingReaderAt{r: f, add: progress}, Size: info.Size()}
	res, err := runlog.Import(o.format, src, runlog.Options{
		Context: ctx, Suite: ids, PriceIn: o.priceIn, PriceOut: o.priceOut,
		NewStore: stores.newStore,
	})
	progress(-1)
	if err != nil {
		return failure(o.stderr, err)
	}
	if o.label != "" && len(res.Snapshots) > 1 {
		return usageError(o.stderr, "import", "%s holds the answers of %d providers (%s), one snapshot each: leave out --label and each is named after its provider",
			o.file, len(res.Snapshots), providerList(res.Snapshots))
	}
	targets, err := planTargets(o, outDir, res)
	if err != nil {
		return failure(o.stderr, err)
	}
	if err := writeTargets(ctx, outDir, targets); err != nil {
		return failure(o.stderr, err)
	}
	report(o.stdout, o.file, res, targets)
	return exitOK
}

// suiteIDs returns the case ids of the suite in data, in suite order; nil
// when the folder has no cases.jsonl. The suite is read as evaluate reads
// it, so a folder evaluate would refuse is refused here too.
func suiteIDs(data string) ([]string, error) {
	err := load.Check(data, filepath.Join(data, load.CasesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := load.Suite(data, load.Options{})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(s.Cases))
	for i, c := range s.Cases {
		ids[i] = c.ID
	}
	return ids, nil
}

// fileLabel makes a label from the log's file name: its base name
// without extension, fitted to the label grammar.
func fileLabel(path string, format runlog.Format) string {
	base := filepath.Base(path)
	if label := runlog.DeriveLabel(strings.TrimSuffix(base, filepath.Ext(base))); label != "" {
		return label
	}
	return string(format)
}

func providerList(snaps []*runlog.Snapshot) string {
	var names []string
	for _, s := range snaps {
		names = append(names, strconv.Quote(s.Provider))
	}
	return strings.Join(names, ", ")
}

// target is one snapshot to write and where.
type target struct {
	snap       *runlog.Snapshot
	label      string
	lines      string // outputs/<label>.jsonl
	meta       string // outputs/<label>.meta.json
	metaJSON   []byte // nil: the run records nothing for it
	replacing  bool   // a snapshot of that label is being replaced (--force)
	linesExist bool
	metaExists bool
}

// planTargets gives every snapshot its label and checks that its files
// may be written.
func planTargets(o importFlags, outDir string, res *runlog.Result) ([]target, error) {
	var targets []target
	taken := map[string]bool{} // lower-cased labels of this import
	for i, s := range res.Snapshots {
		label := o.label
		switch {
		case label != "":
		case res.Format == runlog.Promptfoo:
			label = runlog.DeriveLabel(s.Provider)
			if label == "" {
				label = "provider-" + strconv.Itoa(i+1)
			}
		default:
			label = fileLabel(o.file, o.format)
		}
		base := label
		for n := 2; taken[strings.ToLower(label)]; n++ {
			suffix := "-" + strconv.Itoa(n)
			label = strings.TrimRight(base[:min(len(base), 64-len(suffix))], "-._") + suffix
		}
		taken[strings.ToLower(label)] = true
		t := target{snap: s, label: label, metaJSON: s.Meta.JSON(),
			lines: filepath.Join(outDir, label+".jsonl"), meta: filepath.Join(outDir, label+load.MetaSuffix)}
		if err := checkTarget(outDir, label, o.force, &t); err != nil {
			return nil, err
		}
		// The log imported is never the snapshot written over it.
		var paths publish.Paths
		paths.Input("the log imported", o.file)
		paths.Output("the snapshot", t.lines)
		paths.Output("its description", t.meta)
		if err := paths.Check(); err != nil {
			return nil, err
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// checkTarget refuses to write the snapshot label into outDir when a
// file of that name is there and --force is not given, when that file
// is not a regular file (a link, a folder), or when a file differs from
// it only in case (one file on macOS and Windows). With t, it records
// what exists and refuses to leave a meta.json behind that describes the
// snapshot being replaced but not the new one.
func checkTarget(outDir, label string, force bool, t *target) error {
	entries, err := os.ReadDir(outDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	existing, err := existingSnapshot(outDir, label, entries, t)
	if err != nil {
		return err
	}
	if err := checkReplaceable(outDir, label, force, existing); err != nil {
		return err
	}
	if t != nil {
		t.replacing = len(existing) > 0
		if t.metaExists && t.metaJSON == nil {
			return &suite.InputError{File: filepath.Join(outDir, label+load.MetaSuffix),
				Msg: "describes the snapshot being replaced, and this run records nothing to put in its place: remove it, or choose another --label"}
		}
	}
	return nil
}

// existingSnapshot is the paths of the files of snapshot label among the
// entries of outDir, each a regular file; a name that differs from one of
// them only in case is refused. With t, it records which exist.
func existingSnapshot(outDir, label string, entries []os.DirEntry, t *target) ([]string, error) {
	names := []string{label + ".jsonl", label + load.MetaSuffix}
	var existing []string
	for _, e := range entries {
		for i, want := range names {
			switch {
			case e.Name() == want:
				path, err := regularSnapshotFile(outDir, want)
				if err != nil {
					return nil, err
				}
				existing = append(existing, path)
				t.noteExisting(i)
			case strings.EqualFold(e.Name(), want):
				return nil, &suite.InputError{File: filepath.Join(outDir, e.Name()), Msg: fmt.Sprintf("differs from %s only in case, and is the same file on macOS and Windows: choose another --label", want)}
			}
		}
	}
	return existing, nil
}

// regularSnapshotFile is the path of the snapshot file name in outDir,
// refused when it is not a regular file: import replaces only its own.
func regularSnapshotFile(outDir, name string) (string, error) {
	path := filepath.Join(outDir, name)
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", &suite.InputError{File: path, Msg: "not a regular file (a link, a folder or a device): import replaces only a snapshot file; choose another --label"}
	}
	return path, nil
}

// noteExisting records that file i of the snapshot exists: 0 its lines,
// 1 its meta.json. A nil target records nothing.
func (t *target) noteExisting(i int) {
	if t != nil && i == 0 {
		t.linesExist = true
	}
	if t != nil && i == 1 {
		t.metaExists = true
	}
}

// checkReplaceable refuses to replace existing files of snapshot label
// without --force, and with it, files import did not write as they are.
func checkReplaceable(outDir, label string, force bool, existing []string) error {
	if len(existing) > 0 && !force {
		return &suite.InputError{File: existing[0], Msg: fmt.Sprintf("snapshot %q exists: choose another --label, or give --force to replace it", label)}
	}
	if len(existing) == 0 {
		return nil
	}
	record, err := importedFiles(outDir)
	if err != nil {
		return err
	}
	for _, path := range existing {
		if !provenImported(record, path) {
			return &suite.InputError{File: path, Msg: "was not written by releasegate import, or was changed since, so --force does not replace it (docs/ownership.md): choose another --label, or remove it yourself"}
		}
	}
	return nil
}

// writeTargets writes every snapshot, lines first and then meta.json,
// each file whole or not at all. When one fails, the files this import
// created are removed again, so a failed import leaves the folder as it
// was (a snapshot replaced with --force stays replaced).
func writeTargets(ctx context.Context, outDir string, targets []target) error {
	_, statErr := os.Lstat(outDir)
	madeDir := errors.Is(statErr, fs.ErrNotExist)
	var created []string
	undo := func(err error) error {
		for _, p := range created {
			os.Remove(p)
		}
		if madeDir {
			os.Remove(outDir) // only when still empty
		}
		return err
	}
	var written []string
	for _, t := range targets {
		err := publish.FileFrom(t.lines, func(w io.Writer) error {
			return t.snap.WriteLines(&contextWriter{ctx: ctx, w: w})
		})
		if err != nil {
			return undo(err)
		}
		if !t.linesExist {
			created = append(created, t.lines)
		}
		written = append(written, t.lines)
		if t.metaJSON != nil {
			if err := publish.File(t.meta, t.metaJSON); err != nil {
				return undo(err)
			}
			if !t.metaExists {
				created = append(created, t.meta)
			}
			written = append(written, t.meta)
		}
	}
	// The record is what lets a later --force replace these files.
	return noteImported(outDir, written)
}

// contextWriter stops a write once ctx is done.
type contextWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *contextWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// report says what was written and which records failed.
func report(w io.Writer, file string, res *runlog.Result, targets []target) {
	if res.Status != "" {
		fmt.Fprintf(w, "note: the log's status is %q: the run did not finish, and the samples it had not written are missing\n", res.Status)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, t := range targets {
		s := t.snap
		from := ""
		if s.Provider != "" {
			from = fmt.Sprintf(" (provider %q)", s.Provider)
		}
		lines := plural(s.Lines(), "line")
		if s.Trials > 0 {
			lines += fmt.Sprintf(" (%d trials per case)", s.Trials)
		}
		verb := "wrote"
		if t.replacing {
			verb = "replaced"
		}
		fmt.Fprintf(w, "%s %s%s: %s from %s of %s", verb, t.lines, from, lines, plural(s.Records, "record"), file)
		if t.metaJSON != nil {
			fmt.Fprintf(w, ", and %s", filepath.Base(t.meta))
		}
		fmt.Fprintln(w)
		if len(s.Failed) == 0 {
			continue
		}
		if len(s.Failed) == 1 {
			fmt.Fprintln(w, "  1 record failed and got no line; its case is judged missing_output:")
		} else {
			fmt.Fprintf(w, "  %d records failed and got no line; their cases are judged missing_output:\n", len(s.Failed))
		}
		for i, f := range s.Failed {
			if i == maxListedFailures {
				fmt.Fprintf(w, "    … and %d more\n", len(s.Failed)-i)
				break
			}
			where := strconv.Quote(f.CaseID)
			if f.Trial > 0 {
				where += fmt.Sprintf(" trial %d", f.Trial)
			}
			fmt.Fprintf(w, "    %s: %s\n", where, f.Reason)
		}
	}
}

// maxListedFailures is how many failed records the report names.
const maxListedFailures = 20

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// scratch makes the stores imported lines wait in: memory first, a
// temporary file once they outgrow it; remove deletes the files.
type scratch struct {
	mu     sync.Mutex
	stores []*spillStore
}

func (s *scratch) newStore() (runlog.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &spillStore{limit: spillBytes}
	s.stores = append(s.stores, st)
	return st, nil
}

func (s *scratch) remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.stores {
		st.remove()
	}
}

// spillBytes is how much of a snapshot's lines wait in memory before
// they go to a temporary file.
const spillBytes = 16 << 20

// spillStore is a runlog.Store in memory up to limit, in a temporary
// file beyond, written through a buffer.
type spillStore struct {
	limit int
	mem   []byte
	file  *os.File
	w     *bufio.Writer
}

func (s *spillStore) Write(p []byte) (int, error) {
	if s.file == nil && len(s.mem)+len(p) <= s.limit {
		s.mem = append(s.mem, p...)
		return len(p), nil
	}
	if s.file == nil {
		f, err := os.CreateTemp("", "releasegate-import-*")
		if err != nil {
			return 0, err
		}
		s.file, s.w = f, bufio.NewWriterSize(f, 256<<10)
		if _, err := s.w.Write(s.mem); err != nil {
			return 0, err
		}
		s.mem = nil
	}
	return s.w.Write(p)
}

func (s *spillStore) ReadAt(p []byte, off int64) (int, error) {
	if s.file != nil {
		if err := s.w.Flush(); err != nil {
			return 0, err
		}
		return s.file.ReadAt(p, off)
	}
	if off >= int64(len(s.mem)) {
		return 0, io.EOF
	}
	n := copy(p, s.mem[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (s *spillStore) remove() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file = nil
	}
	s.mem = nil
}

// countingReaderAt reports every read to add, for a progress line.
type countingReaderAt struct {
	r   io.ReaderAt
	add func(n int64)
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.add(int64(n))
	return n, err
}

// newProgress returns what reads report to: on a terminal, for a large
// log, a stderr line "importing FILE: 312 of 1024 MiB (30%)" redrawn as
// the percentage changes; otherwise nothing. add(-1) clears the line.
func (o importFlags) newProgress(size int64) func(n int64) {
	if size < o.progressMinimumSize || (o.progressOnTerminal && !isTerminal(o.stderr)) {
		return func(int64) {}
	}
	var mu sync.Mutex
	var read int64
	last := -1
	return func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		if n < 0 {
			if last >= 0 {
				fmt.Fprint(o.stderr, "\r\x1b[K")
			}
			last = -1
			return
		}
		read += n
		pct := int(min(read, size) * 100 / size)
		if pct == last || pct == 100 {
			return
		}
		last = pct
		fmt.Fprintf(o.stderr, "\r\x1b[Kimporting %s: %d of %d MiB (%d%%)", o.file, min(read, size)>>20, size>>20, pct)
	}
}
