package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/site"
)

// ruleHeading finds the rule headings of the sample's POLICY.md.
var ruleHeading = regexp.MustCompile(`(?m)^### (ER-2026\.10 §[0-9.]+) .*$`)

// randomEditor makes random edits of one kind to a data folder, each of
// which leaves it valid, and says which file it changed.
type randomEditor struct {
	t     testing.TB
	rng   *rand.Rand
	data  string
	added int // rules added so far
	cases int // cases added so far
}

func (e *randomEditor) read(name string) []byte {
	b, err := os.ReadFile(filepath.Join(e.data, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// rules lists the identifiers of the current policy's rules.
func (e *randomEditor) rules() []string {
	var ids []string
	for _, m := range ruleHeading.FindAllSubmatch(e.read(load.PolicyFile), -1) {
		ids = append(ids, string(m[1]))
	}
	return ids
}

// editLine decodes a random line of a JSON Lines file, lets edit change
// it and writes the file back.
func (e *randomEditor) editLine(name string, edit func(v map[string]any)) {
	lines := bytes.Split(bytes.TrimRight(e.read(name), "\n"), []byte("\n"))
	i := e.rng.IntN(len(lines))
	dec := json.NewDecoder(bytes.NewReader(lines[i]))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		e.t.Fatal(err)
	}
	edit(v)
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	lines[i] = b
	writeFile(e.t, filepath.Join(e.data, name), append(bytes.Join(lines, []byte("\n")), '\n'))
}

func (e *randomEditor) pick(options ...string) string { return options[e.rng.IntN(len(options))] }

// citations is a random non-empty set of current rules, now and then with
// an outdated or unknown identifier among them.
func (e *randomEditor) citations() []any {
	rules := e.rules()
	out := []any{rules[e.rng.IntN(len(rules))]}
	switch e.rng.IntN(4) {
	case 0:
		out = append(out, "ER-2026.08 §6.1")
	case 1:
		out = append(out, rules[e.rng.IntN(len(rules))])
	}
	return out
}

// lines splits a JSON Lines file of the data folder into its lines,
// each with its newline.
func (e *randomEditor) lines(name string) [][]byte {
	return bytes.SplitAfter(e.read(name), []byte("\n"))
}

// caseID is the case_id of a line of cases.jsonl or of an outputs file.
func (e *randomEditor) caseID(line []byte) string {
	var v struct {
		CaseID string `json:"case_id"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		e.t.Fatal(err)
	}
	return v.CaseID
}

// withCaseID is a line of cases.jsonl or of an outputs file for another
// case.
func (e *randomEditor) withCaseID(line []byte, id string) []byte {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		e.t.Fatal(err)
	}
	v["case_id"] = id
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	return append(b, '\n')
}

// editCaseList adds, removes or moves a case and returns the changes it
// means: a removed case's outputs are removed with it, and an added one
// now and then has an output in one snapshot.
func (e *randomEditor) editCaseList() []change {
	cases := e.lines(load.CasesFile)
	cases = cases[:len(cases)-1] // after the last newline
	labels := []string{"baseline-v1", "candidate-v2", "candidate-v3"}
	changes := []change{{Kind: suiteChanged, Name: load.CasesFile}}
	i := e.rng.IntN(len(cases))
	switch op := e.rng.IntN(3); {
	case op == 0 || len(cases) < 3:
		e.cases++
		id := fmt.Sprintf("NEW-%03d", e.cases)
		if e.rng.IntN(2) == 0 {
			label := e.pick(labels...)
			name := filepath.Join(load.OutputsDir, label+".jsonl")
			for _, line := range e.lines(name) {
				if len(line) > 0 && e.caseID(line) == e.caseID(cases[i]) {
					writeFile(e.t, filepath.Join(e.data, name), append(e.read(name), e.withCaseID(line, id)...))
					changes = append(changes, snapshotChange(label))
					break
				}
			}
		}
		cases = slices.Insert(cases, e.rng.IntN(len(cases)+1), e.withCaseID(cases[i], id))
	case op == 1:
		id := e.caseID(cases[i])
		cases = slices.Delete(cases, i, i+1)
		if _, err := os.Stat(filepath.Join(e.data, load.OutputsDir, "candidate-v4.jsonl")); err == nil {
			labels = append(labels, "candidate-v4") // see toggleSnapshot
		}
		for _, label := range labels {
			name := filepath.Join(load.OutputsDir, label+".jsonl")
			kept := slices.DeleteFunc(e.lines(name), func(line []byte) bool { return len(line) > 0 && e.caseID(line) == id })
			writeFile(e.t, filepath.Join(e.data, name), bytes.Join(kept, nil))
			changes = append(changes, snapshotChange(label))
		}
	default:
		line := cases[i]
		cases = slices.Delete(cases, i, i+1)
		cases = slices.Insert(cases, e.rng.IntN(len(cases)+1), line)
	}
	writeFile(e.t, filepath.Join(e.data, load.CasesFile), bytes.Join(cases, nil))
	return changes
}

// edit makes one random edit and returns the changes it means.
func (e *randomEditor) edit() []change {
	switch e.rng.IntN(8) {
	case 6:
		return e.editCaseList()
	case 7:
		return []change{e.toggleSnapshot()}
	}
	return []change{e.editOne()}
}

// toggleSnapshot adds a fourth snapshot, a copy of candidate-v3, or
// removes it again: every page changes.
func (e *randomEditor) toggleSnapshot() change {
	const label = "candidate-v4"
	p := filepath.Join(e.data, load.OutputsDir, label+".jsonl")
	if err := os.Remove(p); errors.Is(err, fs.ErrNotExist) {
		writeFile(e.t, p, e.read(filepath.Join(load.OutputsDir, "candidate-v3.jsonl")))
	} else if err != nil {
		e.t.Fatal(err)
	}
	return snapshotChange(label)
}

// editOne makes one random edit of one file and returns the change it
// means.
func (e *randomEditor) editOne() change {
	switch e.rng.IntN(6) {
	case 4:
		// A snapshot's meta.json: written, rewritten or removed. With a
		// recording time on every snapshot, the times order them.
		label := e.pick("baseline-v1", "candidate-v2", "candidate-v3")
		p := filepath.Join(e.data, load.OutputsDir, label+load.MetaSuffix)
		switch e.rng.IntN(4) {
		case 0:
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				e.t.Fatal(err)
			}
		case 1:
			writeFile(e.t, p, fmt.Appendf(nil, `{"recorded_at": "2026-11-%02dT09:30:00Z", "model": "m-%d"}`, 1+e.rng.IntN(3), e.rng.IntN(3)))
		default:
			writeFile(e.t, p, fmt.Appendf(nil, `{"description": "Run %d", "commit": "c%d"}`, e.rng.IntN(1000), e.rng.IntN(3)))
		}
		return change{Kind: metaChanged, Label: label, Name: filepath.ToSlash(filepath.Join(load.OutputsDir, label+load.MetaSuffix))}
	case 5:
		p := filepath.Join(e.data, load.HandoffFile)
		switch e.rng.IntN(4) {
		case 0:
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				e.t.Fatal(err)
			}
		default:
			// A sentence that names a snapshot and a decision, which the
			// overview checks against the computed ones.
			writeFile(e.t, p, fmt.Appendf(nil, "# Handoff\n\n## Decision\n\n%s is %s.\n", e.pick("baseline-v1", "candidate-v3"), e.pick("PASS", "BLOCK", "REVIEW")))
		}
		return change{Kind: handoffChanged, Name: load.HandoffFile}
	case 0:
		gate := fmt.Sprintf(`{"min_pass_rate": %s, "max_critical_failures": %d, "max_p95_latency_ms": %s, "max_avg_cost_usd": %s}`,
			e.pick("0.5", "0.75", "0.9", "1"), e.rng.IntN(3), e.pick("1000", "2500", "9000"), e.pick("0.01", "0.0125", "0.025"))
		writeFile(e.t, filepath.Join(e.data, load.GateFile), []byte(gate))
		return change{Kind: suiteChanged, Name: load.GateFile}
	case 1:
		e.editLine(load.CasesFile, func(c map[string]any) {
			switch e.rng.IntN(3) {
			case 0:
				c["title"] = fmt.Sprintf("Edited title %d", e.rng.IntN(1000))
			case 1:
				c["severity"] = e.pick("critical", "major", "minor")
			case 2:
				// Only current rules may be expected.
				rules := e.rules()
				c["expected"].(map[string]any)["citations"] = []any{rules[e.rng.IntN(len(rules))]}
			}
		})
		return change{Kind: suiteChanged, Name: load.CasesFile}
	case 2:
		policy := e.read(load.PolicyFile)
		switch e.rng.IntN(3) {
		case 0:
			// Retitle a rule.
			ms := ruleHeading.FindAllIndex(policy, -1)
			m := ms[e.rng.IntN(len(ms))]
			id := ruleHeading.FindSubmatch(policy[m[0]:m[1]])[1]
			heading := fmt.Sprintf("### %s Retitled %d", id, e.rng.IntN(1000))
			policy = append(append(append([]byte{}, policy[:m[0]]...), heading...), policy[m[1]:]...)
		case 1:
			e.added++
			policy = fmt.Appendf(policy, "\n### ER-2026.10 §%d.1 A new rule\n\nIt says something.\n", 9+e.added)
		case 2:
			policy = append(policy, "\nAnother sentence of prose.\n"...)
		}
		writeFile(e.t, filepath.Join(e.data, load.PolicyFile), policy)
		return change{Kind: suiteChanged, Name: load.PolicyFile}
	default:
		label := e.pick("baseline-v1", "candidate-v2", "candidate-v3")
		e.editLine(filepath.Join(load.OutputsDir, label+".jsonl"), func(o map[string]any) {
			switch e.rng.IntN(3) {
			case 0:
				o["cost_usd"] = json.Number(e.pick("0.001", "0.011", "0.2"))
			case 1:
				o["latency_ms"] = json.Number(e.pick("100", "2400", "5200"))
			case 2:
				o["citations"] = e.citations()
			}
		})
		return snapshotChange(label)
	}
}

// TestRandomEditsEqualAFullBuild makes random edits of every kind, one
// or a few at a time, to a generated suite and checks after each rebuild
// that the served site is byte for byte a full build of the same data.
func TestRandomEditsEqualAFullBuild(t *testing.T) {
	steps := 25
	if testing.Short() {
		steps = 10
	}
	for seed := range uint64(2) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			narrow, carried := randomEdits(t, generateSuite(t, 36), seed, steps, func(step int, rng *rand.Rand) bool {
				return step == steps-1 || rng.IntN(3) == 0
			})
			if narrow == 0 {
				t.Error("no edit of the case list rendered less than the whole site")
			}
			if carried == 0 && !testing.Short() {
				t.Error("no rebuild started with pages put off")
			}
		})
	}
}

// BenchmarkRandomEdits100kx3 makes random edits to 100,000 cases × 3
// snapshots and compares the served site with a fresh rendering after
// the last; it reports the median and slowest rebuild. Outside CI:
//
//	RELEASEGATE_BENCH_HUGE=1 go test ./site/serve -run '^$' -bench RandomEdits100kx3 -benchtime 1x
func BenchmarkRandomEdits100kx3(b *testing.B) {
	if os.Getenv("RELEASEGATE_BENCH_HUGE") == "" {
		b.Skip("set RELEASEGATE_BENCH_HUGE=1: generates and renders 100,000 cases × 3 snapshots")
	}
	data := generateSuite(b, 100_000)
	for b.Loop() {
		const steps = 10
		randomEdits(b, data, 11, steps, func(step int, _ *rand.Rand) bool { return step == steps-1 })
	}
}

// randomEdits makes steps random edits to the suite in data, rebuilding
// after each as a live server does, and compares the served site with a
// fresh rendering of the data at each step compare chooses. It returns
// how many rebuilds after cases came, went or moved rendered less than
// the whole site, and how many started from a site with pages put off.
func randomEdits(tb testing.TB, data string, seed uint64, steps int, compare func(step int, rng *rand.Rand) bool) (narrow, carried int) {
	tb.Helper()
	b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	if _, err := b.build(changeSet{}); err != nil {
		tb.Fatal(err)
	}
	e := &randomEditor{t: tb, rng: rand.New(rand.NewPCG(seed, 15)), data: data}
	var took []time.Duration
	for step := range steps {
		var ch changeSet
		for range 1 + e.rng.IntN(3)/2 {
			for _, c := range e.edit() {
				ch.Add(c)
			}
		}
		before := b.release.Suite
		if b.files.pending() > 0 {
			carried++
		}
		start := time.Now()
		out, err := b.build(ch)
		if err != nil {
			tb.Fatalf("step %d (%q): %v", step, ch.Names, err)
		}
		took = append(took, time.Since(start))
		if !sameCaseOrder(before, b.release.Suite) && !out.full {
			narrow++
		}
		// Compared now and then only, since comparing makes every page
		// put off: the others are carried into the next builds.
		if compare(step, e.rng) {
			sameAsRender(tb, b.files.all(), data)
			if tb.Failed() {
				tb.Fatalf("step %d (%q): the served site differs from a full build", step, ch.Names)
			}
		}
	}
	slices.Sort(took)
	tb.Logf("rebuilds: median %s, slowest %s", took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
	if bb, ok := tb.(*testing.B); ok {
		bb.ReportMetric(took[len(took)/2].Seconds()*1000, "median-ms")
		bb.ReportMetric(took[len(took)-1].Seconds()*1000, "slowest-ms")
	}
	return narrow, carried
}

// sameAsRender checks that served holds exactly the files a fresh
// rendering of data gives, as sameAsBuild does without writing them.
func sameAsRender(tb testing.TB, served map[string][]byte, data string) {
	tb.Helper()
	in, err := site.Load(data)
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	built := map[string][]byte{}
	err = site.Render(in, func(name string, b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		built[name] = b
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sameSite(tb, served, built)
}

// TestWithGateReadsAsLoadSuite checks that reading gate.json alone gives
// the suite a full read gives, and the same error for a bad one.
func TestWithGateReadsAsLoadSuite(t *testing.T) {
	data := copyDir(t, sampleData)
	before, err := load.Suite(data, load.Options{KeepInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(data, load.GateFile)
	for _, tc := range []struct{ name, gate string }{
		{"thresholds", `{"min_pass_rate": 0.5, "max_critical_failures": 3, "max_p95_latency_ms": null, "max_avg_cost_usd": 0.05}`},
		{"layout only", "{\n\"min_pass_rate\": 0.9,\n\"max_critical_failures\": 0,\n\"max_p95_latency_ms\": 2500,\n\"max_avg_cost_usd\": 0.025\n}\n"},
		{"bad JSON", `{"min_pass_rate": 0.5,`},
		{"unknown key", `{"min_pass_rate": 0.5, "max_critical_failures": 3, "max_p95_latency_ms": 1, "max_avg_cost_usd": 0.05, "max_fun": 1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, gate, []byte(tc.gate))
			want, wantErr := load.Suite(data, load.Options{KeepInputs: true})
			got, err := withGate(data, before, nil)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("err %v, want %v", err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("suite differs from a full read:\n%+v\nwant\n%+v", got, want)
			}
		})
	}
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}
	if _, err := withGate(data, before, nil); err == nil {
		t.Error("a missing gate.json accepted")
	}
}

// TestTrialEditsEqualAFullBuild edits a release whose snapshots hold
// repeated trials, one file at a time, and checks after each rebuild that
// the served site is byte for byte a full build of the same data: a
// drilldown shows every trial, so a change in any trial's output is one.
func TestTrialEditsEqualAFullBuild(t *testing.T) {
	data := copyDir(t, "../../examples/airline")
	b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	if _, err := b.build(changeSet{}); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, edit func([][]byte) [][]byte) {
		t.Helper()
		p := filepath.Join(data, name)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, bytes.Join(edit(bytes.SplitAfter(src, []byte("\n"))), nil))
	}
	// lineOf finds the line for a case (and trial) in lines.
	lineOf := func(lines [][]byte, id string, trial int) int {
		for i, l := range lines {
			if bytes.Contains(l, []byte(`"case_id": "`+id+`"`)) && (trial == 0 || bytes.Contains(l, fmt.Appendf(nil, `"trial": %d,`, trial))) {
				return i
			}
		}
		t.Fatalf("no line for %s, trial %d", id, trial)
		return -1
	}
	for _, step := range []struct {
		name string
		file string
		edit func([][]byte) [][]byte
		ch   []change
	}{
		{"a second trial's cost", "outputs/candidate.jsonl", func(lines [][]byte) [][]byte {
			i := lineOf(lines, "NA-003", 2)
			lines[i] = regexp.MustCompile(`"cost_usd": [0-9.]+`).ReplaceAll(lines[i], []byte(`"cost_usd": 0.0421`))
			return lines
		}, []change{snapshotChange("candidate")}},
		{"a third trial's decision", "outputs/retrained.jsonl", func(lines [][]byte) [][]byte {
			i := lineOf(lines, "NA-002", 3)
			lines[i] = regexp.MustCompile(`"decision": "[a-z_]+"`).ReplaceAll(lines[i], []byte(`"decision": "inform"`))
			return lines
		}, []change{snapshotChange("retrained")}},
		{"a case added in the middle", "cases.jsonl", func(lines [][]byte) [][]byte {
			i := lineOf(lines, "NA-004", 0)
			return slices.Insert(lines, 5, bytes.Replace(lines[i], []byte(`"NA-004"`), []byte(`"NA-100"`), 1))
		}, []change{{Kind: suiteChanged, Name: load.CasesFile}}},
		{"a case moved first", "cases.jsonl", func(lines [][]byte) [][]byte {
			i := lineOf(lines, "NA-007", 0)
			l := lines[i]
			return slices.Insert(slices.Delete(lines, i, i+1), 0, l)
		}, []change{{Kind: suiteChanged, Name: load.CasesFile}}},
		{"the added case removed", "cases.jsonl", func(lines [][]byte) [][]byte {
			i := lineOf(lines, "NA-100", 0)
			return slices.Delete(lines, i, i+1)
		}, []change{{Kind: suiteChanged, Name: load.CasesFile}}},
	} {
		edit(step.file, step.edit)
		out, err := b.build(batchOf(step.ch...))
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if out.full {
			t.Errorf("%s: every page rendered", step.name)
		}
		sameAsBuild(t, b.files.all(), data)
		if t.Failed() {
			t.Fatalf("%s: the served site differs from a full build", step.name)
		}
	}
}

// TestNewPolicyVersionEqualsAFullBuild publishes a new version of the
// sample's policy, with the cases citing its rules, and checks that the
// rebuild renders the pages that change rather than every page, and that
// the served site is byte for byte a full build of the same data.
func TestNewPolicyVersionEqualsAFullBuild(t *testing.T) {
	data := copyDir(t, sampleData)
	b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	if _, err := b.build(changeSet{}); err != nil {
		t.Fatal(err)
	}
	var ch changeSet
	for _, name := range []string{load.PolicyFile, load.CasesFile} {
		p := filepath.Join(data, name)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The outputs still cite ER-2026.10: outdated now.
		writeFile(t, p, bytes.ReplaceAll(src, []byte("ER-2026.10"), []byte("ER-2026.11")))
		ch.Add(change{Kind: suiteChanged, Name: name})
	}
	out, err := b.build(ch)
	if err != nil {
		t.Fatal(err)
	}
	if out.full {
		t.Error("every page rendered")
	}
	if got := b.release.Suite.Policy.Version; got != "ER-2026.11" {
		t.Errorf("policy version %q, want ER-2026.11", got)
	}
	sameAsBuild(t, b.files.all(), data)
}
