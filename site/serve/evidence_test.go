package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	releasegate "github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/load"
)

// TestComparisonEditsEqualAFullBuild edits a release with a baseline, so
// that a snapshot's results depend on the snapshot before it and on the
// baseline, and checks after each rebuild that the served site is byte
// for byte a full build of the same data, and that a baseline naming no
// snapshot is refused and the last good site kept.
func TestComparisonEditsEqualAFullBuild(t *testing.T) {
	data := copyDir(t, sampleData)
	b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	if _, err := b.build(changeSet{}); err != nil {
		t.Fatal(err)
	}
	gateChange := change{Kind: suiteChanged, Name: load.GateFile}
	writeGate := func(extra string) {
		writeFile(t, filepath.Join(data, load.GateFile), []byte(`{"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.025`+extra+"}\n"))
	}
	// replaceCase gives a case of a snapshot the output line of another.
	replaceCase := func(label, id, from string) {
		t.Helper()
		p := outputsPath(data, label)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		other, err := os.ReadFile(outputsPath(data, from))
		if err != nil {
			t.Fatal(err)
		}
		find := func(lines []string) int {
			for i, l := range lines {
				if strings.Contains(l, `"case_id": "`+id+`"`) {
					return i
				}
			}
			t.Fatalf("no %s in %s", id, label)
			return -1
		}
		lines, from2 := strings.SplitAfter(string(src), "\n"), strings.SplitAfter(string(other), "\n")
		lines[find(lines)] = from2[find(from2)]
		writeFile(t, p, []byte(strings.Join(lines, "")))
	}
	steps := []struct {
		name string
		do   func() change
	}{
		// At 80 % confidence baseline-v1's 4 regressions against
		// candidate-v3 are significant (p = 0.125 < 0.2).
		{"a baseline, evidence and a confidence", func() change {
			writeGate(`, "baseline": "candidate-v3", "require_evidence": true, "confidence": 0.8`)
			return gateChange
		}},
		{"the baseline changes", func() change {
			replaceCase("candidate-v3", "ER-003", "baseline-v1")
			replaceCase("candidate-v3", "ER-004", "baseline-v1")
			return snapshotChange("candidate-v3")
		}},
		{"the first snapshot changes", func() change {
			replaceCase("baseline-v1", "ER-007", "candidate-v3")
			return snapshotChange("baseline-v1")
		}},
		{"another baseline", func() change {
			writeGate(`, "baseline": "baseline-v1"`)
			return gateChange
		}},
		{"no baseline", func() change {
			writeGate("")
			return gateChange
		}},
	}
	for _, step := range steps {
		if _, err := b.build(batchOf(step.do())); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		sameAsBuild(t, b.files.all(), data)
		if t.Failed() {
			t.Fatalf("%s: the served site differs from a full build", step.name)
		}
		if step.name == "a baseline, evidence and a confidence" {
			results := b.files.all()["results/baseline-v1.json"]
			if !bytes.Contains(results, []byte(`"gate": "no_regression"`)) || !bytes.Contains(results, []byte(`"versus_baseline"`)) {
				t.Fatalf("baseline-v1 is not compared with the baseline:\n%s", results)
			}
		}
	}
	before := b.files.all()
	writeGate(`, "baseline": "production"`)
	_, err := b.build(batchOf(gateChange))
	if err == nil || !strings.Contains(err.Error(), `gate.json:1: baseline: no snapshot is labelled "production": the snapshots are baseline-v1, candidate-v2 and candidate-v3`) {
		t.Fatalf("a baseline naming no snapshot: %v", err)
	}
	if after := b.files.all(); len(after) != len(before) || !bytes.Equal(after["results/candidate-v2.json"], before["results/candidate-v2.json"]) {
		t.Error("a refused gate.json changed the site")
	}
}
