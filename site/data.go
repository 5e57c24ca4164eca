package site

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
)

// The case data that pages load as scripts. Each file assigns one member
// of the global releasegateData, so a page opened from disk gets it with
// a <script> element where fetch is refused. Arrays run in suite order and
// nothing is written per pair of snapshots: the files grow linearly with
// the cases and the snapshots.

// dataScript wraps a JSON value as a script assigning it to
// releasegateData[key]. encoding/json escapes <, > and &, and U+2028 and
// U+2029, so no data can end the script or the string it sits in.
func dataScript(key string, value any) ([]byte, error) {
	k, err := json.Marshal(key)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(v) + 80)
	b.WriteString("(self.releasegateData = self.releasegateData || {})[")
	b.Write(k)
	b.WriteString("] = ")
	b.Write(v)
	b.WriteString(";\n")
	return b.Bytes(), nil
}

// casesData is data/cases.js: the suite's case ids, titles and
// severities, and where each case's pages are.
type casesData struct {
	IDs    []string `json:"ids"`
	Titles []string `json:"titles"`
	// Pages name each case's pages and anchors (pagename.Stems); absent
	// when every case's is its id, which keeps the file as it was.
	Pages []string `json:"pages,omitempty"`
	// Severity holds one digit per case: 0 critical, 1 major, 2 minor.
	Severity string `json:"severity"`
	// ResultsPerPage and HistoriesPerPage say how many cases share a
	// result page and a history page; absent when each has its own.
	ResultsPerPage   int `json:"resultsPerPage,omitempty"`
	HistoriesPerPage int `json:"historiesPerPage,omitempty"`
}

func (v *view) casesData() ([]byte, error) {
	cases := v.in.Release.Suite.Cases
	d := casesData{IDs: make([]string, len(cases)), Titles: make([]string, len(cases))}
	var sev strings.Builder
	for i, c := range cases {
		d.IDs[i], d.Titles[i] = c.ID, c.Title
		sev.WriteByte(byte('0' + severityRank(c.Severity)))
	}
	d.Severity = sev.String()
	if !slices.Equal(v.paths.stems, d.IDs) {
		d.Pages = v.paths.stems
	}
	d.ResultsPerPage, d.HistoriesPerPage = v.paths.perPage, v.paths.historyPerPage
	return dataScript("cases", d)
}

// Case status letters of the matrix, one per case and snapshot.
const (
	statusPass    = 'P'
	statusFail    = 'F'
	statusMissing = 'M' // failed with no output at all (with trials, in none of them)
)

// matrixData is data/matrix.js: per snapshot its decision, gates and a
// status letter per case. The compare page and the cases matrix read it.
type matrixData struct {
	Labels    []string       `json:"labels"`
	Decisions []string       `json:"decisions"`
	Gates     [][]matrixGate `json:"gates"`
	Status    []string       `json:"status"`
	// Trials is k per snapshot (0 without trials) and TrialsPassed the
	// passed trials per case of each snapshot with trials (null for one
	// without), so the compare page can tell the flaky cases. Both are
	// absent when no snapshot has trials, which keeps the file as it was.
	Trials       []int   `json:"trials,omitempty"`
	TrialsPassed [][]int `json:"trials_passed,omitempty"`
	// Confidence and Alpha are the suite's level and the p-value below
	// which the compare page calls a difference unlikely to be chance;
	// Intervals the results files' pass-rate intervals, per snapshot
	// (null without cases), which the page shows as they are.
	Confidence float64       `json:"confidence"`
	Alpha      float64       `json:"alpha"`
	Intervals  []*[2]float64 `json:"intervals"`
	// Changes say, per gate in the order of Gates, how the compare page
	// words a change of its value: the unit and whether higher is
	// better. The script names no gate.
	Changes []matrixChange `json:"changes"`
}

// matrixChange is how one gate's change is worded on the compare page.
type matrixChange struct {
	Unit           string `json:"unit"`
	HigherIsBetter bool   `json:"higher_is_better"`
}

// matrixGate is one gate of one snapshot: the worded observation and the
// number the compare page takes differences of (null when unmeasured).
type matrixGate struct {
	Gate     string   `json:"gate"`
	Name     string   `json:"name"`
	Observed string   `json:"observed"`
	Value    *float64 `json:"value"`
	Passed   bool     `json:"passed"`
	// Settle says what would settle an inconclusive gate, as the
	// evaluator counts it; absent otherwise.
	Settle string `json:"settle,omitempty"`
}

func (v *view) matrixData() ([]byte, error) {
	snaps := v.in.Release.Snapshots
	d := matrixData{Labels: v.info.Labels, Decisions: make([]string, len(snaps)),
		Gates: make([][]matrixGate, len(snaps)), Status: make([]string, len(snaps))}
	specs := v.in.Release.Specs().Applicable(v.in.Release.Suite.Gate)
	for i, s := range snaps {
		d.Decisions[i] = string(s.Result.Decision)
		d.Gates[i] = matrixGates(s, gateRows(s), specs)
		d.Status[i] = statusLetters(s)
	}
	d.Trials, d.TrialsPassed = matrixTrials(snaps)
	level := v.in.Release.Suite.Gate.Confidence
	d.Confidence, d.Alpha = level.Confidence(), level.Alpha()
	for _, spec := range specs {
		d.Changes = append(d.Changes, matrixChange{Unit: spec.Unit.Name(), HigherIsBetter: spec.HigherIsBetter()})
	}
	d.Intervals = make([]*[2]float64, len(snaps))
	for i, s := range snaps {
		d.Intervals[i] = s.Result.PassRateInterval
	}
	return dataScript("matrix", d)
}

// matrixTrials is the matrix's trial counts, nil for both when no
// snapshot has trials.
func matrixTrials(snaps []*evaluator.Snapshot) ([]int, [][]int) {
	if !slices.ContainsFunc(snaps, func(s *evaluator.Snapshot) bool { return s.Trials() > 0 }) {
		return nil, nil
	}
	ks, passed := make([]int, len(snaps)), make([][]int, len(snaps))
	for i, s := range snaps {
		ks[i] = s.Trials()
		if ks[i] == 0 {
			continue
		}
		passed[i] = make([]int, len(s.Result.Cases))
		for j := range s.Result.Cases {
			passed[i][j] = s.Result.Cases[j].TrialsPassed
		}
	}
	return ks, passed
}

// matrixGates lists the gates of s, one per spec that applies, so that
// every snapshot lists the same gates in the same order: the baseline,
// which has no gate against itself, shows it as "the baseline". A gate
// against the baseline has no value to take differences of.
func matrixGates(s *evaluator.Snapshot, rows []GateRow, specs []*decide.Spec) []matrixGate {
	out := make([]matrixGate, 0, len(specs))
	for _, spec := range specs {
		i := slices.IndexFunc(rows, func(r GateRow) bool { return r.Gate == spec.Name })
		if i < 0 {
			out = append(out, matrixGate{Gate: spec.Name, Name: spec.Title, Observed: "the baseline", Passed: true})
			continue
		}
		g := rows[i]
		mg := matrixGate{Gate: g.Gate, Name: g.Name, Observed: g.Observed, Passed: g.Passed}
		if gr := &s.Result.Gates[i]; gr.Inconclusive {
			mg.Settle = "not proven: " + settleWords(gr, s.Result.CasesTotal)
		}
		if spec.Kind == decide.AgainstLimit {
			mg.Value = s.Result.Gates[i].Observed
		}
		out = append(out, mg)
	}
	return out
}

func statusLetters(s *evaluator.Snapshot) string {
	b := make([]byte, len(s.Result.Cases))
	for i, c := range s.Result.Cases {
		switch {
		case c.Passed:
			b[i] = statusPass
		case hasNoOutput(s, i):
			b[i] = statusMissing
		default:
			b[i] = statusFail
		}
	}
	return string(b)
}

// snapshotRow is one case of data/snapshots/<label>.js, as the case table
// shows it: passed (1 or 0), failure codes, failure details, latency
// (exact literal, or null without output) and its text, cost and its
// text, and which of them are over their limit (1 latency, 2 cost). A
// snapshot with trials adds a ninth member, a rowTrials.
type snapshotRow []any

// rowTrials is a case's trials for the table's trial strip, one string
// per trial: "" passed, "-" no output, else its failure codes.
type rowTrials []string

// noOutputTrial marks a trial without output in a rowTrials.
const noOutputTrial = "-"

// newRowTrials reads a case's trials off its strip.
func newRowTrials(s *TrialStrip) rowTrials {
	out := make(rowTrials, len(s.Marks))
	for i, m := range s.Marks {
		switch {
		case m.Missing:
			out[i] = noOutputTrial
		case !m.Passed:
			out[i] = m.Codes
		}
	}
	return out
}

// snapshotData is data/snapshots/<label>.js: every row of a case table
// too large to write into its page.
func (v *view) snapshotData(s *evaluator.Snapshot) ([]byte, error) {
	rows := v.snapshotRows(s)
	out := make([]snapshotRow, len(rows))
	for i, r := range rows {
		passed, over := 0, 0
		if r.Verdict.Class == passVerdict.Class {
			passed = 1
		}
		if r.LatencyOver {
			over |= 1
		}
		if r.CostOver {
			over |= 2
		}
		var lat, cost any
		if r.LatencySort != "" {
			lat, cost = json.Number(r.LatencySort), json.Number(r.CostSort)
		}
		out[i] = snapshotRow{passed, r.Codes, r.Search, lat, r.Latency, cost, r.Cost, over}
		if r.Strip != nil {
			out[i] = append(out[i], newRowTrials(r.Strip))
		}
	}
	return dataScript("snapshot:"+s.Label(), out)
}
