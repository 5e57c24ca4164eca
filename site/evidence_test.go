package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/site/internal/render"
	"golang.org/x/net/html"
)

// TestSiteWithEvidence builds examples/noise, whose gate.json asks for
// evidence and names a baseline, and checks that the pages and data take
// the gate against the baseline (a threshold that is a label, a gate the
// baseline itself lacks) and the inconclusive pass rate in their stride.
// How the pages explain the statistics is the pages' own business; here
// nothing may break or say what is not so.
func TestSiteWithEvidence(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build("../examples/noise", out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	// The results files are the evaluator's.
	var r struct {
		Gates []struct {
			Gate      string `json:"gate"`
			Threshold any    `json:"threshold"`
		} `json:"gates"`
		VersusBaseline *struct{ Label string } `json:"versus_baseline"`
	}
	src, err := os.ReadFile(filepath.Join(out, "results", "run-c.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(src, &r); err != nil || len(r.Gates) != 5 || r.Gates[4].Threshold != "run-a" || r.VersusBaseline == nil {
		t.Fatalf("results/run-c.json: %v %+v", err, r)
	}
	// Every snapshot lists the same gates for the compare page, the
	// baseline included.
	matrix, err := os.ReadFile(filepath.Join(out, "data", "matrix.js"))
	if err != nil {
		t.Fatal(err)
	}
	_, value, _ := strings.Cut(string(matrix), `["matrix"] = `)
	var m render.MatrixData
	if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(value), ";")), &m); err != nil {
		t.Fatal(err)
	}
	for i, gates := range m.Gates {
		if len(gates) != 5 || gates[4].Gate != "no_regression" || gates[4].Value != nil {
			t.Errorf("%s: matrix gates %+v", m.Labels[i], gates)
		}
	}
	if m.Gates[0][4].Observed != "the baseline" {
		t.Errorf("the baseline's own gate against itself: %+v", m.Gates[0][4])
	}
	// The blocked snapshot names the cases that regressed, not "no
	// outputs"; the inconclusive one is marked so, not as failed.
	doc := parsePage(t, out, "snapshots/run-c.html")
	text := textOf(doc)
	if !strings.Contains(text, "The cases that pass in the baseline and fail here:") || strings.Contains(text, "there are no outputs to measure") {
		t.Errorf("run-c does not say which cases drive its regression:\n%s", text)
	}
	for _, label := range []string{"run-a", "run-b"} {
		doc := parsePage(t, out, "snapshots/"+label+".html")
		rows := findAll(doc, sel("tr", func(n *html.Node) bool { return strings.Contains(textOf(n), "pass_rate") }))
		if len(rows) == 0 || !strings.Contains(textOf(rows[0]), "inconclusive") {
			t.Errorf("%s: the pass-rate row does not say inconclusive", label)
		}
	}
}
