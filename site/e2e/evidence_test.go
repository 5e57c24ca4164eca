//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// noiseSite builds examples/noise once per run: a baseline, a gate that
// asks for proof, and trials.
var noiseSite = sync.OnceValues(func() (string, error) {
	return buildSite("../../examples/noise", filepath.Join(shared.tmp, "noise-site"))
})

// TestComparePageWithABaseline compares the baseline, which has no gate
// against itself, with a snapshot that has one, both ways: the page
// renders every gate, the extra one included, without a script error.
func TestComparePageWithABaseline(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	dir, err := noiseSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, dir)
	for _, pair := range [][2]string{{"run-a", "run-c"}, {"run-c", "run-a"}, {"run-b", "run-c"}} {
		t.Run(pair[0]+"-"+pair[1], func(t *testing.T) {
			tb := openAt(t, s, viewports[0], "", "compare.html#from="+pair[0]+"&to="+pair[1])
			gates, err := eval[[]string](tb, `Array.from(document.querySelectorAll("#compare-result tr[data-gate]")).map(r => r.dataset.gate)`)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(gates, " ") != "decision pass_rate critical_failures p95_latency_ms avg_cost_usd no_regression" {
				t.Errorf("gate rows %q", gates)
			}
			row, err := eval[string](tb, `document.querySelector("#compare-result tr[data-gate=no_regression]").textContent`)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(row, "the baseline") && pair[0] != "run-b" {
				t.Errorf("the baseline's own column reads %q", row)
			}
			for _, p := range tb.log.snapshot().problems() {
				t.Error(p)
			}
		})
	}
}
