// Package evaluator runs the release gate over a data folder: load the
// suite, judge every snapshot's outputs, decide each snapshot, and encode
// the results files and the release report. Judging and deciding are pure
// (packages judge and decide); only package load reads files, and nothing
// here writes any.
package evaluator

import (
	"bytes"
	"encoding/json"
	"math/big"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/parallel"
)

// CaseResult is one case's verdict in a results file.
type CaseResult struct {
	CaseID   string         `json:"case_id"`
	Severity suite.Severity `json:"severity"`
	Passed   bool           `json:"passed"`
	// Trials and TrialsPassed count the case's trials; both are 0, and
	// absent from the results file, when the snapshot has no trials.
	Trials       int             `json:"trials,omitempty"`
	TrialsPassed int             `json:"trials_passed,omitempty"`
	Failures     []judge.Failure `json:"failures"`
}

// Equal reports whether c and d are the same result, as
// reflect.DeepEqual would (no failures differs from an empty list).
func (c *CaseResult) Equal(d *CaseResult) bool {
	return c.CaseID == d.CaseID && c.Severity == d.Severity && c.Passed == d.Passed &&
		c.Trials == d.Trials && c.TrialsPassed == d.TrialsPassed &&
		(c.Failures == nil) == (d.Failures == nil) && slices.Equal(c.Failures, d.Failures)
}

// MarshalJSON writes c as its results file does: trials and
// trials_passed both appear with trials (trials_passed even when 0) and
// neither without.
func (c CaseResult) MarshalJSON() ([]byte, error) {
	type plain struct {
		CaseID       string          `json:"case_id"`
		Severity     suite.Severity  `json:"severity"`
		Passed       bool            `json:"passed"`
		Trials       *int            `json:"trials,omitempty"`
		TrialsPassed *int            `json:"trials_passed,omitempty"`
		Failures     []judge.Failure `json:"failures"`
	}
	p := plain{CaseID: c.CaseID, Severity: c.Severity, Passed: c.Passed, Failures: c.Failures}
	if c.Trials != 0 {
		p.Trials, p.TrialsPassed = &c.Trials, &c.TrialsPassed
	}
	// HTML escaping is left to the encoder that calls this, as for any
	// other member.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(p)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// Flaky reports whether some but not all of the case's trials passed.
func (c *CaseResult) Flaky() bool { return c.TrialsPassed > 0 && c.TrialsPassed < c.Trials }

// Inputs are the hashes of the files a result was computed from.
type Inputs struct {
	CasesSHA256   string `json:"cases_sha256"`
	OutputsSHA256 string `json:"outputs_sha256"`
	PolicySHA256  string `json:"policy_sha256"` // "" without POLICY.md
	GateSHA256    string `json:"gate_sha256"`
}

// Result is the results file of one snapshot, field for field.
type Result struct {
	Label       string          `json:"label"`
	Decision    decide.Decision `json:"decision"`
	CasesTotal  int             `json:"cases_total"`
	CasesPassed int             `json:"cases_passed"`
	PassRate    float64         `json:"pass_rate"`
	// Confidence is the confidence level of the interval and of every
	// test; PassRateInterval is the Wilson interval of the pass rate at
	// that level, each bound rounded to 6 decimals, nil (null) when there
	// are no cases.
	Confidence       float64     `json:"confidence"`
	PassRateInterval *[2]float64 `json:"pass_rate_interval"`
	// Trials is k, the number of trials per case, and TrialPassRate the
	// passed trials ÷ (cases × k); both are absent without trials.
	Trials           int      `json:"trials,omitempty"`
	TrialPassRate    *float64 `json:"trial_pass_rate,omitempty"`
	CriticalFailures int      `json:"critical_failures"`
	// P95LatencyMS and AvgCostUSD are null when nothing was measured.
	P95LatencyMS *float64            `json:"p95_latency_ms"`
	AvgCostUSD   *float64            `json:"avg_cost_usd"`
	Gates        []decide.GateResult `json:"gates"`
	// VersusPrevious compares the snapshot with the one before it in
	// release order, and VersusBaseline with the baseline gate.json
	// names; each is absent where there is nothing to compare with.
	VersusPrevious *decide.Comparison `json:"versus_previous,omitempty"`
	VersusBaseline *decide.Comparison `json:"versus_baseline,omitempty"`
	Cases          []CaseResult       `json:"cases"`
	Inputs         Inputs             `json:"inputs"`
	// Meta is the snapshot's meta.json, absent without one.
	Meta *suite.Meta `json:"meta,omitempty"`

	// streamed holds the case verdicts in place of Cases when the
	// snapshot was judged by StreamDir.
	streamed *verdicts
}

// Gate returns the result of the gate named name.
func (r *Result) Gate(name string) (*decide.GateResult, bool) { return decide.Find(r.Gates, name) }

// Snapshot is one evaluated snapshot.
type Snapshot struct {
	Result Result
	// Metrics hold the exact observed values behind Result's floats.
	Metrics decide.Metrics
	// Outputs are the snapshot's outputs by case position, nil where
	// missing: the only output of each case, or trial 1's with trials.
	// They are kept only when Options.KeepOutputs is set.
	Outputs []*suite.Output
	// TrialOutputs are the outputs of every trial, [trial-1][case
	// position], when the snapshot has trials and outputs are kept.
	TrialOutputs [][]*suite.Output
	// Gates are the gates the snapshot was decided by.
	Gates decide.Gates
	// outputs is the file its outputs kept compact are read again from,
	// nil unless they are.
	outputs *outputsFile
}

// Label is the snapshot's name.
func (s *Snapshot) Label() string { return s.Result.Label }

// Trials is k, the number of trials per case; 0 without trials.
func (s *Snapshot) Trials() int { return s.Result.Trials }

// Release is every snapshot of a data folder judged against one suite,
// in release order (see load.Snapshots): the last is the latest.
type Release struct {
	Suite     *suite.Suite
	Snapshots []*Snapshot
	// Gates are the gates the snapshots were decided by; see Specs.
	Gates decide.Gates

	// streamedCases counts the cases of a suite StreamDir read without
	// keeping them in Suite.Cases, and streamed holds their ids,
	// severities and titles.
	streamedCases int
	streamed      *caseTable
}

// Only is the release narrowed to s, one of its snapshots, for what is
// written about s alone.
func (r *Release) Only(s *Snapshot) *Release {
	only := *r
	only.Snapshots = []*Snapshot{s}
	return &only
}

// CaseTitle is the title of the case at position i; "" when StreamDir
// did not keep the titles (StreamOptions.Titles).
func (r *Release) CaseTitle(i int) string {
	if t := r.streamed; t != nil {
		if t.titles == nil {
			return ""
		}
		return t.titles.at(nil, i)
	}
	return r.Suite.Cases[i].Title
}

// Specs are the gates the release was decided by, which its reports
// list: Gates, or else those of its first snapshot, or else
// decide.DefaultGates.
func (r *Release) Specs() decide.Gates {
	switch {
	case r.Gates != nil:
		return r.Gates
	case len(r.Snapshots) > 0 && r.Snapshots[0].Gates != nil:
		return r.Snapshots[0].Gates
	}
	return decide.DefaultGates()
}

// CaseCount is the number of cases in the suite.
func (r *Release) CaseCount() int {
	if r.Suite.Cases == nil {
		return r.streamedCases
	}
	return len(r.Suite.Cases)
}

// Compare sets what the snapshots of the release say about each other:
// each snapshot after the first is compared with the one before it
// (versus_previous), and when gate.json names a baseline every other
// snapshot is compared with it (versus_baseline), which adds the
// no_regression gate and decides the snapshot again. The snapshots are
// replaced by copies, never changed, since a release may share them with
// another; comparing again gives the same release. gateFile is the path
// of gate.json, which the error for a baseline that labels no snapshot
// names.
func (r *Release) Compare(gateFile string) error {
	labels := make([]string, len(r.Snapshots))
	for i, s := range r.Snapshots {
		labels[i] = s.Label()
	}
	g := r.Suite.Gate
	if err := load.CheckBaseline(gateFile, g, labels); err != nil {
		return err
	}
	var baseline *Snapshot
	if g.Baseline != "" {
		baseline = r.Snapshots[slices.Index(labels, g.Baseline)]
	}
	compared := make([]*Snapshot, len(r.Snapshots))
	for i, s := range r.Snapshots {
		var previous *Snapshot
		if i > 0 {
			previous = r.Snapshots[i-1]
		}
		compared[i] = Compared(g, s, previous, baseline)
		if sameComparisons(compared[i], s) {
			// Compared already: whoever holds s may keep relying on it.
			compared[i] = s
		}
	}
	r.Snapshots = compared
	return nil
}

// sameComparisons reports whether two judgings of one snapshot compare
// and decide alike.
func sameComparisons(a, b *Snapshot) bool {
	return a.Result.Decision == b.Result.Decision && reflect.DeepEqual(a.Result.Gates, b.Result.Gates) &&
		reflect.DeepEqual(a.Result.VersusPrevious, b.Result.VersusPrevious) &&
		reflect.DeepEqual(a.Result.VersusBaseline, b.Result.VersusBaseline)
}

// Compared is a copy of snap compared with previous, the snapshot before
// it in release order, and with baseline, and decided under g: nil for
// either means there is none, and snap is not compared with itself. The
// snapshots must have been judged against the same suite; snap is
// decided again by the gates it was decided by (decide.DefaultGates
// when it has none).
func Compared(g suite.Gate, snap, previous, baseline *Snapshot) *Snapshot {
	out := *snap
	out.Result.VersusPrevious, out.Result.VersusBaseline, out.Metrics.Baseline = nil, nil, nil
	if previous != nil {
		out.Result.VersusPrevious = compare(previous, snap, g.Confidence)
	}
	if baseline != nil && baseline.Label() != snap.Label() {
		out.Result.VersusBaseline = compare(baseline, snap, g.Confidence)
		out.Metrics.Baseline = out.Result.VersusBaseline
	}
	if out.Gates == nil {
		out.Gates = decide.DefaultGates()
	}
	out.Result.Decision, out.Result.Gates = out.Gates.Decide(out.Metrics, g)
	return &out
}

// compare tests after against before, case by case.
func compare(before, after *Snapshot, level stats.Level) *decide.Comparison {
	var changes []decide.CaseChange
	if before.Result.streamed != nil || after.Result.streamed != nil {
		verdicts := make([]decide.CaseVerdict, 0, before.Result.CasesTotal)
		before.EachCase(func(_ int, a *CaseResult) {
			verdicts = append(verdicts, decide.CaseVerdict{Passed: a.Passed, Trials: a.Trials, TrialsPassed: a.TrialsPassed})
		})
		after.EachCase(func(i int, b *CaseResult) {
			if a := verdicts[i]; a.Passed != b.Passed {
				changes = append(changes, decide.ChangeOf(i, b.CaseID, a,
					decide.CaseVerdict{Passed: b.Passed, Trials: b.Trials, TrialsPassed: b.TrialsPassed}, level))
			}
		})
		return decide.Compare(before.Label(), changes, level)
	}
	for i := range after.Result.Cases {
		a, b := &before.Result.Cases[i], &after.Result.Cases[i]
		if a.Passed != b.Passed {
			changes = append(changes, decide.ChangeOf(i, b.CaseID,
				decide.CaseVerdict{Passed: a.Passed, Trials: a.Trials, TrialsPassed: a.TrialsPassed},
				decide.CaseVerdict{Passed: b.Passed, Trials: b.Trials, TrialsPassed: b.TrialsPassed}, level))
		}
	}
	return decide.Compare(before.Label(), changes, level)
}

// Options tune an evaluation.
type Options struct {
	// KeepOutputs keeps every output for pages that show them; without it
	// memory stays proportional to the suite, not to the snapshots.
	KeepOutputs bool
	// Compact keeps what KeepOutputs and KeepInputs keep as the place of
	// each line in its file: an output keeps the few fields every page
	// reads instead of its calls and citations (suite.Output.Place), a
	// case the place of its line instead of its input
	// (suite.Case.InputPlace). It is what a command that renders a whole
	// site once does: the files are held open, a page that shows an
	// output whole or an input reads it again (Snapshot.Whole,
	// suite.Suite.Input), and Release.Close closes them. Nothing judged
	// or written changes. A suite read with CaseLines keeps its inputs,
	// and a folder of more than maxCompactSnapshots snapshots its
	// outputs, so that a command does not hold more files open than a
	// system allows a process.
	Compact bool
	// KeepInputs keeps each case's input for pages that show it.
	KeepInputs bool
	// Gates are the gates gate.json is read for and each snapshot is
	// decided by; nil is decide.DefaultGates. A caller with a gate of its
	// own passes the default list with its spec added.
	Gates decide.Gates
	// OutputLines, when set, gives the lines remembered from the last
	// reading of the snapshot of each label (nil for none), so that only
	// the lines that changed since are parsed; it is called from several
	// goroutines, once per snapshot read.
	OutputLines func(label string) *load.OutputLines
	// CaseLines, when set, remembers the cases of the last reading of
	// the suite in the same way (EvaluateDir only; see load.Options).
	CaseLines *load.CaseLines
}

// outputLines is the OutputLines of the snapshot of label, nil without.
func (opts Options) outputLines(label string) *load.OutputLines {
	if opts.OutputLines == nil {
		return nil
	}
	return opts.OutputLines(label)
}

// gates are the gates of opts, the default when it names none.
func (opts Options) gates() decide.Gates {
	if opts.Gates == nil {
		return decide.DefaultGates()
	}
	return opts.Gates
}

// EvaluateDir evaluates every snapshot of the data folder dir,
// concurrently, and compares them (Release.Compare). On bad input it
// returns the problems of every snapshot in release order (up to
// suite.MaxProblems, then a count), so messages are stable; a baseline
// that labels no snapshot is refused first.
func EvaluateDir(dir string, opts Options) (_ *Release, err error) {
	opts.Gates = opts.gates()
	s, err := load.Suite(dir, load.Options{KeepInputs: opts.KeepInputs, CompactInputs: opts.Compact, Gates: opts.Gates, CaseLines: opts.CaseLines})
	if err != nil {
		return nil, err
	}
	rel := &Release{Suite: s, Gates: opts.Gates}
	defer func() {
		if err != nil { // the files a compact release holds
			rel.Close()
		}
	}()
	files, err := load.Snapshots(dir)
	if err != nil {
		return nil, err
	}
	gateFile := filepath.Join(dir, load.GateFile)
	if err := checkBaseline(gateFile, s.Gate, files); err != nil {
		return nil, err
	}
	if len(files) > maxCompactSnapshots {
		// A compact snapshot holds its file open until Release.Close.
		opts.Compact = false
	}
	rel.Snapshots = make([]*Snapshot, len(files))
	errs := make([]error, len(files))
	// Each snapshot's lines are already read on every core; more
	// snapshots at once than cores would only hold more of them in memory.
	parallel.Each(len(files), 0, func(i int) {
		rel.Snapshots[i], errs[i] = evaluateFile(s, files[i], opts)
	})
	if err := load.JoinProblems(errs); err != nil {
		return nil, err
	}
	if err := rel.Compare(gateFile); err != nil {
		return nil, err
	}
	return rel, nil
}

// maxCompactSnapshots is the most snapshots whose outputs are kept
// compact, each with its file open (Options.Compact). Processes are
// often allowed 1,024 open files, of which a build writes with a few.
const maxCompactSnapshots = 256

// EvaluateFile evaluates the snapshot in the outputs file at path, with
// the meta.json beside it when there is one. Each output is judged as it
// is read, so memory does not grow with the snapshot unless
// opts.KeepOutputs asks for it.
func EvaluateFile(s *suite.Suite, label, path string, opts Options) (*Snapshot, error) {
	meta, err := load.MetaBeside(path)
	if err != nil {
		return nil, err
	}
	return evaluateFile(s, load.SnapshotFile{Label: label, Path: path, Meta: meta}, opts)
}

// EvaluateSnapshot evaluates a snapshot listed by load.Snapshots: its
// outputs file is opened inside the data folder it was listed in, as
// every input is, and its meta.json is the one read when it was listed.
func EvaluateSnapshot(s *suite.Suite, file load.SnapshotFile, opts Options) (*Snapshot, error) {
	return evaluateFile(s, file, opts)
}

func evaluateFile(s *suite.Suite, file load.SnapshotFile, opts Options) (*Snapshot, error) {
	f, err := file.Open()
	if err != nil {
		return nil, err
	}
	j := newJudging(opts.gates(), s, opts.KeepOutputs)
	j.compact = opts.KeepOutputs && opts.Compact
	sha, err := load.OutputsPlaced(file.Path, f, s, opts.outputLines(file.Label), func(i int, o *suite.Output, at suite.LinePlace) error {
		j.add(i, o, at)
		return nil
	})
	if err != nil {
		f.Close()
		return nil, load.OutputProblems(err, file, s)
	}
	snap := j.finish(file.Label)
	if j.compact {
		// Kept open for the pages that read outputs again (Snapshot.Whole)
		// until Release.Close.
		snap.outputs = &outputsFile{path: file.Path, f: f}
	} else if err := f.Close(); err != nil {
		return nil, err
	}
	snap.Result.Inputs.OutputsSHA256 = sha
	snap.Result.Meta = file.Meta
	return snap, nil
}

// judging accumulates one snapshot's verdicts as its outputs arrive.
type judging struct {
	s     *suite.Suite
	gates decide.Gates
	cases []CaseResult
	seen  []bool
	tally decide.Tally
	keep  bool
	// compact keeps outputs as the places of their lines (Options.Compact).
	compact bool
	// outputs are kept by case position, nil unless kept.
	outputs []*suite.Output
	// With trials, trials[t][i] is the verdict of trial t+1 of case i
	// and trialOutputs[t][i] its output when kept.
	trials       [][]trialVerdict
	trialOutputs [][]*suite.Output
}

// trialVerdict is one judged trial of one case.
type trialVerdict struct {
	seen     bool
	failures []judge.Failure
}

func newJudging(gates decide.Gates, s *suite.Suite, keep bool) *judging {
	j := &judging{s: s, gates: gates, cases: make([]CaseResult, len(s.Cases)), seen: make([]bool, len(s.Cases)), keep: keep}
	j.tally.Reserve(len(s.Cases))
	if keep {
		j.outputs = make([]*suite.Output, len(s.Cases))
	}
	return j
}

// grow makes room for k trials.
func (j *judging) grow(k int) {
	for len(j.trials) < k {
		j.trials = append(j.trials, make([]trialVerdict, len(j.s.Cases)))
		if j.keep {
			j.trialOutputs = append(j.trialOutputs, make([]*suite.Output, len(j.s.Cases)))
		}
	}
}

// add judges the output for the case at position i. at is the place of
// its line, which is kept in its stead when outputs are kept compact; none
// (the zero place) for an output judged again, which is kept as it was
// and must be whole.
func (j *judging) add(i int, out *suite.Output, at suite.LinePlace) {
	c := j.s.Cases[i]
	if out.Compact() {
		// Snapshots kept compact are rendered once, never judged again.
		panic("evaluator: a compact output judged again")
	}
	kept := out
	if j.compact && at.Size > 0 {
		kept = compactOutput(c, out, at)
	}
	fs := judge.Case(c, out, j.s.Policy)
	j.tally.AddOutput(out.LatencyMS, out.CostUSD)
	if out.Trial == 0 {
		j.seen[i] = true
		j.cases[i] = verdict(c, fs)
		if j.keep {
			j.outputs[i] = kept
		}
		return
	}
	t := out.Trial - 1
	j.grow(out.Trial)
	for f := range fs {
		fs[f].Trial = out.Trial
	}
	j.trials[t][i] = trialVerdict{seen: true, failures: fs}
	if j.keep {
		j.trialOutputs[t][i] = kept
		if t == 0 {
			j.outputs[i] = kept
		}
	}
}

func verdict(c *suite.Case, fs []judge.Failure) CaseResult {
	if fs == nil {
		fs = []judge.Failure{}
	}
	return CaseResult{CaseID: c.ID, Severity: c.Severity, Passed: len(fs) == 0, Failures: fs}
}

// finish judges the missing outputs and decides.
func (j *judging) finish(label string) *Snapshot {
	s := j.s
	k := len(j.trials)
	minRate := s.Gate.TrialPassRate().Rat()
	for i, c := range s.Cases {
		if k == 0 {
			if !j.seen[i] {
				j.cases[i] = verdict(c, judge.Case(c, nil, s.Policy))
			}
			j.tally.AddCase(c.Severity, j.cases[i].Passed)
			continue
		}
		j.cases[i] = j.trialVerdict(c, i, k, minRate)
		j.tally.AddTrialCase(c.Severity, j.cases[i].Passed, j.cases[i].TrialsPassed, k)
	}
	r, m := resultOf(j.gates, s, label, &j.tally, k)
	r.Cases = j.cases
	return &Snapshot{Result: r, Metrics: m, Outputs: j.outputs, TrialOutputs: j.trialOutputs, Gates: j.gates}
}

// resultOf decides a snapshot of s by gates from its tally, k being its trials
// per case (0 without trials): its results file but for the cases and
// the outputs' hash, and the exact metrics behind it.
func resultOf(specs decide.Gates, s *suite.Suite, label string, tally *decide.Tally, k int) (Result, decide.Metrics) {
	m := tally.Metrics()
	decision, gates := specs.Decide(m, s.Gate)
	r := Result{
		Label:            label,
		Decision:         decision,
		CasesTotal:       m.CasesTotal,
		CasesPassed:      m.CasesPassed,
		Confidence:       s.Gate.Confidence.Confidence(),
		CriticalFailures: m.CriticalFailures,
		Gates:            gates,
		Inputs:           Inputs{CasesSHA256: s.CasesSHA256, PolicySHA256: s.PolicySHA256, GateSHA256: s.GateSHA256},
	}
	r.PassRate, _ = m.PassRate.Float64()
	if iv, ok := m.PassRateInterval(s.Gate.Confidence); ok {
		r.PassRateInterval = &[2]float64{stats.RoundDecimals(iv.Lo, 6), stats.RoundDecimals(iv.Hi, 6)}
	}
	if m.P95LatencyMS != nil {
		p95 := m.P95LatencyMS.Float64()
		r.P95LatencyMS = &p95
	}
	if m.AvgCostUSD != nil {
		avg, _ := m.AvgCostUSD.Float64()
		r.AvgCostUSD = &avg
	}
	if k > 0 {
		r.Trials = k
		rate, _ := m.TrialPassRate.Float64()
		r.TrialPassRate = &rate
	}
	return r, m
}

// trialVerdict gathers the k trials of case i: a missing trial fails
// with missing_output, and the case passes when its passed trials ÷ k
// reach minRate.
func (j *judging) trialVerdict(c *suite.Case, i, k int, minRate *big.Rat) CaseResult {
	res := CaseResult{CaseID: c.ID, Severity: c.Severity, Trials: k, Failures: []judge.Failure{}}
	for t := range k {
		tv := j.trials[t][i]
		if !tv.seen {
			tv.failures = judge.Case(c, nil, j.s.Policy)
			for f := range tv.failures {
				tv.failures[f].Trial = t + 1
			}
		}
		if len(tv.failures) == 0 {
			res.TrialsPassed++
		}
		res.Failures = append(res.Failures, tv.failures...)
	}
	res.Passed = new(big.Rat).SetFrac64(int64(res.TrialsPassed), int64(k)).Cmp(minRate) >= 0
	return res
}

// checkBaseline refuses a baseline in gate.json that names none of the
// snapshot files.
func checkBaseline(gateFile string, g suite.Gate, files []load.SnapshotFile) error {
	labels := make([]string, len(files))
	for i, f := range files {
		labels[i] = f.Label
	}
	return load.CheckBaseline(gateFile, g, labels)
}
