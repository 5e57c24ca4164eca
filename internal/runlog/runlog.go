// Package runlog turns recorded runs of evaluation frameworks and batch
// APIs into snapshot lines. An Inspect AI log, a promptfoo export, or the
// results file of an OpenAI or Anthropic batch becomes one snapshot (a
// promptfoo export one per provider): a line per recorded answer with
// its case id, trial, tool calls in the plain {"name", "arguments"}
// shape, latency and cost, and the provenance the run records (model,
// time, commit, description). docs/import.md says which field becomes
// which.
//
// Logs are read as token streams, one record at a time, and lines wait
// in a Store until they go out in suite order, so memory grows with the
// largest record and the number of records, not with the size of the
// log. The package reads from an io.ReaderAt and writes to the Store and
// io.Writer it is given; it opens no files.
package runlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Format is a kind of run log.
type Format string

// The formats import reads.
const (
	Inspect        Format = "inspect"
	Promptfoo      Format = "promptfoo"
	OpenAIBatch    Format = "openai-batch"
	AnthropicBatch Format = "anthropic-batch"
)

// Formats lists every format, in the order help and messages name them.
func Formats() []Format { return []Format{Inspect, Promptfoo, OpenAIBatch, AnthropicBatch} }

// Valid reports whether f is one of the formats.
func (f Format) Valid() bool {
	for _, g := range Formats() {
		if f == g {
			return true
		}
	}
	return false
}

// Describe names what a file of the format is, for sentences: "an
// Inspect AI log".
func (f Format) Describe() string {
	switch f {
	case Inspect:
		return "an Inspect AI log"
	case Promptfoo:
		return "a promptfoo export"
	case OpenAIBatch:
		return "an OpenAI Batch API output file"
	case AnthropicBatch:
		return "an Anthropic Message Batches results file"
	}
	return string(f)
}

// Source is the run log to read.
type Source struct {
	Name string // the path as the user gave it, for messages
	Data io.ReaderAt
	Size int64
}

// Options tune an import.
type Options struct {
	// Context stops the import when it is done; nil never stops it.
	Context context.Context
	// Suite holds the case ids of the suite, in suite order; nil when the
	// data folder has no suite. Every id of the run must be one of them,
	// and lines go out in their order.
	Suite []string
	// PriceIn and PriceOut are USD per million input and output tokens,
	// for runs that record token counts but no cost; nil for neither.
	PriceIn, PriceOut *Decimal
	// NewStore makes the store a snapshot's lines wait in; nil keeps them
	// in memory.
	NewStore func() (Store, error)
}

// Result is an imported run.
type Result struct {
	Format Format
	// Snapshots holds one snapshot, or one per provider of a promptfoo
	// export, in the order the run first names them.
	Snapshots []*Snapshot
	// Records counts every record read, failed ones included.
	Records int
	// Status is the state an unfinished Inspect log says it is in
	// ("started", "cancelled", "error"); "" for a finished run.
	Status string
	// Notes say what the run records that could not be used, such as a
	// recording time that is not RFC 3339.
	Notes []string
}

// UnknownIDsError is a run whose case ids are not all in the suite.
type UnknownIDsError struct {
	File  string
	IDs   []string // the first 20, in the run's order
	Count int      // how many distinct ids are unknown
}

// MaxUnknownListed is how many unknown ids an UnknownIDsError lists.
const MaxUnknownListed = 20

func (e *UnknownIDsError) Error() string {
	quoted := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		quoted[i] = strconv.Quote(id)
	}
	more := ""
	if e.Count > len(e.IDs) {
		more = fmt.Sprintf(" and %d more", e.Count-len(e.IDs))
	}
	what := fmt.Sprintf("%d cases whose ids are", e.Count)
	if e.Count == 1 {
		what = "a case whose id is"
	}
	return fmt.Sprintf("%s: the run answers %s not in the suite: %s%s; add them to cases.jsonl, or import into the data folder of the suite the run was made for (nothing was written)",
		e.File, what, strings.Join(quoted, ", "), more)
}

// Import reads the run log src of the given format.
func Import(format Format, src Source, opts Options) (*Result, error) {
	if !format.Valid() {
		return nil, fmt.Errorf("unknown format %q", format)
	}
	if err := Check(format, src); err != nil {
		return nil, err
	}
	im := newImporter(format, src, opts)
	var err error
	switch format {
	case Inspect:
		err = readInspect(im)
	case Promptfoo:
		err = readPromptfoo(im)
	case OpenAIBatch:
		err = readOpenAIBatch(im)
	case AnthropicBatch:
		err = readAnthropicBatch(im)
	}
	if err != nil {
		return nil, im.wordError(err)
	}
	return im.finish()
}

// record is one recorded answer, as a reader hands it over.
type record struct {
	group   string // the snapshot: the promptfoo provider's key, else ""
	caseID  string
	trial   int    // epoch or occurrence; 0 when the format has none
	failed  string // why the record failed; "" when it did not
	calls   []call
	latency *Decimal
	cost    *Decimal
	model   string // the model that answered, where a batch names it
	at      int64  // where the record is, for messages (see locate)
	// idField and idOff say where the id was read, for messages.
	idField string
	idOff   int64
	idDoc   doc
}

// importer collects the records of a run into snapshots.
type importer struct {
	format Format
	src    Source
	opts   Options
	ctx    context.Context

	suite       map[string]int
	firstSeen   map[string]int // run order of the ids, without a suite
	runOrder    map[string]int // the run's own order, where it records one
	unknown     []string
	unknownN    int
	unknownSeen map[string]bool

	snapshots []*Snapshot
	byGroup   map[string]*Snapshot
	enc       *lineEncoder
	records   int
	status    string
	notes     []string
	// memberBuf is the read buffer of an archive's members, one at a
	// time.
	memberBuf *bufio.Reader
	// locate names where the record at `at` is: "line 7",
	// "samples/3_epoch_1.json", "results.results[4]".
	locate func(at int64) string
}

func newImporter(format Format, src Source, opts Options) *importer {
	im := &importer{format: format, src: src, opts: opts, ctx: opts.Context,
		firstSeen: map[string]int{}, byGroup: map[string]*Snapshot{}, enc: newLineEncoder(),
		locate: func(at int64) string { return fmt.Sprintf("record %d", at+1) }}
	if im.ctx == nil {
		im.ctx = context.Background()
	}
	if opts.Suite != nil {
		im.suite = make(map[string]int, len(opts.Suite))
		for i, id := range opts.Suite {
			im.suite[id] = i
		}
	}
	return im
}

// snapshot returns the snapshot of a group, starting it on first use.
func (im *importer) snapshot(group string) (*Snapshot, error) {
	if s, ok := im.byGroup[group]; ok {
		return s, nil
	}
	s := &Snapshot{ProviderKey: group}
	if im.opts.NewStore != nil {
		st, err := im.opts.NewStore()
		if err != nil {
			return nil, err
		}
		s.store = st
	} else {
		s.store = NewMemoryStore()
	}
	im.byGroup[group] = s
	im.snapshots = append(im.snapshots, s)
	return s, nil
}

// add takes one record: its line goes to the store, or its failure to
// the list.
func (im *importer) add(rec *record) error {
	if err := im.ctx.Err(); err != nil {
		return err
	}
	im.records++
	// The suite's own rule for ids (docs/real-data.md), so that what an
	// import writes is what evaluate reads.
	if err := suite.ValidCaseID(rec.caseID); err != nil {
		return &problem{doc: rec.idDoc, off: rec.idOff, field: rec.idField, msg: err.Error()}
	}
	id := rec.caseID
	// Without a suite, lines follow the order the run first names their
	// cases; with one, the suite's order, and the map is not needed.
	if _, ok := im.firstSeen[id]; !ok && im.suite == nil {
		im.firstSeen[id] = len(im.firstSeen)
	}
	if im.suite != nil {
		if _, ok := im.suite[id]; !ok && !im.unknownSeen[id] {
			if im.unknownSeen == nil {
				im.unknownSeen = map[string]bool{}
			}
			im.unknownSeen[id] = true
			im.unknownN++
			if len(im.unknown) < MaxUnknownListed {
				im.unknown = append(im.unknown, id)
			}
		}
	}
	s, err := im.snapshot(rec.group)
	if err != nil {
		return err
	}
	s.Records++
	s.maxTrial = max(s.maxTrial, rec.trial)
	if rec.failed != "" {
		s.failed = append(s.failed, failedEntry{id: id, trial: int32(rec.trial), at: rec.at, reason: rec.failed})
		return nil
	}
	s.addModel(rec.model)
	if im.unknownN > 0 {
		return nil // nothing will be written; keep reading for the list
	}
	tail, err := im.enc.tail(rec)
	if err != nil {
		return &problem{doc: rec.idDoc, off: rec.idOff, field: "", msg: fmt.Sprintf("case %q: %v", id, err)}
	}
	if len(tail) > maxTail {
		return &problem{doc: rec.idDoc, off: rec.idOff, field: "", msg: fmt.Sprintf("case %q: its line would be longer than the %d MiB a snapshot line may hold", id, maxTail>>20)}
	}
	if _, err := s.store.Write(tail); err != nil {
		return fmt.Errorf("keeping the lines of %s: %w", im.src.Name, err)
	}
	s.entries = append(s.entries, entry{id: id, trial: int32(rec.trial), off: s.size, n: int32(len(tail)), at: rec.at})
	s.size += int64(len(tail))
	return nil
}

// document starts reading the file as one JSON document or JSON Lines,
// past a UTF-8 byte order mark if it starts with one.
func (im *importer) document() (doc, *reader) {
	start := int64(0)
	bom := make([]byte, 3)
	if n, _ := im.src.Data.ReadAt(bom, 0); n == 3 && string(bom) == "\xef\xbb\xbf" {
		start = 3
	}
	body := func() io.Reader { return io.NewSectionReader(im.src.Data, start, im.src.Size-start) }
	d := doc{name: im.src.Name, lines: linesOf(func() (io.ReadCloser, error) { return io.NopCloser(body()), nil })}
	return d, newReader(body(), d)
}

// setRunOrder records the run's own order of its case ids (Inspect's
// dataset order), which lines follow without a suite.
func (im *importer) setRunOrder(ids []string) {
	im.runOrder = make(map[string]int, len(ids))
	for i, id := range ids {
		if _, dup := im.runOrder[id]; !dup {
			im.runOrder[id] = i
		}
	}
}

// rank is the place of an id in the order lines go out.
func (im *importer) rank(id string) int32 {
	if im.suite != nil {
		return int32(im.suite[id])
	}
	if i, ok := im.runOrder[id]; ok {
		return int32(i)
	}
	return int32(len(im.runOrder) + im.firstSeen[id])
}

// wordError turns what went wrong while reading into what the user
// reads: problems get their line.
func (im *importer) wordError(err error) error {
	var p *problem
	if errors.As(err, &p) {
		return p.inputError()
	}
	var d *DuplicateError
	if errors.As(err, &d) {
		d.File = im.src.Name
		if im.format == Promptfoo {
			d.Hint = "promptfoo answers each test once per prompt, so export an eval of one prompt (promptfoo eval --filter-prompts), or give the tests distinct case ids"
		}
	}
	return err
}

func (im *importer) finish() (*Result, error) {
	if im.records == 0 {
		return nil, fmt.Errorf("%s: %s", im.src.Name, im.emptyMessage())
	}
	if im.unknownN > 0 {
		return nil, &UnknownIDsError{File: im.src.Name, IDs: im.unknown, Count: im.unknownN}
	}
	for _, s := range im.snapshots {
		if err := s.finish(im.rank, im.locate); err != nil {
			return nil, im.wordError(err)
		}
	}
	return &Result{Format: im.format, Snapshots: im.snapshots, Records: im.records, Status: im.status, Notes: im.notes}, nil
}

// emptyMessage says why a run without records has nothing to import.
func (im *importer) emptyMessage() string {
	switch im.format {
	case Inspect:
		return "the log holds no samples (was it written with --no-log-samples, or stopped before the first sample ended?): nothing to import"
	case Promptfoo:
		return "the export holds no results: nothing to import"
	}
	return "the file holds no results: nothing to import"
}

// note records something the run says that the snapshot cannot use.
func (im *importer) note(format string, args ...any) {
	im.notes = append(im.notes, fmt.Sprintf(format, args...))
}

// priced is the cost of tokens at the prices of opts, nil without prices
// or without both counts.
func (im *importer) priced(in, out *Decimal) *Decimal {
	if im.opts.PriceIn == nil || im.opts.PriceOut == nil || in == nil || out == nil {
		return nil
	}
	c := in.Mul(*im.opts.PriceIn).Add(out.Mul(*im.opts.PriceOut)).Shift(-6)
	return &c
}

// idText writes a case id that a log records as a number in decimal:
// 42 stays 42, 4.20e1 becomes 42.
func idText(lit string) (string, error) {
	if lit != "" && strings.Trim(strings.TrimPrefix(lit, "-"), "0123456789") == "" {
		return lit, nil
	}
	d, err := ParseDecimal(lit)
	if err != nil {
		return "", err
	}
	return d.String(), nil
}
