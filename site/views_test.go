package site

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

// dataScriptSrc is the address of a data script, relative to any page.
var dataScriptSrc = regexp.MustCompile(`^(\.\./)*data/(cases|matrix|snapshots/[A-Za-z0-9][A-Za-z0-9._-]*)\.js$`)

// dataScriptForm is the whole of a data script: one assignment of JSON.
var dataScriptForm = regexp.MustCompile(`^\(self\.releasegateData = self\.releasegateData \|\| \{\}\)\[("[^"\\<>]*")\] = (.*);\n$`)

// readDataScript checks a data script's form and decodes its value.
func readDataScript(t *testing.T, b []byte, into any) string {
	t.Helper()
	m := dataScriptForm.FindSubmatch(b)
	if m == nil {
		t.Fatalf("not a data script: %.200q", b)
	}
	if strings.Contains(string(m[2]), "<") {
		t.Errorf("data script holds a raw <: %.200q", m[2])
	}
	var key string
	if err := json.Unmarshal(m[1], &key); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(m[2], into); err != nil {
		t.Fatalf("data script %s: %v", key, err)
	}
	return key
}

// sampleRelease evaluates the sample once for the tests that derive
// their expectations from the results.
var sampleRelease = sync.OnceValues(func() (*evaluator.Release, error) {
	return evaluator.EvaluateDir(sampleData, evaluator.Options{KeepOutputs: true})
})

func release(t *testing.T) *evaluator.Release {
	t.Helper()
	rel, err := sampleRelease()
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func failingIDs(rel *evaluator.Release, s *evaluator.Snapshot, keep func(c *suite.Case) bool) []string {
	var ids []string
	for i, c := range rel.Suite.Cases {
		if !s.Result.Cases[i].Passed && keep(c) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// TestWhyThisDecision checks that each snapshot page lists exactly its
// failing gates at the top, each with the cases the results say drive it.
func TestWhyThisDecision(t *testing.T) {
	rel := release(t)
	dir := builtSample(t)
	for _, s := range rel.Snapshots {
		t.Run(s.Label(), func(t *testing.T) {
			doc := parsePage(t, dir, pages.SnapshotPath(s.Label()))
			why := findAll(doc, sel("section", class("why")))
			if len(why) != 1 {
				t.Fatalf("%d why sections, want 1", len(why))
			}
			gates := findAll(why[0], sel("div", class("why-gate")))
			var shown, want []string
			for _, n := range gates {
				shown = append(shown, attr(n, "data-gate"))
			}
			for _, gr := range s.Result.Gates {
				if !gr.Passed {
					want = append(want, gr.Gate)
				}
			}
			if !slices.Equal(shown, want) {
				t.Fatalf("why lists gates %v, the results fail %v", shown, want)
			}
			for _, n := range gates {
				var listed []string
				for _, a := range findAll(n, within(sel("ul", class("why-cases")), sel("a"))) {
					listed = append(listed, textOf(a))
				}
				var expect []string
				switch attr(n, "data-gate") {
				case "critical_failures":
					expect = failingIDs(rel, s, func(c *suite.Case) bool { return c.Severity == suite.Critical })
				case "pass_rate":
					expect = failingIDs(rel, s, func(*suite.Case) bool { return true })
				case "p95_latency_ms":
					expect = overLimitIDs(rel, s, func(o *suite.Output) *suite.Number { return o.LatencyMS }, decide.GateP95Latency)
				case "avg_cost_usd":
					expect = overLimitIDs(rel, s, func(o *suite.Output) *suite.Number { return o.CostUSD }, decide.GateAvgCost)
				}
				expect = expect[:min(len(expect), pages.WhyCasesShown)]
				if !slices.Equal(listed, expect) {
					t.Errorf("%s: lists %v, want %v", attr(n, "data-gate"), listed, expect)
				}
			}
			if len(want) == 0 && !strings.Contains(textOf(why[0]), "Every gate holds") {
				t.Errorf("a passing snapshot's why section says %q", textOf(why[0]))
			}
		})
	}
}

// overLimitIDs lists the cases whose value is over limit, largest first.
func overLimitIDs(rel *evaluator.Release, s *evaluator.Snapshot, value func(*suite.Output) *suite.Number, gate string) []string {
	limit, on := decide.DefaultGates().Limit(rel.Suite.Gate, gate)
	if !on {
		return nil
	}
	type over struct {
		id string
		v  *big.Rat
	}
	var os []over
	for i, o := range s.Outputs {
		if o != nil && value(o) != nil && value(o).Rat().Cmp(limit) > 0 {
			os = append(os, over{rel.Suite.Cases[i].ID, value(o).Rat()})
		}
	}
	slices.SortStableFunc(os, func(a, b over) int { return b.v.Cmp(a.v) })
	ids := make([]string, len(os))
	for i, o := range os {
		ids[i] = o.id
	}
	return ids
}

// TestCaseTableOrderAndMarks checks the case table: failing cases first in
// suite order, then the passing ones; failure details searchable; latency
// and cost over their limits marked, and nothing else.
func TestCaseTableOrderAndMarks(t *testing.T) {
	rel := release(t)
	dir := builtSample(t)
	latencyLimit, _ := decide.DefaultGates().Limit(rel.Suite.Gate, decide.GateP95Latency)
	costLimit, _ := decide.DefaultGates().Limit(rel.Suite.Gate, decide.GateAvgCost)
	for _, s := range rel.Snapshots {
		t.Run(s.Label(), func(t *testing.T) {
			doc := parsePage(t, dir, pages.SnapshotPath(s.Label()))
			rows := findAll(doc, within(sel("table", id("case-table")), sel("tr", func(n *html.Node) bool { return attr(n, "data-result") != "" })))
			var order []string
			for _, r := range rows {
				order = append(order, textOf(findAll(r, sel("th"))[0]))
			}
			want := append(failingIDs(rel, s, func(*suite.Case) bool { return true }), passingIDs(rel, s)...)
			if !slices.Equal(order, want) {
				t.Fatalf("row order %v, want %v", order, want)
			}
			for k, r := range rows {
				i := slices.IndexFunc(rel.Suite.Cases, func(c *suite.Case) bool { return c.ID == order[k] })
				res, o := s.Result.Cases[i], s.Outputs[i]
				for _, f := range res.Failures {
					if !strings.Contains(attr(r, "data-search"), f.Detail) {
						t.Errorf("%s: data-search %q lacks the detail %q", order[k], attr(r, "data-search"), f.Detail)
					}
				}
				cells := findAll(r, sel("td"))
				latOver, costOver := slices.Contains(strings.Fields(attr(cells[4], "class")), "over"), slices.Contains(strings.Fields(attr(cells[5], "class")), "over")
				wantLat := o != nil && o.LatencyMS != nil && o.LatencyMS.Rat().Cmp(latencyLimit) > 0
				wantCost := o != nil && o.CostUSD != nil && o.CostUSD.Rat().Cmp(costLimit) > 0
				if latOver != wantLat || costOver != wantCost {
					t.Errorf("%s: latency marked %v (want %v), cost marked %v (want %v)", order[k], latOver, wantLat, costOver, wantCost)
				}
				if wantLat && !strings.Contains(textOf(cells[4]), "over the p95 limit") {
					t.Errorf("%s: the latency mark has no words: %q", order[k], textOf(cells[4]))
				}
			}
		})
	}
}

func passingIDs(rel *evaluator.Release, s *evaluator.Snapshot) []string {
	var ids []string
	for i, c := range rel.Suite.Cases {
		if s.Result.Cases[i].Passed {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// TestDrilldownSteps checks every drilldown's previous, next and
// next-failing links against the results, found by a plain search.
func TestDrilldownSteps(t *testing.T) {
	rel := release(t)
	dir := builtSample(t)
	cases := rel.Suite.Cases
	for _, s := range rel.Snapshots {
		for i, c := range cases {
			doc := parsePage(t, dir, pages.DrilldownPath(s.Label(), c.ID))
			nav := findAll(doc, sel("nav", class("case-steps")))
			if len(nav) != 1 {
				t.Fatalf("%s in %s: %d case-steps navs", c.ID, s.Label(), len(nav))
			}
			href := func(m match) string {
				if a := findAll(nav[0], m); len(a) == 1 {
					return attr(a[0], "href")
				}
				return ""
			}
			link := func(j int) string {
				if j < 0 {
					return ""
				}
				return "../../" + pages.DrilldownPath(s.Label(), cases[j].ID)
			}
			prev, next, failing := -1, -1, -1
			if i > 0 {
				prev = i - 1
			}
			if i+1 < len(cases) {
				next = i + 1
			}
			for step := 1; step < len(cases); step++ {
				if j := (i + step) % len(cases); !s.Result.Cases[j].Passed {
					failing = j
					break
				}
			}
			checks := []struct {
				name string
				got  string
				want string
			}{
				{"previous", href(sel("a", hasAttr("rel", "prev"))), link(prev)},
				{"next", href(sel("a", hasAttr("rel", "next"))), link(next)},
				{"next failing", href(sel("a", class("next-failing"))), link(failing)},
			}
			for _, ch := range checks {
				if ch.got != ch.want {
					t.Errorf("%s in %s: %s link %q, want %q", c.ID, s.Label(), ch.name, ch.got, ch.want)
				}
			}
			raw := findAll(doc, within(sel("details", class("raw-output")), sel("code")))
			if o := s.Outputs[i]; o != nil {
				if len(raw) != 1 {
					t.Fatalf("%s in %s: no raw output", c.ID, s.Label())
				}
				var got map[string]any
				if err := json.Unmarshal([]byte(textOf(raw[0])), &got); err != nil || got["case_id"] != c.ID || got["decision"] != string(o.Decision) {
					t.Errorf("%s in %s: raw output %q (%v)", c.ID, s.Label(), textOf(raw[0]), err)
				}
			}
		}
	}
}

func TestFailingAfter(t *testing.T) {
	tests := []struct {
		results string // P passes, F fails
		want    []int
	}{
		{"", []int{}},
		{"PPP", []int{-1, -1, -1}},
		{"F", []int{-1}},
		{"FPP", []int{-1, 0, 0}},
		{"PFPF", []int{1, 3, 3, 1}},
		{"FFF", []int{1, 2, 0}},
		{"PPF", []int{2, 2, -1}},
	}
	for _, tt := range tests {
		s := &evaluator.Snapshot{Result: evaluator.Result{Label: "s"}}
		for _, r := range tt.results {
			s.Result.Cases = append(s.Result.Cases, evaluator.CaseResult{Passed: r == 'P'})
		}
		v := &pages.Model{}
		if got := v.FailingAfter(s); !slices.Equal(got, tt.want) {
			t.Errorf("failingAfter(%s) = %v, want %v", tt.results, got, tt.want)
		}
	}
}

// tableData is data/snapshots/<label>.js as the table script reads it.
type tableData struct {
	Fields []string `json:"fields"`
	Rows   [][]any  `json:"rows"`
}

// get reads the value of a field of row i by name, nil when the row
// leaves it off.
func (d tableData) get(t *testing.T, i int, name string) any {
	t.Helper()
	k := slices.Index(d.Fields, name)
	if k < 0 {
		t.Fatalf("the data names no field %q: %v", name, d.Fields)
	}
	if k >= len(d.Rows[i]) {
		return nil
	}
	return d.Rows[i][k]
}

// TestDataScripts checks the data the compare page, the matrix and large
// tables load: each file is one assignment of JSON, and what it says
// agrees with the results.
func TestDataScripts(t *testing.T) {
	rel := release(t)
	dir := builtSample(t)
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var cases render.CasesData
	if key := readDataScript(t, read(pages.CasesDataPath), &cases); key != "cases" {
		t.Errorf("cases.js assigns %q", key)
	}
	var m render.MatrixData
	if key := readDataScript(t, read(pages.MatrixDataPath), &m); key != "matrix" {
		t.Errorf("matrix.js assigns %q", key)
	}
	if m.Trials != nil || m.TrialsPassed != nil || strings.Contains(string(read(pages.MatrixDataPath)), "trials") {
		t.Errorf("the sample has no trials, yet matrix.js carries them: %v %v", m.Trials, m.TrialsPassed)
	}
	if len(cases.IDs) != len(rel.Suite.Cases) || len(m.Labels) != len(rel.Snapshots) {
		t.Fatalf("%d ids and %d labels for %d cases and %d snapshots", len(cases.IDs), len(m.Labels), len(rel.Suite.Cases), len(rel.Snapshots))
	}
	for si, s := range rel.Snapshots {
		if m.Labels[si] != s.Label() || m.Decisions[si] != string(s.Result.Decision) {
			t.Errorf("matrix snapshot %d: %s %s, want %s %s", si, m.Labels[si], m.Decisions[si], s.Label(), s.Result.Decision)
		}
		var rows tableData
		if key := readDataScript(t, read(pages.SnapshotDataPath(s.Label())), &rows); key != "snapshot:"+s.Label() {
			t.Errorf("snapshot data assigns %q", key)
		}
		if len(rows.Rows) != len(rel.Suite.Cases) {
			t.Fatalf("%s: %d data rows for %d cases", s.Label(), len(rows.Rows), len(rel.Suite.Cases))
		}
		for i, c := range rel.Suite.Cases {
			res := s.Result.Cases[i]
			letter := m.Status[si][i]
			if (letter == render.StatusPass) != res.Passed || (letter == render.StatusMissing) != pages.HasNoOutput(s, i) {
				t.Errorf("%s in %s: status %c, results say passed=%v, output present=%v", c.ID, s.Label(), letter, res.Passed, s.Outputs[i] != nil)
			}
			if cases.IDs[i] != c.ID || cases.Titles[i] != c.Title || int(cases.Severity[i]-'0') != pages.SeverityRank(c.Severity) {
				t.Errorf("case %d: %s %q %c", i, cases.IDs[i], cases.Titles[i], cases.Severity[i])
			}
			if passed := rows.get(t, i, "passed") == float64(1); passed != res.Passed || rows.get(t, i, "codes") != pages.FailureText(res.Failures) {
				t.Errorf("%s in %s: data row %v", c.ID, s.Label(), rows.Rows[i])
			}
		}
		for gi, gr := range s.Result.Gates {
			if mg := m.Gates[si][gi]; mg.Gate != gr.Gate || mg.Passed != gr.Passed {
				t.Errorf("%s gate %d: %+v, results %+v", s.Label(), gi, mg, gr)
			}
		}
	}
}

// TestTrialDataScripts builds the airline example, whose snapshots have
// no trials, three and four: the matrix carries each snapshot's k and
// passed trials per case, and each row of a snapshot with trials carries
// a string per trial, all as the results say.
func TestTrialDataScripts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	rel, err := Build(airlineData, out, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var m render.MatrixData
	readDataScript(t, read(pages.MatrixDataPath), &m)
	if len(m.Trials) != len(rel.Snapshots) || len(m.TrialsPassed) != len(rel.Snapshots) {
		t.Fatalf("matrix trials %v and %d passed lists for %d snapshots", m.Trials, len(m.TrialsPassed), len(rel.Snapshots))
	}
	flaky := 0
	for si, s := range rel.Snapshots {
		k := s.Trials()
		if m.Trials[si] != k {
			t.Errorf("%s: matrix k %d, want %d", s.Label(), m.Trials[si], k)
		}
		var rows tableData
		readDataScript(t, read(pages.SnapshotDataPath(s.Label())), &rows)
		if k == 0 {
			if m.TrialsPassed[si] != nil {
				t.Errorf("%s has no trials but the matrix lists %v", s.Label(), m.TrialsPassed[si])
			}
			for i, r := range rows.Rows {
				if len(r) != len(rows.Fields)-1 || rows.get(t, i, "trials") != nil {
					t.Errorf("%s row %d has %d members for %d fields, want every field but the trials", s.Label(), i, len(r), len(rows.Fields))
				}
			}
			continue
		}
		for i, res := range s.Result.Cases {
			if got := m.TrialsPassed[si][i]; got != res.TrialsPassed {
				t.Errorf("%s %s: matrix says %d trials passed, want %d", s.Label(), res.CaseID, got, res.TrialsPassed)
			}
			if res.Flaky() {
				flaky++
			}
			want := make([]any, k)
			for tr := 1; tr <= k; tr++ {
				var codes []string
				for _, f := range res.Failures {
					if f.Trial == tr && !slices.Contains(codes, string(f.Code)) {
						codes = append(codes, string(f.Code))
					}
				}
				want[tr-1] = strings.Join(codes, ", ")
				if len(codes) == 1 && codes[0] == "missing_output" {
					want[tr-1] = "-"
				}
			}
			if len(rows.Rows[i]) != len(rows.Fields) {
				t.Errorf("%s %s: row has %d members, want one per field (%d) with trials", s.Label(), res.CaseID, len(rows.Rows[i]), len(rows.Fields))
				continue
			}
			got, _ := rows.get(t, i, "trials").([]any)
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: trials %q, want %q", s.Label(), res.CaseID, got, want)
			}
		}
	}
	if flaky == 0 {
		t.Error("the airline example has no flaky case to carry")
	}
}

// TestLargeTableTravelsAsData builds a suite larger than a page may hold:
// the snapshot page keeps its first rows, failures first, and names the
// data scripts holding every row; the data grows linearly and is
// reported in bytes per case.
func TestLargeTableTravelsAsData(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,000-case site")
	}
	const n = 1000
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleData, data, n); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "public")
	rel, err := Build(data, out, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := rel.Snapshots[0]
	doc := parsePage(t, out, pages.SnapshotPath(s.Label()))
	tables := findAll(doc, sel("table", id("case-table")))
	if len(tables) != 1 {
		t.Fatal("no case table")
	}
	rows := findAll(tables[0], sel("tr", func(n *html.Node) bool { return attr(n, "data-result") != "" }))
	if len(rows) != pages.TableRowsInHTML {
		t.Errorf("%d rows in the page, want %d", len(rows), pages.TableRowsInHTML)
	}
	if attr(tables[0], "data-total") != fmt.Sprint(n) {
		t.Errorf("data-total %q, want %d", attr(tables[0], "data-total"), n)
	}
	failing := len(failingIDs(rel, s, func(*suite.Case) bool { return true }))
	for k, r := range rows {
		if wantFail := k < failing; (attr(r, "data-result") == "fail") != wantFail {
			t.Fatalf("row %d is %s; failing cases (%d) must come first", k, attr(r, "data-result"), failing)
		}
	}
	srcs := strings.Fields(attr(tables[0], "data-rows"))
	if len(srcs) != 2 {
		t.Fatalf("data-rows %q", attr(tables[0], "data-rows"))
	}
	var total int64
	for _, src := range srcs {
		if !dataScriptSrc.MatchString(src) {
			t.Errorf("data-rows names %q", src)
		}
		info, err := os.Stat(filepath.Join(out, "snapshots", filepath.FromSlash(src)))
		if err != nil {
			t.Fatal(err)
		}
		total += info.Size()
	}
	info, err := os.Stat(filepath.Join(out, filepath.FromSlash(pages.MatrixDataPath)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases: the table's data scripts hold %d bytes (%d a case); matrix.js %d bytes for %d snapshots", n, total, total/n, info.Size(), len(rel.Snapshots))
	if perCase := total / n; perCase > 400 {
		t.Errorf("the table data takes %d bytes a case, want at most 400", perCase)
	}
}

// TestHostileDataScripts builds the site of a suite whose free text
// carries markup and script payloads: every data script must still be one
// assignment of JSON with no "<" that could end a script element.
func TestHostileDataScripts(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	copyDir(t, sampleData, data)
	poison(t, data)
	out := filepath.Join(tmp, "public")
	if _, err := Build(data, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for p, b := range readTree(t, out) {
		if !strings.HasPrefix(p, "data/") {
			continue
		}
		n++
		var v any
		readDataScript(t, b, &v)
	}
	if n < 3 {
		t.Errorf("%d data scripts, want cases.js, matrix.js and one per snapshot", n)
	}
}
