package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/internal/jsonappend"
	"github.com/releasegate/releasegate/site/pages"
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
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	return dataScriptOf(key, v)
}

// dataScriptOf wraps the encoded JSON value v as dataScript does.
func dataScriptOf(key string, v []byte) ([]byte, error) {
	b, err := appendScriptHead(make([]byte, 0, len(v)+80), key)
	if err != nil {
		return nil, err
	}
	return appendScriptTail(append(b, v...)), nil
}

// appendScriptHead appends what comes before the value in a data
// script, and appendScriptTail what comes after it: a value written in
// between is written once, where a large one was written and then
// copied.
func appendScriptHead(b []byte, key string) ([]byte, error) {
	k, err := json.Marshal(key)
	if err != nil {
		return nil, err
	}
	b = append(b, "(self.releasegateData = self.releasegateData || {})["...)
	b = append(b, k...)
	return append(b, "] = "...), nil
}

func appendScriptTail(b []byte) []byte { return append(b, ";\n"...) }

// CasesData is data/cases.js: the suite's case ids, titles and
// severities, and where each case's pages are.
type CasesData struct {
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

func (v *View) casesData() ([]byte, error) {
	cases := v.In.Release.Suite.Cases
	d := CasesData{IDs: make([]string, len(cases)), Titles: make([]string, len(cases))}
	var sev strings.Builder
	for i, c := range cases {
		d.IDs[i], d.Titles[i] = c.ID, c.Title
		sev.WriteByte(byte('0' + pages.SeverityRank(c.Severity)))
	}
	d.Severity = sev.String()
	if !slices.Equal(v.Paths.Stems, d.IDs) {
		d.Pages = v.Paths.Stems
	}
	d.ResultsPerPage, d.HistoriesPerPage = v.Paths.PerPage, v.Paths.HistoryPerPage
	return dataScript("cases", d)
}

// Case status letters of the matrix, one per case and snapshot.
const (
	StatusPass    = 'P'
	statusFail    = 'F'
	StatusMissing = 'M' // failed with no output at all (with trials, in none of them)
)

// MatrixData is data/matrix.js: per snapshot its decision, gates and a
// status letter per case. The compare page and the cases matrix read it.
type MatrixData struct {
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

// MatrixData encodes data/matrix.js (see the type MatrixData).
func (v *View) MatrixData() ([]byte, error) {
	snaps := v.In.Release.Snapshots
	d := MatrixData{Labels: v.Info.Labels, Decisions: make([]string, len(snaps)),
		Gates: make([][]matrixGate, len(snaps)), Status: make([]string, len(snaps))}
	specs := v.In.Release.Specs().Applicable(v.In.Release.Suite.Gate)
	for i, s := range snaps {
		d.Decisions[i] = string(s.Result.Decision)
		d.Gates[i] = matrixGates(s, pages.GateRows(s), specs)
		d.Status[i] = statusLetters(s)
	}
	d.Trials, d.TrialsPassed = matrixTrials(snaps)
	level := v.In.Release.Suite.Gate.Confidence
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
func matrixGates(s *evaluator.Snapshot, rows []pages.GateRow, specs []*decide.Spec) []matrixGate {
	out := make([]matrixGate, 0, len(specs))
	for _, spec := range specs {
		i := slices.IndexFunc(rows, func(r pages.GateRow) bool { return r.Gate == spec.Name })
		if i < 0 {
			out = append(out, matrixGate{Gate: spec.Name, Name: spec.Title, Observed: "the baseline", Passed: true})
			continue
		}
		g := rows[i]
		mg := matrixGate{Gate: g.Gate, Name: g.Name, Observed: g.Observed, Passed: g.Passed}
		if gr := &s.Result.Gates[i]; gr.Inconclusive {
			mg.Settle = "not proven: " + pages.SettleWords(gr, s.Result.CasesTotal)
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
			b[i] = StatusPass
		case pages.HasNoOutput(s, i):
			b[i] = StatusMissing
		default:
			b[i] = statusFail
		}
	}
	return string(b)
}

// rowField is one field of CaseFields as a data file writes it.
type rowField struct {
	name      string
	index     int
	omitEmpty bool
	kind      rowKind
}

// rowKind says how a field's value is written.
type rowKind int

const (
	rowValue   rowKind = iota // as encoding/json writes it
	rowBool                   // 1 or 0
	rowDecimal                // a pages.Decimal: a JSON string, or null when empty
	rowString                 // a JSON string
	rowStrings                // a JSON array of strings, or null when nil
)

// caseFields are the fields of CaseFields in order, named by their JSON
// tags: the names are written once, not once in Go and once in the
// script.
var caseFields = func() []rowField {
	t := reflect.TypeFor[pages.CaseFields]()
	out := make([]rowField, t.NumField())
	for i := range out {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[i] = rowField{name: name, index: i, omitEmpty: opts == "omitempty"}
		switch typ := t.Field(i).Type; {
		case typ == reflect.TypeFor[bool]():
			out[i].kind = rowBool
		case typ == reflect.TypeFor[pages.Decimal]():
			out[i].kind = rowDecimal
		case typ.Kind() == reflect.String:
			out[i].kind = rowString
		case typ.Kind() == reflect.Slice && typ.Elem().Kind() == reflect.String:
			out[i].kind = rowStrings
		}
	}
	return out
}()

// appendRowTable appends the case rows of data/snapshots/<label>.js,
// written as {"fields":[names],"rows":[[values]...]}: each row an array
// of its values in the order of fields, which is compact for thousands of
// rows and lets the script read each value by name. A bool is written as
// 1 or 0; a row ends before its trailing empty fields that omit empties
// (the trials, without trials), which the script reads as null. The
// values are appended by hand: json.Marshal of the same rows as []any
// took 6× the time (BenchmarkFastPathRowTable, docs/design.md).
func appendRowTable(b []byte, rows []pages.CaseRow) ([]byte, error) {
	b = append(b, `{"fields":[`...)
	for i, f := range caseFields {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonappend.String(b, f.name, true)
	}
	b = append(b, `],"rows":[`...)
	for i := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendRow(b, reflect.ValueOf(&rows[i].CaseFields).Elem()); err != nil {
			return nil, err
		}
	}
	return append(b, "]}"...), nil
}

// appendRow appends one row's values, in the order of caseFields.
func appendRow(b []byte, row reflect.Value) ([]byte, error) {
	n := len(caseFields)
	for n > 0 && caseFields[n-1].omitEmpty && row.Field(caseFields[n-1].index).IsZero() {
		n--
	}
	b = append(b, '[')
	for i, f := range caseFields[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		v := row.Field(f.index)
		switch {
		case f.kind == rowBool && v.Bool():
			b = append(b, '1')
		case f.kind == rowBool:
			b = append(b, '0')
		case f.kind == rowDecimal && v.String() == "":
			b = append(b, "null"...)
		case f.kind == rowDecimal || f.kind == rowString:
			b = jsonappend.String(b, v.String(), true)
		case f.kind == rowStrings && v.IsNil():
			b = append(b, "null"...)
		case f.kind == rowStrings:
			b = append(b, '[')
			for j := range v.Len() {
				if j > 0 {
					b = append(b, ',')
				}
				b = jsonappend.String(b, v.Index(j).String(), true)
			}
			b = append(b, ']')
		default:
			value, err := json.Marshal(v.Interface())
			if err != nil {
				return nil, fmt.Errorf("case row field %s: %w", f.name, err)
			}
			b = append(b, value...)
		}
	}
	return append(b, ']'), nil
}

// SnapshotData is data/snapshots/<label>.js: every row of a case table
// too large to write into its page, in suite order.
func (v *View) SnapshotData(s *evaluator.Snapshot) ([]byte, error) {
	rows := v.SnapshotRows(s)
	b, err := appendScriptHead(make([]byte, 0, 128*len(rows)+128), "snapshot:"+s.Label())
	if err != nil {
		return nil, err
	}
	if b, err = appendRowTable(b, rows); err != nil {
		return nil, err
	}
	return appendScriptTail(b), nil
}
