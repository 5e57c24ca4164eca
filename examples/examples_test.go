// Package examples holds example data folders; its tests check that the
// evaluator gives each example the outcome its README works out by hand
// from the data format.
package examples

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
)

// verdicts are the hand-derived verdicts of examples/airline/README.md:
// per snapshot and case, one entry per trial (one entry without trials),
// each the failure codes of that trial in the order of the data format's
// table, "" for a trial that passes.
var airlineVerdicts = map[string]map[string][]string{
	"baseline": {
		"NA-005": {"arguments"},
		"NA-009": {"arguments"},
	},
	"retrained": {
		"NA-003": {"", "arguments", ""},
		"NA-004": {"decision tool_call forbidden_tool", "decision tool_call forbidden_tool", "decision tool_call forbidden_tool"},
		"NA-005": {"", "", "arguments"},
		"NA-009": {"arguments", "tool_call", ""},
	},
	"candidate": {
		"NA-005": {"", "decision tool_call", "", ""},
		"NA-007": {"", "", "missing_output", ""},
		"NA-009": {"", "citation", "", "tool_call"},
	},
}

// airlineTrials is k per snapshot, 0 without trials.
var airlineTrials = map[string]int{"baseline": 0, "retrained": 3, "candidate": 4}

// The gate of examples/airline, as gate.json writes it.
var (
	minPassRate      = big.NewRat(8, 10)
	maxCritical      = 0
	maxP95           = big.NewRat(3000, 1)
	minTrialPassRate = big.NewRat(1, 2)
)

// line is what the test reads of an output line itself, apart from the
// evaluator: the numbers the statistics are taken over.
type line struct {
	CaseID    string       `json:"case_id"`
	Trial     int          `json:"trial"`
	LatencyMS *json.Number `json:"latency_ms"`
	CostUSD   *json.Number `json:"cost_usd"`
}

func readLines(t *testing.T, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		var l line
		if err := d.Decode(&l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func rat(t *testing.T, n json.Number) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		t.Fatalf("not a number: %s", n)
	}
	return r
}

// outcome is what docs/data-format.md (deciding a snapshot), docs/data-format.md, "Unmeasured latency and cost; gates that are off" and docs/data-format.md, "Repeated trials" make of the hand-derived verdicts.
type outcome struct {
	passed, critical         int
	trialsPassed, trialTotal int
	p95, avgCost             *big.Rat // nil: nothing measured
	decision                 string
	flaky                    []string
}

func expectedOutcome(t *testing.T, label string, severity map[string]string, ids []string, lines []line) outcome {
	t.Helper()
	k := airlineTrials[label]
	var o outcome
	for _, id := range ids {
		trials := airlineVerdicts[label][id]
		n := max(k, 1)
		passed := n
		if trials != nil {
			passed = 0
			for _, codes := range trials {
				if codes == "" {
					passed++
				}
			}
		}
		// docs/data-format.md, "Repeated trials": a case passes when passed ÷ k ≥ min_trial_pass_rate; without
		// trials it passes when its one output does.
		casePasses := passed == n
		if k > 0 {
			casePasses = big.NewRat(int64(passed), int64(k)).Cmp(minTrialPassRate) >= 0
			o.trialsPassed += passed
			o.trialTotal += k
			if passed > 0 && passed < k {
				o.flaky = append(o.flaky, id)
			}
		}
		if casePasses {
			o.passed++
		}
		// docs/data-format.md (deciding a snapshot) and docs/data-format.md, "Repeated trials": a failed critical case, or a critical case with any
		// failed trial, is a critical failure.
		if severity[id] == "critical" && passed < n {
			o.critical++
		}
	}
	// docs/data-format.md (deciding a snapshot) nearest rank and docs/data-format.md, "Unmeasured latency and cost; gates that are off": over the measured values only.
	var lat []*big.Rat
	sum, costs := new(big.Rat), 0
	for _, l := range lines {
		if l.LatencyMS != nil {
			lat = append(lat, rat(t, *l.LatencyMS))
		}
		if l.CostUSD != nil {
			sum.Add(sum, rat(t, *l.CostUSD))
			costs++
		}
	}
	if len(lat) > 0 {
		sort.Slice(lat, func(i, j int) bool { return lat[i].Cmp(lat[j]) < 0 })
		rank := (95*len(lat) + 99) / 100 // ceil(0.95 n)
		o.p95 = lat[rank-1]
	}
	if costs > 0 {
		o.avgCost = new(big.Rat).Quo(sum, big.NewRat(int64(costs), 1))
	}
	// docs/data-format.md (deciding a snapshot) decision; max_avg_cost_usd is null, so cost decides nothing.
	switch {
	case big.NewRat(int64(o.passed), int64(len(ids))).Cmp(minPassRate) < 0 || o.critical > maxCritical:
		o.decision = "BLOCK"
	case o.p95 == nil || o.p95.Cmp(maxP95) > 0:
		o.decision = "REVIEW"
	default:
		o.decision = "PASS"
	}
	return o
}

func TestAirlineExampleOutcomes(t *testing.T) {
	rel, err := evaluator.EvaluateDir("airline", evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	// docs/data-format.md, "Provenance and order": every snapshot has recorded_at, so they are in recording
	// order, which is not the order of their labels.
	var labels []string
	for _, s := range rel.Snapshots {
		labels = append(labels, s.Label())
	}
	if want := []string{"baseline", "retrained", "candidate"}; !slices.Equal(labels, want) {
		t.Fatalf("snapshots in order %q, want %q", labels, want)
	}
	severity := map[string]string{}
	var ids []string
	for _, c := range rel.Suite.Cases {
		severity[c.ID] = string(c.Severity)
		ids = append(ids, c.ID)
	}
	// The README's summary table, which the computed outcomes must agree
	// with too: a slip in the README or in this test shows here.
	readme := map[string]struct {
		passed, critical int
		p95, avg         string
		decision         string
	}{
		"baseline":  {8, 0, "3480", "0.011", "REVIEW"},
		"retrained": {8, 1, "2900", "0.0106", "BLOCK"},
		"candidate": {10, 0, "2650", "0.009", "PASS"},
	}
	for _, s := range rel.Snapshots {
		t.Run(s.Label(), func(t *testing.T) {
			label := s.Label()
			want := expectedOutcome(t, label, severity, ids, readLines(t, filepath.Join("airline", "outputs", label+".jsonl")))
			doc := readme[label]
			if want.passed != doc.passed || want.critical != doc.critical || want.decision != doc.decision ||
				want.p95.Cmp(mustRat(doc.p95)) != 0 || want.avgCost.Cmp(mustRat(doc.avg)) != 0 {
				t.Fatalf("the data format gives %+v, the README says %+v", want, doc)
			}
			r := s.Result
			if r.CasesPassed != want.passed || r.CriticalFailures != want.critical || string(r.Decision) != want.decision {
				t.Errorf("passed %d, critical %d, decision %s; want %d, %d, %s",
					r.CasesPassed, r.CriticalFailures, r.Decision, want.passed, want.critical, want.decision)
			}
			if r.P95LatencyMS == nil || big.NewRat(int64(*r.P95LatencyMS), 1).Cmp(want.p95) != 0 {
				t.Errorf("p95 %s, want %s", show(r.P95LatencyMS), want.p95.RatString())
			}
			if r.AvgCostUSD == nil || s.Metrics.AvgCostUSD == nil || s.Metrics.AvgCostUSD.Cmp(want.avgCost) != 0 {
				t.Errorf("average cost %s, want exactly %s", show(r.AvgCostUSD), want.avgCost.RatString())
			}
			if k := airlineTrials[label]; r.Trials != k {
				t.Errorf("trials %d, want %d", r.Trials, k)
			}
			if want.trialTotal > 0 {
				if r.TrialPassRate == nil || s.Metrics.TrialPassRate == nil ||
					s.Metrics.TrialPassRate.Cmp(big.NewRat(int64(want.trialsPassed), int64(want.trialTotal))) != 0 {
					t.Errorf("trial pass rate %s, want %d/%d", show(r.TrialPassRate), want.trialsPassed, want.trialTotal)
				}
			} else if r.TrialPassRate != nil {
				t.Errorf("trial pass rate %v without trials", *r.TrialPassRate)
			}
			var flaky []string
			for i, c := range r.Cases {
				if c.Flaky() {
					flaky = append(flaky, c.CaseID)
				}
				if got, want := trialCodes(c, airlineTrials[label]), airlineVerdicts[label][ids[i]]; !slices.Equal(got, want) {
					t.Errorf("%s: failure codes by trial %q, want %q", c.CaseID, got, want)
				}
			}
			if !slices.Equal(flaky, want.flaky) {
				t.Errorf("flaky cases %q, want %q", flaky, want.flaky)
			}
			if r.Meta == nil || r.Meta.Model == "" || r.Meta.Commit == "" || r.Meta.RecordedAt == "" || r.Meta.Description == "" {
				t.Errorf("meta %+v, want every member of %s.meta.json", r.Meta, label)
			}
		})
	}
}

// show prints a number of a results file, "null" for nil.
func show(f *float64) string {
	if f == nil {
		return "null"
	}
	return fmt.Sprint(*f)
}

func mustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

// trialCodes lists a case's failure codes per trial as airlineVerdicts
// writes them; nil when every trial passed.
func trialCodes(c evaluator.CaseResult, k int) []string {
	if len(c.Failures) == 0 {
		return nil
	}
	out := make([]string, max(k, 1))
	for _, f := range c.Failures {
		t := max(f.Trial, 1) - 1
		if t >= len(out) {
			return []string{fmt.Sprintf("failure in trial %d of %d", f.Trial, k)}
		}
		out[t] = strings.TrimSpace(out[t] + " " + string(f.Code))
	}
	return out
}

func TestMinimalExampleOutcome(t *testing.T) {
	rel, err := evaluator.EvaluateDir("minimal", evaluator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Snapshots) != 1 {
		t.Fatalf("%d snapshots, want 1", len(rel.Snapshots))
	}
	r := rel.Snapshots[0].Result
	// examples/minimal/README.md: every case passes (citations are not
	// judged without POLICY.md); no cost was measured, so the cost gate,
	// which is on, fails: REVIEW.
	if r.CasesPassed != 3 || r.CriticalFailures != 0 || r.P95LatencyMS == nil || *r.P95LatencyMS != 450 || r.AvgCostUSD != nil || r.Decision != "REVIEW" {
		t.Errorf("minimal: %d passed, %d critical, p95 %s, cost %s, %s; want 3, 0, 450, null, REVIEW",
			r.CasesPassed, r.CriticalFailures, show(r.P95LatencyMS), show(r.AvgCostUSD), r.Decision)
	}
	if r.Meta != nil || r.Trials != 0 {
		t.Errorf("minimal has no meta.json and no trials: meta %+v, trials %d", r.Meta, r.Trials)
	}
}
