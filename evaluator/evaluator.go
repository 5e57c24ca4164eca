// Package evaluator runs the release gate over a data folder: load the
// suite, judge every snapshot's outputs, decide each snapshot, and encode
// the results files and the release report. Judging and deciding are pure
// (packages judge and decide); only package load reads files, and nothing
// here writes any.
package evaluator

import (
	"fmt"
	"os"
	"sync"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// CaseResult is one case's verdict in a results file.
type CaseResult struct {
	CaseID   string          `json:"case_id"`
	Severity suite.Severity  `json:"severity"`
	Passed   bool            `json:"passed"`
	Failures []judge.Failure `json:"failures"`
}

// Inputs are the hashes of the files a result was computed from.
type Inputs struct {
	CasesSHA256   string `json:"cases_sha256"`
	OutputsSHA256 string `json:"outputs_sha256"`
	PolicySHA256  string `json:"policy_sha256"`
	GateSHA256    string `json:"gate_sha256"`
}

// Result is the results file of one snapshot, field for field.
type Result struct {
	Label            string              `json:"label"`
	Decision         decide.Decision     `json:"decision"`
	CasesTotal       int                 `json:"cases_total"`
	CasesPassed      int                 `json:"cases_passed"`
	PassRate         float64             `json:"pass_rate"`
	CriticalFailures int                 `json:"critical_failures"`
	P95LatencyMS     *float64            `json:"p95_latency_ms"`
	AvgCostUSD       *float64            `json:"avg_cost_usd"`
	Gates            []decide.GateResult `json:"gates"`
	Cases            []CaseResult        `json:"cases"`
	Inputs           Inputs              `json:"inputs"`
}

// Snapshot is one evaluated snapshot.
type Snapshot struct {
	Result Result
	// Metrics hold the exact observed values behind Result's floats.
	Metrics decide.Metrics
	// Outputs are the snapshot's outputs by case position, nil where
	// missing. They are kept only when Options.KeepOutputs is set.
	Outputs []*suite.Output
}

// Label is the snapshot's name.
func (s *Snapshot) Label() string { return s.Result.Label }

// Release is every snapshot of a data folder judged against one suite.
type Release struct {
	Suite     *suite.Suite
	Snapshots []*Snapshot
}

// Options tune an evaluation.
type Options struct {
	// KeepOutputs keeps every output for pages that show them; without it
	// memory stays proportional to the suite, not to the snapshots.
	KeepOutputs bool
	// KeepInputs keeps each case's input for pages that show it.
	KeepInputs bool
}

// EvaluateDir evaluates every snapshot of the data folder dir,
// concurrently. On any bad input it returns the error of the first
// snapshot in label order, so messages are stable.
func EvaluateDir(dir string, opts Options) (*Release, error) {
	s, err := load.Suite(dir, load.Options{KeepInputs: opts.KeepInputs})
	if err != nil {
		return nil, err
	}
	files, err := load.Snapshots(dir)
	if err != nil {
		return nil, err
	}
	rel := &Release{Suite: s, Snapshots: make([]*Snapshot, len(files))}
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { rel.Snapshots[i], errs[i] = EvaluateFile(s, f.Label, f.Path, opts) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rel, nil
}

// EvaluateFile evaluates the snapshot in the outputs file at path. Each
// output is judged as it is read, so memory does not grow with the
// snapshot unless opts.KeepOutputs asks for it.
func EvaluateFile(s *suite.Suite, label, path string, opts Options) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	j := newJudging(s, opts.KeepOutputs)
	sha, err := load.Outputs(path, f, s, func(i int, o *suite.Output) error {
		j.add(i, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	snap := j.finish(label)
	snap.Result.Inputs.OutputsSHA256 = sha
	return snap, nil
}

// Judge judges a snapshot's outputs, given by case position (nil where
// missing), and decides it. It is pure.
func Judge(s *suite.Suite, label string, outputs []*suite.Output) *Snapshot {
	if len(outputs) != len(s.Cases) {
		panic(fmt.Sprintf("evaluator: %d outputs for %d cases", len(outputs), len(s.Cases)))
	}
	j := newJudging(s, true)
	for i, o := range outputs {
		if o != nil {
			j.add(i, o)
		}
	}
	return j.finish(label)
}

// judging accumulates one snapshot's verdicts as its outputs arrive.
type judging struct {
	s       *suite.Suite
	cases   []CaseResult
	seen    []bool
	tally   decide.Tally
	outputs []*suite.Output // nil unless kept
}

func newJudging(s *suite.Suite, keep bool) *judging {
	j := &judging{s: s, cases: make([]CaseResult, len(s.Cases)), seen: make([]bool, len(s.Cases))}
	j.tally.Reserve(len(s.Cases))
	if keep {
		j.outputs = make([]*suite.Output, len(s.Cases))
	}
	return j
}

// add judges the output for the case at position i.
func (j *judging) add(i int, out *suite.Output) {
	j.seen[i] = true
	j.cases[i] = verdict(j.s.Cases[i], judge.Case(j.s.Cases[i], out, j.s.Policy))
	j.tally.AddOutput(out.LatencyMS, out.CostUSD)
	if j.outputs != nil {
		j.outputs[i] = out
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
	for i, c := range s.Cases {
		if !j.seen[i] {
			j.cases[i] = verdict(c, judge.Case(c, nil, s.Policy))
		}
		j.tally.AddCase(c.Severity, j.cases[i].Passed)
	}
	m := j.tally.Metrics()
	decision, gates := decide.Decide(m, s.Gate)
	r := Result{
		Label:            label,
		Decision:         decision,
		CasesTotal:       m.CasesTotal,
		CasesPassed:      m.CasesPassed,
		CriticalFailures: m.CriticalFailures,
		Gates:            gates,
		Cases:            j.cases,
		Inputs:           Inputs{CasesSHA256: s.CasesSHA256, PolicySHA256: s.PolicySHA256, GateSHA256: s.GateSHA256},
	}
	r.PassRate, _ = m.PassRate.Float64()
	r.P95LatencyMS, r.AvgCostUSD = gates[2].Observed, gates[3].Observed
	return &Snapshot{Result: r, Metrics: m, Outputs: j.outputs}
}
