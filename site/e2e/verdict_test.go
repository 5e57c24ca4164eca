//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/releasegate/releasegate/evaluator/stats"
)

// evidenceViewports are a laptop's and a phone's first screen, set
// before the page loads and never changed after.
var evidenceViewports = []viewport{{"1366x768", 1366, 768, false}, {"390x844", 390, 844, true}}

type firstScreen struct {
	Width     int64    `json:"width"`
	Height    int64    `json:"height"`
	Rate      string   `json:"rate"`
	RateEnd   float64  `json:"rateEnd"`
	Versus    []string `json:"versus"`
	VersusEnd float64  `json:"versusEnd"`
	Folded    bool     `json:"folded"`
	Numbers   string   `json:"numbers"`
}

const firstScreenJS = `(() => {
	const ev = document.querySelector("#verdict .evidence");
	const rate = ev.querySelector(".evidence-rate"), versus = [...ev.querySelectorAll(".evidence-versus")];
	const d = ev.querySelector("details.evidence-numbers");
	return {width: window.innerWidth, height: window.innerHeight,
		rate: rate.textContent, rateEnd: rate.getBoundingClientRect().bottom,
		versus: versus.map(v => v.textContent.replace(/\s+/g, " ").trim()),
		versusEnd: versus.length ? versus[versus.length - 1].getBoundingClientRect().bottom : 0,
		folded: !!d && !d.open, numbers: d ? d.textContent : ""};
})()`

// TestVerdictSaysHowSure: on the overview's first screen, at a laptop's
// and a phone's size, the verdict says how sure the pass rate is and
// whether the latest change could be chance, in words; the test names
// and p-values are folded one click deeper. Screenshots of each are
// saved for people to look at.
func TestVerdictSaysHowSure(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	noise, err := noiseSite()
	if err != nil {
		t.Fatal(err)
	}
	dir := screenshotDir(t)
	t.Logf("screenshots in %s", dir)
	for _, site := range []struct {
		name   string
		s      served
		rate   string
		versus []string
	}{
		{"sample", serveHTTP(t, shared.sampleSite(t)), "12 of 12 cases passed; 95% sure the true pass rate is above 75.8%.",
			[]string{"Against candidate-v2 (the previous snapshot): 1 fixed and 0 regressed, which could be chance."}},
		{"noise", serveHTTP(t, noise), "59 of 80 cases passed; 95% sure the true pass rate is between 63.2% and 82.1%.",
			[]string{"Against run-b (the previous snapshot): 3 fixed and 13 regressed, which is unlikely to be chance.",
				"Against run-a (the baseline): 1 fixed and 14 regressed, which is unlikely to be chance."}},
	} {
		for _, vp := range evidenceViewports {
			t.Run(site.name+"/"+vp.name, func(t *testing.T) {
				tb := openAt(t, site.s, vp, "light", "index.html")
				got, err := eval[firstScreen](tb, firstScreenJS)
				if err != nil {
					t.Fatal(err)
				}
				if got.Width != vp.width || got.Height != vp.height {
					t.Errorf("the window is %dx%d, want %dx%d", got.Width, got.Height, vp.width, vp.height)
				}
				if got.Rate != site.rate {
					t.Errorf("pass rate in words %q, want %q", got.Rate, site.rate)
				}
				if strings.Join(got.Versus, "|") != strings.Join(site.versus, "|") {
					t.Errorf("comparisons %q, want %q", got.Versus, site.versus)
				}
				if got.RateEnd > float64(vp.height) || got.VersusEnd > float64(vp.height) {
					t.Errorf("the evidence ends at %.0f/%.0f px, below the first screen of %d px", got.RateEnd, got.VersusEnd, vp.height)
				}
				if !got.Folded || !strings.Contains(got.Numbers, "McNemar") || !strings.Contains(got.Numbers, "Wilson") {
					t.Errorf("the numbers are not folded one click deeper: %q", got.Numbers)
				}
				saveShot(t, tb, filepath.Join(dir, "verdict-"+site.name+"-"+vp.name+".png"))
				for _, p := range tb.log.snapshot().problems() {
					t.Error(p)
				}
			})
		}
	}
}

// saveShot writes the viewport's screenshot to path.
func saveShot(t *testing.T, tb *tab, path string) {
	t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

type intervalChart struct {
	Box       rect     `json:"box"`
	Others    []rect   `json:"others"`
	Drawn     bool     `json:"drawn"`
	Types     []string `json:"types"`
	Whiskers  [][]any  `json:"whiskers"`
	Points    []any    `json:"points"`
	Caption   string   `json:"caption"`
	ScrollTop float64  `json:"scrollTop"`
}

const intervalChartJS = `new Promise(done => {
	const fig = document.getElementById("trend_pass_rate").closest("figure");
	fig.scrollIntoView({block: "start"});
	requestAnimationFrame(() => requestAnimationFrame(() => {
		const r = el => { const b = el.getBoundingClientRect(); return {Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom}; };
		const box = document.getElementById("trend_pass_rate");
		const chart = echarts.getInstanceByDom(box);
		const series = chart ? chart.getOption().series : [];
		done({box: r(box), others: [...document.querySelectorAll(".trend-grid figure")].filter(f => f !== fig).map(r),
			drawn: !!box.querySelector("canvas"), types: series.map(s => s.type),
			whiskers: series.length > 1 ? series[1].data.map(d => d && d.value !== undefined ? d.value : d) : [],
			points: series.length ? series[0].data.map(d => d && d.value !== undefined ? d.value : d) : [],
			caption: fig.querySelector("figcaption").textContent, scrollTop: window.scrollY});
	}));
})`

// TestIntervalChart: the overview's pass-rate chart draws each
// snapshot's interval from the results files as a whisker, at a size
// that fits, beside the other trend charts without touching them.
func TestIntervalChart(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	dir := screenshotDir(t)
	s := serveHTTP(t, shared.sampleSite(t))
	labels := []string{"baseline-v1", "candidate-v2", "candidate-v3"}
	for _, vp := range evidenceViewports {
		t.Run(vp.name, func(t *testing.T) {
			tb := openAt(t, s, vp, "light", "index.html")
			got, err := eval[intervalChart](tb, intervalChartJS)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Drawn || strings.Join(got.Types, " ") != "line boxplot" {
				t.Fatalf("chart drawn %v with series %v", got.Drawn, got.Types)
			}
			if w, h := got.Box.Right-got.Box.Left, got.Box.Bottom-got.Box.Top; w < 250 || h < 180 || got.Box.Left < 0 || got.Box.Right > float64(vp.width) {
				t.Errorf("the chart box is %v in a %d px window", got.Box, vp.width)
			}
			for _, o := range got.Others {
				if got.Box.overlaps(o) {
					t.Errorf("the chart %v overlaps its neighbour %v", got.Box, o)
				}
			}
			if !strings.Contains(got.Caption, "95% interval") {
				t.Errorf("caption %q", got.Caption)
			}
			for i, label := range labels {
				r := readResults(t, s.dir, label)
				var iv struct {
					Interval [2]float64 `json:"pass_rate_interval"`
				}
				b, _ := os.ReadFile(filepath.Join(s.dir, "results", label+".json"))
				if err := json.Unmarshal(b, &iv); err != nil {
					t.Fatal(err)
				}
				w := got.Whiskers[i]
				if len(w) != 5 || math.Abs(w[0].(float64)-iv.Interval[0]*100) > 1e-9 || math.Abs(w[4].(float64)-iv.Interval[1]*100) > 1e-9 {
					t.Errorf("%s (%s): whisker %v, want %v ×100", label, r.Decision, w, iv.Interval)
				}
			}
			saveShot(t, tb, filepath.Join(dir, "interval-chart-"+vp.name+".png"))
		})
	}
}

type comparedFigures struct {
	Regressions string `json:"regressions"`
	Fixes       string `json:"fixes"`
	P           string `json:"p"`
	Significant string `json:"significant"`
	Finding     string `json:"finding"`
}

// TestCompareFiguresEqualTheEvaluator: the compare page computes McNemar
// and Fisher in the browser for any two snapshots; its figures equal
// evaluator/stats' for several pairs of examples/noise, and equal the
// results files' versus_previous and versus_baseline where they exist;
// the script's tests agree with the Go ones over whole ranges.
func TestCompareFiguresEqualTheEvaluator(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	noise, err := noiseSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, noise)
	dir := screenshotDir(t)
	for _, pair := range [][2]string{{"run-a", "run-b"}, {"run-b", "run-c"}, {"run-a", "run-c"}, {"run-c", "run-a"}, {"run-c", "run-b"}} {
		t.Run(pair[0]+"-"+pair[1], func(t *testing.T) {
			a, b := readResults(t, noise, pair[0]), readResults(t, noise, pair[1])
			regressions, fixes := 0, 0
			for i := range a.Cases {
				if a.Cases[i].Passed != b.Cases[i].Passed {
					if a.Cases[i].Passed {
						regressions++
					} else {
						fixes++
					}
				}
			}
			p := stats.RoundSignificant(stats.McNemar(regressions, fixes), 6)
			tb := openAt(t, s, evidenceViewports[1], "light", "compare.html#from="+pair[0]+"&to="+pair[1])
			waitFor(t, tb, `!!document.querySelector("#compare-result .compare-evidence")`, "the comparison")
			got, err := eval[comparedFigures](tb, `(() => { const e = document.querySelector("#compare-result .compare-evidence");
				return {regressions: e.dataset.regressions, fixes: e.dataset.fixes, p: e.dataset.p, significant: e.dataset.significant,
					finding: e.querySelector(".compare-finding").textContent}; })()`)
			if err != nil {
				t.Fatal(err)
			}
			want := comparedFigures{fmt.Sprint(regressions), fmt.Sprint(fixes), fmt.Sprint(p), fmt.Sprint(stats.McNemar(regressions, fixes) < 0.05), ""}
			got.Finding, want.Finding = "", ""
			var gotP float64
			fmt.Sscan(got.P, &gotP)
			if got.Regressions != want.Regressions || got.Fixes != want.Fixes || gotP != p || got.Significant != want.Significant {
				t.Errorf("page %+v, evaluator %+v", got, want)
			}
			// Where the results file compares the same pair, the page
			// gives its figures.
			var r struct {
				Prev *struct {
					Label string  `json:"label"`
					P     float64 `json:"p_value"`
				} `json:"versus_previous"`
				Base *struct {
					Label string  `json:"label"`
					P     float64 `json:"p_value"`
				} `json:"versus_baseline"`
			}
			src, _ := os.ReadFile(filepath.Join(noise, "results", pair[1]+".json"))
			if err := json.Unmarshal(src, &r); err != nil {
				t.Fatal(err)
			}
			for _, c := range []*struct {
				Label string  `json:"label"`
				P     float64 `json:"p_value"`
			}{r.Prev, r.Base} {
				if c != nil && c.Label == pair[0] && c.P != gotP {
					t.Errorf("the page's p %v, the results file's %v", gotP, c.P)
				}
			}
			// Each case's Fisher p, as the page words it.
			notes, err := eval[map[string]string](tb, `Object.fromEntries([...document.querySelectorAll("#compare-result .case-set li[data-case]")].map(li => [li.dataset.case, li.textContent]))`)
			if err != nil {
				t.Fatal(err)
			}
			for k, text := range notes {
				var i int
				fmt.Sscan(k, &i)
				ca, cb := a.Cases[i], b.Cases[i]
				if ca.Passed == cb.Passed || ca.Trials == 0 || cb.Trials == 0 || !strings.Contains(text, "Fisher") {
					continue
				}
				wantP := stats.RoundSignificant(stats.Fisher(ca.TrialsPassed, ca.Trials, cb.TrialsPassed, cb.Trials), 6)
				if !strings.Contains(text, fmt.Sprintf("p = %v", wantP)) {
					t.Errorf("%s: %q, want p = %v", ca.ID, text, wantP)
				}
			}
			// An inconclusive pass rate says what would settle it.
			rate, err := eval[string](tb, `document.querySelector("#compare-result tr[data-gate=pass_rate]").textContent`)
			if err != nil {
				t.Fatal(err)
			}
			if settles := strings.Contains(rate, "not proven: about 3,135 cases at the same pass rate"); settles != (pair[0] == "run-b" || pair[1] == "run-b") {
				t.Errorf("the pass-rate row reads %q", rate)
			}
			saveShot(t, tb, filepath.Join(dir, "compare-"+pair[0]+"-"+pair[1]+"-390x844.png"))
			// The lists, with the numbers and the flips that could be
			// chance unfolded.
			if _, err := eval[bool](tb, `new Promise(done => {
				document.querySelectorAll("#compare-result details").forEach(d => d.open = true);
				document.querySelector("#compare-result .compare-summary").scrollIntoView({block: "start"});
				requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
			})`); err != nil {
				t.Fatal(err)
			}
			saveShot(t, tb, filepath.Join(dir, "compare-"+pair[0]+"-"+pair[1]+"-lists-390x844.png"))
			for _, p := range tb.log.snapshot().problems() {
				t.Error(p)
			}
		})
	}
	t.Run("whole ranges", func(t *testing.T) {
		tb := openAt(t, s, evidenceViewports[0], "", "compare.html")
		var mc []float64
		var pairs [][2]int
		for b := 0; b <= 60; b++ {
			for c := 0; c <= 60; c++ {
				pairs = append(pairs, [2]int{b, c})
			}
		}
		pairs = append(pairs, [2]int{1000, 1100}, [2]int{49000, 50000}, [2]int{400000, 401000}, [2]int{0, 1000000})
		src, _ := json.Marshal(pairs)
		if mc, err = eval[[]float64](tb, ``+string(src)+`.map(p => self.releasegateStats.mcnemar(p[0], p[1]))`); err != nil {
			t.Fatal(err)
		}
		for i, p := range pairs {
			if want := stats.McNemar(p[0], p[1]); !close(mc[i], want) {
				t.Errorf("McNemar(%d, %d): script %v, Go %v", p[0], p[1], mc[i], want)
			}
		}
		var tables [][4]int
		for ka := 1; ka <= 8; ka++ {
			for kb := 1; kb <= 8; kb++ {
				for x := 0; x <= ka; x++ {
					for y := 0; y <= kb; y++ {
						tables = append(tables, [4]int{x, ka, y, kb})
					}
				}
			}
		}
		src, _ = json.Marshal(tables)
		fi, err := eval[[]float64](tb, string(src)+`.map(q => self.releasegateStats.fisher(q[0], q[1], q[2], q[3]))`)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range tables {
			if want := stats.Fisher(q[0], q[1], q[2], q[3]); !close(fi[i], want) {
				t.Errorf("Fisher%v: script %v, Go %v", q, fi[i], want)
			}
		}
	})
}

// close: equal within 1e-12 relative (the two may differ in the last
// bits of a logarithm).
func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// telecomSite builds examples/telecom once per run: τ²-bench-style ids,
// trials, and no latency recorded.
var telecomSite = sync.OnceValues(func() (string, error) {
	return buildSite("../../examples/telecom", filepath.Join(shared.tmp, "telecom-site"))
})

// TestSnapshotPagesSayHowSure: a snapshot page opens with its own
// evidence, and an inconclusive one says what would settle it, on the
// first screen; a suite whose outputs record no latency says so rather
// than "no outputs". Screenshots are saved for people to look at.
func TestSnapshotPagesSayHowSure(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	noise, err := noiseSite()
	if err != nil {
		t.Fatal(err)
	}
	telecom, err := telecomSite()
	if err != nil {
		t.Fatal(err)
	}
	dir := screenshotDir(t)
	for _, page := range []struct {
		name, rel string
		s         served
		words     []string
		firstSeen string // a selector whose element must end on the first screen
	}{
		{"noise-run-b", "snapshots/run-b.html", serveHTTP(t, noise),
			[]string{"69 of 80 cases passed; 95% sure the true pass rate is between 77% and 92.1%.", "Not proven yet: about 3,135 cases at the same pass rate (3,055 more than now) would settle it."},
			".evidence-rate"},
		{"telecom-index", "index.html", serveHTTP(t, telecom),
			[]string{"5 of 6 cases passed", "n/a: no output recorded a latency", "Against model-a (the previous snapshot): 1 fixed and 1 regressed, which could be chance."},
			".evidence-versus"},
	} {
		for _, vp := range evidenceViewports {
			t.Run(page.name+"/"+vp.name, func(t *testing.T) {
				tb := openAt(t, page.s, vp, "light", page.rel)
				got, err := eval[struct {
					Text   string  `json:"text"`
					Bottom float64 `json:"bottom"`
					Scroll int64   `json:"scroll"`
				}](tb, fmt.Sprintf(`({text: document.body.textContent.replace(/\s+/g, " "), bottom: document.querySelector(%q).getBoundingClientRect().bottom,
					scroll: document.documentElement.scrollWidth})`, page.firstSeen))
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range page.words {
					if !strings.Contains(got.Text, w) {
						t.Errorf("the page lacks %q", w)
					}
				}
				if got.Bottom > float64(vp.height) {
					t.Errorf("%s ends at %.0f px, below the first screen", page.firstSeen, got.Bottom)
				}
				if got.Scroll > vp.width {
					t.Errorf("the page is %d px wide in a %d px window", got.Scroll, vp.width)
				}
				saveShot(t, tb, filepath.Join(dir, page.name+"-"+vp.name+".png"))
				for _, p := range tb.log.snapshot().problems() {
					t.Error(p)
				}
			})
		}
	}
}
