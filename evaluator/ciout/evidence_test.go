package ciout

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
)

// noiseRelease evaluates examples/noise: trials, require_evidence and a
// baseline.
func noiseRelease(t testing.TB) *evaluator.Release {
	t.Helper()
	rel, err := evaluator.EvaluateDir("../../examples/noise", evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestEvidenceInCIOutputs: the step summary and JUnit say the interval,
// the comparisons and an inconclusive gate in words, with the tests and
// p-values behind them.
func TestEvidenceInCIOutputs(t *testing.T) {
	rel := noiseRelease(t)
	summary := string(Summary(rel))
	for _, want := range []string{
		"No policy · 80 cases · 3 snapshots.",
		"| `run-a` | 72/80 | 81.5–94.8% |",
		"**REVIEW**: the pass rate is not proven; a person should review before release. 72 of 80 cases passed; 95% sure the true pass rate is between 81.5% and 94.8%.",
		"| pass rate | 90% | at least 85% | +5 pp | **inconclusive** |",
		"Inconclusive: pass rate 90% meets the minimum of 85% but is not proven: at 95% confidence it may be as low as 81.5%; 196 cases at the same pass rate would settle it.",
		"Against run-a (the previous snapshot and the baseline): 3 fixed, 6 regressed — could be chance (p = 0.51).",
		"<details><summary>9 changed cases (9 within noise)</summary>",
		"| TK-008 | regressed | within noise (Fisher p = 1) |",
		"Against run-b (the previous snapshot): 3 fixed, 13 regressed — significant (p = 0.021).",
		"<details><summary>16 changed cases (10 significant, 6 within noise)</summary>",
		"| TK-061 | regressed | significant (Fisher p = 0.029) |",
		"**BLOCK**: the functional, safety or baseline gate failed; do not release.",
		"| regression against the baseline | p < 0.001 | no significant regression against run-a | 1 fixed, 14 regressed | **fail** |",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	var doc struct {
		Suites []struct {
			Name       string `xml:"name,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name       string `xml:"name,attr"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(JUnit(rel), &doc); err != nil {
		t.Fatal(err)
	}
	props := func(i int) map[string]string {
		m := map[string]string{}
		for _, p := range doc.Suites[i].Properties {
			m[p.Name] = p.Value
		}
		return m
	}
	a, c := props(0), props(2)
	if !strings.HasPrefix(a["gate.pass_rate"], "INCONCLUSIVE: observed 90%, at least 85%") || a["pass_rate"] != "72 of 80 cases passed; 95% sure the true pass rate is between 81.5% and 94.8%" || a["versus_previous"] != "" {
		t.Errorf("run-a properties %q", a)
	}
	if c["versus_baseline"] != "run-a: 1 fixed, 14 regressed — significant (exact McNemar p < 0.001)" || !strings.HasPrefix(c["gate.no_regression"], "FAIL: observed p < 0.001, no significant regression against run-a") {
		t.Errorf("run-c properties %q", c)
	}
	found := false
	for _, tc := range doc.Suites[2].Cases {
		if !strings.HasPrefix(tc.Name, "TK-061:") {
			continue
		}
		for _, p := range tc.Properties {
			if p.Name == "versus_previous" && p.Value == "regressed against run-b; significant (Fisher p = 0.029)" {
				found = true
			}
		}
	}
	if !found {
		t.Error("TK-061 of run-c does not carry its significant regression")
	}
}
