package evaluator

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// StreamDir evaluates the data folder dir as EvaluateDir does, with the
// same results, report and errors, in memory flat in the size of the
// suite when every snapshot lists its outputs in suite order, one per
// case, or with trials each case's trials 1 to k one after another (a
// merge join of cases and outputs; see docs/design.md, "Scale: streaming
// evaluation"). The suite's cases are read once and not kept; each case
// is judged in every snapshot as it arrives and only a compact verdict
// stays. A folder whose outputs are in another order, or leave cases
// unanswered, is streamed a second time with each snapshot's lines
// sorted into suite order first. Any other folder, and any bad input, is
// evaluated whole by EvaluateDir, which words every problem; so is a
// folder that changes while it is read.
//
// The release it returns has no Suite.Cases and no Result.Cases: read
// its cases with WriteJSON, WriteReport, FailingCases and the
// comparisons.
func StreamDir(dir string, opts StreamOptions) (*Release, error) {
	gates := opts.Gates
	if gates == nil {
		gates = decide.DefaultGates()
	}
	rel, err := streamDir(dir, opts, gates, nil)
	if errors.Is(err, errOrder) {
		var order *load.CaseOrder
		if opts.BeforeSorted != nil {
			opts.BeforeSorted()
		}
		if order, err = load.ReadCaseOrder(dir); err == nil {
			rel, err = streamDir(dir, opts, gates, order)
		}
	}
	if err != nil {
		if opts.BeforeWhole != nil {
			opts.BeforeWhole()
		}
		return EvaluateDir(dir, Options{Gates: gates, KeepOutputs: opts.Latencies})
	}
	return rel, nil
}

// errOrder is why a snapshot read in file order cannot be streamed when
// its lines, read in suite order, might be: an output for another case
// than the next, a trial out of order, or a case with no output.
var errOrder = fmt.Errorf("%w: outputs not in suite order", load.ErrNotStreamable)

// StreamOptions tune StreamDir.
type StreamOptions struct {
	// BeforeWhole, when set, is called before a folder that cannot be
	// streamed is evaluated whole: a caller that limited memory for a
	// streamed suite lifts the limit there.
	BeforeWhole func()
	// BeforeSorted, when set, is called before a folder is streamed a
	// second time with its outputs sorted into suite order, which holds
	// more than streaming in file order.
	BeforeSorted func()
	// Gates are the gates each snapshot is decided by; nil decides by
	// decide.DefaultGates.
	Gates decide.Gates
	// Titles keeps each case's title, and Latencies each case's recorded
	// latency in every snapshot, for the JUnit report and the step
	// summary (Release.CaseTitle, Snapshot.CaseSeconds).
	Titles, Latencies bool
}

// streamedSnapshot is one snapshot being judged as its suite streams by.
type streamedSnapshot struct {
	file    load.SnapshotFile
	outputs *load.OutputStream
	batches chan []*suite.Case
	next    int // the position of the next case
	tally   decide.Tally
	v       verdicts
	err     error
	// With trials, each case's lines come one after another, trial 1
	// first (the order import writes): trials is set by the first line,
	// k by the first case's lines, and pending is the line read past
	// the first case's last trial.
	trials  bool
	k       int
	pending *suite.Output
	minRate *big.Rat // the share of its trials a case must pass
	passes  []bool   // once k is known, whether p passed trials of k pass a case
	// lastTrial is the trial of the file's last line, 0 when it has
	// none or it was not read (load.OutputStream.LastTrial).
	lastTrial int
	// blocks read the trials of a snapshot written trial after trial,
	// one reader a trial; nil otherwise.
	blocks *load.TrialBlocks
	// order is where each case stands when outputs are read in suite
	// order (load.OpenSortedOutputStream); nil when read in file order.
	order *load.CaseOrder
	// latencies gathers the latency literals of the case being judged,
	// when they are kept.
	latencies []byte
}

// close closes the snapshot's files.
func (s *streamedSnapshot) close() {
	s.outputs.Close()
	if s.blocks != nil {
		s.blocks.Close()
	}
}

// sha256 is the hash of the snapshot's file, read whole.
func (s *streamedSnapshot) sha256() string {
	if s.blocks != nil {
		return s.blocks.SHA256()
	}
	return s.outputs.SHA256()
}

// streamDir is the streamed evaluation of StreamDir, reading outputs in
// file order, or in suite order when order is set; any error, bad input
// or not, sends the folder to EvaluateDir.
func streamDir(dir string, opts StreamOptions, gates decide.Gates, order *load.CaseOrder) (*Release, error) {
	ss, err := load.OpenSuiteStream(dir, gates)
	if err != nil {
		return nil, err
	}
	files, err := load.Snapshots(dir)
	if err != nil {
		return nil, err
	}
	gateFile := filepath.Join(dir, load.GateFile)
	if err := checkBaseline(gateFile, ss.Suite.Gate, files); err != nil {
		return nil, err
	}
	table := &caseTable{}
	if opts.Titles {
		table.titles = &textList{}
	}
	snaps, err := openStreams(files, ss.Suite.Decisions, table, order)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		s.minRate = ss.Suite.Gate.TrialPassRate().Rat()
		if opts.Latencies {
			s.v.latencies = &textList{}
		}
	}
	defer func() {
		for _, s := range snaps {
			s.close()
		}
	}()
	n, err := judgeStreams(ss, snaps, table)
	if err != nil {
		return nil, err
	}
	rel := &Release{Suite: ss.Suite, Gates: gates, Snapshots: make([]*Snapshot, len(snaps)), streamedCases: n, streamed: table}
	for i, s := range snaps {
		r, m := resultOf(gates, ss.Suite, s.file.Label, &s.tally, s.k)
		r.Inputs.OutputsSHA256 = s.sha256()
		r.Meta = s.file.Meta
		r.streamed = &s.v
		rel.Snapshots[i] = &Snapshot{Result: r, Metrics: m, Gates: gates}
	}
	if err := rel.Compare(gateFile); err != nil {
		return nil, err
	}
	return rel, nil
}

// openStreams opens the outputs of every snapshot for streaming, their
// verdicts kept in table, in file order or, given order, in suite order
// (each file sorted on a goroutine of its own); when one cannot be
// opened, those opened are closed again.
func openStreams(files []load.SnapshotFile, decisions suite.Vocabulary, table *caseTable, order *load.CaseOrder) ([]*streamedSnapshot, error) {
	outs := make([]*load.OutputStream, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		if order == nil {
			outs[i], errs[i] = load.OpenOutputStream(f, decisions)
			continue
		}
		wg.Go(func() { outs[i], errs[i] = load.OpenSortedOutputStream(f, decisions, order) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, o := range outs {
			if o != nil {
				o.Close()
			}
		}
		return nil, err
	}
	snaps := make([]*streamedSnapshot, len(files))
	for i, f := range files {
		snaps[i] = &streamedSnapshot{file: f, outputs: outs[i], batches: make(chan []*suite.Case, 4), v: verdicts{cases: table}, lastTrial: outs[i].LastTrial(), order: order}
	}
	return snaps, nil
}

// judgeStreams streams the suite by every snapshot at once, each judged
// on a goroutine of its own, and returns the number of cases. A snapshot
// that cannot be judged in step with the suite stops the stream.
func judgeStreams(ss *load.SuiteStream, snaps []*streamedSnapshot, table *caseTable) (int, error) {
	var failed atomic.Bool
	var wg sync.WaitGroup
	for _, s := range snaps {
		wg.Go(func() { s.judgeAll(ss.Suite.Policy, &failed) })
	}
	n, err := ss.Each(func(batch []*suite.Case) error {
		if failed.Load() {
			return load.ErrNotStreamable
		}
		for _, c := range batch {
			table.add(c)
		}
		for _, s := range snaps {
			s.batches <- batch
		}
		return nil
	})
	for _, s := range snaps {
		close(s.batches)
	}
	wg.Wait()
	errs := []error{err}
	for _, s := range snaps {
		errs = append(errs, s.err)
	}
	return n, errors.Join(errs...)
}

// judgeAll judges each batch as it comes until the first error, which it
// flags in failed, and then checks that the outputs end with the suite.
func (s *streamedSnapshot) judgeAll(policy *suite.Policy, failed *atomic.Bool) {
	for batch := range s.batches {
		if s.err == nil {
			s.err = s.judge(policy, batch)
			if s.err != nil {
				failed.Store(true)
			}
		}
	}
	switch {
	case s.err != nil:
	case s.blocks != nil:
		// Every case is answered: each block must end here, as read
		// when the file was hashed.
		s.err = s.blocks.Check()
	default:
		// Every case is answered: the file must end here.
		if _, err := s.read(); err != io.EOF {
			s.err = load.ErrNotStreamable
		}
	}
}

// read is the next output: the one read ahead, or the next line's.
func (s *streamedSnapshot) read() (*suite.Output, error) {
	if out := s.pending; out != nil {
		s.pending = nil
		return out, nil
	}
	return s.outputs.Next()
}

// judge judges the next outputs against a batch of cases: the outputs
// must answer the cases one for one, in order, each with the same
// trials in order when they have trials.
func (s *streamedSnapshot) judge(policy *suite.Policy, batch []*suite.Case) error {
	for _, c := range batch {
		if err := s.judgeCase(policy, c); err != nil {
			return err
		}
	}
	return nil
}

// judgeCase judges case c against its outputs, read next.
func (s *streamedSnapshot) judgeCase(policy *suite.Policy, c *suite.Case) error {
	if s.blocks != nil {
		return s.judgeBlocks(policy, c)
	}
	if s.outputs.Missing(s.next) {
		return s.judgeMissing(policy, c)
	}
	out, err := s.read()
	if err == io.EOF {
		return errOrder // a case left without an output
	}
	if err != nil {
		return err
	}
	if s.next == 0 {
		s.trials = out.Trial != 0
		byTrial, err := s.writtenByTrial(out)
		if err != nil {
			return err
		}
		if byTrial {
			return s.judgeBlocks(policy, c)
		}
	}
	switch {
	case out.CaseID != c.ID:
		return errOrder
	case !answers(c, out) || s.trials != (out.Trial != 0) || !s.trials && s.lastTrial != 0:
		return load.ErrNotStreamable
	case s.trials:
		return s.judgeTrials(policy, c, out)
	}
	fs := judge.Case(c, out, policy)
	s.tally.AddOutput(out.LatencyMS, out.CostUSD)
	s.tally.AddCase(c.Severity, len(fs) == 0)
	s.v.add(s.next, fs)
	if s.v.latencies != nil {
		s.latencies = appendLatency(s.latencies[:0], out)
		s.v.addLatencies(s.latencies)
	}
	s.next++
	return nil
}

// judgeMissing judges case c, which a snapshot read in suite order gives
// no output, as judging.finish does. The case must stand where the
// suite's ids were read, as an output's case_id shows it for every other
// case.
func (s *streamedSnapshot) judgeMissing(policy *suite.Policy, c *suite.Case) error {
	if p, ok := s.order.Position(c.ID); !ok || p != s.next {
		return load.ErrNotStreamable
	}
	fs := judge.Case(c, nil, policy)
	s.tally.AddCase(c.Severity, len(fs) == 0)
	s.v.add(s.next, fs)
	s.v.addLatencies(nil)
	s.next++
	return nil
}

// answers reports whether out answers c as a streamed snapshot must: a
// case given no decision is worded by the whole evaluation.
func answers(c *suite.Case, out *suite.Output) bool {
	return out.CaseID == c.ID && (out.Decision != "" || !c.Expected.JudgesDecision())
}

// writtenByTrial reports whether the snapshot, first being its first
// output, lists its trials trial after trial: trial 1 of the first case
// is followed by another case, though the file ends with a later trial.
// It then opens a reader on each trial's block of lines, and reading
// goes on from those. Otherwise the line read ahead is kept for read.
func (s *streamedSnapshot) writtenByTrial(first *suite.Output) (bool, error) {
	if first.Trial != 1 || s.lastTrial < 2 {
		return false, nil
	}
	second, err := s.outputs.Next()
	switch {
	case err == io.EOF:
		return false, load.ErrNotStreamable
	case err != nil:
		return false, err
	case second.CaseID == first.CaseID:
		s.pending = second
		return false, nil
	}
	if s.blocks, err = s.outputs.TrialBlocks(s.lastTrial); err != nil {
		return false, err
	}
	return true, s.setK(s.lastTrial)
}

// judgeBlocks judges the k trials of case c, one from each block.
func (s *streamedSnapshot) judgeBlocks(policy *suite.Policy, c *suite.Case) error {
	var j trialJudging
	for t, b := range s.blocks.Streams {
		out, err := b.Next()
		if err != nil {
			return err
		}
		if out.Trial != t+1 || out.CaseID != c.ID {
			return errOrder
		}
		if !answers(c, out) {
			return load.ErrNotStreamable
		}
		s.judgeTrial(policy, c, out, &j)
	}
	s.decideTrials(c, &j)
	return nil
}

// trialJudging gathers the judged trials of one case.
type trialJudging struct {
	failures []judge.Failure
	passed   int
}

// judgeTrial judges one trial's output of case c into j.
func (s *streamedSnapshot) judgeTrial(policy *suite.Policy, c *suite.Case, out *suite.Output, j *trialJudging) {
	fs := judge.Case(c, out, policy)
	s.tally.AddOutput(out.LatencyMS, out.CostUSD)
	if s.v.latencies != nil {
		s.latencies = appendLatency(s.latencies, out)
	}
	if len(fs) == 0 {
		j.passed++
	}
	for f := range fs {
		fs[f].Trial = out.Trial
	}
	j.failures = append(j.failures, fs...)
}

// decideTrials decides case c from its k judged trials, as
// judging.trialVerdict does.
func (s *streamedSnapshot) decideTrials(c *suite.Case, j *trialJudging) {
	pass := s.passes[j.passed]
	s.tally.AddTrialCase(c.Severity, pass, j.passed, s.k)
	s.v.addTrials(s.next, j.failures, j.passed, pass)
	s.v.addLatencies(s.latencies)
	s.latencies = s.latencies[:0]
	s.next++
}

// judgeTrials judges the trials of case c, first being trial 1's output,
// when each case's trials come one after another: the first case's
// trials set k, and every other case must have trials 1 to k in order,
// as EvaluateDir would judge them (judging.trialVerdict).
func (s *streamedSnapshot) judgeTrials(policy *suite.Policy, c *suite.Case, first *suite.Output) error {
	if first.Trial != 1 {
		return errOrder
	}
	var j trialJudging
	s.judgeTrial(policy, c, first, &j)
	for t := 1; s.k == 0 || t < s.k; t++ {
		out, err := s.read()
		switch {
		case err == io.EOF && s.k == 0:
			if err := s.setK(t); err != nil {
				return err
			}
		case err != nil:
			return err
		case out.CaseID != c.ID && s.k == 0:
			if err := s.setK(t); err != nil {
				return err
			}
			s.pending = out
		case out.Trial != t+1 || out.CaseID != c.ID:
			return errOrder
		case !answers(c, out):
			return load.ErrNotStreamable
		default:
			s.judgeTrial(policy, c, out, &j)
			continue
		}
		break
	}
	s.decideTrials(c, &j)
	return nil
}

// setK sets the trials of every case, from the first; it refuses a k
// the file's last line does not end with, such as the single trial of
// the first case of a file written trial after trial.
func (s *streamedSnapshot) setK(k int) error {
	if s.lastTrial != 0 && s.lastTrial != k {
		return load.ErrNotStreamable
	}
	s.k, s.v.k = k, k
	// As judging.trialVerdict decides, once for each count.
	s.passes = make([]bool, k+1)
	for p := range s.passes {
		s.passes[p] = new(big.Rat).SetFrac64(int64(p), int64(k)).Cmp(s.minRate) >= 0
	}
	return nil
}
