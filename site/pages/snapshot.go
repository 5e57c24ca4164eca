package pages

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// SnapshotPage is snapshots/<label>.html: the gates, the per-case charts
// and the case table.
type SnapshotPage struct {
	Layout
	Card         SnapshotCard
	Gates        []GateRow
	LatencyChart Chart
	LatencyNote  string
	CostChart    Chart
	CostNote     string
	// Why lists each failing gate with the cases that drive it.
	Why   []WhyGate
	Cases []CaseRow // failing cases first, then the rest in suite order
	// CasesTotal is how many cases the snapshot has; Cases holds at most
	// tableRowsInHTML of them, and the rest travel in RowsData.
	CasesTotal int
	// RowsSrc lists, space-separated, the scripts that hold every row,
	// for a table too large for the page itself; "" when Cases holds
	// them all.
	RowsSrc string
	Counts  string // "8 passed, 4 failed (2 critical)"
	// Recording is the snapshot's meta.json, nil without one.
	Recording *Recording
	// Trials sums up the snapshot's trials, nil without trials.
	Trials *TrialSummary
	// TrialColumn: the case table shows each case's trials and can
	// filter the flaky ones.
	TrialColumn bool
	// ResultPages lead to the grouped pages of the results in suite
	// order; nil when every result has a page of its own.
	ResultPages []NavLink
	// TableScript is the table script, which this page runs right after
	// its case table rather than deferred: the charts below it may take
	// long to draw for a large suite, and the table should not wait.
	TableScript string
}

// TableRowsInHTML bounds the case table written into a snapshot page. A
// larger suite's page holds its first rows (failures first), so the page
// opens at once; the script then loads every row from the data files.
const TableRowsInHTML = 100

// WhyCasesShown bounds the cases listed under one failing gate; the rest
// are a link away in the case table.
const WhyCasesShown = 10

// WhyGate is one failing gate and the cases that make it fail.
type WhyGate struct {
	Name    string // "Safety (failed critical cases)"
	Gate    string // "critical_failures"
	Failure string // "2 critical cases failed, at most 0 allowed"
	Lead    string // what the listed cases are
	Cases   []WhyCase
	More    int    // cases beyond those listed
	AllHref string // the case table filtered or sorted to show them all
	AllText string
}

// WhyCase is a case that drives a failing gate.
type WhyCase struct {
	ID   string
	Href string
	Note string // failure codes, a latency or a cost
}

// CaseRow is one case in a snapshot's case table. Its CaseFields are
// what a table too large for its page carries in data/snapshots/<label>.js
// (docs/design.md, "One case-table row"); the rest the table script
// reads from data/cases.js or works out as the page does.
type CaseRow struct {
	ID           string
	Href         string
	Title        string
	Severity     string
	SeverityRank int // 0 critical, 1 major, 2 minor
	Verdict      Badge
	CaseFields
	// Strip shows the case's trials, nil without trials.
	Strip *TrialStrip
}

// CaseFields are the fields of a case-table row that the page template
// and the table script share. The template reads them by their Go
// names, the script by their JSON names, which data/snapshots/<label>.js
// lists once in its "fields" (appendRowTable): each JSON name is the Go name
// with a lower-case first letter. The *Sort fields are the exact values
// the table sorts by, empty (null in the data) without a measure.
type CaseFields struct {
	Passed bool   `json:"passed"`
	Codes  string `json:"codes"` // what went wrong, in words
	// Search is the failure codes and details, which the table's search
	// matches besides the visible text.
	Search      string  `json:"search"`
	Latency     string  `json:"latency"`
	LatencySort Decimal `json:"latencySort"`
	LatencyOver bool    `json:"latencyOver"` // slower than the p95 limit
	Cost        string  `json:"cost"`
	CostSort    Decimal `json:"costSort"`
	CostOver    bool    `json:"costOver"` // dearer than the limit on the average cost
	// Trials is the case's trials as the script draws its trial strip,
	// nil without trials.
	Trials RowTrials `json:"trials,omitempty"`
}

// SeverityRank orders severities, critical first.
func SeverityRank(s suite.Severity) int {
	switch s {
	case suite.Critical:
		return 0
	case suite.Major:
		return 1
	}
	return 2
}

// failureDetails joins every failure's detail, for the table search.
func failureDetails(fs []judge.Failure) string {
	details := make([]string, len(fs))
	for i, f := range fs {
		details[i] = CallsFromOne(f.Detail)
	}
	return strings.Join(details, "; ")
}

// FailureCodes lists the codes of a case's failures, each once: with
// trials the same check may fail in several of them.
func FailureCodes(fs []judge.Failure) string {
	codes := make([]string, 0, len(fs))
	for _, f := range fs {
		if !slices.Contains(codes, string(f.Code)) {
			codes = append(codes, string(f.Code))
		}
	}
	return strings.Join(codes, ", ")
}

// SnapshotPage builds the page of snapshot s.
func (v *Model) SnapshotPage(s *evaluator.Snapshot) (*SnapshotPage, error) {
	label := s.Label()
	path := SnapshotPath(label)
	root := rootFor(path)
	g := v.In.Release.Suite.Gate
	gates := GateRows(s)
	p := &SnapshotPage{
		Layout: v.Info.layout(path, "Snapshot "+label),
		Card:   snapshotCard(s, gates, g.Confidence, root),
		Gates:  gates,
		Trials: trialSummary(s),
	}
	p.Recording = p.Card.Recording
	if p.Trials != nil {
		p.Trials.MinRate = percent(g.TrialPassRate().Rat())
	}
	cases := v.In.Release.Suite.Cases
	ids := make([]string, len(cases))
	links := make([]string, len(cases))
	latencies, costs := make([]float64, len(cases)), make([]float64, len(cases))
	slow := make([]bool, len(cases))
	latencyGate, costGate := v.outputGates()
	latencyLimit, latencyGated := latencyGate.Limit(g)
	rows := v.SnapshotRows(s)
	for i, c := range cases {
		if s.Trials() > 0 {
			lat, cost := trialMeasures(s, i)
			_, _, latencies[i] = measureText(lat, ms)
			_, _, costs[i] = measureText(cost, usd)
			slow[i] = rows[i].LatencyOver
		} else if o := s.Outputs[i]; o != nil {
			if o.LatencyMS != nil {
				latencies[i] = o.LatencyMS.Float64()
			}
			if o.CostUSD != nil {
				costs[i] = o.CostUSD.Float64()
			}
			slow[i] = rows[i].LatencyOver
		}
		ids[i], links[i] = c.ID, rows[i].Href
	}
	p.Why = whyGates(gates, rows, cases, regressedCases(s), coverageOf(s), root+path)
	for g := range v.Paths.ResultGroups(len(cases)) {
		first, last := v.groupRange(g, v.Paths.PerPage)
		p.ResultPages = append(p.ResultPages, NavLink{Href: root + ResultGroupPath(label, g), Text: cases[first].ID + " to " + cases[last].ID})
	}
	p.CasesTotal = len(rows)
	p.Cases = failuresFirst(rows, TableRowsInHTML)
	if len(rows) > TableRowsInHTML {
		p.RowsSrc = root + CasesDataPath + " " + root + SnapshotDataPath(label)
	}
	// The rows loaded from the data files carry the trials too, so a
	// table of any size shows them.
	p.TrialColumn = p.Trials != nil
	failed := s.Result.CasesTotal - s.Result.CasesPassed
	p.Counts = fmt.Sprintf("%d passed, %d failed (%d critical)", s.Result.CasesPassed, failed, s.Result.CriticalFailures)
	if s.Trials() > 0 {
		// A critical case that passed enough trials still counts as a
		// critical failure when any trial failed.
		p.Counts = fmt.Sprintf("%d passed, %d failed; %d critical %s", s.Result.CasesPassed, failed,
			s.Result.CriticalFailures, plural(s.Result.CriticalFailures, "failure", "failures"))
	}

	slowCount := 0
	for _, b := range slow {
		if b {
			slowCount++
		}
	}
	slowText := "no output is slower than the limit"
	if slowCount > 0 {
		slowText = fmt.Sprintf("%d %s slower than the limit, drawn in orange", slowCount, plural(slowCount, "output is", "outputs are"))
	}
	cov := coverageOf(s)
	p95, avgCost := p95Text(s, cov), avgCostText(s, cov)
	p.LatencyNote = fmt.Sprintf("One bar per case. p95 latency is not gated. p95 of this snapshot: %s.", p95)
	if latencyGated {
		p.LatencyNote = fmt.Sprintf("One bar per case. The dashed line is the p95 limit of %s; %s. p95 of this snapshot: %s.",
			ms(latencyLimit), slowText, p95)
	}
	nLatencies, nCosts := measured(s)
	if few := p95Note(nLatencies); few != "" {
		p.LatencyNote += " " + few
	}
	lines := limitLines(latencyGate, g, "p95 limit ")
	var err error
	p.LatencyChart, err = RenderBar(BarSpec{ID: "case_latency", Root: root, Categories: ids, Values: latencies, Over: slow, Links: links, LinkKeys: v.Paths.Stems, LinkPages: v.Paths.PerPage,
		AxisName: "latency (ms)", Lines: lines})
	if err != nil {
		return nil, err
	}
	if s.Trials() > 0 {
		p.LatencyNote += " With trials, a case's bar is the slowest of its measured trials."
	}
	costLines := limitLines(costGate, g, "limit on the average ")
	p.CostNote = fmt.Sprintf("One bar per case. The average cost is not gated; the average of this snapshot is %s.", avgCost)
	if costLimit, on := costGate.Limit(g); on {
		p.CostNote = fmt.Sprintf("One bar per case. The dashed line is the limit of %s on the average cost; the average of this snapshot is %s.",
			usd(costLimit), avgCost)
	}
	if nCosts > 0 {
		p.CostNote += fmt.Sprintf(" The average is of %s %s.", count(nCosts), plural(nCosts, "answer", "answers"))
	}
	if s.Trials() > 0 {
		p.CostNote += " With trials, a case's bar is the average of its measured trials."
	}
	p.CostChart, err = RenderBar(BarSpec{ID: "case_cost", Root: root, Categories: ids, Values: costs, Links: links, LinkKeys: v.Paths.Stems, LinkPages: v.Paths.PerPage,
		AxisName: "cost (USD)", Lines: costLines})
	if err != nil {
		return nil, err
	}
	p.Scripts = chartAssets(p.LatencyChart, p.CostChart)
	p.TableScript, p.Tables = p.Tables, ""
	return p, nil
}

// sharedRows are one snapshot's case rows, made once for the two files
// that show them.
type sharedRows struct {
	once   sync.Once
	rows   []CaseRow
	takers atomic.Int32
}

// SnapshotRows is caseRows for s's page, made once for the page and its
// table data (which uses no link), which may render at the same time. The
// second to take them lets them go: a large release's rows are tens of
// MiB a snapshot.
func (v *Model) SnapshotRows(s *evaluator.Snapshot) []CaseRow {
	e, _ := v.rows.LoadOrStore(s.Label(), &sharedRows{})
	shared := e.(*sharedRows)
	shared.once.Do(func() { shared.rows = v.caseRows(s, rootFor(SnapshotPath(s.Label()))) })
	if shared.takers.Add(1) == 2 {
		v.rows.Delete(s.Label())
	}
	return shared.rows
}

// outputGates are the gates the case tables and the per-case charts mark
// outputs against: the one driven by the slowest outputs and the one
// driven by the dearest; nil for one the release has no gate for.
func (v *Model) outputGates() (latency, cost *decide.Spec) {
	gates := v.In.Release.Specs()
	latency, _ = gates.DrivenBy(decide.SlowestOutputs)
	cost, _ = gates.DrivenBy(decide.CostliestOutputs)
	return latency, cost
}

// caseRows makes a table row per case of s, in suite order.
func (v *Model) caseRows(s *evaluator.Snapshot, root string) []CaseRow {
	g := v.In.Release.Suite.Gate
	latencyGate, costGate := v.outputGates()
	latencyLimit, latencyGated := latencyGate.Limit(g)
	costLimit, costGated := costGate.Limit(g)
	latencyOver, costOver := newLimit(latencyLimit, latencyGated), newLimit(costLimit, costGated)
	cases := v.In.Release.Suite.Cases
	rows := make([]CaseRow, len(cases))
	for i, c := range cases {
		res := &s.Result.Cases[i]
		// Each row is filled where it stands: a row is a few hundred
		// bytes of strings, and copying 100,000 of them into the slice,
		// write barriers and all, was about a quarter of making them.
		row := &rows[i]
		row.ID, row.Href, row.Title = c.ID, v.Paths.resultFrom(root, s.Label(), i), c.Title
		row.Severity, row.SeverityRank = string(c.Severity), SeverityRank(c.Severity)
		// The table says what went wrong in words; the search also
		// finds the codes and the details.
		row.Verdict = verdictBadge(res.Passed)
		row.Passed = res.Passed
		if len(res.Failures) > 0 {
			row.Codes = FailureText(res.Failures)
			row.Search = strings.TrimSpace(FailureCodes(res.Failures) + " " + failureDetails(res.Failures))
		}
		row.Latency, row.Cost = "no output", "no output"
		if s.Trials() > 0 {
			row.Strip = NewTrialStrip(res, s.Trials(), v.Paths.trialLinks(root, s.Label(), i))
			row.Trials = newRowTrials(row.Strip)
			lat, cost := trialMeasures(s, i)
			var latSort, costSort string
			row.Latency, latSort, _ = measureText(lat, ms)
			row.Cost, costSort, _ = measureText(cost, usd)
			row.LatencySort, row.CostSort = Decimal(latSort), Decimal(costSort)
			row.LatencyOver = lat != nil && latencyGated && lat.Cmp(latencyLimit) > 0
			row.CostOver = cost != nil && costGated && cost.Cmp(costLimit) > 0
		} else if o := s.Outputs[i]; o != nil {
			row.Latency, row.Cost = "not measured", "not measured"
			// Written and compared off the literals: a large snapshot has
			// many rows (see docs/design.md, Fast paths).
			if o.LatencyMS != nil {
				row.Latency, row.LatencySort = decide.FormatMSNumber(*o.LatencyMS), Decimal(o.LatencyMS.String())
				row.LatencyOver = latencyOver.exceededBy(*o.LatencyMS)
			}
			if o.CostUSD != nil {
				row.Cost, row.CostSort = decide.FormatUSDNumber(*o.CostUSD), Decimal(o.CostUSD.String())
				row.CostOver = costOver.exceededBy(*o.CostUSD)
			}
		}
	}
	return rows
}

// limit is a gate's limit on each output's latency or cost, kept both
// exactly and as the nearest float64, so that most outputs are compared
// with it without parsing their literal into a fraction.
type limit struct {
	exact *big.Rat // nil without a gate
	float float64
}

func newLimit(r *big.Rat, gated bool) limit {
	if !gated || r == nil {
		return limit{}
	}
	f, _ := r.Float64()
	return limit{exact: r, float: f}
}

// exceededBy reports whether n is over the limit. Rounding to the nearest
// float64 keeps order, so two values whose floats differ are ordered by
// them; only equal floats need the exact values.
func (l limit) exceededBy(n suite.Number) bool {
	switch f := n.Float64(); {
	case l.exact == nil:
		return false
	case f != l.float:
		return f > l.float
	}
	return n.Rat().Cmp(l.exact) > 0
}

// failuresFirst is the first n rows as the case table shows them by
// default: failing cases first, each group in suite order. The page
// holds only so many; the rest are loaded from the data files.
func failuresFirst(rows []CaseRow, n int) []CaseRow {
	out := make([]CaseRow, 0, min(n, len(rows)))
	for _, failing := range []bool{true, false} {
		for i := range rows {
			if len(out) == n {
				return out
			}
			if (rows[i].Verdict.Class == failVerdict.Class) == failing {
				out = append(out, rows[i])
			}
		}
	}
	return out
}

// whyGates lists each failing gate with the cases that drive it, as its
// spec names them: the failing critical cases, the failing cases, the
// outputs slower than the p95 limit (slowest first), the outputs dearer
// than the average's limit (dearest first), or the cases that regressed
// against the baseline (regressed, by position). rows are in suite
// order; cov counts the outputs that recorded a latency and a cost;
// self is the page's link to itself, for links to views of its
// case table.
func whyGates(gates []GateRow, rows []CaseRow, cases []*suite.Case, regressed map[int]bool, cov Coverage, self string) []WhyGate {
	var out []WhyGate
	for _, g := range gates {
		if g.Passed {
			continue
		}
		w := WhyGate{Name: g.Name, Gate: g.Gate, Failure: g.failure}
		var picked []int
		note := func(r CaseRow) string { return r.Codes }
		spec := g.spec
		w.Lead = upperFirst(spec.DriversText) + ":"
		fragment, allText := spec.Drivers.Filter()
		w.AllHref, w.AllText = "#"+fragment, allText
		switch spec.Drivers {
		case decide.FailingCriticalCases:
			for i, r := range rows {
				if r.Verdict.Class == failVerdict.Class && cases[i].Severity == suite.Critical {
					picked = append(picked, i)
				}
			}
		case decide.FailingCases:
			for i, r := range rows {
				if r.Verdict.Class == failVerdict.Class {
					picked = append(picked, i)
				}
			}
		case decide.SlowestOutputs:
			picked = overLimit(rows, func(r CaseRow) bool { return r.LatencyOver }, func(r CaseRow) string { return string(r.LatencySort) })
			note = func(r CaseRow) string { return r.Latency }
		case decide.CostliestOutputs:
			picked = overLimit(rows, func(r CaseRow) bool { return r.CostOver }, func(r CaseRow) string { return string(r.CostSort) })
			note = func(r CaseRow) string { return r.Cost }
		case decide.RegressedCases:
			for i := range rows {
				if regressed[i] {
					picked = append(picked, i)
				}
			}
		}
		w.AllHref = self + w.AllHref
		if len(picked) == 0 {
			w.Lead = "No single case drives it: there are no outputs to measure."
			if cov.Known && cov.Outputs > 0 && (spec.Drivers == decide.SlowestOutputs || spec.Drivers == decide.CostliestOutputs) {
				what := map[bool]string{true: "latency", false: "cost"}[spec.Drivers == decide.SlowestOutputs]
				w.Lead = "No single case drives it: no output recorded a " + what + "."
			}
			if g.Inconclusive {
				w.Lead = "No single case drives it: there are too few cases to prove the pass rate."
			}
		}
		for _, i := range picked[:min(len(picked), WhyCasesShown)] {
			w.Cases = append(w.Cases, WhyCase{ID: rows[i].ID, Href: rows[i].Href, Note: note(rows[i])})
		}
		w.More = max(0, len(picked)-WhyCasesShown)
		out = append(out, w)
	}
	return out
}

// regressedCases marks, by position, the cases that regressed against
// the baseline in s; nil without a baseline.
func regressedCases(s *evaluator.Snapshot) map[int]bool {
	c := s.Result.VersusBaseline
	if c == nil {
		return nil
	}
	out := map[int]bool{}
	for _, ch := range c.Cases {
		if ch.Change == decide.Regressed {
			out[ch.Index] = true
		}
	}
	return out
}

// overLimit returns the positions of the rows over a limit, largest value
// first (ties in suite order). value is a row's exact decimal literal.
func overLimit(rows []CaseRow, over func(CaseRow) bool, value func(CaseRow) string) []int {
	var picked []int
	for i, r := range rows {
		if over(r) {
			picked = append(picked, i)
		}
	}
	// Each value is read once, as the nearest float64: thousands of rows
	// may be over a limit. Rounding keeps order, so values whose floats
	// differ are ordered by them, and only equal floats (or a literal
	// ParseFloat refuses) are compared exactly (docs/design.md, Fast paths).
	values := make([]overValue, len(picked))
	order := make([]*overValue, len(picked))
	for k, i := range picked {
		v := &values[k]
		v.row, v.literal = i, value(rows[i])
		f, err := strconv.ParseFloat(v.literal, 64)
		v.approx, v.parsed = f, err == nil
		order[k] = v
	}
	// Ties go in suite order by position, which lets the sort be the
	// faster unstable one.
	slices.SortFunc(order, func(a, b *overValue) int {
		if c := a.cmp(b); c != 0 {
			return -c
		}
		return cmp.Compare(a.row, b.row)
	})
	for k, v := range order {
		picked[k] = v.row
	}
	return picked
}

// overValue is a row's value over a limit, as overLimit sorts it.
type overValue struct {
	row     int
	literal string
	approx  float64
	parsed  bool     // approx is the literal's nearest float64
	exact   *big.Rat // read when needed, nil before and if unreadable
}

// cmp compares two values exactly. Ties are common (whole milliseconds
// repeat), and most are the same literal; the others are read into
// fractions once each.
func (a *overValue) cmp(b *overValue) int {
	switch {
	case a.parsed && b.parsed && a.approx != b.approx:
		return cmp.Compare(a.approx, b.approx)
	case a.literal == b.literal:
		return 0
	case a.fraction() == nil || b.fraction() == nil:
		return cmp.Compare(a.literal, b.literal)
	}
	return a.fraction().Cmp(b.fraction())
}

func (a *overValue) fraction() *big.Rat {
	if a.exact == nil {
		a.exact, _ = new(big.Rat).SetString(a.literal)
	}
	return a.exact
}
