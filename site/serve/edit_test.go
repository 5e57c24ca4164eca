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
	"testing"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/load"
)

// ruleHeading finds the rule headings of the sample's POLICY.md.
var ruleHeading = regexp.MustCompile(`(?m)^### (ER-2026\.10 §[0-9.]+) .*$`)

// randomEditor makes random edits of one kind to a data folder, each of
// which leaves it valid, and says which file it changed.
type randomEditor struct {
	t     *testing.T
	rng   *rand.Rand
	data  string
	added int // rules added so far
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

// edit makes one random edit and returns the change it means.
func (e *randomEditor) edit() change {
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
			data := generateSuite(t, 36)
			b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
			if _, err := b.build(changeSet{}); err != nil {
				t.Fatal(err)
			}
			e := &randomEditor{t: t, rng: rand.New(rand.NewPCG(seed, 15)), data: data}
			for step := range steps {
				var ch changeSet
				for range 1 + e.rng.IntN(3)/2 {
					ch.Add(e.edit())
				}
				if _, err := b.build(ch); err != nil {
					t.Fatalf("step %d (%q): %v", step, ch.Names, err)
				}
				sameAsBuild(t, b.files.all(), data)
				if t.Failed() {
					t.Fatalf("step %d (%q): the served site differs from a full build", step, ch.Names)
				}
			}
		})
	}
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
			got, err := withGate(data, before)
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
	if _, err := withGate(data, before); err == nil {
		t.Error("a missing gate.json accepted")
	}
}
